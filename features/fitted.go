package features

import (
	"context"
	"fmt"
	"image"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/internal/regfile"
)

// Fitted is a feature pipeline ready to apply: a parsed spec and, when the
// spec ends in +pca:N, the PCA fitted on the training frames. A model stores
// it (MarshalBinary) so that every program that feeds the model computes
// the same features from the same images.
//
// The zero PCA is valid for a spec without a pca stage. A spec with one and
// no PCA is an unfitted pipeline: it extracts features (ExtractFrames
// gives the rows before PCA) but Project, Apply and the readers refuse it.
type Fitted struct {
	Pipeline Pipeline
	PCA      *PCA // fitted PCA, nil when Pipeline.PCA is 0

	// FrameSize is the width and height (X, Y) of every training image,
	// for a pipeline whose features are bound to the images' scale (lbp
	// or hog without @WxH), where all training images had one size; the
	// zero Point otherwise. Where it is set, Apply and
	// the readers refuse a frame of another size: its features describe
	// the image at another scale than the training frames'.
	FrameSize image.Point
}

// NewFitted checks that pca fits the pipeline p (present exactly when p has
// a pca stage, with p.PCA components, on inputs of p's feature length when
// that is fixed) and returns them as a Fitted.
func NewFitted(p Pipeline, pca *PCA) (Fitted, error) {
	if p.Feature == nil {
		return Fitted{}, fmt.Errorf("features: empty pipeline")
	}
	f := Fitted{Pipeline: p, PCA: pca}
	switch {
	case p.PCA == 0 && pca != nil:
		return Fitted{}, fmt.Errorf("features: %s has no pca stage but a PCA was given", p.Name())
	case p.PCA > 0 && pca == nil:
		return Fitted{}, fmt.Errorf("features: %s needs a PCA fitted on training frames", p.Name())
	case pca != nil:
		if pca.Components == nil || len(pca.Mean) == 0 {
			return Fitted{}, fmt.Errorf("features: %s: empty PCA", p.Name())
		}
		D, d := pca.Components.Dims()
		if D != len(pca.Mean) || d != p.PCA || len(pca.Variances) != d {
			return Fitted{}, fmt.Errorf("features: %s: PCA of shape %d×%d (mean %d, %d variances) does not match %d components",
				p.Name(), D, d, len(pca.Mean), len(pca.Variances), p.PCA)
		}
		if want, ok := p.OutputDim(); ok && want != D {
			return Fitted{}, fmt.Errorf("features: %s gives %d features per frame but the PCA takes %d", p.Name(), want, D)
		}
	}
	return f, nil
}

// FitPipeline fits the pca stage of p, if any, on the frames of the training
// sets (each n_i×D, the features of p before PCA, as ExtractFrames or the
// readers of the pipeline without its pca stage give them), pooled in
// order. Without a pca stage it returns p as is.
func FitPipeline(p Pipeline, sets []*mat.Dense) (Fitted, error) {
	if p.PCA == 0 {
		return NewFitted(p, nil)
	}
	if len(sets) == 0 {
		return Fitted{}, fmt.Errorf("features: %s: no training sets to fit the PCA on", p.Name())
	}
	rows := 0
	_, dim := sets[0].Dims()
	for i, s := range sets {
		n, c := s.Dims()
		if c != dim {
			return Fitted{}, fmt.Errorf("features: %s: training set %d has %d features per frame, set 0 has %d", p.Name(), i, c, dim)
		}
		rows += n
	}
	all := mat.NewDense(rows, dim, nil)
	r := 0
	for _, s := range sets {
		n, _ := s.Dims()
		all.Slice(r, r+n, 0, dim).(*mat.Dense).Copy(s)
		r += n
	}
	pca, err := FitPCA(all, p.PCA)
	if err != nil {
		return Fitted{}, err
	}
	return NewFitted(p, pca)
}

// Name returns the canonical spec of the pipeline, e.g. "lbp:4x4@64x64" or
// "intensity:20x20+pca:50".
func (f Fitted) Name() string { return f.Pipeline.Name() }

// InputDim returns D, the features per frame before PCA, when it does not
// depend on the image size (see Pipeline.OutputDim) or the size is the
// training images' recorded one (FrameSize); with a fitted PCA it is the
// PCA's input dimension.
func (f Fitted) InputDim() (int, bool) {
	if f.PCA != nil {
		return f.PCA.InputDim(), true
	}
	if t := f.FrameSize; t != (image.Point{}) {
		if d, err := f.Pipeline.Feature.Dim(t.X, t.Y); err == nil {
			return d, true
		}
	}
	return f.Pipeline.OutputDim()
}

// OutputDim returns the columns of the matrices Apply returns: the PCA
// dimension when there is a pca stage, else InputDim.
func (f Fitted) OutputDim() (int, bool) {
	if f.Pipeline.PCA > 0 {
		return f.Pipeline.PCA, true
	}
	return f.InputDim()
}

// fixedSize reports whether the pipeline resizes every image to one size
// before extracting (intensity:WxH and the @WxH suffix), so that frames of
// different sizes give comparable features.
func (p Pipeline) fixedSize() bool {
	switch e := p.Feature.(type) {
	case Intensity:
		return true
	case LBP:
		return e.W > 0
	case HOG:
		return e.W > 0
	case Hist:
		return e.W > 0
	}
	return false
}

// scaleBound reports whether the pipeline's features describe each image
// at the scale it comes in: lbp and hog without @WxH, whose codes and
// gradients are of neighbouring pixels. A model of such a pipeline
// records the size of its training images (Fitted.FrameSize). hist
// counts grey levels over the whole frame, at any size alike, and a
// pipeline that resizes sees one scale.
func (p Pipeline) scaleBound() bool {
	switch p.Feature.(type) {
	case LBP, HOG:
		return !p.fixedSize()
	}
	return false
}

// SizeNote says, for a pipeline whose number of features follows the
// image size (hog without @WxH), that frames of another size than the
// training images give another number of features than a model of it
// takes, and what to do; for any other pipeline it is "".
func (p Pipeline) SizeNote() string {
	h, ok := p.Feature.(HOG)
	if !ok || h.W > 0 {
		return ""
	}
	return fmt.Sprintf("%s computes its features at each frame's own size, and their number follows that size: give frames of the size the training images had, or train with a size (e.g. %s) to resize every frame", h.Name(), p.WithSize(64, 64).Name())
}

// Project applies the fitted PCA to x (n×D frames before PCA) and returns
// the n×N result (PCA.Transform); without a pca stage it returns x.
func (f Fitted) Project(x *mat.Dense) (*mat.Dense, error) {
	if f.Pipeline.PCA == 0 {
		return x, nil
	}
	if f.PCA == nil {
		return nil, fmt.Errorf("features: %s: the pca stage is not fitted (fit it on training frames with FitPipeline, or use the pipeline a model records)", f.Name())
	}
	if _, c := x.Dims(); c != f.PCA.InputDim() {
		note := ""
		if n := f.Pipeline.SizeNote(); n != "" {
			note = ": " + n
		}
		return nil, fmt.Errorf("features: %s: frames have %d features, the fitted PCA takes %d%s", f.Name(), c, f.PCA.InputDim(), note)
	}
	return f.PCA.Transform(x), nil
}

// Apply returns the n×OutputDim feature matrix of n decoded frames, one row
// per frame in order: the rows training computes for the same images. The
// frames of one set must have one size unless the pipeline resizes (see
// ApplyBurst).
func (f Fitted) Apply(frames []*image.Gray) (*mat.Dense, error) {
	if len(frames) == 0 {
		return nil, fmt.Errorf("features: no frames")
	}
	st := f.stack(len(frames))
	for i, img := range frames {
		name := fmt.Sprintf("frame %d", i)
		b := img.Bounds()
		if err := st.checkSize(name, b.Dx(), b.Dy()); err != nil {
			return nil, err
		}
		if err := st.add(name, img); err != nil {
			return nil, err
		}
	}
	return st.matrix()
}

// ExtractFrames is Apply without the pca stage: the n×D features before
// PCA, on which FitPipeline fits the PCA.
func (f Fitted) ExtractFrames(frames []*image.Gray) (*mat.Dense, error) {
	g := Fitted{Pipeline: Pipeline{Feature: f.Pipeline.Feature}}
	return g.Apply(frames)
}

// ApplyFiles reads the image files at paths (in the order given; symbolic
// links are followed), decodes each within lim and returns the feature
// matrix as Apply does. Errors name the file.
func (f Fitted) ApplyFiles(paths []string, lim ImageLimits) (*mat.Dense, error) {
	x, _, err := f.applyFiles(paths, lim)
	return x, err
}

// applyFiles is ApplyFiles that also returns the size of the frames
// where the pipeline's features are bound to the images' scale
// (scaleBound), else the zero Point.
func (f Fitted) applyFiles(paths []string, lim ImageLimits) (*mat.Dense, image.Point, error) {
	if err := lim.Check(); err != nil {
		return nil, image.Point{}, err
	}
	if len(paths) == 0 {
		return nil, image.Point{}, fmt.Errorf("features: no frames")
	}
	if len(paths) > lim.MaxFrames {
		return nil, image.Point{}, limitErr(filepath.Dir(paths[0]), "set of %d frames, more than the limit of %d a set: split it into sets of at most %d frames", len(paths), lim.MaxFrames, lim.MaxFrames)
	}
	return f.applySource(context.Background(), len(paths), func(i int) string { return paths[i] }, func(i int) ([]byte, error) {
		// Not blocking: a FIFO put in a frame's place is refused, not
		// waited on (readRegular).
		fh, err := regfile.OpenAny(paths[i])
		if err != nil {
			return nil, &Error{Path: paths[i], Msg: "cannot open image", Err: err}
		}
		defer fh.Close()
		return readRegular(fh, paths[i], lim.MaxFileBytes, nil)
	}, lim)
}

// ImageSetReader returns ApplyFiles with FolderLimits, in the shape
// dataset.Options.Images takes: setmatch train reads the sets of
// --strangers and --others through the pipeline it fitted, and enroll
// and forget those of --strangers through the model's. (The training and
// evaluation data are read before the PCA, Loader.Reader.)
func (f Fitted) ImageSetReader() func(paths []string) (*mat.Dense, error) {
	return func(paths []string) (*mat.Dense, error) { return f.ApplyFiles(paths, FolderLimits()) }
}

// applySource decodes frames 0..n-1 one at a time (read gives a frame's
// bytes, name its name in messages) and stacks their features. Only one
// frame's file and image are held at a time. It gives up with ctx's error,
// checked before each frame, when ctx ends. With the matrix it returns the
// frames' size where the pipeline's features are bound to the images'
// scale (scaleBound), else the zero Point.
func (f Fitted) applySource(ctx context.Context, n int, name func(int) string, read func(int) ([]byte, error), lim ImageLimits) (*mat.Dense, image.Point, error) {
	var none image.Point
	if f.Pipeline.Feature == nil {
		return nil, none, fmt.Errorf("features: empty pipeline")
	}
	if f.Pipeline.PCA > 0 && f.PCA == nil {
		_, err := f.Project(mat.NewDense(1, 1, nil))
		return nil, none, err
	}
	st := f.stack(n)
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, none, err
		}
		nm := name(i)
		data, err := read(i)
		if err != nil {
			return nil, none, err
		}
		hdr, err := readHeader(data, nm, lim.MaxPixels)
		if err != nil {
			return nil, none, err
		}
		if err := st.checkSize(nm, hdr.w, hdr.h); err != nil {
			return nil, none, err
		}
		img, err := decodeBody(data, nm, hdr, lim.MaxPixels)
		if err != nil {
			return nil, none, err
		}
		data = nil
		if err := st.add(nm, img); err != nil {
			return nil, none, err
		}
	}
	x, err := st.matrix()
	if err != nil || !f.Pipeline.scaleBound() {
		return x, none, err
	}
	return x, image.Pt(st.w0, st.h0), nil
}

// rowStack accumulates the feature rows of one set.
type rowStack struct {
	f          Fitted
	n          int // frames expected
	first      string
	w0, h0     int
	cols, rows int
	data       []float64
}

func (f Fitted) stack(n int) *rowStack { return &rowStack{f: f, n: n} }

// checkSize applies the size policy: frames of a set have one size, unless
// the pipeline resizes every frame itself, and the size of the training
// images where the pipeline records one (Fitted.FrameSize).
func (s *rowStack) checkSize(name string, w, h int) error {
	if t := s.f.FrameSize; t != (image.Point{}) && s.f.Pipeline.scaleBound() && (w != t.X || h != t.Y) {
		return formatErr(name, "frame is %dx%d but the model's training images were %dx%d: %s uses each image at its own size, so a frame of another size is described at another scale than the model learned; send frames of %dx%d, or train again with a size (e.g. %s) to resize every frame",
			w, h, t.X, t.Y, s.f.Pipeline.Feature.Name(), t.X, t.Y, s.f.Pipeline.WithSize(t.X, t.Y).Name())
	}
	if s.first == "" {
		s.first, s.w0, s.h0 = name, w, h
		return nil
	}
	if s.f.Pipeline.fixedSize() || (w == s.w0 && h == s.h0) {
		return nil
	}
	return formatErr(name, "frame is %dx%d but %s is %dx%d: %s uses each image at its own size, so the frames of a set must have one size; send frames of one size, or give the feature a size (e.g. %s) to resize every frame",
		w, h, s.first, s.w0, s.h0, s.f.Pipeline.Feature.Name(), s.f.Pipeline.WithSize(64, 64).Name())
}

func (s *rowStack) add(name string, img *image.Gray) error {
	v, err := s.f.Pipeline.Extract(img)
	if err != nil {
		return &Error{Path: name, Msg: "cannot extract " + s.f.Pipeline.Feature.Name() + " features", Err: err}
	}
	if len(v) == 0 {
		return &Error{Path: name, Msg: "the feature extractor returned no features", Err: ErrFormat}
	}
	for j, x := range v {
		if !finite.Is(x) {
			return &Error{Path: name, Msg: fmt.Sprintf("feature %d is %v; features must be finite", j, x), Err: ErrFormat}
		}
	}
	if s.rows == 0 {
		s.cols = len(v)
		s.data = make([]float64, 0, s.n*s.cols)
	} else if len(v) != s.cols {
		return &Error{Path: name, Msg: fmt.Sprintf("frame has %d features but %s has %d", len(v), s.first, s.cols), Err: ErrFormat}
	}
	s.data = append(s.data, v...)
	s.rows++
	return nil
}

func (s *rowStack) matrix() (*mat.Dense, error) {
	if s.rows == 0 {
		return nil, fmt.Errorf("features: no frames")
	}
	return s.f.Project(mat.NewDense(s.rows, s.cols, s.data))
}
