//go:build unix

package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A journal that is a character device (/dev/null) is not locked: any
// number of daemons may write it, and no lock file is made beside it.
func TestCharDeviceNotLocked(t *testing.T) {
	a, err := Open(os.DevNull, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(os.DevNull, 0, 1)
	if err != nil {
		t.Fatalf("second Open of %s: %v", os.DevNull, err)
	}
	defer b.Close()
	if err := a.Unlocked(); err != nil {
		t.Errorf("Unlocked of %s: %v, want none (not locked by design)", os.DevNull, err)
	}
	if _, err := os.Lstat(LockPath(os.DevNull)); err == nil {
		t.Errorf("a lock file %s was made", LockPath(os.DevNull))
	}
}

// A symbolic link at the lock file's path is refused, never followed: the
// file it names is not made.
func TestLockSymlinkRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "j.jsonl")
	target := filepath.Join(dir, "elsewhere")
	if err := os.Symlink(target, LockPath(p)); err != nil {
		t.Fatal(err)
	}
	j, err := Open(p, 0, 1)
	if err == nil {
		j.Close()
		t.Fatal("Open with a symbolic link at the lock file's path succeeded")
	}
	if want := "is not a regular file"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to say %q", err, want)
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link's target was made: %v", err)
	}
}
