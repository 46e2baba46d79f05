package dirlock

import "testing"

// A folder's lock is held by one open file at a time, in this process as
// in another, and given up when that file is closed.
func TestTryLock(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if busy, err := TryLock(a); busy || err != nil {
		t.Fatalf("first lock: busy %v, %v", busy, err)
	}
	if busy, err := TryLock(b); !busy || err != nil {
		t.Fatalf("second lock while the first is held: busy %v, %v; want busy", busy, err)
	}
	a.Close()
	if busy, err := TryLock(b); busy || err != nil {
		t.Fatalf("second lock after the first file closed: busy %v, %v", busy, err)
	}
	// Lock of a folder no one holds returns at once.
	c, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := Lock(c); err != nil {
		t.Fatal(err)
	}
}
