package features

import (
	"fmt"
	"image"
)

// Hist is a grey-level histogram feature. The image (resized to W×H first
// when W, H > 0, then rounded to 8-bit grey levels, see Resize) is
// histogram-equalised and its Bins-bin histogram is divided by the number
// of pixels (so it sums to 1). Dimension Bins.
//
// Equalisation: with N pixels, c(v) the number of pixels of level ≤ v and
// c_min = c(smallest level present), pixel level v becomes
// e(v) = (c(v) − c_min)/(N − c_min) ∈ [0, 1] (e = 0 for a constant image),
// and falls in bin min(⌊Bins·e(v)⌋, Bins−1), computed exactly in integers.
//
// With Plain set, equalisation is skipped: level v (0..255) falls in bin
// ⌊v·Bins/256⌋.
type Hist struct {
	Bins  int
	Plain bool
	W, H  int // resize first when > 0
}

// MaxBins bounds the number of histogram bins.
const MaxBins = 256

// Name returns the spec of f, e.g. "hist:32" or "hist:32:plain@64x64".
func (f Hist) Name() string {
	s := fmt.Sprintf("hist:%d", f.Bins)
	if f.Plain {
		s += ":plain"
	}
	return s + sizeSuffix(f.W, f.H)
}

// Dim returns Bins for any input size.
func (f Hist) Dim(imageW, imageH int) (int, error) {
	if err := f.check(); err != nil {
		return 0, err
	}
	return f.Bins, nil
}

func (f Hist) check() error {
	if f.W != 0 || f.H != 0 {
		if err := checkSize(f.W, f.H); err != nil {
			return err
		}
	}
	if f.Bins < 1 || f.Bins > MaxBins {
		return fmt.Errorf("features: hist with %d bins: want 1 to %d bins", f.Bins, MaxBins)
	}
	return nil
}

// Extract returns the normalised histogram of img.
func (f Hist) Extract(img *image.Gray) ([]float64, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	p, err := prepare(img, f.W, f.H)
	if err != nil {
		return nil, err
	}
	var levels [256]int64
	for i := range p.len() {
		levels[p.level8(i)]++
	}
	n := int64(p.len())
	B := int64(f.Bins)
	out := make([]float64, f.Bins)
	if f.Plain {
		for v, c := range levels {
			out[int64(v)*B/256] += float64(c)
		}
	} else {
		cdf := cumulative(&levels)
		cmin := minCount(&levels)
		for v, c := range levels {
			if c == 0 {
				continue
			}
			var bin int64
			if n > cmin {
				bin = min(B*(cdf[v]-cmin)/(n-cmin), B-1)
			}
			out[bin] += float64(c)
		}
	}
	for i := range out {
		out[i] /= float64(n)
	}
	return out, nil
}

func cumulative(levels *[256]int64) [256]int64 {
	var cdf [256]int64
	var s int64
	for v, c := range levels {
		s += c
		cdf[v] = s
	}
	return cdf
}

// minCount returns the count of the smallest level present.
func minCount(levels *[256]int64) int64 {
	for _, c := range levels {
		if c > 0 {
			return c
		}
	}
	return 0
}
