package model

import (
	"errors"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

// TestReadFileRefusesFIFO: a FIFO in the model's place is refused at once,
// as not a model file; os.Open waited for a writer forever, which wedged
// the daemon's reload (and its stop).
func TestReadFileRefusesFIFO(t *testing.T) {
	p := testutil.FIFO(t, t.TempDir(), "model.smm")
	var err error
	testutil.Within(t, 10*time.Second, "ReadFile of a FIFO", func() { _, _, err = ReadFile(p) })
	if !errors.Is(err, ErrNotModelFile) || !strings.Contains(err.Error(), "is not a regular file (it is a FIFO)") {
		t.Fatalf("ReadFile(FIFO) = %v, want not a model file: not a regular file", err)
	}
}
