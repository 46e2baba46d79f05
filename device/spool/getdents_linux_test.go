package spool

import (
	"os"
	"testing"
)

// TestGetdentsEndIsWhole: a first call that finds the folder's end (here a
// folder read to its end before, as a file system that lists a folder
// without . and .. gives an empty one) is a whole listing, so that
// readNames does not try ever larger buffers, up to 64 MiB, for nothing.
func TestGetdentsEndIsWhole(t *testing.T) {
	f, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Readdirnames(-1); err != nil {
		t.Fatal(err)
	}
	names, whole, err := getdents(f, 64<<10)
	if err != nil || len(names) != 0 || !whole {
		t.Errorf("getdents at the folder's end = %q, whole %v, err %v; want no names, whole, no error", names, whole, err)
	}
}
