package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"setmatch/config"
	"setmatch/dataset"
	"setmatch/features"
	"setmatch/model"
	"setmatch/openeval"
	"setmatch/setfile"
)

// testSynopsis is the usage line and description of setmatch test.
const testSynopsis = `--model MODEL --data DIR [--threshold X] [--json] [--workers N] [--max-frames N]

Decides every set of a labelled data folder as setmatchd would: the
model's recorded features, its method and its open-set threshold, through
the same matcher, and with the daemon's default limits: an image set is
read within a burst's (at most 256 frames of 12.6 Mpx and 32 MiB each;
--max-frames N as setmatchd's spool.max_burst_frames), and a set of one
frame fails (decision.min_frames). A data folder is read
as train reads it, not as the spool reads a burst: symbolic links are
followed, and files such as .DS_Store are skipped. Prints the accuracy (a set whose class is not in the
model is right when it is rejected), a confusion table per class, the
known sets rejected and the unknown sets accepted, and the milliseconds
per set.`

func runTest(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("test", testSynopsis, stderr)
	modelPath := fs.String("model", "", "model file `MODEL` to test (required)")
	data := fs.String("data", "", "labelled data set folder `DIR`, in a layout train reads: <class>/<set>.npy|.csv or <class>/<set>/<frames> (required)")
	thrFlag := fs.String("threshold", "", "open-set threshold `X` instead of the model's, as setmatchd's decision.threshold (inf: closed set)")
	asJSON := fs.Bool("json", false, "print the results as one JSON object")
	workers := new(int)
	workersVar(fs, workers, "goroutines `N` per batch, as setmatchd's daemon.workers (at most one per CPU; 0: one per CPU)")
	lim := limitsFlag(fs)
	burst := features.DefaultBurstLimits()
	fs.IntVar(&burst.MaxFrames, "max-frames", burst.MaxFrames, "fail an image set of more than `N` frames (the default is setmatchd's spool.max_burst_frames; give the daemon's value where it is set otherwise)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case burst.MaxFrames < 1:
		return usagef("--max-frames must be at least 1, got %d", burst.MaxFrames)
	case *modelPath == "":
		return usagef("--model MODEL is required")
	case *data == "":
		return usagef("--data DIR is required")
	case fs.NArg() != 0:
		return usagef("unexpected argument %q: all settings are flags", fs.Arg(0))
	}
	var override *float64
	if t := strings.TrimSpace(*thrFlag); t != "" {
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || !(v >= 0) {
			return usagef("--threshold: want a number ≥ 0 or inf, got %q", *thrFlag)
		}
		override = &v
	}

	mt, _, err := model.ReadMatcher(*modelPath, *workers)
	if err != nil {
		return err
	}
	m := mt.Model()
	if override != nil {
		if mt, err = mt.WithThreshold(*override); err != nil {
			return err
		}
	}
	ds, err := testLoad(*data, *modelPath, m, *workers, *lim, burst)
	if err != nil {
		return err
	}
	s, err := testSets(mt, ds, stderr)
	if err != nil {
		return err
	}
	s.Model, s.Data = *modelPath, *data
	if s.Sets > 0 && s.Unknown == s.Sets {
		// Every set a stranger's: most likely folders named otherwise
		// than the model's classes.
		fmt.Fprintf(stderr, "test: note: no class of %s is a class of model %s: every set counts as a stranger's, right only where it is rejected; to measure known people, name their folders as the model names its classes (setmatch inspect %s lists them)\n", *data, *modelPath, *modelPath)
	}
	if override == nil && mt.ClosedSet() {
		// As setmatchd -check warns of such a model.
		fmt.Fprintf(stderr, "test: note: model %s has no threshold (a closed set): every set is named as its nearest known class, strangers too; for a door, train without --threshold none, or try a threshold here with --threshold X\n", *modelPath)
	}
	if *asJSON {
		err = s.WriteJSON(stdout)
	} else {
		err = s.WriteTable(stdout)
	}
	if err == nil && s.Failed == s.Sets {
		// Reported, but nothing was measured: a script must not take the
		// accuracy of 0 for one.
		return fmt.Errorf("no set of %s could be decided (each failed, above): the model cannot decide these sets", *data)
	}
	return err
}

// testLoad reads the labelled sets: image sets through the model's
// recorded feature pipeline within the burst limits, feature files as they
// are; it refuses images for a model without a pipeline and feature files
// of the wrong width.
func testLoad(dir, modelPath string, m *model.Model, workers int, lim setfile.Limits, burst features.ImageLimits) (*dataset.Dataset, error) {
	opt := dataset.Options{Limits: lim, Workers: workers, KeepGoing: true}
	var images atomic.Int64
	noPipeline := fmt.Errorf("the data in %s are images but model %s records no feature pipeline (it was trained on feature files): give the sets as feature files (setmatch features), or train the model on the images with --features SPEC", dir, modelPath)
	if m.Features != nil {
		opt.Images = func(paths []string) (*mat.Dense, error) {
			images.Add(1)
			x, err := m.Features.ApplyFiles(paths, burst)
			if errors.Is(err, features.ErrTooLarge) {
				return nil, fmt.Errorf("%w (test's limits: --max-frames %d, and setmatchd's default pixels and bytes per frame)", err, burst.MaxFrames)
			}
			return x, err
		}
	} else {
		opt.Images = func([]string) (*mat.Dense, error) { return nil, noPipeline }
	}
	ds, err := dataset.Load(dir, opt)
	if err != nil {
		return nil, err
	}
	if len(ds.Sets) == 0 {
		// Every set an image set the model cannot read: one reason, of
		// the folder (Load keeps going, so it is each set's failure).
		if len(ds.Failed) > 0 && !slices.ContainsFunc(ds.Failed, func(f dataset.FailedSet) bool { return !errors.Is(f.Err, noPipeline) }) {
			return nil, noPipeline
		}
		if len(ds.Failed) > 0 {
			f := ds.Failed[0]
			return nil, fmt.Errorf("no set of %s could be read (%d failed); the first, %s/%s: %w", dir, len(ds.Failed), f.Class, f.Name, f.Err)
		}
		return nil, fmt.Errorf("%s holds no sets", dir)
	}
	// Sets of another width than the model's: the whole folder when none
	// fits (the wrong features), else those sets fail one by one.
	D := ds.Dim()
	if !ds.KeepDim(m.InputDim(), func(set dataset.Set, n int) error {
		note := " (was it made with the same feature extractor as the model?)"
		if size := sizeNote(m); set.Images && size != "" { // through the model's pipeline
			note = size
		}
		return fmt.Errorf("%s has %d features per frame, model %s expects %d%s", set.Path, n, modelPath, m.InputDim(), note)
	}) {
		if images.Load() == 0 && m.Features != nil {
			return nil, fmt.Errorf("the sets of %s are feature files of %d features per frame, model %s takes %d, made from images by its pipeline %s: give the image folders instead", dir, D, modelPath, m.InputDim(), m.Features.Name())
		}
		why := " (were they made with the same feature extractor as the model?)"
		if note := sizeNote(m); images.Load() > 0 && note != "" {
			why = note
		}
		return nil, fmt.Errorf("the sets of %s have %d features per frame, model %s expects %d%s", dir, D, modelPath, m.InputDim(), why)
	}
	return ds, nil
}

// daemonMinFrames is setmatchd's default decision.min_frames.
var daemonMinFrames = config.Default().Decision.MinFrames

// testSets decides every set with the matcher and scores the decisions
// (openeval.Test); the sets that could not be read (ds.Failed) count as
// failed. It tells stderr why each failed set failed.
func testSets(mt *model.Matcher, ds *dataset.Dataset, stderr io.Writer) (*openeval.Report, error) {
	sets := make([]openeval.Labelled, 0, len(ds.Sets)+len(ds.Failed))
	for _, set := range ds.Sets {
		if n, _ := set.Frames.Dims(); n < daemonMinFrames {
			// setmatchd fails such a batch (decision.min_frames).
			err := fmt.Errorf("%d frame, fewer than setmatchd's decision.min_frames (%d by default): a set's density needs several frames", n, daemonMinFrames)
			sets = append(sets, openeval.Labelled{Class: set.Class, Name: set.Name, Err: err})
			continue
		}
		sets = append(sets, openeval.Labelled{Class: set.Class, Name: set.Name, Frames: set.Frames})
	}
	for _, f := range ds.Failed {
		sets = append(sets, openeval.Labelled{Class: f.Class, Name: f.Name, Err: f.Err})
	}
	s, err := openeval.Test(mt, sets)
	if err != nil {
		return nil, err
	}
	for _, one := range s.PerSet {
		if one.Error != "" {
			fmt.Fprintf(stderr, "test: %s/%s: %s\n", openeval.NameText(one.Class), openeval.NameText(one.Set), one.Error)
		}
	}
	return s, nil
}
