package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/eval"
	"setmatch/features"
	"setmatch/match"
	"setmatch/model"
)

const evalSynopsis = `--data DIR [--features SPEC] [--protocol P] [--methods LIST] [--seed N] [--json]

Evaluates recognition methods on a labelled data set, as in the paper's
tables: per split, hyper-parameters are chosen by cross-validation on the
gallery sets only, then every probe set is classified. Prints mean ± std
accuracy (percent) over the splits and the seconds each method took.

protocols: gallery=G,probe=P,splits=S (per class; for pooled ORL-style data
G and P are frames per set; probe=rest for all remaining sets), loo,
file=PATH (lines "<split> <gallery|probe> <class>/<set>").
methods: ` + "nn-h,nn-j,kfda-hg,kfda-hl,kfda-j,nn-h-dr,nn-j-dr,gda,cdl (or all)"

func runEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", evalSynopsis, stderr)
	data := fs.String("data", "", "data set directory (`DIR`)")
	feat := fs.String("features", "", "frame features for image data, e.g. intensity:20x20 or intensity:20x20+pca:50 (`SPEC`)")
	proto := fs.String("protocol", "gallery=5,probe=5,splits=10", "evaluation protocol")
	methods := fs.String("methods", "all", "comma-separated methods (nn-h,nn-j,kfda-hg,kfda-hl,kfda-j,nn-h-dr,nn-j-dr,gda,cdl), or all")
	seed := fs.Uint64("seed", 1, "seed of the random splits and of the cross-validation folds")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	jsonOut := fs.String("json-out", "", "also write the JSON object (with the parameters chosen per split) to `FILE`")
	workers := fs.Int("workers", 0, "goroutines for decoding and all-pairs work (0 = GOMAXPROCS)")
	bws := fs.String("bandwidths", "", "KDE bandwidth grid, e.g. global*1,set*2,knn3*1 (default: the built-in grid)")
	widths := fs.String("widths", "", "kernel width grid s (default 0.001,0.005,0.01,0.05,0.1,0.5,1)")
	wscale := fs.String("width-scale", "both", "kernel widths apply to the raw divergence, to the divergence over its median on the gallery, or both: raw|median|both")
	regs := fs.String("regs", "", "kFDA regulariser grid, relative to tr(S_w)/m (default 0.001,0.01,0.1,1)")
	cdlRegs := fs.String("cdl-regs", "", "CDL covariance regulariser grid λ, relative to the median tr(C)/d (default 0.001,1e-5,1e-4,0.01,0.1,1,10,100)")
	gdaP := fs.String("gda-p", "", "GDA subspace dimension grid p (default 3,1,2,5,10,15)")
	folds := fs.Int("folds", 5, "inner cross-validation folds over the gallery sets")
	drDim := fs.String("dr-dim", "10,5,20", "dimension(s) d of the learned space for nn-h-dr and nn-j-dr; several are chosen from by cross-validation")
	drIter := fs.Int("dr-iter", 25, "conjugate-gradient iterations when learning the final W")
	drBW := fs.String("dr-bandwidth", "nn,scott", "bandwidth(s) held while learning W: per-set rules (nn, scott, silverman, a number, each with optional *S) or global*S (one bandwidth, S × the median nn-rule bandwidth of the projected training sets), or start (no learning: W is the PCA start); several are chosen from by cross-validation")
	drGuard := fs.Bool("dr-guard", false, "add the PCA start (no learning) of every --dr-dim as a cross-validation candidate, so that a learned W is kept only when it beats its start on held-out gallery sets")
	drFolds := fs.Int("dr-folds", 3, "cross-validation folds for choosing --dr-dim and --dr-bandwidth (W is learned once per fold and candidate)")
	drFoldIter := fs.Int("dr-fold-iter", 10, "conjugate-gradient iterations when learning W inside a cross-validation fold")
	whiten := fs.Bool("whiten", false, "with +pca:N, scale each principal component to unit variance (variances from the gallery frames)")
	centre := fs.Bool("centre-sets", false, "subtract each set's own mean from its frames (for every method)")
	spectrum := fs.Bool("spectrum", false, "print the extreme eigenvalues of k_HG, k_HL, k_J on the first split's gallery (bandwidth global*1) and exit")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *data == "" {
		return usagef("--data is required")
	}
	p, err := eval.ParseProtocol(*proto)
	if err != nil {
		return usagef("%v", err)
	}
	ms, err := eval.ParseMethods(*methods)
	if err != nil {
		return usagef("%v", err)
	}
	grid := eval.DefaultGrid()
	grid.Folds = *folds
	if *folds < 2 {
		return usagef("--folds must be ≥ 2")
	}
	if *bws != "" {
		grid.Bandwidths = nil
		for _, s := range strings.Split(*bws, ",") {
			b, err := eval.ParseBandwidth(s)
			if err != nil {
				return usagef("%v", err)
			}
			grid.Bandwidths = append(grid.Bandwidths, b)
		}
	}
	if *widths != "" {
		if grid.Widths, err = parseFloats(*widths, "--widths"); err != nil {
			return err
		}
	}
	if *regs != "" {
		if grid.Regs, err = parseFloats(*regs, "--regs"); err != nil {
			return err
		}
	}
	if *cdlRegs != "" {
		if grid.CDLRegs, err = parseFloats(*cdlRegs, "--cdl-regs"); err != nil {
			return err
		}
	}
	if *gdaP != "" {
		grid.GDAP = nil
		for _, f := range strings.Split(*gdaP, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || v < 1 {
				return usagef("--gda-p: %q is not a whole number ≥ 1", f)
			}
			grid.GDAP = append(grid.GDAP, v)
		}
	}
	switch *wscale {
	case "raw", "median", "both":
		grid.WidthScale = *wscale
	default:
		return usagef("--width-scale %q: want raw, median or both", *wscale)
	}
	grid.DRDims, grid.DRRules = nil, nil
	for _, f := range strings.Split(*drDim, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			return usagef("--dr-dim: %q is not a whole number ≥ 1", f)
		}
		grid.DRDims = append(grid.DRDims, v)
	}
	for _, f := range strings.Split(*drBW, ",") {
		if strings.TrimSpace(f) == "start" {
			grid.DRGuard = true
			continue
		}
		if v, ok, err := parseGlobalScale(f); ok {
			if err != nil {
				return usagef("--dr-bandwidth: %v", err)
			}
			grid.DRScales = append(grid.DRScales, v)
			continue
		}
		r, err := match.ParseBandwidthRule(f)
		if err != nil {
			return usagef("--dr-bandwidth: %v", err)
		}
		grid.DRRules = append(grid.DRRules, r)
	}
	if *drFolds < 2 {
		return usagef("--dr-folds must be ≥ 2")
	}
	if *drIter < 1 || *drFoldIter < 1 {
		return usagef("--dr-iter and --dr-fold-iter must be ≥ 1")
	}
	grid.DRFolds, grid.DRIter, grid.DRFoldIter = *drFolds, *drIter, *drFoldIter
	grid.DRGuard = grid.DRGuard || *drGuard
	grid.Learn = drLearner(*workers)

	opt := dataset.Options{Workers: *workers}
	var pipe features.Pipeline
	if *feat != "" {
		if pipe, err = features.Parse(*feat); err != nil {
			return usagef("--features: %v", err)
		}
		opt.Frames = pipe.FrameDecoder()
	}
	if *whiten && pipe.PCADim() == 0 {
		return usagef("--whiten needs a PCA step in --features, e.g. intensity:20x20+pca:20")
	}
	t0 := time.Now()
	ds, err := dataset.Load(*data, opt)
	if err != nil {
		return err
	}
	loadSec := time.Since(t0).Seconds()
	d := &eval.Data{Classes: ds.Classes, Sets: ds.Matrices(), Labels: ds.Labels(), Pooled: ds.Pooled}
	for _, s := range ds.Sets {
		d.Names = append(d.Names, s.Class+"/"+s.Name)
	}
	splits, err := p.MakeSplits(d, *seed)
	if err != nil {
		return err
	}
	eo := eval.Options{Methods: ms, Grid: grid, Seed: *seed, Workers: *workers}
	if k := pipe.PCADim(); k > 0 || *centre {
		eo.Transform = splitTransform(k, *whiten, *centre)
	}
	if *spectrum {
		return printSpectrum(stdout, splits[0], eo)
	}
	if !*quiet {
		fmt.Fprintf(stderr, "eval: %s: %d classes, %d sets, %d features, loaded in %.1f s; %d splits\n",
			*data, len(ds.Classes), len(ds.Sets), ds.Dim(), loadSec, len(splits))
		eo.Progress = func(pr eval.Progress) {
			var b strings.Builder
			for _, m := range ms {
				fmt.Fprintf(&b, " %s=%.1f", m, pr.Accuracy[m])
			}
			fmt.Fprintf(stderr, "eval: split %d/%d done, %s elapsed, ETA %s:%s\n", pr.Split, pr.Splits,
				pr.Elapsed.Round(time.Second), pr.ETA.Round(time.Second), b.String())
		}
	}
	res, err := eval.Evaluate(splits, len(ds.Classes), eo)
	if err != nil {
		return err
	}
	featName := *feat
	if featName == "" {
		featName = "files"
	}
	if *whiten {
		featName += " --whiten"
	}
	if *centre {
		featName += " --centre-sets"
	}
	out := struct {
		Methods       map[string]*eval.MethodResult `json:"methods"`
		Order         []string                      `json:"order"`
		Protocol      string                        `json:"protocol"`
		Features      string                        `json:"features"`
		Data          string                        `json:"data"`
		Splits        int                           `json:"splits"`
		Seed          uint64                        `json:"seed"`
		LoadSeconds   float64                       `json:"load_seconds"`
		SharedSeconds float64                       `json:"shared_seconds"`
		TotalSeconds  float64                       `json:"total_seconds"`
	}{res.Methods, ms, p.String(), featName, *data, res.Splits, *seed, loadSec, res.SharedSeconds, res.TotalSeconds}
	js, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	js = append(js, '\n')
	if *jsonOut != "" {
		if err := os.WriteFile(*jsonOut, js, 0o644); err != nil {
			return err
		}
	}
	if *asJSON {
		_, err := stdout.Write(js)
		return err
	}
	fmt.Fprintf(stdout, "data %s, features %s, protocol %s, seed %d\n\n", *data, featName, p, *seed)
	fmt.Fprintf(stdout, "%-9s %15s %9s\n", "method", "accuracy (%)", "seconds")
	for _, m := range ms {
		r := res.Methods[m]
		fmt.Fprintf(stdout, "%-9s %7.1f ± %5.1f %9.1f\n", m, r.Mean, r.Std, r.Seconds)
	}
	fmt.Fprintf(stdout, "\nshared work (features, distances, divergence grid, subspaces, covariances): %.1f s; loading %.1f s; total %.1f s\n",
		res.SharedSeconds, loadSec, res.TotalSeconds+loadSec)
	return nil
}

func parseFloats(s, flag string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) {
			return nil, usagef("%s: %q is not a number > 0", flag, f)
		}
		out = append(out, v)
	}
	return out, nil
}

// printSpectrum prints the extreme eigenvalues of the divergence kernels
// on the gallery sets of split sp for the paper's widths.
func printSpectrum(w io.Writer, sp eval.Split, eo eval.Options) error {
	sets := sp.Sets
	if eo.Transform != nil {
		var err error
		if sets, err = eo.Transform(sets, sp.Gallery); err != nil {
			return err
		}
	}
	pool, err := eval.NewPool(sets, eo.Workers)
	if err != nil {
		return err
	}
	reps, err := pool.KernelSpectra(eval.Bandwidth{Mode: eval.Global, Scale: 1}, sp.Gallery, eval.PaperWidths)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d gallery sets, bandwidth global*1\n%-6s %7s %13s %13s %10s\n", len(sp.Gallery), "kernel", "s", "min eig", "max eig", "min/max")
	for _, r := range reps {
		fmt.Fprintf(w, "%-6s %7g %13.4g %13.4g %10.2e\n", r.Kernel, r.Width, r.Min, r.Max, r.Min/r.Max)
	}
	return nil
}

// splitTransform returns the per-split feature step: PCA to k dimensions
// (k > 0) fitted on the gallery frames of the split only (whitened if
// whiten), then, if centre,
// each set minus its own mean.
func splitTransform(k int, whiten, centre bool) func([]*mat.Dense, []int) ([]*mat.Dense, error) {
	return func(sets []*mat.Dense, gallery []int) ([]*mat.Dense, error) {
		if k > 0 {
			var err error
			if sets, err = pcaSets(sets, gallery, k, whiten); err != nil {
				return nil, err
			}
		}
		if !centre {
			return sets, nil
		}
		out := make([]*mat.Dense, len(sets))
		for i, x := range sets {
			out[i] = eval.Centred(x)
		}
		return out, nil
	}
}

// pcaSets fits PCA to k dimensions on the gallery frames and applies it to
// every set.
func pcaSets(sets []*mat.Dense, gallery []int, k int, whiten bool) ([]*mat.Dense, error) {
	{
		rows := 0
		for _, g := range gallery {
			n, _ := sets[g].Dims()
			rows += n
		}
		_, dim := sets[gallery[0]].Dims()
		all := mat.NewDense(rows, dim, nil)
		r := 0
		for _, g := range gallery {
			n, _ := sets[g].Dims()
			all.Slice(r, r+n, 0, dim).(*mat.Dense).Copy(sets[g])
			r += n
		}
		pca, err := features.FitPCA(all, k)
		if err != nil {
			return nil, err
		}
		out := make([]*mat.Dense, len(sets))
		for i, s := range sets {
			out[i] = pca.Transform(s)
			if whiten {
				n, _ := out[i].Dims()
				for r := range n {
					row := out[i].RawRowView(r)
					for j := range row {
						if v := pca.Variances[j]; v > 0 {
							row[j] /= math.Sqrt(v)
						}
					}
				}
			}
		}
		return out, nil
	}
}

// parseGlobalScale reads "global*S" (or "global", S = 1); ok is false
// when s is not of that form.
func parseGlobalScale(s string) (v float64, ok bool, err error) {
	name, scale, cut := strings.Cut(strings.TrimSpace(s), "*")
	if name != "global" {
		return 0, false, nil
	}
	if !cut {
		return 1, true, nil
	}
	v, err = strconv.ParseFloat(scale, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, true, fmt.Errorf("%q: the scale S of global*S must be a number > 0", s)
	}
	return v, true, nil
}

// drLearner returns the projection learner of the -dr methods: model.Train
// (Section 4) with the default affinity (ν_w = smallest class − 1,
// ν_b = ν_w) and the dimension, training bandwidth rule and iteration cap
// of p (d is clamped to the feature dimension).
func drLearner(workers int) eval.Learner {
	return func(sets []*mat.Dense, labels []int, m match.Measure, p eval.LearnParams, seed int64) (*mat.Dense, []float64, error) {
		_, d := sets[0].Dims()
		if p.Start {
			return model.PCABasis(sets, min(p.Dim, d), seed)
		}
		res, err := model.Train(sets, labels, model.TrainOptions{
			Dim: min(p.Dim, d), Divergence: m, Bandwidth: p.Rule, MaxIter: p.MaxIter, Seed: seed, Workers: workers,
			GlobalScale: p.Scale,
		})
		if err != nil {
			return nil, nil, err
		}
		return res.W, res.Mean, nil
	}
}
