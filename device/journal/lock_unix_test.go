//go:build unix

package journal

import (
	"os"
	"path/filepath"
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
	if _, err := os.Lstat(LockPath(os.DevNull)); err == nil {
		t.Errorf("a lock file %s was made", LockPath(os.DevNull))
	}
	if LockPath(os.DevNull) != filepath.Join(filepath.Dir(os.DevNull), ".null.lock") {
		t.Errorf("LockPath(%s) = %s", os.DevNull, LockPath(os.DevNull))
	}
}
