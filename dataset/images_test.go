package dataset

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/setfile"
)

// fakeImages reads a whole set with fakeDecoder, as Options.Images.
func fakeImages(paths []string) (*mat.Dense, error) {
	var data []float64
	cols := 0
	for _, p := range paths {
		v, err := fakeDecoder(p)
		if err != nil {
			return nil, err
		}
		cols = len(v)
		data = append(data, v...)
	}
	return mat.NewDense(len(paths), cols, data), nil
}

// Options.Images reads each image set whole, in name order, and gives the
// same data set as the per-file decoder; set limits still apply.
func TestLoadImageSetsPerSet(t *testing.T) {
	dir := t.TempDir()
	writeImageTree(t, dir, 12, "f%d.png")
	want, err := Load(dir, Options{Frames: fakeDecoder})
	if err != nil {
		t.Fatal(err)
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
		for i := range want.Sets {
			if !mat.Equal(got.Sets[i].Frames, want.Sets[i].Frames) {
				t.Errorf("workers %d: set %d differs", workers, i)
			}
		}
		if workers == 1 && (len(calls) != 6 || filepath.Base(calls[0][2]) != "f10.png") {
			t.Errorf("calls %v", calls)
		}
	}
	lim := setfile.DefaultLimits()
	lim.MaxRows = 11
	if _, err := Load(dir, Options{Limits: lim, Images: fakeImages}); !errors.Is(err, setfile.ErrTooLarge) || !strings.Contains(err.Error(), "12 frames exceed the limit of 11") {
		t.Errorf("limit: %v", err)
	}
	writeText(t, filepath.Join(dir, "c1", "set1", "f5.png"), "oops")
	if _, err := Load(dir, Options{Images: fakeImages, Workers: 3}); err == nil || !strings.Contains(err.Error(), "oops") {
		t.Errorf("bad frame: %v", err)
	}
}
