package setfile

import (
	"errors"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

// TestReadFileRefusesFIFO: a FIFO named like a set file is refused at once
// (training on a data set holding one hung in the open).
func TestReadFileRefusesFIFO(t *testing.T) {
	p := testutil.FIFO(t, t.TempDir(), "s.npy")
	var err error
	testutil.Within(t, 10*time.Second, "ReadFile of a FIFO", func() { _, err = ReadFile(p, Limits{}) })
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "is not a regular file (it is a FIFO)") {
		t.Fatalf("ReadFile(FIFO) = %v, want a format error: not a regular file", err)
	}
	if _, err := ReadFile(t.TempDir()+"/d.npy", Limits{}); err == nil {
		t.Fatal("ReadFile of a missing file: no error")
	}
}
