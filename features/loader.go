package features

import (
	"fmt"
	"image"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
)

// Loader reads the image sets of a data set through a pipeline's stages
// before any PCA, counting them (Reader), checks that the data set was
// image sets throughout (Check), and, for training, fits the pipeline
// (its PCA, if any) on the training frames (Fit) so that a model can
// record it. Evaluation fits the PCA in each split instead.
type Loader struct {
	pipe   Pipeline
	images atomic.Int64 // image sets read

	mu    sync.Mutex
	size  image.Point // the one size of the images read, for a pipeline bound to their scale
	mixed bool        // images of more than one size were read
}

// NewLoader returns the loader of the pipeline of spec (Parse).
func NewLoader(spec string) (*Loader, error) {
	p, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	return &Loader{pipe: p}, nil
}

// Pipeline returns the pipeline the loader reads with, PCA stage included.
func (l *Loader) Pipeline() Pipeline { return l.pipe }

// Reader returns the dataset reader of image sets: the n×D features
// before PCA.
func (l *Loader) Reader() dataset.ImageSetReader {
	raw := Fitted{Pipeline: l.pipe}
	raw.Pipeline.PCA = 0
	return func(paths []string) (*mat.Dense, error) {
		l.images.Add(1)
		x, size, err := raw.applyFiles(paths, FolderLimits())
		if err == nil {
			l.sawSize(size)
		}
		return x, err
	}
}

// sawSize notes the frame size of one image set read.
func (l *Loader) sawSize(size image.Point) {
	if size == (image.Point{}) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.size == (image.Point{}) && !l.mixed:
		l.size = size
	case l.size != size:
		l.size, l.mixed = image.Point{}, true
	}
}

// Fit returns the fitted pipeline of the loaded training data ds and,
// when the pipeline has a pca stage, replaces every set's frames by
// their PCA projection. For a pipeline whose features are bound to the
// images' scale (lbp or hog without @WxH), the fitted pipeline records
// the size of the training images where they all had one
// (Fitted.FrameSize). It returns nil (and leaves ds alone) when l is
// nil: feature files need no pipeline. It refuses data that mix image
// sets with feature files, and a pipeline given for feature files alone
// (the sets are features already, and the pipeline would not be used).
func (l *Loader) Fit(ds *dataset.Dataset) (*Fitted, error) {
	if l == nil {
		return nil, nil
	}
	if err := l.Check(ds); err != nil {
		return nil, err
	}
	f, err := FitPipeline(l.pipe, ds.Matrices())
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	f.FrameSize = l.size
	l.mu.Unlock()
	if f.PCA != nil {
		for i := range ds.Sets {
			if ds.Sets[i].Frames, err = f.Project(ds.Sets[i].Frames); err != nil {
				return nil, fmt.Errorf("%s: %w", ds.Sets[i].Path, err)
			}
		}
	}
	return &f, nil
}

// Check reports whether every set of ds, loaded with Reader, was an
// image set: it refuses a data set of feature files, which the pipeline
// would not be used on, and one that mixes image sets with feature files.
func (l *Loader) Check(ds *dataset.Dataset) error {
	n := l.images.Load()
	if n == 0 && len(ds.Sets) > 0 {
		return NotImages(l.pipe, ds.Root)
	}
	if n != int64(len(ds.Sets)) {
		return fmt.Errorf("%s mixes %d image sets with %d feature files: one feature pipeline reads them all, so use one kind of set", ds.Root, n, int64(len(ds.Sets))-n)
	}
	return nil
}

// NotImages is the error of the pipeline p given (--features) for the
// data set at root whose sets are all feature files: they are features
// already, and p would not be used.
func NotImages(p Pipeline, root string) error {
	return fmt.Errorf("--features %s is for frame images, but the sets of %s are feature files (.npy or .csv), features already: leave --features out, or give a data set of image folders", p, root)
}
