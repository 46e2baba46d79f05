package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

// TestEvalSplitFileFIFO: a split file that is a FIFO no one writes to
// reads as empty and is refused; eval waited for a writer forever.
func TestEvalSplitFileFIFO(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if code, _, errOut := runCmd("synth", "--classes", "3", "--sets", "2", "--frames", "4", "--dim", "3", "--out", data); code != 0 {
		t.Fatal(errOut)
	}
	fifo := testutil.FIFO(t, dir, "splits")
	done := make(chan string, 1)
	go func() {
		_, _, errOut := runCmd("eval", "--data", data, "--protocol", "file="+fifo, "--methods", "nn-h", "--quiet")
		done <- errOut
	}()
	select {
	case errOut := <-done:
		if !strings.Contains(errOut, "no splits") {
			t.Errorf("split file a FIFO: %q", errOut)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("eval waits for a writer of the FIFO")
	}
}
