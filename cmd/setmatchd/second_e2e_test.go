package main

import (
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

	// The second, with its own notify socket: READY=1 there is the fault.
	ns := newNotifySocket(t)
	cmd := daemonCommand(ctx, t, "-config", f.Config)
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
				t.Fatalf("a second setmatchd started on the spool of a running one:\n%s", out.String())
			}
		case <-ctx.Done():
			t.Fatalf("the second setmatchd neither started nor exited: %v\n%s", ctx.Err(), out.String())
		}
	}
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 {
		t.Errorf("the second setmatchd exited with %v (code %d), want 1", err, code)
	}
	msg := out.String()
	for _, want := range []string{
		"another setmatchd", f.Spool, fmt.Sprintf("pid %d", p.cmd.Process.Pid),
		"stop it", "spool.dir",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the second setmatchd's error does not say %q:\n%s", want, msg)
		}
	}

	// The first goes on: a batch is decided once.
	done := filepath.Join(f.Spool, spool.DirDone)
	f.Drop(t, "after.npy", devicetest.Batch(rng, "alice"))
	testutil.WaitForCtx(t, ctx, "after.npy in done/", func() bool { return len(testutil.Names(t, done)) == 1 })
	if recs := devicetest.ReadJournal(t, f.Journal); len(recs) != 1 || recs[0].File != "after.npy" || recs[0].Decision != "alice" {
		t.Errorf("journal %+v, want after.npy decided alice once", recs)
	}

	// No stale lock after a kill -9.
	p.cmd.Process.Kill()
	<-p.done
	q := startDaemon(t, ctx, f)
	q.stop()
}
