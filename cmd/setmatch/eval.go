package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"setmatch/dataset"
	"setmatch/deploy"
	"setmatch/eval"
	"setmatch/features"
	"setmatch/internal/atomicfile"
	"setmatch/internal/regfile"
	"setmatch/method"
	"setmatch/openeval"
)

var evalSynopsis = `--data DIR [--features SPEC] [--protocol P] [--methods LIST] [--seed N] [--json]

Evaluates recognition methods on a labelled data set, as in the paper's
tables: per split, hyper-parameters are chosen by cross-validation on the
gallery sets only, then every probe set is classified. Prints mean ± std
accuracy (percent) over the splits and the seconds each method took.

protocols: gallery=G,probe=P,splits=S (per class; for pooled ORL-style data
G and P are frames per set; probe=rest for all remaining sets), loo,
file=PATH (lines "<split> <gallery|probe|visitor|other> <class>/<set>").

The open set: gallery=G,probe=P,splits=S,strangers=K leaves K classes out
of every split's gallery (at most C−2 of the C classes); their probe sets
are strangers'. The stranger classes rotate through a permutation of the
classes drawn from --seed, K per split, so that with strangers=1 and
splits=C every class is the stranger once. Each method is then trained as
setmatch train trains it (on the split's gallery sets, with the threshold
train sets by default, or --threshold T as train reads it) and decides every probe set with the model's
matcher. A split file that --splits-out wrote for strangers=K is
measured the same way: its probe sets whose class has no gallery set in
their split are strangers'. With ,visitors=V as well (V < K, and K ≤ C−3: three known classes), the probe sets of V of each
split's stranger classes go to training as train --strangers takes
them, and are not decided. With ,others=O (V + O < K), the probe sets of O
more of them go to training as train --others takes them (they shape the
method, then leave the gallery), and are not decided. In a split file the
sets of these classes have the role visitor or other; the others' sets
may be of classes that never come to the door, e.g. the same people
taken with another camera. The table gives, mean ± std over the splits: the known sets
named right closed-set (the threshold ignored); named right, the
strangers kept out and their balanced mean at the model's own threshold;
the best balanced accuracy any single threshold reaches on the probes;
and, free of any threshold, the strangers let in when 95% and 99% of the
known sets are let in. --json gives the same, as shares in [0, 1], with
every split's row (the method deployed, for auto the one chosen).
methods: ` + method.Join(method.Names, ",") + " (or all)\n\nauto: what setmatch train --method auto deploys, chosen inside each\nsplit's gallery by nested cross-validation (see setmatch train). With auto\nand two splits or more, every other method's row adds auto's accuracy minus\nits own, split by split, and the standard error of that mean (JSON:\nauto_minus): whether a difference is more than the luck of the splits."

// evalArgs holds the flags of setmatch eval.
type evalArgs struct {
	data, feat, proto, methods, jsonOut, splitsOut string
	threshold, spreadExps                          string
	seed                                           uint64
	workers, maxFrames                             int
	asJSON, whiten, centre, spectrum               bool
	quiet                                          bool
	grid                                           method.GridSpec
	spread                                         []float64 // --spread-exponents, read
}

func evalFlags(stderr io.Writer) (*flag.FlagSet, *evalArgs) {
	fs := newFlagSet("eval", evalSynopsis, stderr)
	a := new(evalArgs)
	fs.StringVar(&a.data, "data", "", "data set folder `DIR` (required)")
	fs.StringVar(&a.feat, "features", "", "frame features `SPEC` for image data, e.g. intensity:20x20 or intensity:20x20+pca:50")
	fs.StringVar(&a.proto, "protocol", "gallery=5,probe=5,splits=10", "evaluation protocol: gallery=G,probe=P,splits=S (add ,strangers=K to leave K classes out of each split's gallery and measure the open set, and ,visitors=V to give V of them to training as strangers' sets, ,others=O to give O of them to training as others' sets), loo or file=PATH")
	fs.StringVar(&a.methods, "methods", "all", "comma-separated methods ("+method.Join(method.Names, ",")+"), or all")
	fs.StringVar(&a.threshold, "threshold", "", "with strangers=K in --protocol, or a split file with strangers' probes: the open-set threshold of the models, as setmatch train's --threshold `T` (default: train's default)")
	fs.StringVar(&a.spreadExps, "spread-exponents", "", "with strangers=K in --protocol: the exponents α, from 0 to 1 in increasing order, from which the calibration on stand-in strangers chooses how far each class's threshold follows how widely its sets spread (`LIST`; default "+deploy.FormatSpreadExponents(deploy.DefaultSpreadExponents)+"; 0 alone: one threshold for every class)")
	fs.Uint64Var(&a.seed, "seed", 1, "seed `N` of the random splits, the stranger classes and the cross-validation folds")
	fs.BoolVar(&a.asJSON, "json", false, "print one JSON object instead of a table")
	fs.StringVar(&a.jsonOut, "json-out", "", "also write the JSON object (with the parameters chosen per split) to `FILE`")
	fs.StringVar(&a.splitsOut, "splits-out", "", "also write the splits to `FILE` before evaluating, one line \"<split> <role> <class>/<set>\" per set (role gallery, probe, or visitor and other for the sets visitors=V and others=O give to training), as --protocol file=FILE reads them: to measure another tool on the same splits (a probe set whose class has no gallery set in its split is a stranger's)")
	workersVar(fs, &a.workers, "goroutines `N` for decoding and all-pairs work (at most one per CPU; 0: one per CPU)")
	g, d := &a.grid, method.DefaultGridSpec()
	fs.StringVar(&g.Bandwidths, "bandwidths", "", "KDE bandwidth grid, e.g. global*1,set*2,knn3*1 (default: the built-in grid)")
	fs.StringVar(&g.Widths, "widths", d.Widths, "kernel width grid s")
	fs.StringVar(&g.WidthScale, "width-scale", d.WidthScale, "kernel widths apply to the raw divergence, to the divergence over its median on the gallery, or both: raw|median|both")
	fs.StringVar(&g.Regs, "regs", d.Regs, "kFDA regulariser grid, relative to tr(S_w)/m")
	fs.StringVar(&g.CDLRegs, "cdl-regs", d.CDLRegs, "CDL covariance regulariser grid λ, relative to the median tr(C)/d")
	fs.StringVar(&g.GDAP, "gda-p", d.GDAP, "GDA subspace dimension grid p; a p at or above the number of features is left out, as its kernel is constant")
	fs.IntVar(&g.Folds, "folds", d.Folds, "inner cross-validation folds over the gallery sets")
	fs.StringVar(&g.DRDims, "dr-dim", d.DRDims, "dimension(s) d of the learned space for nn-h-dr and nn-j-dr (the first where there is nothing to cross-validate on), and for auto's nn-h-dr candidate (the d below the feature dimension, from the smallest up); several are chosen from by cross-validation")
	fs.IntVar(&g.DRIter, "dr-iter", d.DRIter, "conjugate-gradient iterations when learning the final W")
	fs.StringVar(&g.DRRules, "dr-bandwidth", d.DRRules, "bandwidth(s) held while learning W: per-set rules (nn, scott, silverman, a number, each with optional *S) or global*S (one bandwidth, S × the median nn-rule bandwidth of the projected training sets; with S < 1, W is first learned at S = 1 for half the iterations, rounded up, then for all of them at S), or start (no learning: W is the start --dr-start names); several are chosen from by cross-validation. Auto's nn-h-dr candidate takes the global*S of the list (the default's when there are none) and always adds the start")
	fs.BoolVar(&g.DRGuard, "dr-guard", d.DRGuard, "add the start (no learning) of every --dr-dim as a cross-validation candidate, so that a learned W is kept only when it beats its start on held-out gallery sets")
	fs.StringVar(&g.DRStart, "dr-start", d.DRStart, "where learning W starts for nn-h-dr, nn-j-dr and auto's -dr candidates: pca (the principal directions of the gallery frames, as in the paper) or fisher (the subspace of their Fisher discriminant, as nn-h-lda computes it)")
	fs.IntVar(&g.DRFolds, "dr-folds", d.DRFolds, "cross-validation folds for choosing --dr-dim and --dr-bandwidth (W is learned once per fold and candidate)")
	fs.IntVar(&g.DRFoldIter, "dr-fold-iter", d.DRFoldIter, "conjugate-gradient iterations when learning W inside a cross-validation fold")
	fs.BoolVar(&a.whiten, "whiten", false, "with +pca:N, scale each principal component to unit variance (variances from the gallery frames)")
	fs.BoolVar(&a.centre, "centre-sets", false, "subtract each set's own mean from its frames (for every method)")
	fs.BoolVar(&a.spectrum, "spectrum", false, "print the extreme eigenvalues of k_HG, k_HL, k_J on the first split's gallery (bandwidth global*1) and exit")
	fs.BoolVar(&a.quiet, "quiet", false, "no progress on stderr")
	fs.IntVar(&a.maxFrames, "max-frames", 0, maxFramesUsage)
	return fs, a
}

// needStrangers says that the flags openSetFlags names measure the open
// set only.
const needStrangers = "%s a protocol with strangers (gallery=G,probe=P,splits=S,strangers=K, or a split file that --splits-out wrote for one): without strangers eval measures the closed set"

// openSetFlags names the flags given that only an open-set protocol
// takes, with the verb needStrangers wants ("--threshold needs"); ""
// where none is given.
func (a *evalArgs) openSetFlags() string {
	var f []string
	if a.threshold != "" {
		f = append(f, "--threshold")
	}
	if a.spreadExps != "" {
		f = append(f, "--spread-exponents")
	}
	switch len(f) {
	case 0:
		return ""
	case 1:
		return f[0] + " needs"
	}
	return strings.Join(f, " and ") + " need"
}

func runEval(args []string, stdout, stderr io.Writer) error {
	fs, a := evalFlags(stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if a.data == "" {
		return usagef("--data is required")
	}
	if a.spectrum && (a.asJSON || a.jsonOut != "") {
		return usagef("--spectrum prints a table of eigenvalues only: leave out --json and --json-out")
	}
	for _, f := range []struct{ flag, path string }{{"--json-out", a.jsonOut}, {"--splits-out", a.splitsOut}} {
		if err := checkOutFile(f.flag, f.path); err != nil {
			return err
		}
	}
	p, err := eval.ParseProtocol(a.proto)
	if err != nil {
		return usagef("%v", err)
	}
	if f := a.openSetFlags(); f != "" && p.Strangers == 0 && p.Kind != eval.SplitFile {
		return usagef(needStrangers, f)
	}
	if err := a.checkVisitorsRule(p); err != nil {
		return err
	}
	if a.spreadExps != "" {
		if a.spread, err = deploy.ParseSpreadExponents(a.spreadExps); err != nil {
			return usagef("--spread-exponents: %v", err)
		}
	}
	ms, err := method.ParseNames(a.methods)
	if err != nil {
		return usagef("%v", err)
	}
	grid, err := method.ParseGrid(a.grid)
	if err != nil {
		return usagef("%v", err)
	}
	grid.Learn = deploy.DRLearner(a.workers)
	ds, pipe, loadSec, err := loadEvalData(a)
	if err != nil {
		return err
	}
	budget, fits := cvBudget(p.SmallestGallery(ds.Labels(), ds.Pooled))
	if _, err := capFrames(ds, a.maxFrames, budget, fits, "eval", stderr); err != nil {
		return err
	}
	d := &eval.Data{Classes: ds.Classes, Sets: ds.Matrices(), Labels: ds.Labels(), Names: ds.Names(), Pooled: ds.Pooled}
	splits, err := makeSplits(p, d, a.seed)
	if err != nil {
		return err
	}
	if p.Kind == eval.SplitFile {
		// A split file marked as an open set (eval.OpenSetMark) has strangers.
		p.Strangers = len(splits[0].Strangers)
		p.Visitors, p.Others = len(splits[0].Visitors), len(splits[0].Others)
		if f := a.openSetFlags(); p.Strangers == 0 && f != "" {
			return usagef(needStrangers+": the split file is a closed set (it lacks the line %q that makes probes of classes without gallery sets strangers)", f, eval.OpenSetMark)
		}
		if err := a.checkVisitorsRule(p); err != nil {
			return err
		}
	}
	if n, m := eval.Unnamable(splits); n > 0 {
		how := ""
		if p.Kind == eval.SplitFile {
			how = fmt.Sprintf("; to measure them as strangers, begin the split file with the line %q", eval.OpenSetMark)
		}
		fmt.Fprintf(stderr, "eval: note: %d probe sets, in %d of the %d splits, are of a class with no gallery set in their split: a closed set can only name them wrong, and counts them as errors%s\n", n, m, len(splits), how)
	}
	if a.splitsOut != "" {
		if err := writeSplitsFile(a.splitsOut, splits, d); err != nil {
			return err
		}
	}
	eo := eval.Options{Methods: ms, Grid: grid, Seed: a.seed, Workers: a.workers, Names: d.Names}
	if k := pipe.PCADim(); k > 0 || a.centre {
		eo.Transform = features.SplitTransform(k, a.whiten, a.centre)
	}
	if a.spectrum {
		reps, err := eval.Spectra(splits[0], eo)
		if err != nil {
			return err
		}
		return eval.WriteSpectra(stdout, len(splits[0].Gallery), reps)
	}
	run := eval.Run{Data: a.data, Features: a.featureName(), Protocol: p, Methods: ms, Seed: a.seed, LoadSeconds: loadSec}
	if p.Strangers > 0 {
		return runOpenEval(stdout, stderr, a, run, d, splits, eo)
	}
	if !a.quiet {
		fmt.Fprintf(stderr, "eval: %s: %d classes, %d sets, %d features, loaded in %.1f s; %d splits\n",
			a.data, len(ds.Classes), len(ds.Sets), ds.Dim(), loadSec, len(splits))
		eo.Progress = eval.ProgressLines(stderr, ms)
		eo.Step = eval.StepLines(stderr, eval.StepEvery)
	}
	res, err := eval.Evaluate(splits, len(ds.Classes), eo)
	if err != nil {
		return err
	}
	return a.write(stdout, res.Record(run), func(w io.Writer) error { return res.WriteTable(w, run) })
}

// loadEvalData loads the data set of --data, reading image sets with the
// pipeline of --features (before its PCA, which each split fits), and
// returns the pipeline and the seconds taken.
func loadEvalData(a *evalArgs) (*dataset.Dataset, features.Pipeline, float64, error) {
	opt := dataset.Options{Workers: a.workers}
	var loader *features.Loader
	if a.feat != "" {
		var err error
		if loader, err = features.NewLoader(a.feat); err != nil {
			return nil, features.Pipeline{}, 0, specError(err)
		}
		opt.Images = loader.Reader()
	}
	var pipe features.Pipeline
	if loader != nil {
		pipe = loader.Pipeline()
	}
	if a.whiten && pipe.PCADim() == 0 {
		return nil, pipe, 0, usagef("--whiten needs a PCA step in --features, e.g. intensity:20x20+pca:20")
	}
	t0 := time.Now()
	ds, err := dataset.Load(a.data, opt)
	if err == nil && loader != nil {
		err = loader.Check(ds)
	}
	if err == nil && !ds.Pooled {
		err = ds.CheckFrames() // a pooled set is cut into sets by the protocol
	}
	return ds, pipe, time.Since(t0).Seconds(), err
}

// checkVisitorsRule refuses a --threshold that cannot take strangers'
// sets where the protocol gives training visitors' sets (a protocol's
// visitors=V, or a split file's visitor sets once read).
func (a *evalArgs) checkVisitorsRule(p eval.Protocol) error {
	if a.threshold == "" {
		return nil
	}
	var o deploy.Options
	if err := deploy.ParseThreshold(a.threshold, &o); err != nil {
		return usagef("%v", err)
	}
	if p.Visitors > 0 {
		if err := deploy.StrangersRule(o); err != nil {
			if p.Kind == eval.SplitFile {
				return usagef("the visitor sets of the split file %s go to training as strangers' sets: %v; or take the visitor lines out of the file", p.File, err)
			}
			return usagef("visitors=%d gives training strangers' sets: %v", p.Visitors, err)
		}
	}
	return nil
}

// writeSplitsFile writes the splits of d to the file path
// (eval.WriteSplits), for --splits-out.
func writeSplitsFile(path string, splits []eval.Split, d *eval.Data) error {
	var b bytes.Buffer
	if err := eval.WriteSplits(&b, splits, d); err != nil {
		return usagef("--splits-out: %v", err)
	}
	return writeWhole(path, b.Bytes(), "--splits-out")
}

// checkOutFile refuses, before any evaluation, a path of flag (if given)
// that writeWhole could not write at the end: a folder, or a file in a
// folder that does not exist or cannot be written to, where its links
// lead (atomicfile.Target). A pipe or a device there is written to as it
// is.
func checkOutFile(flag, path string) error {
	if path == "" {
		return nil
	}
	p, fi, err := atomicfile.Target(path)
	switch {
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, err)
	case fi != nil && fi.IsDir():
		return usagef("%s %s is a folder: give a file's name", flag, path)
	case fi != nil && !fi.Mode().IsRegular():
		return nil
	}
	return checkFolderOf(flag, path, filepath.Dir(p))
}

// writeWhole writes b to the file path, of the flag, as model files are
// written (model.WriteFile): through symbolic links to where they lead
// (atomicfile.Target), and a regular file there, or a new one, whole or
// not at all (atomicfile.WriteFile), so that a write that fails, on a
// full disk say, leaves no cut file that a script or --protocol file=
// would read as whole; anything else there (a pipe, /dev/stdout) is
// written to as it is.
func writeWhole(path string, b []byte, flag string) error {
	p, fi, err := atomicfile.Target(path)
	switch {
	case err != nil:
	case fi != nil && !fi.Mode().IsRegular():
		err = os.WriteFile(p, b, 0o644)
	default:
		err = atomicfile.WriteFile(p, 0o644, false, func(f *os.File) error {
			_, err := f.Write(b)
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("%s: %w: give a file in a folder you can write", flag, err)
	}
	return nil
}

// makeSplits returns the splits of p on d; the command reads a split file
// (file=PATH), so that package eval does no I/O.
func makeSplits(p eval.Protocol, d *eval.Data, seed uint64) ([]eval.Split, error) {
	if p.Kind != eval.SplitFile {
		return p.MakeSplits(d, seed)
	}
	// Opened without blocking: a pipe is read as it comes, and a named
	// FIFO no one writes to reads as empty rather than waiting forever.
	f, err := regfile.OpenAny(p.File)
	if err != nil {
		return nil, fmt.Errorf("split file: %w", err)
	}
	defer f.Close()
	return eval.ReadSplits(f, p.File, d)
}

// featureName names the features of the run, as the output records them.
func (a *evalArgs) featureName() string {
	name := a.feat
	if name == "" {
		name = "files"
	}
	if a.whiten {
		name += " --whiten"
	}
	if a.centre {
		name += " --centre-sets"
	}
	return name
}

// write prints record as indented JSON with --json, else the table
// writes, and writes the JSON to --json-out if given; where that fails,
// the output is printed all the same, and the error returned.
func (a *evalArgs) write(stdout io.Writer, record any, table func(io.Writer) error) error {
	if !a.asJSON && a.jsonOut == "" {
		return table(stdout)
	}
	js, err := json.MarshalIndent(record, "", "  ")
	if err != nil {
		return err
	}
	js = append(js, '\n')
	var outErr error // printed first: the results are not lost with the file
	if a.jsonOut != "" {
		outErr = writeWhole(a.jsonOut, js, "--json-out")
	}
	if a.asJSON {
		_, err = stdout.Write(js)
	} else {
		err = table(stdout)
	}
	return cmp.Or(outErr, err)
}

// runOpenEval is setmatch eval on a protocol with strangers: every
// method trained as setmatch train would on each split's gallery and its
// open set measured on the split's probes (openeval).
func runOpenEval(stdout, stderr io.Writer, a *evalArgs, run eval.Run, d *eval.Data, splits []eval.Split, eo eval.Options) error {
	oo := openeval.Options{Methods: run.Methods, Grid: eo.Grid, Seed: eo.Seed, Workers: eo.Workers, Threshold: a.threshold, SpreadExponents: a.spread, Transform: eo.Transform}
	if !a.quiet {
		fmt.Fprintf(stderr, "eval: %s: %d classes, %d sets, loaded in %.1f s; %d splits, %d strangers' classes in each\n",
			a.data, len(d.Classes), len(d.Sets), run.LoadSeconds, len(splits), run.Protocol.Strangers)
		oo.Progress = openeval.ProgressLines(stderr)
	}
	res, err := openeval.Run(d, splits, oo)
	if err != nil {
		return err
	}
	if err := a.write(stdout, res.Record(run), func(w io.Writer) error { return res.WriteTable(w, run) }); err != nil {
		return err
	}
	for _, mr := range res.Methods {
		if mr.Figures != nil {
			return nil
		}
	}
	return errors.New("every method failed on every split: nothing was measured (the errors are in the output)")
}
