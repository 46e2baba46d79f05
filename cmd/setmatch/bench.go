package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"setmatch/bench"
	"setmatch/learn"
	"setmatch/match"
)

// benchSynopsis is the usage line and description of setmatch bench.
const benchSynopsis = `[--mode match|train] [flags] | train [flags]

Times setmatch on generated data on this machine. --mode match: the
gallery matcher, as setmatchd runs it, for one batch against m gallery
sets (ms per query, median and p99, memory per query). --mode train: one
training run of W (seconds per conjugate-gradient iteration and in all,
shaped like the paper's YouTube Celebrities protocol by default).
setmatch bench train (setmatch bench train --help): the whole of
setmatch train, with its defaults, on synthetic data of given sizes
(time, peak memory, the model's accuracy on held-out sets).`

func runBench(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "train" {
		return runBenchTrainAuto(args[1:], stdout, stderr)
	}
	fs := newFlagSet("bench", benchSynopsis, stderr)
	mode := fs.String("mode", "match", "what to time: match (the gallery matcher) or train (one training run)")
	gallery := fs.Int("gallery", 1000, "match: number of gallery sets m")
	frames := fs.Int("frames", 100, "frames per set (match: per gallery set)")
	dim := fs.Int("dim", 20, "match: feature dimension d")
	queryFrames := fs.Int("query-frames", 100, "match: frames in the query set")
	bw := fs.String("bandwidth", "", "KDE bandwidth: a number, or a rule (nn, scott, silverman, optionally *SCALE); default 1 for match, nn for train")
	queries := fs.Int("queries", 30, "match: number of timed queries")
	workers := new(int)
	workersVar(fs, workers, "goroutines `N` (at most one per CPU; 0: one per CPU)")
	seed := fs.Uint64("seed", 1, "random seed for the generated data")
	asJSON := fs.Bool("json", false, "print one JSON object")
	classes := fs.Int("classes", 47, "train: number of classes")
	sets := fs.Int("sets", 3, "train: sets per class")
	inDim := fs.Int("in-dim", 400, "train: input dimension D")
	outDim := fs.Int("out-dim", 20, "train: learned dimension d")
	maxIter := fs.Int("max-iter", 25, "train: iteration cap")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("unexpected argument %q: all settings are flags", fs.Arg(0))
	}
	// A flag of the other mode would be ignored: say so instead.
	modeOf := map[string]string{"gallery": "match", "dim": "match", "query-frames": "match", "queries": "match",
		"classes": "train", "sets": "train", "in-dim": "train", "out-dim": "train", "max-iter": "train"}
	var other error
	fs.Visit(func(f *flag.Flag) {
		if m := modeOf[f.Name]; m != "" && m != *mode && (*mode == "match" || *mode == "train") && other == nil {
			other = usagef("--%s is a flag of --mode %s, not of --mode %s, where it would do nothing (setmatch bench -h says which flag is whose)", f.Name, m, *mode)
		}
	})
	if other != nil {
		return other
	}
	if *bw == "" {
		*bw = map[string]string{"train": "nn"}[*mode]
		if *bw == "" {
			*bw = "1"
		}
	}
	rule, err := match.ParseBandwidthRule(*bw)
	if err != nil {
		return usagef("--bandwidth: %v", err)
	}
	switch *mode {
	case "match":
		return benchMatch(stdout, stderr, bench.MatchOptions{
			Gallery: *gallery, Frames: *frames, Dim: *dim, QueryFrames: *queryFrames, Queries: *queries,
			Workers: *workers, Seed: *seed, Rule: rule,
		}, *asJSON)
	case "train":
		return benchTrain(stdout, stderr, bench.TrainOptions{
			Classes: *classes, Sets: *sets, Frames: *frames, InDim: *inDim, OutDim: *outDim,
			MaxIter: *maxIter, Workers: *workers, Seed: *seed, Rule: rule,
		}, *asJSON)
	default:
		return usagef("--mode must be match or train, got %q", *mode)
	}
}

// benchMatch times queries against a gallery matcher of generated sets
// (bench.Match).
func benchMatch(stdout, stderr io.Writer, o bench.MatchOptions, asJSON bool) error {
	if err := o.Check(); err != nil {
		return optionUsage(err, benchMatchFlags)
	}
	fmt.Fprintf(stderr, "generating %d gallery sets of %d frames in %d dimensions...\n", o.Gallery, o.Frames, o.Dim)
	res, err := bench.Match(o)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	return res.WriteTable(stdout)
}

// benchTrain times one training run on a generated data set shaped like the
// paper's YouTube Celebrities protocol (47 classes × 3 sets by default).
func benchTrain(stdout, stderr io.Writer, o bench.TrainOptions, asJSON bool) error {
	if err := o.Check(); err != nil {
		return optionUsage(err, benchTrainFlags)
	}
	fmt.Fprintf(stderr, "generating %d classes × %d sets × %d frames in %d dimensions...\n", o.Classes, o.Sets, o.Frames, o.InDim)
	ds, err := bench.TrainData(o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "training %d → %d...\n", o.InDim, o.OutDim)
	out, err := bench.Train(ds, o, func(s learn.IterStats) {
		fmt.Fprintf(stderr, "  iter %3d  cost %12.6g  |grad| %10.3g  %6.3f s\n", s.Iteration, s.Cost, s.GradNorm, s.Seconds)
	})
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(out)
	}
	return out.WriteTable(stdout)
}

// The flags of setmatch bench, and of setmatch bench train, that set each
// field of the options of bench.Match, bench.Train and bench.Sweep, by
// the field's name: those an error of the options (bench.OptionError)
// names.
var (
	benchMatchFlags = map[string]string{"Gallery": "gallery", "Frames": "frames", "Dim": "dim", "QueryFrames": "query-frames", "Queries": "queries"}
	benchTrainFlags = map[string]string{"Classes": "classes", "Sets": "sets", "Frames": "frames", "InDim": "in-dim", "OutDim": "out-dim", "MaxIter": "max-iter"}
	benchSweepFlags = map[string]string{"Sizes": "sizes", "Probes": "probe-sets", "Keep": "keep"}
)

// optionUsage is the usage error of benchmark options that Check refused:
// a bench.OptionError after the flags that set the values it names
// ("--gallery: gallery sets must be at least 1, got 0"), any other error
// as it is.
func optionUsage(err error, flags map[string]string) error {
	var e *bench.OptionError
	if !errors.As(err, &e) {
		return usageError{err.Error()}
	}
	var names []string
	for _, f := range e.Fields {
		if name, ok := flags[f]; ok {
			names = append(names, "--"+name)
		}
	}
	if len(names) == 0 {
		return usageError{err.Error()}
	}
	return usagef("%s: %v", strings.Join(names, ", "), err)
}
