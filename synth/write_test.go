package synth

import (
	"os"
	"path/filepath"
	"testing"
)

// A README written by WriteReadme does not stop PrepareOut from emptying
// the folder with force.
func TestWriteReadme(t *testing.T) {
	dir := t.TempDir()
	if err := WriteReadme(dir, "# data\n"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil || string(b) != "# data\n" {
		t.Fatalf("README.md: %q, %v", b, err)
	}
	if err := PrepareOut(dir, true); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("after PrepareOut with force: %d entries left", len(ents))
	}
}

// TestPrepareOut checks the door of PrepareOut: a missing folder is made
// and an empty one taken; a folder holding a data set written before is
// emptied only with force; and with force a folder holding anything synth
// does not write (a file beside the class folders, a file other than .npy
// in a class folder, a folder in a set folder of images) is refused and
// left as it was.
func TestPrepareOut(t *testing.T) {
	type file struct{ path, text string }
	dataSet := []file{{"README.md", "# data\n"}, {"c00/s000.npy", "x"}, {"c01/s000/f000.png", "x"}, {"c01/s000/f001.PNG", "x"}}
	for _, c := range []struct {
		name    string
		files   []file
		force   bool
		empties bool // PrepareOut succeeds and leaves the folder empty
	}{
		{"empty", nil, false, true},
		{"data set, no force", dataSet, false, false},
		{"data set, force", dataSet, true, true},
		{"file beside the classes", append(dataSet, file{"thesis.tex", "precious"}), true, false},
		{"csv in a class folder", append(dataSet, file{"c00/measured.csv", "1,2\n"}), true, false},
		{"other file in a class folder", append(dataSet, file{"c00/notes.txt", "precious"}), true, false},
		{"folder in a set folder", append(dataSet, file{"c01/s000/raw/f000.png", "x"}), true, false},
		{"folder named like a frame in a set folder", append(dataSet, file{"c01/s000/old.png/f000.png", "x"}), true, false},
		{"other file in a set folder", append(dataSet, file{"c01/s000/notes.txt", "precious"}), true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range c.files {
				p := filepath.Join(dir, filepath.FromSlash(f.path))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(f.text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := PrepareOut(dir, c.force)
			if c.empties {
				if err != nil {
					t.Fatalf("PrepareOut(force %v): %v", c.force, err)
				}
				if ents, _ := os.ReadDir(dir); len(ents) != 0 {
					t.Errorf("PrepareOut(force %v) left %d entries", c.force, len(ents))
				}
				return
			}
			if err == nil {
				t.Fatalf("PrepareOut(force %v) accepted the folder", c.force)
			}
			for _, f := range c.files {
				if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.path))); err != nil || string(b) != f.text {
					t.Errorf("%s after the refusal: %q, %v", f.path, b, err)
				}
			}
		})
	}
	missing := filepath.Join(t.TempDir(), "a", "b")
	if err := PrepareOut(missing, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(missing); err != nil || !fi.IsDir() {
		t.Errorf("PrepareOut did not make the missing folder: %v", err)
	}
}
