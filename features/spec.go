package features

import (
	"fmt"
	"image"
	"strconv"
	"strings"
)

// Extractor maps one grey image to one feature vector. Intensity, LBP, HOG
// and Hist implement it.
type Extractor interface {
	// Name returns the canonical spec, e.g. "lbp:4x4@64x64".
	Name() string
	// Dim returns the length of the vector extracted from an
	// imageW×imageH image, or an error if such images are unusable.
	Dim(imageW, imageH int) (int, error)
	// Extract computes the feature vector of img.
	Extract(img *image.Gray) ([]float64, error)
}

// Pipeline is a parsed feature spec: an Extractor and an optional PCA
// dimension. The pipeline never fits the PCA itself: the caller fits it
// (FitPCA) on training frames only and applies it to every frame.
type Pipeline struct {
	Feature Extractor
	PCA     int // components to keep; 0 = no PCA
}

// Syntax lists the valid feature specs; it is part of every Parse error.
const Syntax = `valid feature specs:
  intensity:WxH[:norm]       grey levels resized to WxH, in [0,1] (norm: zero mean, unit norm)
  lbp:GXxGY[@WxH]            uniform LBP(8,1) histograms (59 bins) over a GXxGY grid of cells
  hog:C[@WxH]                HOG, CxC-pixel cells, 2x2-cell blocks, 9 unsigned orientations
  hist:B[:plain][@WxH]       B-bin histogram of equalised grey levels (plain: not equalised)
each optionally followed by +pca:N (PCA to N dimensions, fitted on training frames),
e.g. intensity:20x20, lbp:4x4@64x64, hog:8@64x64, hist:32, intensity:32x32+pca:50`

// Parse parses a feature spec (see Syntax and the package documentation).
func Parse(spec string) (Pipeline, error) {
	var p Pipeline
	fail := func(format string, a ...any) (Pipeline, error) {
		// A reason from a check of this package says "features:" once.
		return Pipeline{}, fmt.Errorf("features: bad feature spec %q: %s\n%s", spec, strings.TrimPrefix(fmt.Sprintf(format, a...), "features: "), Syntax)
	}
	s := strings.TrimSpace(spec)
	if s == "" {
		return fail("empty")
	}
	if base, pca, ok := strings.Cut(s, "+"); ok {
		arg, found := strings.CutPrefix(pca, "pca:")
		if !found {
			return fail("%q after '+': want pca:N", pca)
		}
		n, err := parseInt(arg, 1, MaxDim)
		if err != nil {
			return fail("pca dimension: %v", err)
		}
		p.PCA = n
		s = base
	}
	name, rest, _ := strings.Cut(s, ":")
	body, size, hasSize := strings.Cut(rest, "@")
	var w, h int
	if hasSize {
		var err error
		if w, h, err = ParseWxH(size, 1, MaxResize); err != nil {
			return fail("resize %q: %v", size, err)
		}
	}
	args := strings.Split(body, ":")
	if body == "" {
		return fail("%s needs parameters", name)
	}
	switch name {
	case "intensity":
		if hasSize {
			return fail("intensity takes its size as intensity:WxH, not @WxH")
		}
		iw, ih, err := ParseWxH(args[0], 1, MaxResize)
		if err != nil {
			return fail("intensity size %q: %v", args[0], err)
		}
		f := Intensity{W: iw, H: ih}
		switch {
		case len(args) == 2 && args[1] == "norm":
			f.Norm = true
		case len(args) > 1:
			return fail("unknown intensity option %q (want norm)", strings.Join(args[1:], ":"))
		}
		if _, err := f.Dim(0, 0); err != nil {
			return fail("%v", err)
		}
		p.Feature = f
	case "lbp":
		if len(args) != 1 {
			return fail("lbp takes one grid GXxGY")
		}
		gx, gy, err := ParseWxH(args[0], 1, MaxGrid)
		if err != nil {
			return fail("lbp grid %q: %v", args[0], err)
		}
		f := LBP{GridX: gx, GridY: gy, W: w, H: h}
		if err := f.checkGrid(); err != nil {
			return fail("%v", err)
		}
		if hasSize {
			if _, err := f.Dim(w, h); err != nil {
				return fail("%v", err)
			}
		}
		p.Feature = f
	case "hog":
		if len(args) != 1 {
			return fail("hog takes one cell size C")
		}
		c, err := parseInt(args[0], 1, MaxCell)
		if err != nil {
			return fail("hog cell size: %v", err)
		}
		f := HOG{Cell: c, W: w, H: h}
		if hasSize {
			if _, err := f.Dim(w, h); err != nil {
				return fail("%v", err)
			}
		}
		p.Feature = f
	case "hist":
		b, err := parseInt(args[0], 1, MaxBins)
		if err != nil {
			return fail("hist bins: %v", err)
		}
		f := Hist{Bins: b, W: w, H: h}
		switch {
		case len(args) == 2 && args[1] == "plain":
			f.Plain = true
		case len(args) > 1:
			return fail("unknown hist option %q (want plain)", strings.Join(args[1:], ":"))
		}
		p.Feature = f
	default:
		return fail("unknown feature %q (want intensity, lbp, hog or hist)", name)
	}
	return p, nil
}

func parseInt(s string, lo, hi int) (int, error) {
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a positive integer", s)
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%q must be between %d and %d", s, lo, hi)
	}
	return n, nil
}

// ParseWxH parses a size "WxH", W and H decimal digits only (no sign,
// no space, a lower-case x) each of lo to hi, the one parse of a size of
// a feature spec (a resize, intensity's size, lbp's grid) and of the
// frame size synth writes. Its error says the form wanted or the side
// that is no positive integer or out of bounds, as a spec's reason.
func ParseWxH(s string, lo, hi int) (int, int, error) {
	a, b, ok := strings.Cut(s, "x")
	if !ok {
		return 0, 0, fmt.Errorf("want WxH, e.g. 20x20")
	}
	w, err := parseInt(a, lo, hi)
	if err != nil {
		return 0, 0, err
	}
	h, err := parseInt(b, lo, hi)
	if err != nil {
		return 0, 0, err
	}
	return w, h, nil
}

// Name returns the canonical spec, e.g. "intensity:20x20+pca:50". Parsing
// it gives the same pipeline.
func (p Pipeline) Name() string {
	if p.Feature == nil {
		return ""
	}
	s := p.Feature.Name()
	if p.PCA > 0 {
		s += fmt.Sprintf("+pca:%d", p.PCA)
	}
	return s
}

// WithSize returns the pipeline with its feature resizing every image to
// w×h first (lbp, hog and hist: the @WxH suffix), its PCA stage kept: the
// spec to suggest where frames of several sizes must give comparable
// features. intensity, which always resizes, is returned as it is.
func (p Pipeline) WithSize(w, h int) Pipeline {
	switch f := p.Feature.(type) {
	case LBP:
		f.W, f.H = w, h
		p.Feature = f
	case HOG:
		f.W, f.H = w, h
		p.Feature = f
	case Hist:
		f.W, f.H = w, h
		p.Feature = f
	}
	return p
}

// String returns Name.
func (p Pipeline) String() string { return p.Name() }

// PCADim returns the number of PCA components to keep, 0 for none.
func (p Pipeline) PCADim() int { return p.PCA }

// Dim returns the length of the feature vector of an imageW×imageH image
// before PCA.
func (p Pipeline) Dim(imageW, imageH int) (int, error) {
	if p.Feature == nil {
		return 0, fmt.Errorf("features: empty pipeline")
	}
	return p.Feature.Dim(imageW, imageH)
}

// OutputDim returns the feature length before PCA when it does not depend
// on the input image size (intensity, hist, and lbp/hog with @WxH), and
// false otherwise.
func (p Pipeline) OutputDim() (int, bool) {
	var d int
	var err error
	switch f := p.Feature.(type) {
	case Intensity, Hist:
		d, err = f.Dim(0, 0)
	case LBP:
		if f.W == 0 {
			return 0, false
		}
		d, err = f.Dim(f.W, f.H)
	case HOG:
		if f.W == 0 {
			return 0, false
		}
		d, err = f.Dim(f.W, f.H)
	default:
		return 0, false
	}
	return d, err == nil
}

// Extract computes the feature vector of img (before PCA).
func (p Pipeline) Extract(img *image.Gray) ([]float64, error) {
	if p.Feature == nil {
		return nil, fmt.Errorf("features: empty pipeline")
	}
	return p.Feature.Extract(img)
}
