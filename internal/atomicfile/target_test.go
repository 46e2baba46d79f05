package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"setmatch/internal/testutil"
)

// TestTarget: a write reaches the file the links of its path lead to, as
// the kernel follows them: through a chain, to a file that does not exist
// yet, and with ".." after a linked folder (in the path given, in a link's
// folder, or in a link's own text) taken from that folder's target; fi
// says what is there; a loop of links is an error.
func TestTarget(t *testing.T) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir) // the folder itself may be reached by a link
	if err != nil {
		t.Fatal(err)
	}
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(name, target string) string { return testutil.Symlink(t, dir, name, target) }
	file := filepath.Join(dir, "m.smm")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	mk("deploy/releases/sub")
	mk("work")
	link("work/L", "../deploy/releases/sub")
	link("deploy/releases/sub/cur.smm", "../m.smm") // from sub's own folder
	link("deploy/releases/sub/s2", "../")           // a linked folder inside
	link("deploy/releases/sub/up.smm", "s2/../v.smm")
	for _, c := range []struct {
		path, want string
		exists     bool
	}{
		{file, filepath.Join(real, "m.smm"), true},
		{filepath.Join(dir, "new.smm"), filepath.Join(real, "new.smm"), false},
		{link("current.smm", "m.smm"), filepath.Join(real, "m.smm"), true},
		{link("next.smm", "release/v2.smm"), filepath.Join(real, "release", "v2.smm"), false},
		{link("chain.smm", "next.smm"), filepath.Join(real, "release", "v2.smm"), false},
		{filepath.Join(dir, "work", "L", "cur.smm"), filepath.Join(real, "deploy", "releases", "m.smm"), false},
		{dir + "/work/L/../x.smm", filepath.Join(real, "deploy", "releases", "x.smm"), false}, // not filepath.Join, which would take ".." from L
		{filepath.Join(dir, "work", "L", "up.smm"), filepath.Join(real, "deploy", "v.smm"), false},
	} {
		got, fi, err := Target(c.path)
		if err != nil || got != c.want || (fi != nil) != c.exists {
			t.Errorf("Target(%s) = %q, %v, %v; want %q, something there %v", c.path, got, fi, err, c.want, c.exists)
		}
	}
	loop := link("a.smm", "b.smm")
	link("b.smm", "a.smm")
	if _, _, err := Target(loop); err == nil || !strings.Contains(err.Error(), "too many levels of symbolic links") {
		t.Errorf("a loop of links: %v", err)
	}
}

// TestWriteFileRefusesSpecialFiles: a named pipe (as a device or a
// socket) at the path is not replaced by a file: WriteFile says what is
// there and writes nothing; a link to one is replaced, the pipe kept.
func TestWriteFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := testutil.FIFO(t, dir, "fifo")
	called := false
	err := WriteFile(fifo, 0o644, true, func(*os.File) error { called = true; return nil })
	if err == nil || !strings.Contains(err.Error(), fifo+" is a named pipe, not a file: a file is written whole and renamed into place, which would replace it") || called {
		t.Errorf("WriteFile to a named pipe: %v (write called: %v)", err, called)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe after WriteFile: %v, %v", fi, err)
	}
	link := testutil.Symlink(t, dir, "link", "fifo")
	if err := WriteFile(link, 0o644, false, func(f *os.File) error { _, err := f.WriteString("x"); return err }); err != nil {
		t.Errorf("WriteFile over a link to a named pipe: %v", err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe after WriteFile over a link to it: %v, %v", fi, err)
	}
}
