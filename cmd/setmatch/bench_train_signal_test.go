//go:build unix

package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"setmatch/internal/testexec"
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
		cmd.Env = append(os.Environ(), "SETMATCH_TEST_AS_MAIN=1", "SETMATCH_TEST_TRAIN_HANG=1", "TMPDIR="+tmp)
		// A group of its own: what is left of it is killed at the end.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		testexec.Start(t, ctx, cmd)
		t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
		// Signalled once train runs (with a moment for it to start).
		said := make(chan string, 1)
		go func() {
			var b strings.Builder
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				b.WriteString(sc.Text() + "\n")
				if strings.HasPrefix(sc.Text(), "bench: setmatch train ") {
					time.Sleep(300 * time.Millisecond)
					cmd.Process.Signal(sig)
				}
			}
			io.Copy(io.Discard, stderr)
			said <- b.String()
		}()
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
