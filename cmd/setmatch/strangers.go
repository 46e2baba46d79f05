package main

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/setfile"
)

// strangersSource says how to read --strangers DIR for a model: images
// through read (nil: the sets must be feature files, noImages says
// why; where noFeatures is given, they must be images and it says why),
// dim features per frame, none of the classes (of whose, in words: the
// training data, the model) nor adding, the new class enroll adds (""
// for none), and none the same frames as one of known (the sets given
// beside them: the training data's) or as another of the folder's.
type strangersSource struct {
	read       func(paths []string) (*mat.Dense, error)
	noImages   string
	noFeatures string
	dim        int
	classes    []string
	whose      string
	adding     string
	known      []dataset.Set
}

// readStrangers reads the sets of --strangers DIR (train, enroll,
// forget) as readSetsOf does: every set must read, with src.dim features
// and two frames or more, none may be of one of src.classes, and none
// the same frames as another or as one of src.known.
func readStrangers(dir string, lim setfile.Limits, workers int, src strangersSource) ([]*mat.Dense, error) {
	ds, err := readSetsOf("strangers", "strangers' sets are of people or objects the model must not know", dir, lim, workers, src)
	if err != nil {
		return nil, err
	}
	return ds.Matrices(), nil
}

// readSetsOf reads the sets of a folder given with --flag (--strangers,
// --others) as src says, refusing, with why in the words, a set of one of
// src.classes (or of src.adding), one that does not read, one of other
// than src.dim features, one of fewer than two frames, a feature file
// where src.noFeatures is given, and a set of the same frames as one of
// src.known or another of the folder's.
func readSetsOf(flag, why, dir string, lim setfile.Limits, workers int, src strangersSource) (*dataset.Dataset, error) {
	opt := dataset.Options{Limits: lim, Workers: workers, Images: src.read}
	if src.read == nil {
		opt.Images = func([]string) (*mat.Dense, error) { return nil, fmt.Errorf("%s", src.noImages) }
	}
	ds, err := dataset.Load(dir, opt)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	if len(ds.Sets) == 0 {
		return nil, fmt.Errorf("--%s: %s holds no sets", flag, dir)
	}
	for _, s := range ds.Sets {
		if src.adding != "" && s.Class == src.adding {
			return nil, fmt.Errorf("--%s: class %q of %s is the class enroll adds to %s (--label %q): %s; take it out of %s", flag, s.Class, dir, src.whose, s.Class, why, dir)
		}
		if slices.Contains(src.classes, s.Class) {
			return nil, fmt.Errorf("--%s: class %q of %s is also a class of %s: %s; take it out of %s", flag, s.Class, dir, src.whose, why, dir)
		}
		if !s.Images && src.noFeatures != "" {
			return nil, fmt.Errorf("--%s: %s is a feature file: %s", flag, s.Path, src.noFeatures)
		}
		n, D := s.Frames.Dims()
		if D != src.dim {
			return nil, fmt.Errorf("--%s: %s has %d features per frame, %s has %d: make both with the same features", flag, s.Path, D, src.whose, src.dim)
		}
		if n < 2 {
			return nil, fmt.Errorf("--%s: %s has %d frame: a set's density needs two or more", flag, s.Path, n)
		}
	}
	all := append(slices.Clone(src.known), ds.Sets...)
	if i, j := dataset.SameFrames(all); i >= 0 {
		return nil, fmt.Errorf("--%s: sets %s and %s hold the same frames (in this or another order): %s; give each burst once", flag, all[i].Path, all[j].Path, why)
	}
	return ds, nil
}
