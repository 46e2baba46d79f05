// Package testexec runs child processes from tests with a deadline that
// holds even when the fork itself hangs, and runs a test again as a user
// other than root where it checks a permission (RunTestAs).
//
// Under qemu-user (make test-arm64) a forked child can get stuck before its
// exec; os/exec then blocks in Cmd.Start, before exec.CommandContext can kill
// anything, until go test's -timeout ends the whole test binary. These
// helpers wait in a separate goroutine instead, so that only the test fails,
// and says why.
package testexec

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

// OtherUser is a user and group ID of no one, for a test's child process
// that must not be root.
const OtherUser = 61003

// Start starts cmd, failing the test if Start fails or has not returned when
// ctx ends.
func Start(t testing.TB, ctx context.Context, cmd *exec.Cmd) {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- cmd.Start() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatalf("%s did not start: %v (a fork/exec that never returned; under qemu-user, see golang/go#69259)", cmd.Path, context.Cause(ctx))
	}
}

// CombinedOutput runs cmd like Cmd.CombinedOutput, failing the test if it has
// not finished when ctx ends (the child is killed then, if it started).
func CombinedOutput(t testing.TB, ctx context.Context, cmd *exec.Cmd) ([]byte, error) {
	t.Helper()
	// Written by the copying goroutines of os/exec, and read while they
	// may still run (after a timeout).
	var b testutil.LockedBuffer
	cmd.Stdout, cmd.Stderr = &b, &b
	Start(t, ctx, cmd)
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait() }()
	select {
	case err := <-errc:
		return b.Bytes(), err
	case <-ctx.Done():
		cmd.Process.Kill()
		t.Fatalf("%s did not finish: %v\n%s", cmd.Path, context.Cause(ctx), b.Bytes())
		return nil, nil
	}
}

// Emulated reports whether this test binary runs under a user-mode
// emulator: /proc/cpuinfo then describes the host's processor, not one of
// GOARCH.
func Emulated() bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	x86 := bytes.Contains(b, []byte("vendor_id"))
	switch runtime.GOARCH {
	case "amd64", "386":
		return !x86
	default:
		return x86
	}
}

// Timeout returns a context that ends after d, cancelled when the test ends.
func Timeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
