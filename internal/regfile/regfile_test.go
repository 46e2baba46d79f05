package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO is refused at once: the open does not wait for a writer (without
// O_NONBLOCK the test gives up after a minute).
func TestOpenRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(p, 0); done <- err }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("ReadFile(FIFO) still waiting after a minute")
	}
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
