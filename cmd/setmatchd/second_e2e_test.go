package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/device/devicetest"
	"setmatch/device/spool"
	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
)

// TestSecondDaemonRefused: a second setmatchd on the spool of a running
// one exits 1 before it is ready, saying that another setmatchd holds the
// spool, its pid (Linux tells it) and what to do; the first goes on
// deciding batches. Once the first is killed (SIGKILL: no clean stop), a
// new daemon starts on the spool at once: the lock went with the process.
// It takes about a second natively.
func TestSecondDaemonRefused(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	f := devicetest.NewFixture(t, "")
	rng := rand.New(rand.NewPCG(41, 42))
	p := startDaemon(t, ctx, f)

	msg := startRefused(t, ctx, f.Config)
	for _, want := range []string{
		"another setmatchd", f.Spool, fmt.Sprintf("pid %d", p.cmd.Process.Pid),
		"stop it", "spool.dir",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the second setmatchd's error does not say %q:\n%s", want, msg)
		}
	}

	goesOnThenKilled(t, ctx, f, p, rng, f)
}

// TestSharedJournalRefused: a second setmatchd, on a spool of its own,
// whose journal.path is the journal a running one writes, exits 1 before
// it is ready, saying that the journal is in use, by which pid (Linux
// tells it), and to give each daemon a journal of its own; the first goes
// on writing the journal. Once the first is killed (SIGKILL), the second
// starts at once: the lock went with the process. It takes about 0.3 s
// natively.
func TestSharedJournalRefused(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	f := devicetest.NewFixture(t, "")
	g := devicetest.NewFixture(t, "")
	g.Journal = f.Journal
	g.WriteConfig(t, "")
	rng := rand.New(rand.NewPCG(43, 44))
	p := startDaemon(t, ctx, f)

	msg := startRefused(t, ctx, g.Config)
	for _, want := range []string{
		f.Journal + " is in use", "another setmatchd", fmt.Sprintf("pid %d", p.cmd.Process.Pid),
		"give each daemon a journal of its own (journal.path)",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the second setmatchd's error does not say %q:\n%s", want, msg)
		}
	}

	goesOnThenKilled(t, ctx, f, p, rng, g)
}

// goesOnThenKilled checks that p, the setmatchd running on f, goes on once
// a second was refused: a batch dropped into f's spool is decided once,
// in f's journal. Then it kills p (SIGKILL: no clean stop) and starts a
// daemon on next at once: a kill -9 leaves no stale lock.
func goesOnThenKilled(t *testing.T, ctx context.Context, f *devicetest.Fixture, p *daemonProc, rng *rand.Rand, next *devicetest.Fixture) {
	t.Helper()
	done := filepath.Join(f.Spool, spool.DirDone)
	f.Drop(t, "after.npy", devicetest.Batch(rng, "alice"))
	testutil.WaitForCtx(t, ctx, "after.npy in done/", func() bool { return len(testutil.Names(t, done)) == 1 })
	if recs := devicetest.ReadJournal(t, f.Journal); len(recs) != 1 || recs[0].File != "after.npy" || recs[0].Decision != "alice" {
		t.Errorf("journal %+v, want after.npy decided alice once", recs)
	}
	p.cmd.Process.Kill()
	<-p.done
	q := startDaemon(t, ctx, next)
	q.stop()
}

// startRefused runs setmatchd on the configuration file config and
// returns what it wrote, once it exited with status 1 before it was ready
// (READY=1, which fails the test). It has its own notify socket.
func startRefused(t *testing.T, ctx context.Context, config string) string {
	t.Helper()
	ns := newNotifySocket(t)
	cmd := daemonCommand(ctx, t, "-config", config)
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+ns.path, "RUNTIME_DIRECTORY=")
	var out testutil.LockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	testexec.Start(t, ctx, cmd)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var err error
	for waiting := true; waiting; {
		select {
		case err = <-exited:
			waiting = false
		case <-tick.C:
			if ns.count("READY=1") > 0 {
				cmd.Process.Kill()
				<-exited
				t.Fatalf("a second setmatchd started beside a running one:\n%s", out.String())
			}
		case <-ctx.Done():
			t.Fatalf("the second setmatchd neither started nor exited: %v\n%s", ctx.Err(), out.String())
		}
	}
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 {
		t.Errorf("the second setmatchd exited with %v (code %d), want 1", err, code)
	}
	return out.String()
}
