package main

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"setmatch/device/devicetest"
	"setmatch/device/spool"
	"setmatch/internal/testutil"
)

// TestDaemonStopAfterHUPBurst: a SIGTERM that follows a burst of SIGHUPs
// (systemctl reload run again and again) while a reload of a large model is
// running stops the daemon cleanly, and at once rather than after a reload
// for each SIGHUP.
func TestDaemonStopAfterHUPBurst(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	f, _ := devicetest.BenchFixture(t, "debug", "")
	p := startDaemon(t, ctx, f)
	for range 8 {
		p.signal(syscall.SIGHUP)
		time.Sleep(5 * time.Millisecond)
	}
	p.signal(syscall.SIGTERM)
	// The stop does not wait for the reload under way: well under a
	// second natively, and seconds under qemu-user.
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("setmatchd did not stop within 30 s of a SIGTERM sent after 8 SIGHUPs (%d reloads done)", strings.Count(p.stderr.String(), "msg=reloaded"))
	case <-ctx.Done():
		t.Fatal("no stop by the test's deadline")
	}
	if p.err != nil {
		t.Fatalf("setmatchd exited with %v", p.err)
	}
	p.notify.drain(t, ctx)
	if n := p.notify.count("STOPPING=1"); n != 1 {
		t.Errorf("STOPPING=1 sent %d times", n)
	}
	if n := strings.Count(p.stderr.String(), "msg=reloaded"); n > 1 {
		t.Errorf("%d reloads for a burst of SIGHUPs stopped by SIGTERM: want at most the one under way", n)
	}
}

// TestDaemonReloadThroughLinks: a model path that leads through symbolic
// links (model.smm -> current/model.smm, current -> releases/v1) reloads by
// itself when a link is swapped (current -> releases/v2, as a release
// script does) and when the file the links lead to is replaced in its own
// directory, as the model file itself replaced does; each batch after is
// decided by the new model.
func TestDaemonReloadThroughLinks(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	f := devicetest.NewFixture(t, "")
	rng := rand.New(rand.NewPCG(31, 32))
	rel := filepath.Join(f.Dir, "releases")
	for _, v := range []string{"v1", "v2"} {
		if err := os.MkdirAll(filepath.Join(rel, v), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	devicetest.WriteTinyModel(t, filepath.Join(rel, "v1", "model.smm"), false)
	devicetest.WriteTinyModel(t, filepath.Join(rel, "v2", "model.smm"), true) // alice's batches are bob's
	link := func(target, name string) {
		t.Helper()
		tmp := filepath.Join(f.Dir, ".link.tmp")
		if err := os.Symlink(target, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(f.Dir, name)); err != nil { // ln -sfn, atomically
			t.Fatal(err)
		}
	}
	link("releases/v1", "current")
	link("current/model.smm", "model.smm")
	p := startDaemon(t, ctx, f)
	reloads := func() int { return strings.Count(p.stderr.String(), "msg=reloaded") }
	decide := decider(t, ctx, f, rng)
	decide("v1.npy", "alice")

	// A reload comes 300 ms after the change: 30 s is ample under qemu-user.
	soon := func() context.Context {
		c, cancel := context.WithTimeout(ctx, 30*time.Second)
		t.Cleanup(cancel)
		return c
	}
	link("releases/v2", "current")
	testutil.WaitForCtx(t, soon(), "the reload after current was swapped", func() bool { return reloads() == 1 })
	decide("v2.npy", "bob")

	// The file the links lead to, replaced in its own directory.
	tmp := filepath.Join(rel, "v2", ".model.smm.tmp")
	devicetest.WriteTinyModel(t, tmp, false)
	if err := os.Rename(tmp, filepath.Join(rel, "v2", "model.smm")); err != nil {
		t.Fatal(err)
	}
	testutil.WaitForCtx(t, soon(), "the reload after the linked file was replaced", func() bool { return reloads() == 2 })
	decide("v2b.npy", "alice")

	// releases/v1 is no longer on the way: a change there reloads nothing.
	devicetest.WriteTinyModel(t, filepath.Join(rel, "v1", "model.smm"), true)
	time.Sleep(time.Second)
	if n := reloads(); n != 2 {
		t.Errorf("%d reloads after a change to a file the links no longer lead to, want 2", n)
	}
	p.stop()
}

// TestDaemonWatchdogOff: with daemon.watchdog = false under a unit that sets
// WatchdogSec= (the packaged one does), the daemon sends no pings and tells
// systemd not to expect them (WATCHDOG_USEC=0): systemd would otherwise kill
// it a watchdog interval after start, again at every restart.
func TestDaemonWatchdogOff(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	f := devicetest.NewFixture(t, "[daemon]\nwatchdog = false\n")
	p := startDaemon(t, ctx, f, "WATCHDOG_USEC=200000") // as systemd does with WatchdogSec=0.2s
	time.Sleep(500 * time.Millisecond)                  // two and a half intervals
	p.notify.drain(t, ctx)
	if n := p.notify.count("WATCHDOG=1"); n != 0 {
		t.Errorf("%d watchdog pings with daemon.watchdog = false", n)
	}
	if n := p.notify.count("WATCHDOG_USEC=0"); n != 1 {
		t.Errorf("WATCHDOG_USEC=0 sent %d times, want once: systemd goes on expecting pings and kills the daemon", n)
	}
	if !strings.Contains(p.stderr.String(), "daemon.watchdog = false") {
		t.Errorf("the log does not say the watchdog is off:\n%s", p.stderr)
	}
	p.stop()
}

// TestDaemonReloadFailureInStatus: a reload no one waits for (a SIGHUP sent
// by hand, a model file replaced) that the daemon refuses is said in the
// unit's status line (systemctl status) as well as in the log, until a
// reload succeeds.
func TestDaemonReloadFailureInStatus(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	f := devicetest.NewFixture(t, "")
	p := startDaemon(t, ctx, f)
	status := func() string {
		p.notify.mu.Lock()
		defer p.notify.mu.Unlock()
		for i := len(p.notify.msgs) - 1; i >= 0; i-- {
			if s, ok := strings.CutPrefix(p.notify.msgs[i], "STATUS="); ok {
				return s
			}
		}
		return ""
	}
	if err := os.WriteFile(f.Config, []byte(f.ConfigText("")+"\n[decision]\nthreshold = -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.signal(syscall.SIGHUP)
	testutil.WaitForCtx(t, ctx, "READY=1 after the reload", func() bool { return p.notify.count("READY=1") == 2 })
	p.notify.drain(t, ctx)
	if s := status(); !strings.HasPrefix(s, "reload failed") || !strings.Contains(s, "decision.threshold") || !strings.Contains(s, "keeping the configuration and model in use") {
		t.Errorf("status after a refused reload: %q, want it to say the reload failed, why, and what is kept", s)
	}
	f.WriteConfig(t, "")
	p.signal(syscall.SIGHUP)
	testutil.WaitForCtx(t, ctx, "READY=1 after the second reload", func() bool { return p.notify.count("READY=1") == 3 })
	p.notify.drain(t, ctx)
	if s := status(); !strings.HasPrefix(s, "watching ") {
		t.Errorf("status after a reload that succeeded: %q, want watching SPOOL", s)
	}
	p.stop()
}

// decider returns a function that drops a batch of alice's frames into
// the spool of the daemon running on f under name, waits until it is
// done and checks that the journal decided it as want.
func decider(t *testing.T, ctx context.Context, f *devicetest.Fixture, rng *rand.Rand) func(name, want string) {
	done := filepath.Join(f.Spool, spool.DirDone)
	return func(name, want string) {
		t.Helper()
		n := len(testutil.Names(t, done))
		f.Drop(t, name, devicetest.Batch(rng, "alice"))
		testutil.WaitForCtx(t, ctx, name, func() bool { return len(testutil.Names(t, done)) == n+1 })
		recs := devicetest.ReadJournal(t, f.Journal)
		if got := recs[len(recs)-1].Decision; got != want {
			t.Errorf("%s decided %q, want %q", name, got, want)
		}
	}
}
