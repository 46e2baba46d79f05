package journal

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestOpenHeld: a journal is held by one Journal at a time, in this
// process as in another. A second Open of its path is refused with an
// *InUseError that says what to do, before it changes the journal (a torn
// last line stays), and rotations do not release the lock nor move it:
// it is the lock of a file beside the journal, which rotation neither
// renames nor replaces. Once the first is closed, the second Open takes
// the journal (and repairs it).
func TestOpenHeld(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	a, err := Open(p, 1, 3) // every line after the first rotates
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	lock, err := os.Stat(LockPath(p))
	if err != nil {
		t.Fatalf("no lock file beside the journal: %v", err)
	}
	for i := 0; i < 3; i++ {
		if err := a.Append(&Record{File: "a", Decision: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(p + ".2"); err != nil {
		t.Fatalf("the journal did not rotate twice: %v", err)
	}
	if after, err := os.Stat(LockPath(p)); err != nil || !os.SameFile(lock, after) {
		t.Fatalf("rotation replaced the lock file: %v", err)
	}
	torn := []byte(`{"time":"2026`)
	if f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0); err != nil {
		t.Fatal(err)
	} else if _, err := f.Write(torn); err != nil || f.Close() != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}

	b, err := Open(p, 1, 3)
	var inUse *InUseError
	if !errors.As(err, &inUse) {
		if b != nil {
			b.Close()
		}
		t.Fatalf("second Open of a held journal: %v, want an *InUseError", err)
	}
	if inUse.Path != p {
		t.Errorf("InUseError.Path %q, want %q", inUse.Path, p)
	}
	if runtime.GOOS == "linux" && inUse.PID != os.Getpid() {
		t.Errorf("InUseError.PID %d, want this process, %d (/proc/locks)", inUse.PID, os.Getpid())
	}
	if got := Holder(p); runtime.GOOS == "linux" && got != os.Getpid() {
		t.Errorf("Holder %d, want this process, %d", got, os.Getpid())
	}
	for _, s := range []string{p, "another setmatchd", "journal of its own (journal.path)"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the error does not say %q: %v", s, err)
		}
	}
	if got, err := os.ReadFile(p); err != nil || string(got) != string(want) {
		t.Errorf("the refused Open changed the journal: %q, want %q (%v)", got, want, err)
	}

	a.Close()
	b, err = Open(p, 1, 3)
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	defer b.Close()
	if b.Repaired() != int64(len(torn)) {
		t.Errorf("the Open after Close cut off %d bytes, want the torn line's %d", b.Repaired(), len(torn))
	}
	if got := Holder(p); runtime.GOOS == "linux" && got != os.Getpid() {
		t.Errorf("Holder after the second Open %d, want this process, %d", got, os.Getpid())
	}
}
