package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/features"
	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
)

// The IDX pair of TestIdxSets: idxImages images of idxRows × idxCols
// pixels (not square, so that swapping the two shows), labelled 0, 1, 2 in
// turn; every image's pixels are a code of its index, so no two are alike.
const idxImages, idxRows, idxCols = 30, 7, 5

// idxSetsDir holds what scripts/idxsets.py made of the pair with
// idxSetsArgs; go test -run TestIdxSets -update makes it again.
const idxSetsDir = "testdata/idxsets"

var idxSetsArgs = []string{"--sets", "2", "--frames", "4", "--seed", "5"}

// idxPair returns the pixels and labels of the IDX pair.
func idxPair() (img, lab []byte) {
	img = make([]byte, idxImages*idxRows*idxCols)
	lab = make([]byte, idxImages)
	for i := range idxImages {
		lab[i] = byte(i % 3)
		for p := range idxRows * idxCols {
			img[i*idxRows*idxCols+p] = byte((i*37 + p*(i%3+1)) % 251)
		}
	}
	return img, lab
}

// writeIDX writes an IDX file of unsigned bytes (gzip-compressed) with the
// given dimensions.
func writeIDX(t *testing.T, path string, dims []uint32, data []byte) {
	t.Helper()
	var raw bytes.Buffer
	raw.Write([]byte{0, 0, 8, byte(len(dims))})
	for _, d := range dims {
		binary.Write(&raw, binary.BigEndian, d)
	}
	raw.Write(data)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(raw.Bytes())
	w.Close()
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIdxSets checks the image sets scripts/idxsets.py made of the IDX
// pair, kept in testdata/idxsets so that the test needs Go alone: the
// layout, that every image is one of its class's and in one set only,
// that the PGMs decode to the IDX pixels (rows and columns the right way
// round), and that setmatch trains on them. After a change to the script,
// go test -run TestIdxSets -update runs it again (that needs python3) and
// rewrites the folder; it then also checks the script's error when a class
// has too few images.
func TestIdxSets(t *testing.T) {
	img, lab := idxPair()
	if *update {
		updateIdxSets(t, img, lab)
	}
	seen := map[int]bool{}
	for c := range 3 {
		for s := range 2 {
			files, _ := filepath.Glob(filepath.Join(idxSetsDir, fmt.Sprintf("c%02d", c), fmt.Sprintf("s%02d", s), "*.pgm"))
			if len(files) != 4 {
				t.Fatalf("class %d set %d: %d images, want 4", c, s, len(files))
			}
			for _, f := range files {
				g, err := features.DecodeImageFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if g.Rect.Dx() != idxCols || g.Rect.Dy() != idxRows {
					t.Fatalf("%s: %v, want %d×%d", f, g.Rect, idxCols, idxRows)
				}
				i := -1 // the IDX image of class c it is
				for k := c; k < idxImages; k += 3 {
					if bytes.Equal(g.Pix, img[k*idxRows*idxCols:(k+1)*idxRows*idxCols]) {
						i = k
					}
				}
				if i < 0 {
					t.Fatalf("%s is no image of class %d", f, c)
				}
				if seen[i] {
					t.Fatalf("image %d is in two sets", i)
				}
				seen[i] = true
			}
		}
	}
	if len(seen) != 24 {
		t.Errorf("%d images in the sets, want 3 classes × 2 sets × 4", len(seen))
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"train", "--data", idxSetsDir, "--features", "intensity:5x7", "--method", "nn-h", "--out", filepath.Join(t.TempDir(), "m.smm")}, &stdout, &stderr); code != 0 {
		t.Fatalf("train on the sets: exit %d\n%s", code, stderr.String())
	}
}

// updateIdxSets runs scripts/idxsets.py on the IDX pair and puts what it
// wrote in place of testdata/idxsets.
func updateIdxSets(t *testing.T, img, lab []byte) {
	t.Helper()
	if testexec.Emulated() {
		t.Fatal("an emulated test binary's fork/exec can hang (golang/go#69259): run -update natively")
	}
	py := testutil.Tool(t, "python3", "python3")
	dir := t.TempDir()
	images, labels := filepath.Join(dir, "img.gz"), filepath.Join(dir, "lab.gz")
	writeIDX(t, images, []uint32{idxImages, idxRows, idxCols}, img)
	writeIDX(t, labels, []uint32{idxImages}, lab)
	script := filepath.Join("..", "..", "scripts", "idxsets.py")
	out := filepath.Join(dir, "sets")
	args := append([]string{script, "--images", images, "--labels", labels, "--out", out}, idxSetsArgs...)
	if b, err := testexec.CombinedOutput(t, testexec.Timeout(t, time.Minute), exec.Command(py, args...)); err != nil {
		t.Fatalf("idxsets.py: %v\n%s", err, b)
	}
	if b, err := testexec.CombinedOutput(t, testexec.Timeout(t, time.Minute), exec.Command(py, script,
		"--images", images, "--labels", labels, "--sets", "4", "--frames", "3", "--out", filepath.Join(dir, "x"))); err == nil ||
		!strings.Contains(string(b), "class 0 has 10 images, 12 needed") {
		t.Errorf("too few images: err %v, output %q; want an error that says so", err, b)
	}
	if err := os.RemoveAll(idxSetsDir); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(idxSetsDir, os.DirFS(out)); err != nil {
		t.Fatal(err)
	}
}
