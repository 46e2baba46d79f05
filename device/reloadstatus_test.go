package device

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeDaemon starts a process that stands for the daemon: it ignores SIGHUP
// (the test writes the daemon's record itself) unless dies is set.
func fakeDaemon(t *testing.T, dies bool) *exec.Cmd {
	t.Helper()
	script := `trap "" HUP; exec sleep 60`
	if dies {
		script = "exec sleep 60"
		if signal.Ignored(syscall.SIGHUP) {
			// A child inherits the ignored signal and no shell may reset it.
			t.Fatal("the tests run with SIGHUP ignored (under nohup?), so the process standing for the daemon cannot die of it: run them without nohup, e.g. in setsid or tmux")
		}
	}
	cmd := exec.Command("/bin/sh", "-c", script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }() // reaped: a zombie would still take signals
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	time.Sleep(100 * time.Millisecond) // the trap is set
	return cmd
}

func writeStatus(t *testing.T, dir string, st reloadStatus) {
	t.Helper()
	if err := writeReloadStatus(dir, &st); err != nil {
		t.Error(err)
	}
}

// TestReloadNeedsRuntimeDir: without $RUNTIME_DIRECTORY, -reload says what
// it needs and sends no signal.
func TestReloadNeedsRuntimeDir(t *testing.T) {
	d := fakeDaemon(t, true)
	err := Reload(context.Background(), ReloadOptions{PID: d.Process.Pid, Timeout: time.Second, Stdout: new(bytes.Buffer)})
	if !errors.Is(err, ErrNoRuntimeDir) || !strings.Contains(err.Error(), "RUNTIME_DIRECTORY") || !strings.Contains(err.Error(), "systemctl reload setmatchd") {
		t.Errorf("Reload without a runtime directory: %v", err)
	}
	if err := d.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the daemon was signalled: %v", err)
	}
}

// TestReloadWaitsForItsOwnReload: only the outcome of a SIGHUP reload of the
// pid signalled that began after the signal answers: not one that began
// before (a reload under way, or of an earlier run), not one of another
// pid, not a reload of the model file alone. The daemon's reason is
// returned when it refused.
func TestReloadWaitsForItsOwnReload(t *testing.T) {
	d := fakeDaemon(t, false)
	pid := d.Process.Pid
	dir := t.TempDir()
	before := monotonicNow()
	writeStatus(t, dir, reloadStatus{PID: pid, SIGHUP: &reloadOutcome{StartedMonotonicNS: before, OK: true}})
	go func() {
		time.Sleep(100 * time.Millisecond)
		writeStatus(t, dir, reloadStatus{PID: pid + 1, SIGHUP: &reloadOutcome{StartedMonotonicNS: monotonicNow(), OK: true}})
		time.Sleep(100 * time.Millisecond)
		writeStatus(t, dir, reloadStatus{PID: pid, SIGHUP: &reloadOutcome{StartedMonotonicNS: before, OK: true},
			ModelFile: &reloadOutcome{StartedMonotonicNS: monotonicNow(), OK: true}})
	}()
	err := Reload(context.Background(), ReloadOptions{PID: pid, RuntimeDir: dir, Timeout: time.Second, Stdout: new(bytes.Buffer)})
	if err == nil || !strings.Contains(err.Error(), "did not answer") || !strings.Contains(err.Error(), "journalctl -u setmatchd") {
		t.Errorf("Reload with no reload of its own: %v, want no answer and where to look", err)
	}

	go func() {
		time.Sleep(200 * time.Millisecond)
		writeStatus(t, dir, reloadStatus{PID: pid, SIGHUP: &reloadOutcome{StartedMonotonicNS: monotonicNow(), Error: "decision.threshold: boom"}})
	}()
	err = Reload(context.Background(), ReloadOptions{PID: pid, RuntimeDir: dir, Timeout: 10 * time.Second, Stdout: new(bytes.Buffer)})
	if err == nil || !strings.Contains(err.Error(), "decision.threshold: boom") || !strings.Contains(err.Error(), "keeps the configuration and model in use") {
		t.Errorf("Reload refused: %v, want the daemon's reason", err)
	}

	go func() {
		time.Sleep(200 * time.Millisecond)
		writeStatus(t, dir, reloadStatus{PID: pid, SIGHUP: &reloadOutcome{StartedMonotonicNS: monotonicNow(), OK: true, Model: "/m.smm", ModelSHA256: "abc", Threshold: "0.5"}})
	}()
	var out bytes.Buffer
	if err := Reload(context.Background(), ReloadOptions{PID: pid, RuntimeDir: dir, Timeout: 10 * time.Second, Stdout: &out}); err != nil {
		t.Errorf("Reload: %v", err)
	}
	if s := out.String(); !strings.Contains(s, "reloaded") || !strings.Contains(s, "/m.smm") || !strings.Contains(s, "abc") {
		t.Errorf("Reload printed %q", s)
	}
}

// TestReloadDaemonExits: a daemon that exits before it answers is said at
// once, not after the timeout.
func TestReloadDaemonExits(t *testing.T) {
	d := fakeDaemon(t, true)
	start := time.Now()
	err := Reload(context.Background(), ReloadOptions{PID: d.Process.Pid, RuntimeDir: t.TempDir(), Timeout: time.Minute, Stdout: new(bytes.Buffer)})
	if err == nil || !strings.Contains(err.Error(), "exited before") || !strings.Contains(err.Error(), "journalctl -u setmatchd") {
		t.Errorf("Reload of a daemon that exits: %v", err)
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("took %v", el)
	}
}

// TestRuntimeDir: the daemon's runtime directory is the first of
// $RUNTIME_DIRECTORY, none without it.
func TestRuntimeDir(t *testing.T) {
	t.Setenv("RUNTIME_DIRECTORY", "")
	if d := runtimeDir(); d != "" {
		t.Errorf("runtimeDir() = %q without $RUNTIME_DIRECTORY", d)
	}
	t.Setenv("RUNTIME_DIRECTORY", "/run/setmatchd:/run/other")
	if d := runtimeDir(); d != "/run/setmatchd" {
		t.Errorf("runtimeDir() = %q, want the first", d)
	}
}

// TestReloadRuntimeDirList: with several runtime directories in
// $RUNTIME_DIRECTORY (a drop-in that adds a RuntimeDirectory=), -reload
// waits in the first, where the daemon records its reloads (runtimeDir),
// not in a path made of the whole list.
func TestReloadRuntimeDirList(t *testing.T) {
	d := fakeDaemon(t, false)
	pid := d.Process.Pid
	dir := t.TempDir()
	go func() {
		time.Sleep(200 * time.Millisecond)
		writeStatus(t, dir, reloadStatus{PID: pid, SIGHUP: &reloadOutcome{StartedMonotonicNS: monotonicNow(), OK: true, Model: "/m.smm"}})
	}()
	var out bytes.Buffer
	err := Reload(context.Background(), ReloadOptions{PID: pid, RuntimeDir: dir + ":" + t.TempDir(), Timeout: 5 * time.Second, Stdout: &out})
	if err != nil || !strings.Contains(out.String(), "/m.smm") {
		t.Errorf("Reload with RUNTIME_DIRECTORY=%s:…: %v, stdout %q; want the daemon's outcome in %s", dir, err, out.String(), dir)
	}
}

// TestReloadOtherPID: a pid that is not the one the daemon recorded in the
// runtime directory (a pid mistyped by hand: the shell's, another
// program's) gets no SIGHUP, which would end most programs; the error names
// the daemon's pid.
func TestReloadOtherPID(t *testing.T) {
	other := fakeDaemon(t, true) // SIGHUP ends it
	dir := t.TempDir()
	daemonPID := fakeDaemon(t, false).Process.Pid
	writeStatus(t, dir, reloadStatus{PID: daemonPID})
	err := Reload(context.Background(), ReloadOptions{PID: other.Process.Pid, RuntimeDir: dir, Timeout: time.Second, Stdout: new(bytes.Buffer)})
	if err == nil || !strings.Contains(err.Error(), strconv.Itoa(daemonPID)) || !strings.Contains(err.Error(), "systemctl reload setmatchd") {
		t.Errorf("Reload of pid %d, the record of pid %d: %v, want the daemon's pid and what to run", other.Process.Pid, daemonPID, err)
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the other process was signalled: %v", err)
	}
}

// TestReloadStaleRecord: a record of a pid that no longer runs (a daemon
// gone, whose successor could not write its own) does not stop -reload:
// it signals the pid given and waits, as without a record.
func TestReloadStaleRecord(t *testing.T) {
	gone := exec.Command("/bin/true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	d := fakeDaemon(t, true)
	dir := t.TempDir()
	writeStatus(t, dir, reloadStatus{PID: gone.Process.Pid})
	err := Reload(context.Background(), ReloadOptions{PID: d.Process.Pid, RuntimeDir: dir, Timeout: 10 * time.Second, Stdout: new(bytes.Buffer)})
	if err == nil || !strings.Contains(err.Error(), "exited before") {
		t.Errorf("Reload with a record of a pid gone: %v, want the pid given signalled (it exits on SIGHUP)", err)
	}
}
