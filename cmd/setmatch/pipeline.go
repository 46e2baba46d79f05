package main

import (
	"fmt"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/features"
)

// featureLoader reads image sets for training through a feature pipeline's
// stages before any PCA, counting them, and then fits the pipeline (its
// PCA, if any) on the training frames so that the model can record it.
type featureLoader struct {
	pipe   features.Pipeline
	images atomic.Int64 // image sets read
}

func newFeatureLoader(spec string) (*featureLoader, error) {
	p, err := features.Parse(spec)
	if err != nil {
		return nil, err
	}
	return &featureLoader{pipe: p}, nil
}

// reader returns the dataset reader of image sets: features before PCA.
func (l *featureLoader) reader() dataset.ImageSetReader {
	raw := l.pipe
	raw.PCA = 0
	read := features.Fitted{Pipeline: raw}.ImageSetReader()
	return func(paths []string) (*mat.Dense, error) {
		l.images.Add(1)
		return read(paths)
	}
}

// fit returns the fitted pipeline of the loaded training data ds and, when
// the pipeline has a pca stage, replaces every set's frames by their PCA
// projection. It returns nil (and leaves ds alone) when l is nil or no
// image set was read: feature files need no pipeline.
func (l *featureLoader) fit(ds *dataset.Dataset) (*features.Fitted, error) {
	if l == nil || l.images.Load() == 0 {
		return nil, nil
	}
	if n := l.images.Load(); n != int64(len(ds.Sets)) {
		return nil, fmt.Errorf("%s mixes %d image sets with %d feature files: a model records one feature pipeline, so use one kind of set", ds.Root, n, int64(len(ds.Sets))-n)
	}
	f, err := features.FitPipeline(l.pipe, ds.Matrices())
	if err != nil {
		return nil, err
	}
	if f.PCA != nil {
		for i := range ds.Sets {
			if ds.Sets[i].Frames, err = f.Project(ds.Sets[i].Frames); err != nil {
				return nil, fmt.Errorf("%s: %w", ds.Sets[i].Path, err)
			}
		}
	}
	return &f, nil
}
