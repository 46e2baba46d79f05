package spool

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestClaim: Claim makes nothing where cur/ is missing; it refuses a held
// spool with an *InUseError; on a free one it holds the lock, so that Open
// is refused until the file is closed, and it changes nothing in the
// spool (a reason's interrupted write stays for Open to remove).
func TestClaim(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "spool")
	if f, err := Claim(missing); f != nil || err != nil {
		t.Errorf("Claim of a missing spool: %v, %v; want no file and no error", f, err)
	}
	if _, err := os.Lstat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Claim made the missing spool (%v)", err)
	}

	sp, dir := openTemp(t, Options{})
	var iu *InUseError
	if f, err := Claim(dir); !errors.As(err, &iu) || f != nil {
		t.Errorf("Claim of a held spool: %v, %v; want an *InUseError", f, err)
	}
	sp.Close()

	tmp := filepath.Join(dir, DirFailed, DirReasons, reasonTmpPrefix+"0123")
	if err := os.WriteFile(tmp, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	f, err := Claim(dir)
	if f == nil || err != nil {
		t.Fatalf("Claim of a free spool: %v, %v; want its lock", f, err)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("Claim changed the spool: %v", err)
	}
	if sp2, err := Open(Options{Dir: dir}); !errors.As(err, &iu) {
		if sp2 != nil {
			sp2.Close()
		}
		t.Errorf("Open while Claim's file holds the lock: %v, want an *InUseError", err)
	}
	f.Close()
	sp3, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatalf("Open once Claim's file is closed: %v", err)
	}
	sp3.Close()
}

// TestOpenLock: Open given Claim's file keeps its lock: it opens where
// an Open without it is refused, holds the spool until Close, and gives it
// back then; an Open that fails closes the file.
func TestOpenLock(t *testing.T) {
	dir := t.TempDir()
	sp, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	sp.Close()
	f, err := Claim(dir)
	if f == nil || err != nil {
		t.Fatalf("Claim of a free spool: %v, %v; want its lock", f, err)
	}
	sp, err = Open(Options{Dir: dir, Lock: f})
	if err != nil {
		t.Fatalf("Open with Claim's file: %v", err)
	}
	var iu *InUseError
	if g, err := Claim(dir); !errors.As(err, &iu) || g != nil {
		t.Errorf("Claim of a spool Open took over: %v, %v; want an *InUseError", g, err)
	}
	sp.Close()
	g, err := Claim(dir)
	if g == nil || err != nil {
		t.Fatalf("Claim once the Spool is closed: %v, %v; want its lock", g, err)
	}
	// A failed Open closes the file it was given: the lock is free again.
	if sp, err := Open(Options{Lock: g}); err == nil {
		sp.Close()
		t.Fatal("Open of no directory succeeded")
	}
	if h, err := Claim(dir); h == nil || err != nil {
		t.Errorf("Claim after a failed Open with Claim's file: %v, %v; want its lock", h, err)
	} else {
		h.Close()
	}
}
