package main

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"setmatch/device/devicetest"
)

// benchModelFixture is a fixture on the benchmark model
// (devicetest.BenchModelFile, 16 MB: its reload takes a while), with no
// label pin.
func benchModelFixture(t *testing.T) *devicetest.Fixture {
	t.Helper()
	path, _ := devicetest.BenchModelFile(t)
	f := devicetest.NewFixture(t, "")
	f.Model = path
	f.WriteConfig(t, "")
	text, err := os.ReadFile(f.Config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.Config, []byte(strings.Replace(string(text), "alice = \"GPIO22\"", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDaemonStopAfterHUPBurst: a SIGTERM that follows a burst of SIGHUPs
// (systemctl reload run again and again) while a reload of a large model is
// running stops the daemon cleanly, and at once rather than after a reload
// for each SIGHUP.
func TestDaemonStopAfterHUPBurst(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	f := benchModelFixture(t)
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
