package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// writers are the two ways WriteFile is made: this platform's, and
// replace, Windows's, which runs on every platform.
var writers = []struct {
	name  string
	write func(string, fs.FileMode, bool, func(*os.File) error) error
}{
	{"WriteFile", WriteFile},
	{"replace", replace},
}

// modeOf returns the mode a file created with perm gets here (the umask
// taken off on unix, the read-only bit alone on Windows).
func modeOf(t *testing.T, dir string, perm fs.FileMode) fs.FileMode {
	t.Helper()
	p := filepath.Join(dir, "reference")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	return fi.Mode()
}

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	return names
}

// TestWriteFile: the new file is written whole at path with the mode of a
// new file, or with keepMode exactly the mode of the file it replaces;
// while write runs, path holds the old file (or nothing) and write's file
// is in path's folder; afterwards the folder holds path alone.
func TestWriteFile(t *testing.T) {
	for _, w := range writers {
		for _, c := range []struct {
			name     string
			old      bool // a file "old" at path first, mode 0606
			keepMode bool
		}{
			{name: "new"},
			{name: "new keepMode", keepMode: true},
			{name: "replace", old: true},
			{name: "replace keepMode", old: true, keepMode: true},
		} {
			t.Run(w.name+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				p := filepath.Join(dir, "f.npy")
				want := modeOf(t, dir, 0o640)
				if c.old {
					// A mode the umask would change: kept, it is set after the create.
					if err := os.WriteFile(p, []byte("old"), 0o606); err != nil {
						t.Fatal(err)
					}
					if err := os.Chmod(p, 0o606); err != nil {
						t.Fatal(err)
					}
					if fi, err := os.Stat(p); err != nil {
						t.Fatal(err)
					} else if c.keepMode {
						want = fi.Mode()
					}
				}
				err := w.write(p, 0o640, c.keepMode, func(f *os.File) error {
					if filepath.Dir(f.Name()) != dir {
						t.Errorf("the temporary file %s is not in the folder of %s", f.Name(), p)
					}
					b, err := os.ReadFile(p)
					if c.old && string(b) != "old" || !c.old && !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("while the new file is written, the path holds %q (%v), want the old file", b, err)
					}
					_, err = f.WriteString("new")
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if b, err := os.ReadFile(p); string(b) != "new" {
					t.Errorf("the path holds %q (%v), want the new file", b, err)
				}
				if fi, err := os.Stat(p); err != nil || fi.Mode() != want {
					t.Errorf("mode %v (%v), want %v", fi.Mode(), err, want)
				}
				if names := entries(t, dir); !slices.Equal(names, []string{"f.npy"}) {
					t.Errorf("the folder holds %q, want the file alone", names)
				}
			})
		}
	}
}

// TestWriteFileFails: where write fails, or the rename does (a folder at
// the path), or the temporary file cannot be made (no folder), WriteFile
// returns the error, the path keeps what it held, and no temporary file
// is left.
func TestWriteFileFails(t *testing.T) {
	errWrite := errors.New("injected write failure")
	for _, w := range writers {
		for _, c := range []struct {
			name   string
			target string // the path written, in the test's folder
			folder bool   // a folder with a file in it at f.npy, else a file "old"
			write  error
			want   error // nil: any error
		}{
			{name: "write", target: "f.npy", write: errWrite, want: errWrite},
			{name: "rename over a folder", target: "f.npy", folder: true},
			{name: "no folder", target: "missing/f.npy", want: fs.ErrNotExist},
		} {
			t.Run(w.name+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				p := filepath.Join(dir, "f.npy")
				old := p
				if c.folder {
					if err := os.Mkdir(p, 0o755); err != nil {
						t.Fatal(err)
					}
					old = filepath.Join(p, "inside")
				}
				if err := os.WriteFile(old, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
				before := entries(t, dir)
				err := w.write(filepath.Join(dir, filepath.FromSlash(c.target)), 0o644, true, func(f *os.File) error {
					if _, err := f.WriteString("new"); err != nil {
						return err
					}
					return c.write
				})
				if err == nil || c.want != nil && !errors.Is(err, c.want) {
					t.Fatalf("error %v, want %v", err, c.want)
				}
				if names := entries(t, dir); !slices.Equal(names, before) {
					t.Errorf("the folder holds %q, want %q (no temporary file)", names, before)
				}
				if b, err := os.ReadFile(old); string(b) != "old" {
					t.Errorf("%s holds %q (%v), want what it held", old, b, err)
				}
			})
		}
	}
}

// TestPending: the temporary file each writer fills is Pending of the
// file it writes, and no other name is.
func TestPending(t *testing.T) {
	for _, w := range writers {
		dir := t.TempDir()
		var temp string
		err := w.write(filepath.Join(dir, "s000.npy"), 0o644, false, func(f *os.File) error {
			temp = filepath.Base(f.Name())
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		if file, ok := Pending(temp); !ok || file != "s000.npy" {
			t.Errorf("%s: Pending(%q) = %q, %v; want s000.npy, true", w.name, temp, file, ok)
		}
	}
	for _, name := range []string{"s000.npy", ".s000.npy", ".123", "s000.npy123", "", "."} {
		if file, ok := Pending(name); ok {
			t.Errorf("Pending(%q) = %q, true; want false", name, file)
		}
	}
}
