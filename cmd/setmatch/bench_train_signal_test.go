//go:build unix

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
)

// TestBenchTrainInterrupted: setmatch bench train stopped by Ctrl-C
// (SIGINT) or SIGTERM while train runs stops train's child, removes its
// temporary folder and says it was stopped; it died at once, and left the
// folder (megabytes of data) and the child behind. Here setmatch is this
// test binary, and its train sleeps (TestMain).
func TestBenchTrainInterrupted(t *testing.T) {
	if testexec.Emulated() {
		t.Skip("child processes under qemu-user")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		tmp := t.TempDir()
		ctx := testexec.Timeout(t, 60*time.Second)
		cmd := exec.Command(os.Args[0], "bench", "train", "--sizes", "3x2x6x4")
		running := filepath.Join(t.TempDir(), "running")
		cmd.Env = append(os.Environ(), "SETMATCH_TEST_AS_MAIN=1", "SETMATCH_TEST_TRAIN_HANG="+running, "TMPDIR="+tmp)
		// A group of its own: what is left of it is killed at the end.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		testexec.Start(t, ctx, cmd)
		t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
		said := make(chan string, 1)
		go func() {
			b, _ := io.ReadAll(stderr)
			said <- string(b)
		}()
		// Signalled once train runs: its child says so by a file.
		testutil.WaitForCtx(t, ctx, "train's child to run", func() bool {
			_, err := os.Stat(running)
			return err == nil
		})
		cmd.Process.Signal(sig)
		var errOut string
		select {
		case errOut = <-said:
		case <-ctx.Done():
			t.Fatalf("%v: bench train did not end in 60 s", sig)
		}
		err = cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(errOut, "signal received: stopped after 0 of 1 sizes; the temporary folder is removed") {
			t.Errorf("%v: %v\n%s", sig, err, errOut)
		}
		if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
			t.Errorf("%v: %s left in the temporary folder", sig, entries[0].Name())
		}
	}
}
