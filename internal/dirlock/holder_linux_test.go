package dirlock

import (
	"os"
	"testing"
)

// Linux names the process that holds a folder's lock, and none for a
// folder that no one holds.
func TestHolder(t *testing.T) {
	dir := t.TempDir()
	if pid := Holder(dir); pid != 0 {
		t.Errorf("a folder no one locks: holder %d, want 0", pid)
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Lock(f); err != nil {
		t.Fatal(err)
	}
	if pid := Holder(dir); pid != os.Getpid() {
		t.Errorf("holder %d, want this process, %d", pid, os.Getpid())
	}
	f.Close()
	if pid := Holder(dir); pid != 0 {
		t.Errorf("after the lock's file closed: holder %d, want 0", pid)
	}
}
