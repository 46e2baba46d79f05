package main

import (
	"flag"
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/deploy"
	"setmatch/features"
	"setmatch/grassmann"
	"setmatch/internal/bytesize"
	"setmatch/internal/jsonname"
	"setmatch/internal/memlimit"
	"setmatch/learn"
	"setmatch/match"
	"setmatch/method"
	"setmatch/model"
	"setmatch/report"
	"setmatch/setfile"
)

var trainSynopsis = `--data DIR --out MODEL [--method ` + method.Join(deploy.Methods, "|") + `] [--dim d] [--threshold auto:balanced|auto:far=P|none|X|auto|auto:P] [--features SPEC] [flags]

Builds a model from labelled training sets. With --method auto (the
default) every candidate (kFDA on a mix of set kernels, nearest
neighbour on the Hellinger and Jeffrey divergences in the full space,
kFDA on the divergence kernels, and nearest neighbour after a learned
projection, with its own choice of d and training bandwidth) is scored
by nested cross-validation over the training sets. Of those within one
standard error of the best, each is fitted on all of them and calibrated
on stand-in strangers, and the one whose threshold does best there is
deployed (with --threshold auto, auto:P, none or X, or too few classes
for stand-ins: the first). --method learned learns W at the given --dim
with the conjugate-gradient flags below, without cross-validation.`

// trainArgs holds the flags of setmatch train.
type trainArgs struct {
	data, out, divName, bwName, reportDir, threshold, featSpec string
	strangers, others                                          string
	method                                                     method.Name
	dim, maxIter, nuW, nuB, rounds, workers, maxFrames         int
	gradTol, costTol, minStep                                  float64
	seed                                                       int64
	limits                                                     *setfile.Limits
	logJSON                                                    bool
	loader                                                     *features.Loader // the pipeline the model records
}

func trainFlags(stderr io.Writer) (*flag.FlagSet, *trainArgs) {
	fl := newFlagSet("train", trainSynopsis, stderr)
	a := new(trainArgs)
	fl.StringVar(&a.data, "data", "", "training data set folder `DIR`: <class>/<set>.npy|.csv, or <class>/<set>/<frames> (required)")
	fl.StringVar(&a.out, "out", "", "write the model to file `MODEL` (required)")
	fl.StringVar((*string)(&a.method), "method", string(method.Auto), "`METHOD` to deploy: auto (chosen by cross-validation), nn-h, nn-j, kfda-hg, kfda-hl, kfda-j, gda, cdl, kfda-mix (kFDA on a sum of the hg, gda and cdl kernels), nn-h-dr, nn-j-dr (each with its own cross-validated parameters), nn-h-lda (NN after a fixed Fisher discriminant), or learned (W at --dim, no cross-validation)")
	fl.IntVar(&a.dim, "dim", 0, "dimension `d` of the learned space: required by --method learned; fixes d of the -dr candidates otherwise (0: chosen by cross-validation)")
	fl.StringVar(&a.divName, "divergence", "hellinger", "learned: divergence `NAME` in the cost and for matching: hellinger or jeffrey")
	fl.StringVar(&a.bwName, "bandwidth", "nn", "learned: KDE bandwidth: a fixed number `H` > 0, or a rule applied to each projected set: nn (median nearest-neighbour distance), scott or silverman, optionally scaled as in scott*2")
	fl.IntVar(&a.maxIter, "max-iter", grassmann.DefaultMaxIter, "learned: at most `N` conjugate-gradient iterations per round")
	fl.IntVar(&a.nuW, "nu-w", 0, "learned: within-class neighbours `N` (ν_w) per set for the affinity (0: smallest class size − 1)")
	fl.IntVar(&a.nuB, "nu-b", 0, "learned: between-class neighbours `N` (ν_b) per set for the affinity (0: ν_w)")
	fl.Float64Var(&a.gradTol, "grad-tol", grassmann.DefaultGradTol, "learned: stop when the Riemannian gradient norm is at most `X`")
	fl.Float64Var(&a.costTol, "cost-tol", grassmann.DefaultCostRelTol, "learned: stop when the relative cost change of an iteration is at most `X`")
	fl.Float64Var(&a.minStep, "min-step", grassmann.DefaultMinStep, "learned: stop when the accepted step length is at most `X`")
	fl.IntVar(&a.rounds, "rounds", 1, "learned: conjugate-gradient runs `N`; bandwidths are re-estimated from the projection before each")
	fl.Int64Var(&a.seed, "seed", 1, "random seed `N` (cross-validation and stand-in folds; the sample of classes beyond 200 sets; the PCA start for more than 2000 features)")
	fl.BoolVar(&a.logJSON, "log-json", false, "learned: print one JSON object per iteration on standard output")
	fl.StringVar(&a.reportDir, "report", "", "write PNG plots (the gallery's divergence matrix; learned: also the cost and the matrix before training) to folder `DIR`")
	fl.StringVar(&a.threshold, "threshold", "", "open-set threshold: auto:balanced (the default: calibrated on stand-in strangers, training classes left out in turn and scored by the method refitted without them; the threshold that best balances held-out known sets named right against stand-in strangers kept out, and for each class one that follows how widely its sets spread as far as the stand-ins show it pays), auto:far=P (on the same stand-ins, at most P% of them let in: a stricter door), none (a closed set: every set is named, strangers too), a number `X`, auto (a bound that 95% of known training sets stay below, from their within-class nearest-neighbour scores) or auto:P for P% instead")
	fl.StringVar(&a.strangers, "strangers", "", "folder `DIR` of sets of people or objects the model must not know (visitors at a door; the layout of --data, classes the training data do not have): the threshold is calibrated on them too, each decided by the model trained, beside the stand-in strangers (--threshold auto:balanced or auto:far=P)")
	fl.StringVar(&a.others, "others", "", "folder `DIR` of labelled sets of other people or objects, not to be enrolled (the layout of --data, classes the training data do not have, taken with the same camera: others of another camera can make the door worse than none): they take part in training as classes of their own, so that the method, its parameters and a projection W learn what tells classes apart from more of them, and are then removed from the model's gallery (a nearest-neighbour model keeps the threshold calibrated with them as stand-ins; a kFDA model, fitted again on the gallery, has it set again there)")
	workersVar(fl, &a.workers, "goroutines `N` (at most one per CPU; 0: one per CPU)")
	fl.StringVar(&a.featSpec, "features", "", "feature extractor `SPEC` for image frames, e.g. intensity:20x20 or lbp:4x4+pca:50 (a pca stage is fitted on the training frames); the model records it")
	fl.IntVar(&a.maxFrames, "max-frames", 0, maxFramesUsage)
	a.limits = limitsFlag(fl)
	return fl, a
}

func runTrain(args []string, stdout, stderr io.Writer) error {
	fl, a := trainFlags(stderr)
	if err := parseFlags(fl, args); err != nil {
		return err
	}
	opt, err := a.options(fl, stdout, stderr)
	if err != nil {
		return err
	}
	if err := checkOut(a.out); err != nil {
		return err
	}
	if err := checkReport(a.reportDir); err != nil {
		return err
	}
	start := time.Now()
	ds, err := dataset.Load(a.data, a.loadOptions())
	if err != nil {
		return err
	}
	fitted, err := a.loader.Fit(ds)
	if err != nil {
		return err
	}
	if err := checkTrainData(ds, a); err != nil {
		return err
	}
	// all is what training takes: the sets of --data, then the others'.
	all, others := ds, (*dataset.Dataset)(nil)
	if a.others != "" {
		if others, err = loadOthers(a, ds, fitted); err != nil {
			return err
		}
		all = &dataset.Dataset{Root: ds.Root, Classes: append(slices.Clone(ds.Classes), others.Classes...), Sets: append(slices.Clone(ds.Sets), others.Sets...)}
	}
	if a.strangers != "" { // read before the frame cap, to be compared with every training frame
		if opt.Strangers, err = loadStrangers(a, ds, others, fitted); err != nil {
			return err
		}
	}
	budget, fits := trainBudget(all.Labels(), a.method)
	kept, err := capFrames(all, a.maxFrames, budget, fits, "train", stderr)
	if err != nil {
		return err
	}
	if others != nil {
		ds.Sets, others.Sets = all.Sets[:len(ds.Sets)], all.Sets[len(ds.Sets):] // as capped
	}
	if kept > 0 {
		opt.Meta.Params["max-frames"] = strconv.Itoa(kept) // the cap in force, chosen or given
	}
	_, frames := ds.FrameCounts()
	fmt.Fprintf(stderr, "train: %d sets, %d classes, %d frames, %d features, method %s, loaded in %.1fs\n",
		len(ds.Sets), len(ds.Classes), frames, ds.Dim(), a.method, time.Since(start).Seconds())
	if fitted != nil && fitted.FrameSize != (image.Point{}) {
		t := fitted.FrameSize
		fmt.Fprintf(stderr, "train: %s computes its features at each image's own size: the model takes frames of %dx%d, the training images' size, and refuses others (give a size, e.g. --features %s, to resize every frame instead)\n",
			fitted.Pipeline.Feature.Name(), t.X, t.Y, fitted.Pipeline.WithSize(t.X, t.Y).Name())
	}
	sets := all.Matrices()
	labels, names := make([]string, len(all.Sets)), make([]string, len(all.Sets))
	for i, s := range all.Sets {
		labels[i], names[i] = s.Class, s.Name
	}
	if others != nil {
		opt.Others = len(others.Classes)
		_, frames := others.FrameCounts()
		fmt.Fprintf(stderr, "train: %d others' sets of %d classes from %s, %d frames: they take part in training, then leave the gallery\n", len(others.Sets), len(others.Classes), a.others, frames)
	}
	if a.strangers != "" {
		fmt.Fprintf(stderr, "train: %d strangers' sets from %s, for the threshold\n", len(opt.Strangers), a.strangers)
	}
	if a.method != deploy.Learned {
		checkTrainMemory(all, opt.Grid, a.workers, opt.Seed, memlimit.Machine("/"), stderr)
	}
	res, err := deploy.Build(sets, labels, names, opt.Options)
	if err != nil {
		return fmt.Errorf("training on %s: %w", a.data, err)
	}
	if err := opt.logErr(); err != nil {
		return fmt.Errorf("writing the JSON log: %w", err)
	}
	res.WriteTrainLines(stderr)
	res.EffectiveParams(labels)
	if others != nil {
		c, err := res.WithoutOthers(others.Classes, opt.Strangers, a.workers)
		if err != nil {
			return fmt.Errorf("training on %s: the --others classes: %w", a.data, err)
		}
		fmt.Fprintf(stderr, "train: removed the %d sets of the %d --others classes from the gallery: the method, its parameters and any projection W keep what they learned from them; the gallery holds %d sets of %d classes\n", c.Sets, len(others.Classes), c.GallerySets, c.Classes)
		if err := c.Write(stderr, "train", res.Model); err != nil {
			return err
		}
	}
	res.Model.Features = fitted
	if err := model.WriteFile(a.out, res.Model); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "train: wrote %s in %.1fs\n", a.out, time.Since(start).Seconds())
	if a.reportDir != "" {
		if err := trainReport(a.reportDir, res, res.Model.Labels()); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "train: wrote plots to %s\n", a.reportDir)
	}
	return nil
}

// learnedOnly reports whether f is a flag of train that only --method
// learned uses: -h marks those "learned:".
func learnedOnly(f *flag.Flag) bool { return strings.HasPrefix(f.Usage, "learned:") }

// trainOptions are deploy's options with the JSON log's first error.
type trainOptions struct {
	deploy.Options
	logErr func() error // the first error of --log-json
}

// options checks the flags and returns deploy's options.
func (a *trainArgs) options(fl *flag.FlagSet, stdout, stderr io.Writer) (trainOptions, error) {
	switch {
	case fl.NArg() != 0:
		return trainOptions{}, usagef("unexpected argument %q: all settings are flags", fl.Arg(0))
	case a.data == "":
		return trainOptions{}, usagef("--data DIR is required")
	case a.out == "":
		return trainOptions{}, usagef("--out MODEL is required")
	case !slices.Contains(deploy.Methods, a.method):
		return trainOptions{}, usagef("--method %q: want one of %s", a.method, method.Join(deploy.Methods, ", "))
	case a.method == deploy.Learned && a.dim < 1:
		fl.Usage()
		return trainOptions{}, usagef("--method learned needs --dim d ≥ 1 (got %d)", a.dim)
	case a.dim < 0:
		return trainOptions{}, usagef("--dim must be ≥ 1, or 0 to choose it (got %d)", a.dim)
	case a.dim > 0 && a.method != deploy.Learned && a.method != method.Auto && !a.method.IsDR():
		return trainOptions{}, usagef("--dim fixes d of a learned W (--method learned, nn-h-dr, nn-j-dr, and auto's -dr candidates); with --method %s it would do nothing", a.method)
	case a.maxIter < 1:
		return trainOptions{}, usagef("--max-iter must be at least 1 (got %d)", a.maxIter)
	case a.nuW < 0 || a.nuB < 0:
		return trainOptions{}, usagef("--nu-w and --nu-b must be ≥ 0 (0 selects the default)")
	case a.rounds < 1:
		return trainOptions{}, usagef("--rounds must be at least 1 (got %d)", a.rounds)
	}
	if err := emptyGiven(fl, "strangers", "others"); err != nil {
		return trainOptions{}, err // an unset variable: not calibrated without them unasked
	}
	if a.method != deploy.Learned {
		var given error
		fl.Visit(func(f *flag.Flag) {
			if learnedOnly(f) && given == nil {
				given = usagef("--%s is a flag of --method learned, where it sets how W is learned; with --method %s it would do nothing", f.Name, a.method)
			}
		})
		if given != nil {
			return trainOptions{}, given
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"grad-tol", a.gradTol}, {"cost-tol", a.costTol}, {"min-step", a.minStep}} { // in the order of -h, not a map's
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return trainOptions{}, usagef("--%s must be a number > 0 (got %v)", f.name, f.v)
		}
	}
	measure, err := match.ParseMeasure(a.divName)
	if err != nil {
		return trainOptions{}, usagef("--divergence: %v", err)
	}
	rule, err := match.ParseBandwidthRule(a.bwName)
	if err != nil {
		return trainOptions{}, usagef("--bandwidth: %v", err)
	}
	var o trainOptions
	o.Method, o.Dim, o.Seed, o.Workers, o.Threshold = a.method, a.dim, uint64(a.seed), a.workers, math.Inf(1)
	if err := deploy.ParseThreshold(a.threshold, &o.Options); err != nil {
		return trainOptions{}, usagef("%v", err)
	}
	if a.strangers != "" {
		if err := deploy.StrangersRule(o.Options); err != nil {
			return trainOptions{}, usagef("--strangers: %v", err)
		}
		if a.method == deploy.Learned {
			return trainOptions{}, usagef("--strangers needs the stand-in calibration, which --method learned does not run: use another --method")
		}
	}
	if a.others != "" && a.method == deploy.Learned {
		return trainOptions{}, usagef("--others takes part in the choice and fit of a method, and --method learned learns W alone from the sets it is given: use another --method, or give the others' classes to --data")
	}
	if a.featSpec != "" {
		if a.loader, err = features.NewLoader(a.featSpec); err != nil {
			return trainOptions{}, specError(err)
		}
	}
	o.Grid = method.DefaultGrid()
	o.Grid.Learn = deploy.DRLearner(a.workers)
	var log io.Writer
	if a.logJSON {
		log = stdout
	}
	progress, logErr := learn.ProgressLines(stderr, log, a.maxIter*max(a.rounds, 1))
	o.logErr = logErr
	o.Train = learn.TrainOptions{Divergence: measure, Bandwidth: rule, NuW: a.nuW, NuB: a.nuB,
		MaxIter: a.maxIter, GradTol: a.gradTol, CostRelTol: a.costTol, MinStep: a.minStep,
		Rounds: a.rounds, Seed: a.seed, Workers: a.workers, Progress: progress}
	o.Progress, o.Stage = deploy.ProgressLines(stderr), deploy.StageLines(stderr)
	// A model's header is text: a path that is not valid UTF-8 is
	// recorded with U+FFFD for each bad byte, as the JSON outputs write it.
	params := map[string]string{}
	fl.VisitAll(func(f *flag.Flag) { params[f.Name] = jsonname.Text(f.Value.String()) })
	o.Meta = model.Meta{Created: time.Now().UTC(), Tool: toolName("train"), Data: jsonname.Text(a.data), Params: params}
	return o, nil
}

// loadStrangers reads the sets of --strangers as the training sets were
// read (readStrangers): images through the feature pipeline fitted on
// the training images (fitted; nil when the training sets are feature
// files, whose strangers must be feature files too).
func loadStrangers(a *trainArgs, train, others *dataset.Dataset, fitted *features.Fitted) ([]*mat.Dense, error) {
	src := a.setsSource("strangers'", train, fitted)
	if others != nil {
		src.classes = append(slices.Clone(train.Classes), others.Classes...)
		src.whose += " or of --others " + a.others
		src.known = append(src.known, others.Sets...)
	}
	return readStrangers(a.strangers, *a.limits, a.workers, src)
}

// setsSource says how to read the sets of a folder beside the training
// data train (sets, e.g. "strangers'", names them in the words): as the training
// sets were read, images through the pipeline fitted on the training
// images (fitted; nil when the training sets are feature files, and the
// folder's must be feature files too, else images too), none of a
// training class nor the same frames as a training set.
func (a *trainArgs) setsSource(sets string, train *dataset.Dataset, fitted *features.Fitted) strangersSource {
	src := strangersSource{dim: train.Dim(), classes: train.Classes, whose: "the training data " + a.data, known: train.Sets,
		noImages: fmt.Sprintf("the training sets of %s are feature files, so the %s sets must be feature files of the same features too (setmatch features makes them)", a.data, sets)}
	if fitted != nil {
		src.read = fitted.ImageSetReader()
		src.noFeatures = fmt.Sprintf("the training sets of %s are images, read through --features %s, so the %s sets must be images too (folders of image files), read through the same features", a.data, fitted.Name(), sets)
	}
	return src
}

// loadOthers reads the sets of --others as the training sets were read:
// images through the feature pipeline fitted on the training images
// (fitted; nil when the training sets are feature files), none of a
// training class, each named as a training set must be.
func loadOthers(a *trainArgs, train *dataset.Dataset, fitted *features.Fitted) (*dataset.Dataset, error) {
	ds, err := readSetsOf("others", "others' sets are of people or objects the model does not enrol", a.others, *a.limits, a.workers, a.setsSource("others'", train, fitted))
	if err != nil {
		return nil, err
	}
	for _, s := range ds.Sets {
		if err := model.CheckLabel(s.Class); err != nil {
			return nil, fmt.Errorf("--others: class %s of %s: %w", s.Class, a.others, err)
		}
		if err := model.CheckSetName(s.Name); err != nil {
			return nil, fmt.Errorf("--others: set %s: its name %q %v: rename the file or folder", s.Path, s.Name, err)
		}
	}
	return ds, nil
}

func (a *trainArgs) loadOptions() dataset.Options {
	opt := dataset.Options{Limits: *a.limits, Workers: a.workers}
	if a.loader != nil {
		opt.Images = a.loader.Reader()
	}
	return opt
}

// checkTrainData refuses data that cannot be trained on.
func checkTrainData(ds *dataset.Dataset, a *trainArgs) error {
	if ds.Pooled && a.method == deploy.Learned {
		return fmt.Errorf("%s uses the pooled layout (all frames of a class in one folder, one set per class): learning W needs several sets per class; arrange the frames as <class>/<set>/<frame> or <class>/<set>.npy, or use another --method", a.data)
	}
	if err := ds.CheckTrain(); err != nil {
		return err
	}
	for _, s := range ds.Sets {
		if err := model.CheckSetName(s.Name); err != nil {
			return fmt.Errorf("set %s: its name %q %v: rename the file or folder", s.Path, s.Name, err)
		}
	}
	if D := ds.Dim(); a.dim > D {
		return usagef("--dim %d is larger than the %d features per frame of %s", a.dim, D, a.data)
	}
	return nil
}

// trainBudget returns the frame budget of train's cross-validation for
// training sets of the given labels, and the phrase that says what it is
// (cvBudget of the smallest class); 0, no budget, for the method learned,
// which cross-validates nothing.
func trainBudget(labels []int, m method.Name) (int, string) {
	if m == deploy.Learned {
		return 0, ""
	}
	return cvBudget(method.SmallestClass(labels))
}

// checkReport makes the folder of --report dir, if given, before any
// training, so that a path where it cannot be made (a file, a folder this
// user cannot write) fails before the training rather than after it.
func checkReport(dir string) error {
	if dir == "" {
		return nil
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return usagef("--report %s is a file, not a folder: give a folder for the plots (made if missing)", dir)
	}
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = canWrite(dir)
	}
	if err != nil {
		return fmt.Errorf("--report %s: %w: give a folder for the plots (made if missing) that you can write to", dir, err)
	}
	return nil
}

func trainReport(dir string, res *deploy.Result, labels []string) error {
	t := report.Training{Labels: labels, Gallery: res.Gallery, GalleryTitle: res.GalleryMeasure + " between the model's gallery sets"}
	if tr := res.Trained; tr != nil {
		m := res.Model.Divergence.String()
		t.Cost, t.CostTitle = tr.Costs(), "training cost ("+m+")"
		t.Before, t.BeforeTitle = tr.InitialDivergences, m+" before training (PCA)"
	}
	return t.Write(dir)
}

// checkTrainMemory says, before training starts, when the memory the
// cross-validation needs (method.MemoryNeed) is more than the machine's
// (or its cgroup's) memory, have, in bytes (0: unknown, nothing said).
func checkTrainMemory(ds *dataset.Dataset, g method.Grid, workers int, seed uint64, have int64, stderr io.Writer) {
	if have <= 0 {
		return
	}
	counts, total := ds.FrameCounts()
	need, live := method.MemoryNeed(counts, ds.Dim(), ds.Labels(), g, workers, seed)
	if need <= have {
		return
	}
	n, h := bytesize.Over(float64(need), float64(have))
	fmt.Fprintf(stderr, "train: warning: this run needs about %s of memory (%s of working data, for %d sets of %d frames in all, %d features), more than the %s this machine has: expect it to be slow or to be stopped; train on fewer or shorter sets (--max-frames), or fewer features\n",
		n, bytesize.Of(float64(live)), len(ds.Sets), total, ds.Dim(), h)
}

// checkOut refuses, before any training, an --out that the model could
// not be written to at the end: a folder, a device or a pipe
// (model.OutPath), or a file in a folder that does not exist or cannot be
// written to (a file is created there and removed).
func checkOut(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usagef("--out %s is a folder: give the model file's name, e.g. %s", path, filepath.Join(path, "model.smm"))
	}
	real, err := model.OutPath(path) // where the model goes: a device or a pipe is refused
	if err != nil {
		return usagef("--out %v", err)
	}
	return checkFolderOf("--out", path, filepath.Dir(real))
}

// checkFolderOf refuses the path of flag, to be written in folder dir,
// where that folder does not exist or this user cannot write a file in
// it (a file is created there and removed).
func checkFolderOf(flag, path, dir string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s %s: the folder %s does not exist: create it first", flag, path, dir)
	}
	if err := canWrite(dir); err != nil {
		return fmt.Errorf("%s %s: cannot write in %s (%w): give a folder you can write to", flag, path, dir, err)
	}
	return nil
}

// canWrite creates a file in the folder dir and removes it: the error of a
// folder this user cannot write a file in.
func canWrite(dir string) error {
	f, err := os.CreateTemp(dir, ".setmatch-out-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}
