package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

// A FIFO is refused at once: the open does not wait for a writer (without
// O_NONBLOCK the test gives up after a minute).
func TestOpenRefusesFIFO(t *testing.T) {
	p := testutil.FIFO(t, t.TempDir(), "fifo")
	var err error
	testutil.Within(t, time.Minute, "ReadFile of a FIFO", func() { _, err = ReadFile(p, 0) })
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "FIFO") || !strings.Contains(err.Error(), p) {
		t.Fatalf("ReadFile(FIFO) = %v, want an error that says %s is a FIFO, not a regular file", err, p)
	}
}

func TestOpenRefusesDirectory(t *testing.T) {
	d := t.TempDir()
	if _, _, err := Open(d); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("Open(dir) = %v, want not a regular file (a directory)", err)
	}
}

func TestReadFileLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, max := range []int64{0, 5, 1 << 62, 1<<63 - 1} {
		if b, err := ReadFile(p, max); err != nil || string(b) != "hello" {
			t.Errorf("ReadFile(max %d) = %q, %v", max, b, err)
		}
	}
	if _, err := ReadFile(p, 4); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("ReadFile(max 4) = %v, want over the limit", err)
	}
}
