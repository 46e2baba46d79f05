package features

import (
	"fmt"
	"image"
	"math"
)

// Intensity is the raw grey-level feature: the image resized to W×H (see
// Resize) and read row by row as intensities in [0, 1] (grey level / 255,
// without rounding after the resize). Its dimension is W·H.
//
// With Norm set, each frame is then centred and scaled to unit Euclidean
// norm: v ← (v − mean(v)) / ‖v − mean(v)‖; a constant frame gives zeros.
type Intensity struct {
	W, H int
	Norm bool
}

// Name returns the spec of f, e.g. "intensity:20x20" or "intensity:20x20:norm".
func (f Intensity) Name() string {
	s := fmt.Sprintf("intensity:%dx%d", f.W, f.H)
	if f.Norm {
		s += ":norm"
	}
	return s
}

// Dim returns W·H for any input size.
func (f Intensity) Dim(imageW, imageH int) (int, error) {
	if err := checkSize(f.W, f.H); err != nil {
		return 0, err
	}
	if d := f.W * f.H; d > MaxDim {
		w, h := shrinkGrid(f.W, f.H, MaxDim)
		return 0, dimErr(f.Name(), d, fmt.Sprintf("take a smaller size (W×H at most %d, e.g. intensity:%dx%d)", MaxDim, w, h))
	}
	return f.W * f.H, nil
}

// Extract returns the W·H intensities of img, row-major.
func (f Intensity) Extract(img *image.Gray) ([]float64, error) {
	if _, err := f.Dim(0, 0); err != nil {
		return nil, err
	}
	p, err := prepare(img, f.W, f.H)
	if err != nil {
		return nil, err
	}
	v := make([]float64, p.len())
	for i := range v {
		v[i] = p.intensity(i)
	}
	if f.Norm {
		normalize(v)
	}
	return v, nil
}

func normalize(v []float64) {
	var mean float64
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	var ss float64
	for i := range v {
		v[i] -= mean
		ss += v[i] * v[i]
	}
	// Tiny norms are rounding noise around a constant frame.
	if ss <= 1e-24*float64(len(v)) {
		clear(v)
		return
	}
	s := 1 / math.Sqrt(ss)
	for i := range v {
		v[i] *= s
	}
}
