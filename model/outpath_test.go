package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"setmatch/internal/testutil"
)

// TestOutPath: a model is written where the links of its path lead, also
// to a file that does not exist yet; a folder, a named pipe and a loop of
// links are refused, saying what is there; WriteFile leaves such a path as
// it was.
func TestOutPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.smm")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir) // the folder itself may be reached by a link
	if err != nil {
		t.Fatal(err)
	}
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ path, want string }{
		{file, filepath.Join(real, "m.smm")},
		{filepath.Join(dir, "new.smm"), filepath.Join(dir, "new.smm")},
		{link("current.smm", "m.smm"), filepath.Join(real, "m.smm")},
		{link("next.smm", "release/v2.smm"), filepath.Join(dir, "release", "v2.smm")},
		{link("chain.smm", "next.smm"), filepath.Join(dir, "release", "v2.smm")},
	} {
		if got, err := OutPath(c.path); err != nil || got != c.want {
			t.Errorf("OutPath(%s) = %q, %v; want %q", c.path, got, err, c.want)
		}
	}
	fifo := testutil.FIFO(t, dir, "fifo.smm")
	loop := link("a.smm", "b.smm")
	link("b.smm", "a.smm")
	for _, c := range []struct{ path, want string }{
		{dir, dir + " is a folder: give the path of the model file"},
		{fifo, fifo + " is a named pipe, not a file: a model file is written whole and renamed into place, which would replace it; give the path of a file"},
		{link("pipe.smm", "fifo.smm"), filepath.Join(dir, "pipe.smm") + " (" + fifo + ") is a named pipe"},
		{loop, "too many levels of symbolic links"},
	} {
		if _, err := OutPath(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("OutPath(%s): %v, want %q", c.path, err, c.want)
		}
	}
	if err := WriteFile(fifo, mfModel(1, 4, 2, []int{5, 5})); err == nil || !strings.Contains(err.Error(), "is a named pipe") {
		t.Errorf("WriteFile to a named pipe: %v", err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe after WriteFile: %v, %v", fi, err)
	}
}
