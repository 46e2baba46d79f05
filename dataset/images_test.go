package dataset

import (
	"errors"
	"fmt"
	"path/filepath"
	"setmatch/internal/testutil"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/setfile"
)

// fakeImages reads a whole set with fakeDecoder, as Options.Images; like
// features.Fitted.ImageSetReader, its errors name the frame, and frames
// of a set must have one number of features.
func fakeImages(paths []string) (*mat.Dense, error) {
	var data []float64
	cols := 0
	for i, p := range paths {
		v, err := fakeDecoder(p)
		if err != nil {
			return nil, fmt.Errorf("frame %s: %w", p, err)
		}
		if i > 0 && len(v) != cols {
			return nil, fmt.Errorf("frame %s: %d features, not %d", p, len(v), cols)
		}
		cols = len(v)
		data = append(data, v...)
	}
	return mat.NewDense(len(paths), cols, data), nil
}

// Options.Images reads each image set whole, in name order, whatever the
// number of workers; set limits still apply.
func TestLoadImageSetsPerSet(t *testing.T) {
	testutil.CPUs(t, 8) // several workers on any machine
	dir := t.TempDir()
	writeImageTree(t, dir, 12, "f%d.png")
	want := mat.NewDense(12, 3, nil) // c1/set1, frames in name order 0, 1, 10, 11, 2, ...
	for i, f := range []float64{0, 1, 10, 11, 2, 3, 4, 5, 6, 7, 8, 9} {
		want.SetRow(i, []float64{1, 1, f})
	}
	for _, workers := range []int{1, 4} {
		var calls [][]string
		got, err := Load(dir, Options{Workers: workers, Images: func(paths []string) (*mat.Dense, error) {
			if workers == 1 {
				calls = append(calls, paths)
			}
			return fakeImages(paths)
		}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Sets) != 6 || !mat.Equal(got.Sets[4].Frames, want) {
			t.Errorf("workers %d: %d sets, c1/set1\n%v", workers, len(got.Sets), mat.Formatted(got.Sets[4].Frames))
		}
		if workers == 1 && (len(calls) != 6 || filepath.Base(calls[0][2]) != "f10.png") {
			t.Errorf("calls %v", calls)
		}
	}
	lim := setfile.DefaultLimits()
	lim.MaxRows = 11
	if _, err := Load(dir, Options{Limits: lim, Images: fakeImages}); !errors.Is(err, setfile.ErrTooLarge) || !strings.Contains(err.Error(), "12 frames exceed a set's limit of 11") {
		t.Errorf("limit: %v", err)
	}
	writeText(t, filepath.Join(dir, "c1", "set1", "f5.png"), "oops")
	if _, err := Load(dir, Options{Images: fakeImages, Workers: 3}); err == nil || !strings.Contains(err.Error(), "oops") {
		t.Errorf("bad frame: %v", err)
	}
}
