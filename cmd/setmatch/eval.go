package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/eval"
	"setmatch/features"
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
	methods := fs.String("methods", "nn-h,nn-j,kfda-hg,kfda-hl,kfda-j,gda,cdl", "comma-separated methods, or all")
	seed := fs.Uint64("seed", 1, "seed of the random splits and of the cross-validation folds")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	workers := fs.Int("workers", 0, "goroutines for decoding and all-pairs work (0 = GOMAXPROCS)")
	bws := fs.String("bandwidths", "", "KDE bandwidth grid, e.g. global*1,set*2,knn3*1 (default: the built-in grid)")
	widths := fs.String("widths", "", "kernel width grid s (default 0.001,0.005,0.01,0.05,0.1,0.5,1)")
	wscale := fs.String("width-scale", "both", "kernel widths apply to the raw divergence, to the divergence over its median on the gallery, or both: raw|median|both")
	regs := fs.String("regs", "", "kFDA regulariser grid, relative to tr(S_w)/m (default 0.001,0.01,0.1,1)")
	folds := fs.Int("folds", 5, "inner cross-validation folds over the gallery sets")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	if err := fs.Parse(args); err != nil {
		return err
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
	switch *wscale {
	case "raw", "median", "both":
		grid.WidthScale = *wscale
	default:
		return usagef("--width-scale %q: want raw, median or both", *wscale)
	}
	grid.Learn = drLearner(*workers)

	opt := dataset.Options{Workers: *workers}
	var pipe features.Pipeline
	if *feat != "" {
		if pipe, err = features.Parse(*feat); err != nil {
			return usagef("--features: %v", err)
		}
		opt.Frames = pipe.FrameDecoder()
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
	if k := pipe.PCADim(); k > 0 {
		eo.Transform = pcaTransform(k)
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
	if *asJSON {
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
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
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

// pcaTransform fits PCA to k dimensions on the gallery frames of a split
// and applies it to every set.
func pcaTransform(k int) func([]*mat.Dense, []int) ([]*mat.Dense, error) {
	return func(sets []*mat.Dense, gallery []int) ([]*mat.Dense, error) {
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
		}
		return out, nil
	}
}

// drLearner returns the projection learner of the -dr methods.
func drLearner(workers int) eval.Learner { return nil }
