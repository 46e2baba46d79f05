package setfile

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testexec"
)

// The files testdata/numpy_* were written by NumPy 1.24 (numpy.save,
// numpy.lib.format.write_array, numpy.savetxt) from
// x = (np.arange(6).reshape(2, 3) - 2.5) * 0.5.
var numpyX = mat.NewDense(2, 3, []float64{-1.25, -0.75, -0.25, 0.25, 0.75, 1.25})

func TestNumPyFixtures(t *testing.T) {
	for _, name := range []string{"numpy_f8.npy", "numpy_f4.npy", "numpy_f8_v2.npy", "numpy_f8_v3.npy", "numpy_savetxt.csv"} {
		x, err := ReadFile(filepath.Join("testdata", name), Limits{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !mat.Equal(x, numpyX) {
			t.Errorf("%s: got %v", name, mat.Formatted(x))
		}
	}
	for name, want := range map[string]string{
		"numpy_fortran.npy":   "ascontiguousarray",
		"numpy_bigendian.npy": "big-endian",
		"numpy_1d.npy":        "1-D",
		"numpy_3d.npy":        "3-D",
		"numpy_int.npy":       `"<i8" is not supported`,
	} {
		_, err := ReadFile(filepath.Join("testdata", name), Limits{})
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want ErrFormat mentioning %q", name, err, want)
		}
	}
}

// TestNumPyReadsOurs checks WriteNPY's output with NumPy itself when a
// Python with NumPy is installed (skipped otherwise).
func TestNumPyReadsOurs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Python")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	// Under qemu-user (make test-arm64) a fork can hang before its exec:
	// every child gets a deadline of its own, well below go test's.
	ctx := testexec.Timeout(t, 2*time.Minute)
	if _, err := testexec.CombinedOutput(t, ctx, exec.Command(py, "-c", "import numpy")); err != nil {
		t.Skip("numpy not installed")
	}
	p := filepath.Join(t.TempDir(), "x.npy")
	if err := WriteFile(p, numpyX); err != nil {
		t.Fatal(err)
	}
	out, err := testexec.CombinedOutput(t, ctx, exec.Command(py, "-c",
		"import sys, numpy as np; x = np.load(sys.argv[1]); "+
			"print(x.dtype.str, x.shape, x.flags['C_CONTIGUOUS'], "+
			"bool((x == (np.arange(6).reshape(2, 3) - 2.5) * 0.5).all()))", p))
	if err != nil {
		t.Fatalf("numpy.load: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "<f8 (2, 3) True True" {
		t.Errorf("numpy says %q", got)
	}
	b, _ := os.ReadFile(p)
	if !bytes.HasPrefix(b, []byte("\x93NUMPY\x01\x00")) {
		t.Error("not version 1.0")
	}
}
