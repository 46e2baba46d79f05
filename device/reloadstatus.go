package device

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"setmatch/internal/atomicfile"
	"setmatch/internal/regfile"
)

// The daemon records the outcome of its reloads in a file of the runtime
// directory systemd gives the unit (RuntimeDirectory=setmatchd, named by
// $RUNTIME_DIRECTORY), and setmatchd -reload, the unit's ExecReload=, waits
// there for the outcome of the reload its SIGHUP asked for: so systemctl
// reload returns once the daemon has reloaded, and fails with the daemon's
// reason when it refused. Without $RUNTIME_DIRECTORY (not started by the
// unit) the daemon records nothing.

// ReloadStatusFile is the name of the file, in the runtime directory, where
// the daemon records its reloads.
const ReloadStatusFile = "reload.json"

// reloadStatus is the content of ReloadStatusFile: the daemon's pid and the
// last reload of each trigger. A reload of the model file alone (after it
// changed) does not read the configuration, so it answers no SIGHUP: it
// has a place of its own and overwrites no SIGHUP reload's outcome.
type reloadStatus struct {
	PID       int            `json:"pid"`
	SIGHUP    *reloadOutcome `json:"sighup,omitempty"`
	ModelFile *reloadOutcome `json:"model_file,omitempty"`
}

// reloadOutcome is one reload's outcome.
type reloadOutcome struct {
	// StartedMonotonicNS is the CLOCK_MONOTONIC time, in nanoseconds, at
	// which the reload began; it read its files after that.
	StartedMonotonicNS int64     `json:"started_monotonic_ns"`
	Finished           time.Time `json:"finished"`
	OK                 bool      `json:"ok"`
	Model              string    `json:"model,omitempty"`
	ModelSHA256        string    `json:"model_sha256,omitempty"`
	Threshold          string    `json:"threshold,omitempty"`
	Error              string    `json:"error,omitempty"`
}

// monotonicNow returns CLOCK_MONOTONIC in nanoseconds: the clock of every
// process of the machine, which no wall-clock step moves. Linux always
// has it; were the call to fail, it returns 0 rather than stop the daemon,
// and the -reload waiting on such a record times out, saying where to look.
func monotonicNow() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return ts.Nano()
}

// runtimeDir returns the runtime directory systemd gives the unit, or "".
// RuntimeDirectory= with several names gives them all, separated by colons:
// the first is setmatchd's.
func runtimeDir() string { return firstDir(os.Getenv("RUNTIME_DIRECTORY")) }

// firstDir returns the first directory of a $RUNTIME_DIRECTORY value.
func firstDir(list string) string {
	dir, _, _ := strings.Cut(list, ":")
	return dir
}

// recordReload records the outcome of a reload triggered by what that
// started at started (monotonicNow) and ended with err.
func (d *daemonLoop) recordReload(what string, started int64, err error) {
	if d.runDir == "" {
		return
	}
	o := &reloadOutcome{StartedMonotonicNS: started, Finished: time.Now().UTC(), OK: err == nil}
	if err != nil {
		o.Error = err.Error()
	} else {
		m := d.r.Model()
		o.Model, o.ModelSHA256, o.Threshold = m.Path, m.ID(), d.r.ThresholdText()
	}
	if what == triggerSIGHUP {
		d.status.SIGHUP = o
	} else {
		d.status.ModelFile = o
	}
	d.writeStatus()
}

// writeStatus writes d.status into the runtime directory
// (writeReloadStatus). A failure is logged once until a write succeeds.
func (d *daemonLoop) writeStatus() {
	if d.runDir == "" {
		return
	}
	d.status.PID = os.Getpid()
	err := writeReloadStatus(d.runDir, &d.status)
	if err != nil && !d.statusFailed {
		d.log.Warn("cannot record the reload's outcome for setmatchd -reload (systemctl reload will wait for it in vain)", "dir", d.runDir, "err", err)
	}
	d.statusFailed = err != nil
}

// writeReloadStatus writes st as ReloadStatusFile of dir, atomically (a
// temporary file renamed over the old one): a reader sees the old content
// or the new, never a part.
func writeReloadStatus(dir string, st *reloadStatus) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ReloadStatusFile), 0o644, false, func(f *os.File) error {
		_, err := f.Write(append(b, '\n'))
		return err
	})
}

// ReloadOptions configures Reload.
type ReloadOptions struct {
	// PID is the daemon's process ($MAINPID of the unit).
	PID int
	// RuntimeDir is the daemon's runtime directory ($RUNTIME_DIRECTORY:
	// of several, separated by colons, the first, as the daemon takes).
	RuntimeDir string
	// Timeout bounds the wait; it must end before systemd's timeout for
	// ExecReload= (TimeoutStartSec= of the unit) kills the waiting process.
	Timeout time.Duration
	// Stdout gets one line on success.
	Stdout io.Writer
}

// ErrNoRuntimeDir is Reload's error without a runtime directory.
var ErrNoRuntimeDir = errors.New("-reload needs $RUNTIME_DIRECTORY, the runtime directory that systemd gives setmatchd.service " +
	"(RuntimeDirectory=setmatchd), where the daemon records its reloads: it is the unit's ExecReload=. " +
	"Run systemctl reload setmatchd; a daemon started by hand reloads on kill -HUP PID, which does not wait for the outcome")

// maxStatusBytes bounds the read of the daemon's record (a few hundred
// bytes, an error text at most a few kilobytes).
const maxStatusBytes = 1 << 20

// pollEvery is how often Reload reads the daemon's record while it waits.
const pollEvery = 20 * time.Millisecond

// Reload sends SIGHUP to the daemon opt.PID and waits for the outcome of a
// reload of its configuration and model that began after the signal was
// sent: a reload already running then read its files too early, and the
// daemon follows it with another (SIGHUPs that come during a reload make
// one reload more). It writes one line to opt.Stdout and returns nil when
// the daemon reloaded; it returns the daemon's reason when the daemon
// refused the new configuration or model, and says where to look when
// the daemon exits or gives no answer within opt.Timeout (or ctx's end).
func Reload(ctx context.Context, opt ReloadOptions) error {
	dir := firstDir(opt.RuntimeDir)
	if dir == "" {
		return ErrNoRuntimeDir
	}
	if err := CheckReloadPID(opt.PID); err != nil {
		return err
	}
	path := filepath.Join(dir, ReloadStatusFile)
	// The daemon records its pid at start, before it is ready: a record of
	// another pid that runs says that opt.PID is not the daemon (a pid
	// mistyped by hand), and a SIGHUP would end most programs. No record
	// (a daemon that could not write it says so in its log), or one of a
	// pid gone, is left to the wait.
	if st, err := readStatus(path); err == nil && st.PID != opt.PID && st.PID > 1 && syscall.Kill(st.PID, 0) != syscall.ESRCH {
		return fmt.Errorf("pid %d is not the daemon: %s records the daemon's pid, %d; no signal sent. Run systemctl reload setmatchd, which gives -reload the unit's $MAINPID",
			opt.PID, path, st.PID)
	}
	t0 := monotonicNow()
	if err := syscall.Kill(opt.PID, syscall.SIGHUP); err != nil {
		return fmt.Errorf("sending SIGHUP to the daemon (pid %d): %w", opt.PID, err)
	}
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		o, readErr := answer(path, opt.PID, t0)
		if o == nil && syscall.Kill(opt.PID, 0) == syscall.ESRCH {
			// Gone: it may have recorded the outcome just before.
			if o, readErr = answer(path, opt.PID, t0); o == nil {
				return fmt.Errorf("the daemon (pid %d) exited before it finished the reload: see journalctl -u setmatchd", opt.PID)
			}
		}
		if o != nil {
			if !o.OK {
				return fmt.Errorf("reload refused: the daemon keeps the configuration and model in use: %s", o.Error)
			}
			fmt.Fprintf(opt.Stdout, "setmatchd reloaded: model %s (sha256 %s), threshold %s\n", o.Model, o.ModelSHA256, o.Threshold)
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			msg := fmt.Sprintf("the daemon (pid %d) did not answer the reload within %v: it may still be reading a large model, or be stuck; see journalctl -u setmatchd", opt.PID, opt.Timeout)
			if readErr != nil {
				msg += fmt.Sprintf(" (its record of reloads: %v)", readErr)
			}
			return errors.New(msg)
		}
	}
}

// CheckReloadPID returns Reload's error of a pid that is no daemon's: 1
// or less (0 is what systemctl show -p MainPID prints for a unit that is
// not running); nil for any other.
func CheckReloadPID(pid int) error {
	if pid <= 1 {
		return fmt.Errorf("-reload needs the daemon's pid ($MAINPID of the unit), not %d", pid)
	}
	return nil
}

// answer returns the outcome, recorded at path, of a SIGHUP reload of the
// daemon pid that began at or after t0, or nil if there is none yet; the
// error says why the record could not be read.
func answer(path string, pid int, t0 int64) (*reloadOutcome, error) {
	st, err := readStatus(path)
	if err != nil {
		return nil, err
	}
	if st.PID != pid {
		return nil, fmt.Errorf("%s is of pid %d", path, st.PID)
	}
	if st.SIGHUP == nil || st.SIGHUP.StartedMonotonicNS < t0 {
		return nil, nil
	}
	return st.SIGHUP, nil
}

// readStatus reads the daemon's record of its reloads at path.
func readStatus(path string) (*reloadStatus, error) {
	b, err := regfile.ReadFile(path, maxStatusBytes)
	if err != nil {
		return nil, err
	}
	var st reloadStatus
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &st, nil
}
