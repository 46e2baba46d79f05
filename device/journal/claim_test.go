package journal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestClaim: Claim makes nothing where the lock file is missing; it
// refuses a held journal with an *InUseError; on a free one it holds the
// lock, so that Open is refused until the file is closed, and it changes
// nothing (a torn last line stays for Open to cut off).
func TestClaim(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	if f, err := Claim(p); f != nil || err != nil {
		t.Errorf("Claim of a new journal: %v, %v; want no file and no error", f, err)
	}
	if _, err := os.Lstat(LockPath(p)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Claim made the lock file (%v)", err)
	}

	a, err := Open(p, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	var inUse *InUseError
	if f, err := Claim(p); !errors.As(err, &inUse) || f != nil {
		t.Errorf("Claim of a held journal: %v, %v; want an *InUseError", f, err)
	}
	a.Close()

	torn := []byte(`{"time":"2026`)
	if err := os.WriteFile(p, torn, 0o640); err != nil {
		t.Fatal(err)
	}
	f, err := Claim(p)
	if f == nil || err != nil {
		t.Fatalf("Claim of a free journal: %v, %v; want its lock", f, err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != string(torn) {
		t.Errorf("Claim changed the journal: %q, %v", b, err)
	}
	if b, err := Open(p, 0, 1); !errors.As(err, &inUse) {
		if b != nil {
			b.Close()
		}
		t.Errorf("Open while Claim's file holds the lock: %v, want an *InUseError", err)
	}
	f.Close()
	b, err := Open(p, 0, 1)
	if err != nil {
		t.Fatalf("Open once Claim's file is closed: %v", err)
	}
	b.Close()
}
