package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"setmatch/internal/testutil"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/setfile"
)

func writeSet(t *testing.T, path string, rows, cols int, base float64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(rows, cols, nil)
	for i := range rows {
		for j := range cols {
			x.Set(i, j, base+float64(10*i+j))
		}
	}
	if err := setfile.WriteFile(path, x); err != nil {
		t.Fatal(err)
	}
}

func writeText(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeImageTree writes, below dir, 2 classes c0, c1 of 3 sets set0 to
// set2 of frames frame files each, named by name (a format of the frame's
// number); each file holds "class,set,frame", for fakeDecoder.
func writeImageTree(t *testing.T, dir string, frames int, name string) {
	t.Helper()
	for c := range 2 {
		for s := range 3 {
			for f := range frames {
				writeText(t, filepath.Join(dir, fmt.Sprintf("c%d", c), fmt.Sprintf("set%d", s), fmt.Sprintf(name, f)),
					fmt.Sprintf("%d,%d,%d", c, s, f))
			}
		}
	}
}

func TestLoadFeatureFiles(t *testing.T) {
	testutil.CPUs(t, 8) // several workers on any machine
	dir := t.TempDir()
	writeSet(t, filepath.Join(dir, "dog", "s2.npy"), 4, 3, 200)
	writeSet(t, filepath.Join(dir, "dog", "s10.csv"), 2, 3, 100)
	writeSet(t, filepath.Join(dir, "cat", "a.npy"), 5, 3, 0)
	writeText(t, filepath.Join(dir, "README.md"), "notes")
	writeText(t, filepath.Join(dir, "cat", ".DS_Store"), "junk")
	writeText(t, filepath.Join(dir, "cat", "notes.txt"), "junk")
	writeText(t, filepath.Join(dir, ".git", "HEAD"), "junk")
	for _, workers := range []int{0, 1, 3} {
		d, err := Load(dir, Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(d.Classes, ","); got != "cat,dog" {
			t.Fatalf("classes %s", got)
		}
		var names []string
		for _, s := range d.Sets {
			names = append(names, s.Class+"/"+s.Name)
		}
		if got := strings.Join(names, ","); got != "cat/a,dog/s10,dog/s2" {
			t.Errorf("sets %s", got)
		}
		if fmt.Sprint(d.Labels()) != "[0 1 1]" {
			t.Errorf("labels %v", d.Labels())
		}
		if d.Pooled || d.Dim() != 3 {
			t.Errorf("pooled %v dim %d", d.Pooled, d.Dim())
		}
		if r, _ := d.Sets[2].Frames.Dims(); r != 4 || d.Sets[2].Frames.At(1, 2) != 212 {
			t.Errorf("dog/s2 frames wrong: %v", mat.Formatted(d.Sets[2].Frames))
		}
		if d.Sets[1].Path != filepath.Join(dir, "dog", "s10.csv") || d.Sets[1].Images {
			t.Errorf("path %s, images %v; want feature file s10.csv", d.Sets[1].Path, d.Sets[1].Images)
		}
	}
}

// fakeDecoder "decodes" an image file whose content is comma-separated
// numbers, so tests need no real images.
func fakeDecoder(path string) ([]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v []float64
	for f := range strings.SplitSeq(strings.TrimSpace(string(b)), ",") {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, err
		}
		v = append(v, x)
	}
	return v, nil
}

func TestLoadImageSets(t *testing.T) {
	dir := t.TempDir()
	writeImageTree(t, dir, 4, "f%02d.png")
	writeText(t, filepath.Join(dir, "c1", "set2", "README"), "x")
	// What file managers and archivers leave behind is not data.
	writeText(t, filepath.Join(dir, "c1", "set2", "Thumbs.db"), "x")
	writeText(t, filepath.Join(dir, "c0", "desktop.ini"), "x")
	writeText(t, filepath.Join(dir, "__MACOSX", "c0", "set0", "._f00.png"), "x")
	if _, err := Load(dir, Options{}); err == nil || !strings.Contains(err.Error(), "holds images: choose a feature extractor, e.g. --features intensity:20x20") {
		t.Errorf("no decoder: %v", err)
	}
	d, err := Load(dir, Options{Images: fakeImages, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Sets) != 6 || d.Pooled {
		t.Fatalf("%d sets, pooled %v", len(d.Sets), d.Pooled)
	}
	s := d.Sets[4] // c1/set1
	if s.Class != "c1" || s.Name != "set1" || !s.Images {
		t.Fatalf("set 4 is %s/%s, images %v; want c1/set1 of images", s.Class, s.Name, s.Images)
	}
	want := mat.NewDense(4, 3, []float64{1, 1, 0, 1, 1, 1, 1, 1, 2, 1, 1, 3})
	if !mat.Equal(s.Frames, want) {
		t.Errorf("frames\n%v", mat.Formatted(s.Frames))
	}
}

func TestLoadPooled(t *testing.T) {
	dir := t.TempDir()
	for c := 1; c <= 2; c++ {
		for f := 1; f <= 10; f++ {
			writeText(t, filepath.Join(dir, fmt.Sprintf("s%d", c), fmt.Sprintf("%d.pgm", f)), fmt.Sprintf("%d,%d", c, f))
		}
	}
	writeText(t, filepath.Join(dir, "README"), "ORL")
	d, err := Load(dir, Options{Images: fakeImages})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Pooled || len(d.Sets) != 2 || d.Sets[1].Name != "s2" || !d.Sets[0].Images {
		t.Fatalf("pooled %v sets %d images %v", d.Pooled, len(d.Sets), d.Sets[0].Images)
	}
	if r, c := d.Sets[0].Frames.Dims(); r != 10 || c != 2 {
		t.Errorf("pooled set %d×%d", r, c)
	}
	// Frames in name order: 1, 10, 2, ...
	if d.Sets[0].Frames.At(1, 1) != 10 {
		t.Errorf("frame order: %v", mat.Formatted(d.Sets[0].Frames))
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name  string
		build func(t *testing.T, dir string)
		want  string
	}{
		{"no classes", func(t *testing.T, dir string) { writeText(t, filepath.Join(dir, "README.md"), "x") }, "no class folders"},
		{"empty class", func(t *testing.T, dir string) {
			writeSet(t, filepath.Join(dir, "a", "s.npy"), 2, 2, 0)
			os.Mkdir(filepath.Join(dir, "b"), 0o755)
		}, "class b"},
		{"empty set folder", func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "a", "s1"), 0o755)
			writeText(t, filepath.Join(dir, "a", "s1", ".hidden"), "x")
		}, "has no frames"},
		{"mixed dims", func(t *testing.T, dir string) {
			writeSet(t, filepath.Join(dir, "a", "s1.npy"), 2, 3, 0)
			writeSet(t, filepath.Join(dir, "b", "s2.npy"), 2, 4, 0)
		}, "has 4 features per frame but set " + "DIR/a/s1.npy has 3"},
		{"unreadable", func(t *testing.T, dir string) {
			writeText(t, filepath.Join(dir, "a", "s1.npy"), "garbage")
		}, "DIR/a/s1.npy: not an .npy file"},
		{"bad csv", func(t *testing.T, dir string) {
			writeText(t, filepath.Join(dir, "a", "s1.csv"), "1,2\n3\n")
		}, "DIR/a/s1.csv: line 2"},
		{"file at top", func(t *testing.T, dir string) {
			writeSet(t, filepath.Join(dir, "s1.npy"), 2, 3, 0)
		}, "s1.npy is a file at the top level"},
		{"unexpected file", func(t *testing.T, dir string) {
			writeText(t, filepath.Join(dir, "a", "labels.json"), "{}")
		}, "unexpected file"},
		{"mixed class", func(t *testing.T, dir string) {
			writeSet(t, filepath.Join(dir, "a", "s1.npy"), 2, 3, 0)
			writeText(t, filepath.Join(dir, "a", "f.png"), "1,2,3")
		}, "mixes"},
		{"pooled and sets", func(t *testing.T, dir string) {
			writeText(t, filepath.Join(dir, "a", "f.png"), "1,2,3")
			writeSet(t, filepath.Join(dir, "b", "s1.npy"), 2, 3, 0)
		}, "one layout"},
		{"duplicate set", func(t *testing.T, dir string) {
			writeSet(t, filepath.Join(dir, "a", "s1.npy"), 2, 3, 0)
			writeSet(t, filepath.Join(dir, "a", "s1.csv"), 2, 3, 0)
		}, "two files for set"},
		{"ragged frames", func(t *testing.T, dir string) {
			writeSet(t, filepath.Join(dir, "a", "s", "1.npy"), 1, 3, 0)
			writeSet(t, filepath.Join(dir, "a", "s", "2.npy"), 1, 2, 0)
		}, "frame file 2.npy has another number of features per frame than 1.npy, which has 3: all frames of a set need the same size"},
		{"mixed set folder", func(t *testing.T, dir string) {
			writeText(t, filepath.Join(dir, "a", "s", "1.png"), "1,2")
			writeSet(t, filepath.Join(dir, "a", "s", "2.npy"), 1, 2, 0)
		}, "set DIR/a/s mixes 1 images and 1 feature files"},
		{"bad image", func(t *testing.T, dir string) {
			writeText(t, filepath.Join(dir, "a", "s", "1.png"), "1,x")
		}, "frame DIR/a/s/1.png"},
		{"nested", func(t *testing.T, dir string) {
			writeText(t, filepath.Join(dir, "a", "s", "deeper", "1.png"), "1")
		}, "unexpected folder deeper inside set DIR/a/s: a set folder holds frame files only (if s is a class and deeper one of its sets, give the folder above them as the data set: DIR/a)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.build(t, dir)
			_, err := Load(dir, Options{Images: fakeImages})
			want := strings.ReplaceAll(c.want, "DIR", dir)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want it to mention %q", err, want)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "nope"), Options{}); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "give the folder that holds one folder per class") {
		t.Errorf("missing dir: %v", err)
	}
	f := filepath.Join(t.TempDir(), "f.npy")
	writeSet(t, f, 1, 1, 0)
	if _, err := Load(f, Options{}); !errors.Is(err, ErrLayout) || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file as dir: %v", err)
	}
	// The setfile error stays reachable for callers.
	dir := t.TempDir()
	writeText(t, filepath.Join(dir, "a", "s1.npy"), "garbage")
	if _, err := Load(dir, Options{}); !errors.Is(err, setfile.ErrFormat) {
		t.Errorf("setfile error not wrapped: %v", err)
	}
}

func TestLoadLimits(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, filepath.Join(dir, "a", "s1.npy"), 20, 3, 0)
	_, err := Load(dir, Options{Limits: setfile.Limits{MaxRows: 10}})
	if !errors.Is(err, setfile.ErrTooLarge) {
		t.Errorf("limits not applied: %v", err)
	}
	// Image sets: the limits apply to the assembled set.
	img := t.TempDir()
	for f := range 6 {
		writeText(t, filepath.Join(img, "a", "s", fmt.Sprintf("%d.png", f)), "1,2,3")
	}
	if _, err := Load(img, Options{Images: fakeImages, Limits: setfile.Limits{MaxRows: 5}}); !errors.Is(err, setfile.ErrTooLarge) || !strings.Contains(err.Error(), "6 frames exceed a set's limit of 5") {
		t.Errorf("frame limit: %v", err)
	}
	if _, err := Load(img, Options{Images: fakeImages, Limits: setfile.Limits{MaxCols: 2}}); err == nil || !strings.Contains(err.Error(), "3 features per frame exceed the limit of 2") {
		t.Errorf("feature limit: %v", err)
	}
	// A set of exactly the limits fits: 6 frames, 6×3×8 = 144 bytes.
	if _, err := Load(img, Options{Images: fakeImages, Limits: setfile.Limits{MaxRows: 6, MaxCols: 3, MaxBytes: 144}}); err != nil {
		t.Errorf("6×3 set at limits of 6 frames, 3 features, 144 bytes: %v", err)
	}
	if _, err := Load(img, Options{Images: fakeImages, Limits: setfile.Limits{MaxBytes: 143}}); !errors.Is(err, setfile.ErrTooLarge) || !strings.Contains(err.Error(), "over a set's limit of 143 bytes: split the set: ") {
		t.Errorf("memory limit: %v", err)
	}
	// The limits' knobs, where the caller names them.
	knobs := setfile.Knobs{Bytes: "--max-bytes", Rows: "--rows", Cols: "--cols"}
	for _, c := range []struct {
		lim  setfile.Limits
		want string
	}{
		{setfile.Limits{MaxBytes: 143, Knobs: knobs}, "over a set's limit of 143 bytes: split the set or raise the limit (--max-bytes): "},
		{setfile.Limits{MaxRows: 5, Knobs: knobs}, "6 frames exceed a set's limit of 5: split the set or raise the limit (--rows): "},
		{setfile.Limits{MaxCols: 2, Knobs: knobs}, "3 features per frame exceed the limit of 2: reduce the features (e.g. PCA) or raise the limit (--cols): "},
	} {
		if _, err := Load(img, Options{Images: fakeImages, Limits: c.lim}); !errors.Is(err, setfile.ErrTooLarge) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("an image set over limits %+v: %v, want %q", c.lim, err, c.want)
		}
	}
	// A folder of feature files: each is read within what the files
	// before it left of the set's limits, so that the set is refused at
	// the file that passes them, before any file after it is read.
	many := t.TempDir()
	for f := range 4 {
		writeSet(t, filepath.Join(many, "a", "s", fmt.Sprintf("f%d.npy", f)), 10, 3, 0) // 240 bytes each
	}
	writeText(t, filepath.Join(many, "a", "s", "f9.npy"), "garbage, never read")
	for _, c := range []struct {
		lim  setfile.Limits
		want string
	}{
		{setfile.Limits{MaxBytes: 600, Knobs: setfile.Knobs{Bytes: "--max-bytes"}}, "pass a set's limit (1048576 frames or 600 bytes in memory (--max-bytes)) at f2.npy, after 20 frames in 2 files: split the set or raise the limit:"},
		{setfile.Limits{MaxBytes: 600}, "pass a set's limit (1048576 frames or 600 bytes in memory) at f2.npy, after 20 frames in 2 files: split the set: "},
		{setfile.Limits{MaxBytes: 480}, "at f2.npy, after 20 frames in 2 files"},
		{setfile.Limits{MaxRows: 35, MaxBytes: -1}, "pass a set's limit (35 frames) at f3.npy, after 30 frames in 3 files"},
		{setfile.Limits{MaxRows: 35, MaxBytes: -1, Knobs: setfile.Knobs{Rows: "spool.max_frames"}}, "pass a set's limit (35 frames (spool.max_frames)) at f3.npy, after 30 frames in 3 files: split the set or raise the limit:"},
	} {
		_, err := Load(many, Options{Limits: c.lim})
		if !errors.Is(err, setfile.ErrTooLarge) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("a folder of feature files at limits %+v: %v, want %q", c.lim, err, c.want)
		}
	}
	// A file of other features is named as such, also where its frames
	// would pass the limits too.
	writeSet(t, filepath.Join(many, "a", "s", "f8.npy"), 10, 50, 0)
	if _, err := Load(many, Options{Limits: setfile.Limits{MaxBytes: 1200}}); !errors.Is(err, setfile.ErrColumns) || !strings.Contains(err.Error(), "f8.npy has another number of features per frame than f0.npy, which has 3") {
		t.Errorf("a file of 50 features among files of 3: %v", err)
	}
	os.Remove(filepath.Join(many, "a", "s", "f8.npy"))
	os.Remove(filepath.Join(many, "a", "s", "f9.npy"))
	if d, err := Load(many, Options{Limits: setfile.Limits{MaxRows: 40, MaxBytes: 960}}); err != nil || d.Sets[0].Frames.RawMatrix().Rows != 40 {
		t.Errorf("a folder of 40 frames at its limits: %v", err)
	}
}

// TestFirstErrorIsDeterministic: with several bad files the error names the
// first in set order, whatever the number of workers.
func TestFirstErrorIsDeterministic(t *testing.T) {
	testutil.CPUs(t, 8) // several workers on any machine
	dir := t.TempDir()
	for s := range 20 {
		writeSet(t, filepath.Join(dir, "a", fmt.Sprintf("s%02d.npy", s)), 3, 2, 0)
	}
	writeText(t, filepath.Join(dir, "a", "s07.npy"), "bad")
	writeText(t, filepath.Join(dir, "a", "s15.npy"), "bad")
	for _, w := range []int{1, 2, 8} {
		for range 5 {
			_, err := Load(dir, Options{Workers: w})
			if err == nil || !strings.Contains(err.Error(), "s07.npy") {
				t.Fatalf("workers %d: %v", w, err)
			}
		}
	}
}

// TestLoadKeepGoing: with KeepGoing the sets that cannot be read go to
// Failed, in set order and each with the error of its first bad file, and
// the others load, whatever their width.
func TestLoadKeepGoing(t *testing.T) {
	testutil.CPUs(t, 8) // several workers on any machine
	dir := t.TempDir()
	writeSet(t, filepath.Join(dir, "a", "s1.npy"), 2, 3, 0)
	writeText(t, filepath.Join(dir, "a", "s2.npy"), "garbage")
	writeSet(t, filepath.Join(dir, "b", "s3", "1.npy"), 1, 3, 0)
	writeText(t, filepath.Join(dir, "b", "s3", "2.npy"), "garbage")
	writeText(t, filepath.Join(dir, "b", "s3", "3.csv"), "1,2,x\n")
	writeSet(t, filepath.Join(dir, "c", "s4.npy"), 2, 5, 0)
	for _, workers := range []int{1, 3} {
		d, err := Load(dir, Options{KeepGoing: true, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(d.Names(), ","); got != "a/s1,c/s4" {
			t.Errorf("workers %d: sets %s, want a/s1,c/s4", workers, got)
		}
		if len(d.Failed) != 2 {
			t.Fatalf("workers %d: %d failed sets, want 2", workers, len(d.Failed))
		}
		for i, want := range []string{filepath.Join(dir, "a", "s2.npy"), filepath.Join(dir, "b", "s3", "2.npy")} {
			if f := d.Failed[i]; f.Frames != nil || f.Err == nil || !strings.Contains(f.Err.Error(), want) {
				t.Errorf("workers %d: failed set %d is %s with %v, want the error of %s", workers, i, f.Path, f.Err, want)
			}
		}
	}
}

// TestLoadFollowsLinks: a class folder, a set folder and a set file that
// are symbolic links are read as what they point to.
func TestLoadFollowsLinks(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	writeSet(t, filepath.Join(elsewhere, "b", "s2.npy"), 2, 3, 0)
	writeSet(t, filepath.Join(elsewhere, "s3", "1.npy"), 2, 3, 0)
	writeSet(t, filepath.Join(elsewhere, "s4.npy"), 2, 3, 0)
	writeSet(t, filepath.Join(dir, "a", "s1.npy"), 2, 3, 0)
	for link, target := range map[string]string{
		filepath.Join(dir, "b"):             filepath.Join(elsewhere, "b"),
		filepath.Join(dir, "c"):             filepath.Join(elsewhere, "c"),
		filepath.Join(elsewhere, "c", "s3"): filepath.Join(elsewhere, "s3"),
		filepath.Join(dir, "a", "s4.npy"):   filepath.Join(elsewhere, "s4.npy"),
	} {
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.Names(), ","); got != "a/s1,a/s4,b/s2,c/s3" {
		t.Errorf("sets %s, want a/s1,a/s4,b/s2,c/s3", got)
	}
	// A link whose target is gone is named as such.
	gone := filepath.Join(elsewhere, "gone.npy")
	if err := os.Symlink(gone, filepath.Join(dir, "a", "s5.npy")); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, Options{}); err == nil || !strings.Contains(err.Error(), "s5.npy is a symbolic link to "+gone+", which does not exist: remove the link") {
		t.Errorf("a dangling link: %v", err)
	}
}
