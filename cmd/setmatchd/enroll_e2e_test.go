package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/device/devicetest"
	"setmatch/device/spool"
	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
	"setmatch/setfile"
)

// setmatchTool returns the setmatch command the enrolment test runs, with
// the emulator to run it with: SETMATCH_BIN (make test-host and make
// test-arm64 build it next to the daemon), else built with go build into
// a folder of the test, only when this test binary runs natively (as the
// daemon, findDaemon).
func setmatchTool(t *testing.T) []string {
	t.Helper()
	var prefix []string
	if emu := os.Getenv("SETMATCHD_EXEC"); emu != "" {
		prefix = strings.Fields(emu)
	}
	bin := os.Getenv("SETMATCH_BIN")
	if bin != "" {
		var err error
		if bin, err = filepath.Abs(bin); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("SETMATCH_BIN: %v (make test-host and make test-arm64 build it)", err)
		}
	} else {
		gobin, err := goCommand()
		if err != nil {
			t.Fatalf("no setmatch to run: %v (set SETMATCH_BIN to a built setmatch)", err)
		}
		bin = filepath.Join(t.TempDir(), "setmatch")
		cmd := exec.Command(gobin, "build", "-o", bin, "setmatch/cmd/setmatch")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building setmatch: %v\n%s", err, out)
		}
	}
	if prefix == nil {
		var err error
		if prefix, err = emulatorFor(bin); err != nil {
			t.Fatal(err)
		}
	}
	return append(append([]string(nil), prefix...), bin)
}

// toolRun is a setmatch command running while the test goes on.
type toolRun struct {
	args []string
	out  *testutil.LockedBuffer
	errc chan error
	err  error
	done bool
}

// startTool starts setmatch (argv from setmatchTool) with args; it is
// killed when ctx ends.
func startTool(t *testing.T, ctx context.Context, argv []string, args ...string) *toolRun {
	t.Helper()
	all := append(append([]string(nil), argv...), args...)
	cmd := exec.CommandContext(ctx, all[0], all[1:]...)
	cmd.WaitDelay = 5 * time.Second
	r := &toolRun{args: args, out: &testutil.LockedBuffer{}, errc: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = r.out, r.out
	testexec.Start(t, ctx, cmd)
	go func() { r.errc <- cmd.Wait() }()
	return r
}

// finished reports whether the command has exited, failing the test if it
// failed.
func (r *toolRun) finished(t *testing.T) bool {
	t.Helper()
	if !r.done {
		select {
		case r.err = <-r.errc:
			r.done = true
			if r.err != nil {
				t.Fatalf("setmatch %s: %v\n%s", strings.Join(r.args, " "), r.err, r.out)
			}
		default:
		}
	}
	return r.done
}

// TestDaemonEnrollForget: while batches arrive, setmatch enroll adds a
// person to the running daemon's model (replacing the file atomically)
// and later setmatch forget removes another; the daemon reloads each
// model, every batch is journaled once and moved to done/, none fails,
// and the batches that arrive after each reload are decided by the new
// model: the new person recognised, the forgotten one unknown.
func TestDaemonEnrollForget(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	tool := setmatchTool(t)
	f := devicetest.NewFixture(t, "")
	rng := rand.New(rand.NewPCG(21, 22))
	dave := [2]float64{6, 6} // a fourth person, away from alice, bob and carol
	sets := t.TempDir()
	var daveSets []string
	for k := range 2 {
		p := filepath.Join(sets, fmt.Sprintf("dave-%d.npy", k+1))
		if err := setfile.WriteFile(p, devicetest.Sample(rng, dave, 20, devicetest.TinyD, 0.5)); err != nil {
			t.Fatal(err)
		}
		daveSets = append(daveSets, p)
	}
	p := startDaemon(t, ctx, f)
	done := filepath.Join(f.Spool, spool.DirDone)

	want := map[string]string{} // batch → decision, "" for any
	n := 0
	drop := func(label, decision string) {
		name := fmt.Sprintf("b%03d-%s.npy", n, label)
		n++
		x := devicetest.Batch(rng, label)
		if label == "dave" {
			x = devicetest.Sample(rng, dave, 30, devicetest.TinyD, 0.5)
		}
		f.Drop(t, name, x)
		want[name] = decision
	}
	// expect is the decision a batch of label must get once enrolled is
	// enrolled and forgotten forgotten.
	expect := func(label, enrolled, forgotten string) string {
		switch label {
		case enrolled:
			return label
		case forgotten:
			return "unknown"
		}
		return devicetest.Expected(label)
	}
	reloads := func() int { return strings.Count(p.stderr.String(), "msg=reloaded") }
	// feedWhile drops batches of the three people in turn, every 20 ms,
	// until the command has finished and the daemon has reloaded the
	// model it wrote (the decisions of these batches depend on which
	// model they met: any label is right).
	feedWhile := func(r *toolRun, reloaded int) {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		people := []string{"alice", "bob", "carol"}
		for k := 0; !r.finished(t) || reloads() < reloaded; k++ {
			select {
			case <-ctx.Done():
				t.Fatalf("waiting for setmatch %s and the reload: %v\n%s", r.args[0], context.Cause(ctx), r.out)
			case <-tick.C:
			}
			drop(people[k%3], "")
		}
	}

	for _, l := range []string{"alice", "bob", "carol", "stranger"} {
		drop(l, expect(l, "", ""))
	}
	testutil.WaitForCtx(t, ctx, "the first batches", func() bool { return len(testutil.Names(t, done)) == 4 })

	enroll := startTool(t, ctx, tool, append([]string{"enroll", "--model", f.Model, "--label", "dave"}, daveSets...)...)
	feedWhile(enroll, 1)
	for _, l := range []string{"dave", "alice", "dave", "carol", "dave", "stranger"} {
		drop(l, expect(l, "dave", ""))
	}
	before := len(want)
	testutil.WaitForCtx(t, ctx, "the batches after the enrolment", func() bool { return len(testutil.Names(t, done)) == before })

	forget := startTool(t, ctx, tool, "forget", "--model", f.Model, "--label", "carol")
	feedWhile(forget, 2)
	for _, l := range []string{"carol", "dave", "carol", "alice", "bob", "carol"} {
		drop(l, expect(l, "dave", "carol"))
	}
	testutil.WaitForCtx(t, ctx, "every batch in done/", func() bool { return len(testutil.Names(t, done)) == len(want) })
	p.stop()

	if !strings.Contains(enroll.out.String(), "8 gallery sets, 4 classes (\"dave\" is new: a person the model did not know)") || !strings.Contains(forget.out.String(), "removed every set of class carol (2)") {
		t.Errorf("setmatch enroll:\n%s\nsetmatch forget:\n%s", enroll.out, forget.out)
	}
	models := map[string]bool{}
	got := map[string]int{}
	for _, r := range devicetest.ReadJournal(t, f.Journal) {
		got[r.File]++
		models[r.Model] = true
		w, ok := want[r.File]
		switch {
		case !ok:
			t.Errorf("journal names %s, which was never dropped", r.File)
		case r.Decision == "failed":
			t.Errorf("%s failed: %s", r.File, r.Reason)
		case w != "" && r.Decision != w:
			t.Errorf("%s: decision %q, want %q (model %s)", r.File, r.Decision, w, r.Model)
		}
	}
	for name := range want {
		if got[name] != 1 {
			t.Errorf("%s journaled %d times", name, got[name])
		}
	}
	if len(models) != 3 {
		t.Errorf("the journal names %d models, want 3 (trained, enrolled, forgotten)", len(models))
	}
	for _, d := range []string{spool.DirNew, spool.DirCur, spool.DirFailed} {
		if left := devicetest.Batches(t, filepath.Join(f.Spool, d)); len(left) != 0 {
			t.Errorf("%s/ holds %v", d, left)
		}
	}
	t.Logf("%d batches, %d while enroll and forget ran", len(want), len(want)-16)
}
