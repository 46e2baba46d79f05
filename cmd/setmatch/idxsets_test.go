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
)

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

// TestIdxSetsScript runs scripts/idxsets.py on a small IDX pair (3 classes,
// 10 images each, every image's pixels a code of its index) and checks the
// folders it writes: the layout, that every image is one of its class's
// and in one set only, that the PGMs decode to the IDX pixels, and that
// setmatch trains on the result.
func TestIdxSetsScript(t *testing.T) {
	if testexec.Emulated() {
		t.Skip("an emulated test binary's fork/exec can hang (golang/go#69259); make test-host runs this test natively")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 not found: .ci/run installs it (scripts/idxsets.py needs it)")
	}
	dir := t.TempDir()
	const n, rows, cols = 30, 28, 28
	img := make([]byte, n*rows*cols)
	lab := make([]byte, n)
	for i := range n {
		lab[i] = byte(i % 3)
		for p := range rows * cols {
			img[i*rows*cols+p] = byte((i*37 + p*(i%3+1)) % 251)
		}
	}
	images, labels := filepath.Join(dir, "img.gz"), filepath.Join(dir, "lab.gz")
	writeIDX(t, images, []uint32{n, rows, cols}, img)
	writeIDX(t, labels, []uint32{n}, lab)
	out := filepath.Join(dir, "sets")
	script := filepath.Join("..", "..", "scripts", "idxsets.py")
	b, err := testexec.CombinedOutput(t, testexec.Timeout(t, time.Minute), exec.Command(py, script,
		"--images", images, "--labels", labels, "--sets", "2", "--frames", "4", "--seed", "5", "--out", out))
	if err != nil {
		t.Fatalf("idxsets.py: %v\n%s", err, b)
	}
	seen := map[int]bool{}
	for c := range 3 {
		for s := range 2 {
			files, _ := filepath.Glob(filepath.Join(out, fmt.Sprintf("c%02d", c), fmt.Sprintf("s%02d", s), "*.pgm"))
			if len(files) != 4 {
				t.Fatalf("class %d set %d: %d images, want 4", c, s, len(files))
			}
			for _, f := range files {
				g, err := features.DecodeImageFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if g.Rect.Dx() != cols || g.Rect.Dy() != rows {
					t.Fatalf("%s: %v, want %d×%d", f, g.Rect, cols, rows)
				}
				i := -1 // the IDX image of class c it is (every image differs)
				for k := c; k < n; k += 3 {
					if bytes.Equal(g.Pix, img[k*rows*cols:(k+1)*rows*cols]) {
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
	if b, err := testexec.CombinedOutput(t, testexec.Timeout(t, time.Minute), exec.Command(py, script,
		"--images", images, "--labels", labels, "--sets", "4", "--frames", "3", "--out", filepath.Join(dir, "x"))); err == nil ||
		!strings.Contains(string(b), "class 0 has 10 images, 12 needed") {
		t.Errorf("too few images: err %v, output %q; want an error that says so", err, b)
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"train", "--data", out, "--features", "intensity:8x8", "--method", "nn-h", "--out", filepath.Join(dir, "m.smm")}, &stdout, &stderr); code != 0 {
		t.Fatalf("train on the sets: exit %d\n%s", code, stderr.String())
	}
}
