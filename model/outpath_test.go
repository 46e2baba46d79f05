package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"setmatch/internal/testutil"
)

// TestOutPath: a model is written where the links of its path lead
// (atomicfile.Target, whose tests follow links), also to a file a link
// names that does not exist yet; a folder and a named pipe, also behind a
// link, are refused, saying what is there; WriteFile leaves such a path
// as it was.
func TestOutPath(t *testing.T) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	link := func(name, target string) string { return testutil.Symlink(t, dir, name, target) }
	if got, err := OutPath(link("next.smm", "v2.smm")); err != nil || got != filepath.Join(real, "v2.smm") {
		t.Errorf("OutPath of a link to no file yet = %q, %v", got, err)
	}
	fifo := testutil.FIFO(t, dir, "fifo.smm")
	for _, c := range []struct{ path, want string }{
		{dir, dir + " is a folder: give the path of the model file"},
		{fifo, fifo + " is a named pipe, not a file: a model file is written whole and renamed into place, which would replace it; give the path of a file"},
		{link("pipe.smm", "fifo.smm"), filepath.Join(dir, "pipe.smm") + " (" + filepath.Join(real, "fifo.smm") + ") is a named pipe"},
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
