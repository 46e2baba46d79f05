package device

import (
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"setmatch/device/devicetest"
	"setmatch/internal/testutil"
)

// TestDaemonModelReplacedDuringStart: a model file replaced while the daemon
// starts, after it has read the file (reading and preparing a large model
// takes seconds on a Pi: enroll may finish meanwhile), is reloaded once
// the daemon runs, and the batches after are decided by it.
func TestDaemonModelReplacedDuringStart(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	afterLoad = func() { devicetest.WriteTinyModel(t, f.Model, true) } // alice's batches are bob's
	defer func() { afterLoad = nil }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs testutil.LockedBuffer
	done := make(chan error, 1)
	go func() { done <- Daemon(ctx, DaemonOptions{ConfigPath: f.Config, Stderr: &logs}) }()
	// The reload comes 300 ms after the change.
	testutil.WaitFor(t, 15*time.Second, "the reload of the model replaced during the start", func() bool {
		return strings.Contains(logs.String(), "msg=reloaded")
	})
	f.Drop(t, "a.npy", devicetest.Batch(rand.New(rand.NewPCG(81, 82)), "alice"))
	testutil.WaitFor(t, 15*time.Second, "a.npy decided", func() bool { return len(devicetest.ReadJournal(t, f.Journal)) == 1 })
	if got := devicetest.ReadJournal(t, f.Journal)[0].Decision; got != "bob" {
		t.Errorf("a.npy decided %q by the model read at start, want bob by the model that replaced it", got)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the daemon did not stop")
	}
}

// TestDaemonStopDuringReload: a stop that comes while a reload reads its
// files does not wait for them, and the reload, once its files are read,
// applies nothing and says nothing: the daemon has stopped.
func TestDaemonStopDuringReload(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	started, release, loaded := make(chan struct{}), make(chan struct{}), make(chan struct{})
	reloadLoading = func() { close(started); <-release }
	reloadLoaded = func() { close(loaded) }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs testutil.LockedBuffer
	done := make(chan error, 1)
	go func() { done <- Daemon(ctx, DaemonOptions{ConfigPath: f.Config, Stderr: &logs}) }()
	testutil.WaitFor(t, 15*time.Second, "the daemon to start", func() bool { return strings.Contains(logs.String(), "msg=starting") })
	// A key that needs a restart: the reload warns of it when it applies.
	f.WriteConfig(t, "\n[daemon]\nwatchdog = false\n")
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(15 * time.Second):
		t.Fatal("no reload after SIGHUP")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(15 * time.Second):
		close(release)
		t.Fatal("the stop waited for the reload's files")
	}
	stopped := len(logs.String())
	close(release)
	select {
	case <-loaded:
	case <-time.After(15 * time.Second):
		t.Fatal("the reload did not end")
	}
	reloadLoading, reloadLoaded = nil, nil
	if after := logs.String()[stopped:]; after != "" {
		t.Errorf("the reload given up by the stop went on after the daemon stopped:\n%s", after)
	}
}
