package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"setmatch/device"
	"setmatch/device/devicetest"
	"setmatch/internal/testutil"
)

// reloadCmd runs setmatchd -reload on p's pid with the runtime directory
// dir, as the unit's ExecReload= does, and returns its exit status, standard
// output and standard error.
func reloadCmd(t *testing.T, ctx context.Context, p *daemonProc, dir string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := daemonCommand(ctx, t, "-reload", strconv.Itoa(p.cmd.Process.Pid))
	cmd.Env = append(os.Environ(), "RUNTIME_DIRECTORY="+dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		code = ee.ExitCode()
	default:
		t.Fatalf("setmatchd -reload: %v (%v)\n%s", err, context.Cause(ctx), errb.String())
	}
	return code, out.String(), errb.String()
}

// TestReloadCommand: setmatchd -reload PID (the unit's ExecReload=) returns
// once the daemon has reloaded: exit 0 with the new model in use for the
// next batch, and exit 1 with the daemon's reason for a configuration it
// refuses, which leaves the one in use.
func TestReloadCommand(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	f := devicetest.NewFixture(t, "")
	dir := t.TempDir()
	p := startDaemon(t, ctx, f, "RUNTIME_DIRECTORY="+dir)
	var st struct{ PID int }
	if b, err := os.ReadFile(filepath.Join(dir, device.ReloadStatusFile)); err != nil {
		t.Errorf("no record of reloads at start: %v", err)
	} else if err := json.Unmarshal(b, &st); err != nil || st.PID != p.cmd.Process.Pid {
		t.Errorf("record at start: %s (%v), want pid %d", b, err, p.cmd.Process.Pid)
	}
	rng := rand.New(rand.NewPCG(41, 42))
	decide := decider(t, ctx, f, rng)
	decide("a.npy", "alice")

	// A good edit: another model file, whose alice is bob.
	f.Model = filepath.Join(f.Dir, "v2.smm")
	devicetest.WriteTinyModel(t, f.Model, true)
	f.WriteConfig(t, "")
	code, out, errs := reloadCmd(t, ctx, p, dir)
	if code != 0 || !strings.Contains(out, "reloaded") || !strings.Contains(out, f.Model) {
		t.Errorf("-reload after a good edit: exit %d, stdout %q, stderr %q; want 0 and the new model", code, out, errs)
	}
	decide("b.npy", "bob")

	// A broken edit: refused, with the reason; the configuration in use stays.
	if err := os.WriteFile(f.Config, []byte(f.ConfigText("")+"\n[decision]\nthreshold = -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = reloadCmd(t, ctx, p, dir)
	if code != 1 || !strings.Contains(errs, "decision.threshold") || !strings.Contains(errs, "keeps the configuration and model in use") {
		t.Errorf("-reload after a broken edit: exit %d, stdout %q, stderr %q; want 1 and the daemon's reason", code, out, errs)
	}
	decide("c.npy", "bob")
	p.stop()
}

// TestReloadCommandDuringReload: a -reload whose SIGHUP comes while a
// reload runs (of a large model: it takes a while) waits for the reload
// after it, which reads the files as they are once -reload began: the one
// under way may have read them before.
func TestReloadCommandDuringReload(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	f, _ := devicetest.BenchFixture(t, "debug", "")
	dir := t.TempDir()
	p := startDaemon(t, ctx, f, "RUNTIME_DIRECTORY="+dir)
	p.signal(syscall.SIGHUP)
	testutil.WaitForCtx(t, ctx, "RELOADING=1", func() bool { return p.notify.count("RELOADING=1") == 1 })
	if p.notify.count("READY=1") != 1 {
		t.Fatal("the first reload ended before -reload began: this test needs a model that takes longer to read")
	}
	code, out, errs := reloadCmd(t, ctx, p, dir)
	if code != 0 {
		t.Fatalf("-reload during a reload: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// The daemon sends READY=1 before it records the outcome that -reload
	// read: it is in the socket before the drain's mark.
	p.notify.drain(t, ctx)
	if r, ready := p.notify.count("RELOADING=1"), p.notify.count("READY=1"); r != 2 || ready != 3 {
		t.Errorf("-reload returned after %d reloads begun and %d READY=1, want 2 and 3 (start, the reload under way, its own)", r, ready)
	}
	p.stop()
}

// TestReloadCommandNeedsRuntimeDir: -reload outside the unit says what it
// needs, and signals nothing; a -timeout that is not positive is a usage
// error.
func TestReloadCommandNeedsRuntimeDir(t *testing.T) {
	t.Setenv("RUNTIME_DIRECTORY", "")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-reload", "1234567"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "$RUNTIME_DIRECTORY") {
		t.Errorf("-reload without a runtime directory: exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"-reload", "1234567", "-timeout", "0s"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "-timeout") {
		t.Errorf("-reload -timeout 0s: exit %d, %q", code, stderr.String())
	}
	// A pid that is no daemon's (systemctl show -p MainPID --value of a
	// stopped unit prints 0) is a usage error: no daemon starts instead.
	for _, pid := range []string{"0", "-1", "1"} {
		stderr.Reset()
		cfg := filepath.Join(t.TempDir(), "none.toml")
		if code := run([]string{"-reload", pid, "-config", cfg}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "pid") {
			t.Errorf("-reload %s: exit %d, %q; want 2 and that it needs the daemon's pid", pid, code, stderr.String())
		}
	}
}
