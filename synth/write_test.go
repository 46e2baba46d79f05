package synth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every README synth writes, written by WriteReadme, marks its folder as
// synth's: PrepareOut empties it with force.
func TestWriteReadme(t *testing.T) {
	for _, text := range readmes() {
		dir := t.TempDir()
		if err := WriteReadme(dir, text); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "README.md"))
		if err != nil || string(b) != text {
			t.Fatalf("README.md: %q, %v", b, err)
		}
		if err := PrepareOut(dir, true); err != nil {
			t.Fatalf("%s: %v", strings.SplitN(text, "\n", 2)[0], err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("after PrepareOut with force: %d entries left", len(ents))
		}
	}
}

// readmes returns a README of every kind synth writes.
func readmes() []string {
	return []string{
		Options{Kind: Subspace, Classes: 2, Sets: 2, Frames: 4, Dim: 3}.Readme("--out d"),
		ImageOptions{Classes: 2, Frames: 4, W: 8, H: 8}.Readme("--images 8x8 --out d", 2),
		TurntableOptions{Classes: 2, Sets: 4, Frames: 4, W: 8, H: 8}.Readme("--turntable 8x8 --out d"),
		RelightOptions{Sets: 2, Frames: 4}.Readme("--relight faces --out d", "faces", 3),
	}
}

// TestPrepareOut checks the door of PrepareOut: a missing folder is made
// and an empty one taken; a folder holding a data set written before is
// emptied only with force; and with force a folder holding anything synth
// does not write (no README of synth's, a file beside the class folders,
// a file not named as synth's set files in a class folder, a folder in a
// set folder of images) is refused, naming it, and left as it was.
func TestPrepareOut(t *testing.T) {
	type file struct{ path, text string }
	readme := Options{Kind: Subspace, Classes: 2, Sets: 1, Frames: 4, Dim: 3}.Readme("--out d")
	dataSet := []file{{"README.md", readme}, {"c00/s000.npy", "x"}, {"c01/s000/f000.png", "x"}, {"c01/s000/f001.png", "x"}, {"faces/s1000/f0001.png", "x"}}
	// A user's own data sets, as the layouts synth writes: no README.
	ownVectors := []file{{"alice/monday.npy", "x"}, {"bob/tue.npy", "x"}}
	ownSynthNamed := []file{{"c00/s000.npy", "x"}, {"c01/s000.npy", "x"}}
	ownImages := []file{{"alice/monday/f000.png", "x"}, {"bob/tue/f000.png", "x"}}
	// What a refusal names, the first entry PrepareOut finds not synth's.
	named := map[string]string{
		"data set, no force":                        "not empty",
		"file beside the classes":                   "holds thesis.tex, which setmatch synth does not write",
		"csv in a class folder":                     "holds c00/measured.csv,",
		"other file in a class folder":              "holds c00/notes.txt,",
		"folder in a set folder":                    "holds c01/s000/raw,",
		"folder named like a frame in a set folder": "holds c01/s000/old.png,",
		"other file in a set folder":                "holds c01/s000/notes.txt,",
		"npy not named as synth's":                  "holds c00/monday.npy,",
		"png not named as synth's":                  "holds c01/s000/holiday.png,",
		"set folder not named as synth's":           "holds c01/monday,",
		"PNG in capitals":                           "holds c01/s000/f002.PNG,",
		"hidden class folder":                       "holds .git,",
		"own vectors, no README":                    "holds alice but no README.md of setmatch synth",
		"own vectors named as synth's, no README":   "holds c00 but no README.md of setmatch synth",
		"own images, no README":                     "holds alice but no README.md of setmatch synth",
		"own vectors, a README of their own":        "README.md was not written by setmatch synth",
		"a README that names synth only later":      "README.md was not written by setmatch synth",
	}
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
		{"npy not named as synth's", append(dataSet, file{"c00/monday.npy", "precious"}), true, false},
		{"png not named as synth's", append(dataSet, file{"c01/s000/holiday.png", "precious"}), true, false},
		{"set folder not named as synth's", append(dataSet, file{"c01/monday/f000.png", "precious"}), true, false},
		{"PNG in capitals", append(dataSet, file{"c01/s000/f002.PNG", "precious"}), true, false},
		{"hidden class folder", append(dataSet, file{".git/s000.npy", "precious"}), true, false},
		{"own vectors, no README", ownVectors, true, false},
		{"own vectors named as synth's, no README", ownSynthNamed, true, false},
		{"own images, no README", ownImages, true, false},
		{"own vectors, a README of their own", append(ownSynthNamed, file{"README.md", "# My data\n"}), true, false},
		{"a README that names synth only later", append(ownSynthNamed, file{"README.md", "# My data\n\nGenerated by\n\n    setmatch synth --out d\n"}), true, false},
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
			if want := named[c.name]; !strings.Contains(err.Error(), want) {
				t.Errorf("the refusal does not name %s: %v", want, err)
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
