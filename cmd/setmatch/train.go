package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/features"
	"setmatch/grassmann"
	"setmatch/learn"
	"setmatch/match"
	"setmatch/model"
	"setmatch/report"
	"setmatch/setfile"
)

func runTrain(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("train", "--data DIR --dim d --out MODEL [--divergence hellinger|jeffrey] [--bandwidth H|nn|scott|silverman[*S]] [--max-iter N] [--nu-w N] [--nu-b N] [--grad-tol X] [--cost-tol X] [--min-step X] [--rounds N] [--seed N] [--log-json] [--report DIR] [--threshold X|auto] [--workers N] [--features SPEC]", stderr)
	data := fl.String("data", "", "training data set folder `DIR`: <class>/<set>.npy|.csv, or <class>/<set>/<frames> (required)")
	dim := fl.Int("dim", 0, "dimension `d` of the learned space (required)")
	out := fl.String("out", "", "write the model to file `MODEL` (required)")
	divName := fl.String("divergence", "hellinger", "divergence `NAME` in the cost and for matching: hellinger or jeffrey")
	bwName := fl.String("bandwidth", "nn", "KDE bandwidth: a fixed number `H` > 0, or a rule applied to each projected set: nn (median nearest-neighbour distance), scott or silverman, optionally scaled as in scott*2")
	maxIter := fl.Int("max-iter", grassmann.DefaultMaxIter, "at most `N` conjugate-gradient iterations per round")
	nuW := fl.Int("nu-w", 0, "within-class neighbours `N` (ν_w) per set for the affinity (0: smallest class size − 1)")
	nuB := fl.Int("nu-b", 0, "between-class neighbours `N` (ν_b) per set for the affinity (0: ν_w)")
	gradTol := fl.Float64("grad-tol", grassmann.DefaultGradTol, "stop when the Riemannian gradient norm is at most `X`")
	costTol := fl.Float64("cost-tol", grassmann.DefaultCostRelTol, "stop when the relative cost change of an iteration is at most `X`")
	minStep := fl.Float64("min-step", grassmann.DefaultMinStep, "stop when the accepted step length is at most `X`")
	rounds := fl.Int("rounds", 1, "conjugate-gradient runs `N`; bandwidths are re-estimated from the projection before each")
	seed := fl.Int64("seed", 1, "random seed `N` (used by the PCA start for more than 2000 features)")
	logJSON := fl.Bool("log-json", false, "print one JSON object per iteration on standard output")
	reportDir := fl.String("report", "", "write PNG plots (cost, divergence matrices before and after) to folder `DIR`")
	threshold := fl.String("threshold", "", "open-set threshold: a number `X`, or auto (the 95th percentile of within-class nearest-neighbour divergences after training); default none (closed set)")
	workers := fl.Int("workers", 0, "goroutines `N` (0: one per CPU)")
	featSpec := fl.String("features", "", "feature extractor `SPEC` for image frames, e.g. intensity:20x20 (without a pca stage)")
	maxBytes := fl.Int64("max-bytes", setfile.DefaultLimits().MaxBytes, "refuse set files larger than `N` bytes")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%v", err)
	}
	if fl.NArg() != 0 {
		fl.Usage()
		return usagef("unexpected argument %q: all settings are flags", fl.Arg(0))
	}
	switch {
	case *data == "":
		fl.Usage()
		return usagef("--data DIR is required")
	case *out == "":
		fl.Usage()
		return usagef("--out MODEL is required")
	case *dim < 1:
		fl.Usage()
		return usagef("--dim d is required and must be at least 1 (got %d)", *dim)
	case *maxIter < 1:
		return usagef("--max-iter must be at least 1 (got %d)", *maxIter)
	case *nuW < 0 || *nuB < 0:
		return usagef("--nu-w and --nu-b must be ≥ 0 (0 selects the default)")
	case *rounds < 1:
		return usagef("--rounds must be at least 1 (got %d)", *rounds)
	case *workers < 0:
		return usagef("--workers must be ≥ 0 (got %d)", *workers)
	}
	for name, v := range map[string]float64{"grad-tol": *gradTol, "cost-tol": *costTol, "min-step": *minStep} {
		if !(v > 0) || math.IsInf(v, 0) {
			return usagef("--%s must be a number > 0 (got %v)", name, v)
		}
	}
	measure, err := match.ParseMeasure(*divName)
	if err != nil {
		return usagef("--divergence: %v", err)
	}
	rule, err := match.ParseBandwidthRule(*bwName)
	if err != nil {
		return usagef("--bandwidth: %v", err)
	}
	thr, auto := math.Inf(1), false
	switch t := strings.TrimSpace(*threshold); t {
	case "":
	case "auto":
		auto = true
	default:
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || !(v >= 0) {
			return usagef("--threshold: want a number ≥ 0 or auto, got %q", *threshold)
		}
		thr = v
	}
	opt := dataset.Options{Limits: setfile.DefaultLimits(), Workers: *workers}
	opt.Limits.MaxBytes = *maxBytes
	var pipeline *features.Fitted // recorded in the model
	if *featSpec != "" {
		pipe, err := features.Parse(*featSpec)
		if err != nil {
			return usagef("--features: %v", err)
		}
		if pipe.PCADim() > 0 {
			return usagef("--features: train learns its own projection; drop the pca stage from %q", *featSpec)
		}
		pipeline = &features.Fitted{Pipeline: pipe}
		opt.Images = pipeline.ImageSetReader()
	}

	start := time.Now()
	ds, err := dataset.Load(*data, opt)
	if err != nil {
		return err
	}
	if ds.Pooled {
		return fmt.Errorf("%s uses the pooled layout (all frames of a class in one folder): training needs several sets per class; arrange the frames as <class>/<set>/<frame> or <class>/<set>.npy", *data)
	}
	if len(ds.Sets) < 2 {
		return fmt.Errorf("%s holds %d set: training needs at least 2 sets, with at least one class holding 2 or more", *data, len(ds.Sets))
	}
	if D := ds.Dim(); *dim > D {
		return usagef("--dim %d is larger than the %d features per frame of %s", *dim, D, *data)
	}
	frames := 0
	for _, s := range ds.Sets {
		n, _ := s.Frames.Dims()
		frames += n
	}
	fmt.Fprintf(stderr, "train: %d sets, %d classes, %d frames, %d features -> d = %d (%s, bandwidth %s), loaded in %.1fs\n",
		len(ds.Sets), len(ds.Classes), frames, ds.Dim(), *dim, measure, rule, time.Since(start).Seconds())

	enc := json.NewEncoder(stdout)
	var logErr error
	res, err := learn.Train(ds.Matrices(), ds.Labels(), learn.TrainOptions{
		Dim: *dim, Divergence: measure, Bandwidth: rule, NuW: *nuW, NuB: *nuB,
		MaxIter: *maxIter, GradTol: *gradTol, CostRelTol: *costTol, MinStep: *minStep,
		Rounds: *rounds, Seed: *seed, Workers: *workers,
		Progress: func(s learn.IterStats) {
			fmt.Fprintf(stderr, "iter %4d  cost %-13.7g  grad %-10.4g  step %-10.4g  evals %2d  %6.2fs\n",
				s.Iteration, s.Cost, s.GradNorm, s.Step, s.Evals, s.Seconds)
			if *logJSON && logErr == nil {
				logErr = enc.Encode(trainLogLine{Iteration: s.Iteration, Cost: s.Cost, GradNorm: s.GradNorm,
					Step: s.Step, Seconds: s.Seconds, Evals: s.Evals, Restart: s.Restart})
			}
		},
	})
	if err != nil {
		return fmt.Errorf("training on %s: %w", *data, err)
	}
	if logErr != nil {
		return fmt.Errorf("writing the JSON log: %w", logErr)
	}
	within, between := 0, 0
	for _, p := range res.Pairs {
		if p.A > 0 {
			within++
		} else {
			between++
		}
	}
	fmt.Fprintf(stderr, "train: %d iterations (%s), cost %.6g -> %.6g, affinity ν_w = %d, ν_b = %d (%d within-class, %d between-class pairs), %.1fs\n",
		res.Iterations, res.Stop, res.InitialCost, res.FinalCost, res.NuW, res.NuB, within, between, res.Seconds)

	labels := make([]string, len(ds.Sets))
	names := make([]string, len(ds.Sets))
	for i, s := range ds.Sets {
		labels[i], names[i] = s.Class, s.Name
	}
	var after *mat.SymDense
	if auto || *reportDir != "" {
		if after, err = match.DivergenceMatrix(res.Projected, res.Bandwidths, measure, *workers); err != nil {
			return err
		}
	}
	if auto {
		if thr, err = learn.OpenSetThreshold(after, labels, learn.AutoThresholdPercentile); err != nil {
			return fmt.Errorf("--threshold auto: %w", err)
		}
		fmt.Fprintf(stderr, "train: threshold %.6g (%dth percentile of within-class nearest-neighbour %s)\n", thr, learn.AutoThresholdPercentile, measure)
	}

	params := map[string]string{}
	fl.VisitAll(func(f *flag.Flag) { params[f.Name] = f.Value.String() })
	m, err := res.Model(labels, names, thr, model.Meta{Created: time.Now().UTC(), Tool: toolName("train"), Data: *data, Params: params})
	if err != nil {
		return err
	}
	// The model records the pipeline, so that setmatchd and setmatch
	// features compute the features of images exactly as here.
	m.Features = pipeline
	if err := model.WriteFile(*out, m); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "train: wrote %s\n", *out)

	if *reportDir != "" {
		if err := trainReport(*reportDir, res, after, labels, measure); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "train: wrote plots to %s\n", *reportDir)
	}
	return nil
}

// trainLogLine is one line of --log-json.
type trainLogLine struct {
	Iteration int     `json:"iteration"`
	Cost      float64 `json:"cost"`
	GradNorm  float64 `json:"grad_norm"`
	Step      float64 `json:"step"`
	Seconds   float64 `json:"seconds"`
	Evals     int     `json:"evals"`
	Restart   bool    `json:"restart"`
}

func trainReport(dir string, res *learn.TrainResult, after *mat.SymDense, labels []string, m match.Measure) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cost := make([]float64, len(res.History))
	for i, s := range res.History {
		cost[i] = s.Cost
	}
	if err := report.CostPlot(filepath.Join(dir, "cost.png"), cost, "training cost ("+m.String()+")"); err != nil {
		return err
	}
	return report.DivergenceHeatmaps(labels,
		report.Heatmap{Path: filepath.Join(dir, "divergence-before.png"), Div: res.InitialDivergences, Title: m.String() + " before training (PCA)"},
		report.Heatmap{Path: filepath.Join(dir, "divergence-after.png"), Div: after, Title: m.String() + " after training"})
}
