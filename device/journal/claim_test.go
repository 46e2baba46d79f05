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

// TestOpenLocked: OpenLocked keeps the lock of Claim's file: it opens
// where Open is refused, holds the journal until Close, and gives it back
// then; an OpenLocked that fails closes the file.
func TestOpenLocked(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	a, err := Open(p, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	f, err := Claim(p)
	if f == nil || err != nil {
		t.Fatalf("Claim of a free journal: %v, %v; want its lock", f, err)
	}
	j, err := OpenLocked(p, 0, 1, f)
	if err != nil {
		t.Fatalf("OpenLocked with Claim's file: %v", err)
	}
	var inUse *InUseError
	if g, err := Claim(p); !errors.As(err, &inUse) || g != nil {
		t.Errorf("Claim of a journal OpenLocked took over: %v, %v; want an *InUseError", g, err)
	}
	j.Close()
	g, err := Claim(p)
	if g == nil || err != nil {
		t.Fatalf("Claim once the Journal is closed: %v, %v; want its lock", g, err)
	}
	// A failed OpenLocked closes the file it was given: the lock is free again.
	if j, err := OpenLocked("", 0, 1, g); err == nil {
		j.Close()
		t.Fatal("OpenLocked of no path succeeded")
	}
	if h, err := Claim(p); h == nil || err != nil {
		t.Errorf("Claim after a failed OpenLocked with Claim's file: %v, %v; want its lock", h, err)
	} else {
		h.Close()
	}
}
