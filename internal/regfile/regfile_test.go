package regfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"setmatch/internal/testutil"
)

// A FIFO is refused at once: the open does not wait for a writer (without
// O_NONBLOCK the test gives up after a minute).
func TestOpenRefusesFIFO(t *testing.T) {
	p := testutil.FIFO(t, t.TempDir(), "fifo")
	var err error
	testutil.Within(t, time.Minute, "ReadFile of a FIFO", func() { _, err = ReadFile(p, 0) })
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "FIFO") || !strings.Contains(err.Error(), p) {
		t.Fatalf("ReadFile(FIFO) = %v, want an error that says %s is a FIFO, not a regular file", err, p)
	}
}

// OpenAny opens whatever is at the path and leaves the check to its
// caller: a FIFO no one writes to at once (without O_NONBLOCK the test
// gives up after a minute), reading as empty; a folder; a regular file,
// read whole.
func TestOpenAny(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := testutil.FIFO(t, dir, "fifo")
	for _, c := range []struct {
		path string
		mode fs.FileMode // its type
		read string      // what a read gives (a folder: not read)
	}{
		{path: file, mode: 0, read: "hello"},
		{path: fifo, mode: fs.ModeNamedPipe, read: ""},
		{path: dir, mode: fs.ModeDir},
	} {
		var f *os.File
		var err error
		testutil.Within(t, time.Minute, "OpenAny of "+c.path, func() { f, err = OpenAny(c.path) })
		if err != nil {
			t.Errorf("OpenAny(%s): %v", c.path, err)
			continue
		}
		fi, err := f.Stat()
		if err != nil || fi.Mode().Type() != c.mode {
			t.Errorf("OpenAny(%s) opened %v (%v), want type %v", c.path, fi, err, c.mode)
		}
		if c.mode != fs.ModeDir {
			var b []byte
			testutil.Within(t, time.Minute, "a read of "+c.path, func() { b, err = io.ReadAll(f) })
			if err != nil || string(b) != c.read {
				t.Errorf("a read of %s = %q, %v; want %q", c.path, b, err, c.read)
			}
		}
		f.Close()
	}
	if _, err := OpenAny(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenAny(missing) = %v, want not found", err)
	}
}

func TestOpenRefusesDirectory(t *testing.T) {
	d := t.TempDir()
	if _, _, err := Open(d); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("Open(dir) = %v, want not a regular file (a directory)", err)
	}
}

func TestReadFileLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, max := range []int64{0, 5, 1 << 62, 1<<63 - 1} {
		if b, err := ReadFile(p, max); err != nil || string(b) != "hello" {
			t.Errorf("ReadFile(max %d) = %q, %v", max, b, err)
		}
	}
	if _, err := ReadFile(p, 4); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("ReadFile(max 4) = %v, want over the limit", err)
	}
}

// ReadSized reads a file whole into a buffer of its size and one byte
// more, and never more than one byte past the limit: an empty file, one
// at the limit, one byte over it and far over it, a file that grew past
// its size (within the limit, past it, without one), one shorter than its
// size, a reader that gives one byte at a time, and a read error.
func TestReadSized(t *testing.T) {
	errRead := errors.New("disk on fire")
	const max = 1<<63 - 1
	for _, c := range []struct {
		name        string
		r           io.Reader
		size, limit int64
		want        string
		wantCap     int // 0: not checked (the buffer grew)
		err         error
	}{
		{"empty", strings.NewReader(""), 0, 5, "", 1, nil},
		{"empty no limit", strings.NewReader(""), 0, 0, "", 1, nil},
		{"at the limit", strings.NewReader("hello"), 5, 5, "hello", 6, nil},
		{"under the limit", strings.NewReader("hello"), 5, 6, "hello", 6, nil},
		{"largest limit", strings.NewReader("hello"), 5, max, "hello", 6, nil},
		{"no limit", strings.NewReader("hello"), 5, 0, "hello", 6, nil},
		{"negative limit", strings.NewReader("hello"), 5, -1, "hello", 6, nil},
		{"one byte over", strings.NewReader("hello!"), 6, 5, "hello!", 0, nil},
		{"far over", strings.NewReader(strings.Repeat("x", 100)), 100, 5, "xxxxxx", 0, nil},
		{"grew within the limit", strings.NewReader("hello world"), 5, 20, "hello world", 0, nil},
		{"grew past the limit", strings.NewReader("hello world"), 5, 8, "hello wor", 0, nil},
		{"grew, no limit", strings.NewReader("hello world"), 5, 0, "hello world", 0, nil},
		{"shorter than its size", strings.NewReader("hel"), 5, 5, "hel", 6, nil},
		{"negative size", strings.NewReader("hello"), -1, 5, "hello", 0, nil},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader("hello")), 5, 5, "hello", 6, nil},
		{"one byte at a time, over", iotest.OneByteReader(strings.NewReader("hello!")), 5, 5, "hello!", 0, nil},
		{"data with EOF", iotest.DataErrReader(strings.NewReader("hello")), 5, 5, "hello", 6, nil},
		{"read error", iotest.ErrReader(errRead), 5, 5, "", 0, errRead},
		{"error after data", io.MultiReader(strings.NewReader("he"), iotest.ErrReader(errRead)), 5, 5, "", 0, errRead},
	} {
		b, err := ReadSized(c.r, c.size, c.limit)
		if c.err != nil {
			if err != c.err || b != nil {
				t.Errorf("%s: ReadSized = %q, %v; want nil, %v as the reader gave it", c.name, b, err, c.err)
			}
			continue
		}
		if err != nil || string(b) != c.want {
			t.Errorf("%s: ReadSized = %q, %v; want %q", c.name, b, err, c.want)
		}
		if c.wantCap != 0 && cap(b) != c.wantCap {
			t.Errorf("%s: buffer of %d bytes, want %d (the size and one byte)", c.name, cap(b), c.wantCap)
		}
	}
}

// ReadSized of an open file that grew after its facts were taken reads
// on to the file's end, or to one byte past the limit.
func TestReadSizedFileGrew(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		limit int64
		want  string
	}{{0, "hello world"}, {11, "hello world"}, {8, "hello wor"}} {
		f, fi, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("hello world"), 0o600); err != nil {
			t.Fatal(err)
		}
		b, err := ReadSized(f, fi.Size(), c.limit)
		f.Close()
		if err != nil || string(b) != c.want {
			t.Errorf("ReadSized(limit %d) of a file of %d bytes grown to 11 = %q, %v; want %q", c.limit, fi.Size(), b, err, c.want)
		}
		if err := os.WriteFile(p, []byte("hello"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// openDir opens the folder dir and its os.Root, closed at the test's end.
func openDir(t *testing.T, dir string) (*os.Root, *os.File) {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	d, err := root.Open(".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return root, d
}

// OpenIn refuses a link, also one to a file or folder of the same folder
// (which an os.Root follows whatever the flags), and a name that is not
// one name in the folder; it opens the file or folder itself, and with Dir
// only a folder. Its errors carry the label.
func TestOpenIn(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "b"), []byte("b"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link": "a", "dirlink": "sub", "dangling": "missing"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	root, d := openDir(t, dir)
	// A link is refused with ELOOP, or ENOTDIR for Dir (Linux), or EMLINK
	// (FreeBSD): any error will do.
	refused := errors.New("any error")
	for _, c := range []struct {
		name  string
		want  Kind
		isDir bool  // opened, a folder
		err   error // refused with this (refused: any error)
	}{
		{name: "a", want: Any},
		{name: "sub", want: Any, isDir: true},
		{name: "sub", want: Dir, isDir: true},
		{name: ".", want: Dir, isDir: true},
		{name: "link", want: Any, err: refused},
		{name: "dirlink", want: Any, err: refused},
		{name: "dirlink", want: Dir, err: refused},
		{name: "dangling", want: Any, err: refused},
		{name: "a", want: Dir, err: syscall.ENOTDIR},
		{name: "missing", want: Any, err: fs.ErrNotExist},
		{name: "sub/b", want: Any, err: syscall.EINVAL},
		{name: "..", want: Dir, err: syscall.EINVAL},
		{name: "", want: Any, err: syscall.EINVAL},
	} {
		label := "LABEL/" + c.name
		f, err := OpenIn(root, ".", d, c.name, c.want, label)
		if c.err != nil {
			if err == nil {
				f.Close()
				t.Errorf("OpenIn(%q, %v) opened it, want refused: %v", c.name, c.want, c.err)
			} else if (c.err != refused && !errors.Is(err, c.err)) || !strings.Contains(err.Error(), label) {
				t.Errorf("OpenIn(%q, %v) = %v, want %v naming %s", c.name, c.want, err, c.err, label)
			}
			continue
		}
		if err != nil {
			t.Errorf("OpenIn(%q, %v): %v", c.name, c.want, err)
			continue
		}
		fi, err := f.Stat()
		if err != nil || fi.IsDir() != c.isDir || f.Name() != label {
			t.Errorf("OpenIn(%q, %v) opened %s: %v, %v; want a folder %v named %s", c.name, c.want, f.Name(), fi, err, c.isDir, label)
		}
		f.Close()
	}
}

func TestOneName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "a.npy": true, ".a": true, "..a": true, "a..": true, "...": true,
		"": false, ".": false, "..": false, "a/b": false, "a/": false, "/a": false, "/": false, "./a": false,
	} {
		if got := OneName(name); got != want {
			t.Errorf("OneName(%q) = %v, want %v", name, got, want)
		}
	}
}

// OpenIn opens a FIFO without waiting for a writer (without O_NONBLOCK the
// test gives up after a minute); the caller's check of the open file
// refuses it.
func TestOpenInFIFO(t *testing.T) {
	dir := t.TempDir()
	testutil.FIFO(t, dir, "fifo")
	root, d := openDir(t, dir)
	var f *os.File
	var err error
	testutil.Within(t, time.Minute, "OpenIn of a FIFO", func() { f, err = OpenIn(root, ".", d, "fifo", Any, "fifo") })
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().IsRegular() || !strings.Contains(NotRegular(fi).Error(), "a FIFO") {
		t.Errorf("OpenIn of a FIFO opened %v, want a FIFO", fi.Mode())
	}
}

// SyncDir syncs the very folder it opened and closes it; a folder that
// cannot be synced, because this user cannot read it (the open's EACCES
// or EPERM) or the filesystem has no sync of a folder (the sync's EINVAL),
// is no error; any other error of the open or the sync is.
func TestSyncDir(t *testing.T) {
	dir := t.TempDir()
	errSync := errors.New("injected sync failure")
	refuse := func(err error) func(string) (*os.File, error) {
		return func(name string) (*os.File, error) {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
	}
	failSync := func(err error) func(*os.File) error {
		return func(f *os.File) error { return &os.PathError{Op: "sync", Path: f.Name(), Err: err} }
	}
	for _, c := range []struct {
		what   string
		open   func(string) (*os.File, error)
		dir    string
		sync   func(*os.File) error
		synced bool  // the sync ran
		err    error // SyncDir's error (nil: none)
	}{
		{what: "synced", open: os.Open, dir: dir, sync: (*os.File).Sync, synced: true},
		{what: "no sync of a folder", open: os.Open, dir: dir, sync: failSync(syscall.EINVAL), synced: true},
		{what: "sync failed", open: os.Open, dir: dir, sync: failSync(errSync), synced: true, err: errSync},
		{what: "not readable (EACCES)", open: refuse(syscall.EACCES), dir: dir},
		{what: "not readable (EPERM)", open: refuse(syscall.EPERM), dir: dir},
		{what: "missing", open: os.Open, dir: filepath.Join(dir, "missing"), err: fs.ErrNotExist},
		{what: "open failed", open: refuse(syscall.EIO), dir: dir, err: syscall.EIO},
	} {
		var d *os.File
		sync := func(f *os.File) error {
			d = f
			return c.sync(f)
		}
		err := SyncDir(c.open, c.dir, sync)
		if (c.err == nil) != (err == nil) || !errors.Is(err, c.err) {
			t.Errorf("%s: SyncDir = %v, want %v", c.what, err, c.err)
		}
		if (d != nil) != c.synced {
			t.Errorf("%s: synced %v, want %v", c.what, d != nil, c.synced)
		}
		if d == nil {
			continue
		}
		if d.Name() != c.dir {
			t.Errorf("%s: synced %s, want %s", c.what, d.Name(), c.dir)
		}
		if err := d.Close(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s: the folder is open after SyncDir (its close: %v)", c.what, err)
		}
	}
}
