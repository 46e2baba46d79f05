package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"setmatch/learn"
	"setmatch/match"
	"setmatch/synth"
)

type benchTrainOptions struct {
	classes, sets, frames, inDim, outDim, maxIter, workers int
	seed                                                   uint64
	rule                                                   match.BandwidthRule
	json                                                   bool
}

// benchTrainResult is what `setmatch bench --mode train` reports.
type benchTrainResult struct {
	Mode          string  `json:"mode"`
	Sets          int     `json:"sets"`
	Classes       int     `json:"classes"`
	Frames        int     `json:"frames_per_set"`
	InDim         int     `json:"in_dim"`
	OutDim        int     `json:"out_dim"`
	Pairs         int     `json:"affinity_pairs"`
	Iterations    int     `json:"iterations"`
	SecPerIter    float64 `json:"sec_per_iteration"`     // median over iterations ≥ 1
	SecPerIterMax float64 `json:"sec_per_iteration_max"` // slowest iteration
	SecTotal      float64 `json:"sec_total"`             // the whole Train call, PCA start included
	InitialCost   float64 `json:"initial_cost"`
	FinalCost     float64 `json:"final_cost"`
	Stop          string  `json:"stop"`
	GOARCH        string  `json:"goarch"`
	CPU           string  `json:"cpu"`
	GOMAXPROCS    int     `json:"gomaxprocs"`
}

// benchTrain times one training run on a generated data set shaped like the
// paper's YouTube Celebrities protocol (47 classes × 3 sets by default).
func benchTrain(stdout, stderr io.Writer, o benchTrainOptions) error {
	if o.classes < 2 || o.sets < 2 || o.frames < 2 || o.outDim < 1 || o.inDim < o.outDim {
		return usagef("train benchmark needs ≥ 2 classes, ≥ 2 sets per class, ≥ 2 frames and 1 ≤ out-dim ≤ in-dim")
	}
	fmt.Fprintf(stderr, "generating %d classes × %d sets × %d frames in %d dimensions...\n", o.classes, o.sets, o.frames, o.inDim)
	ds, err := synth.Generate(synth.Options{
		Kind: synth.Subspace, Classes: o.classes, Sets: o.sets, Frames: o.frames, Dim: o.inDim,
		InfoDim: min(o.outDim, o.inDim), Seed: int64(o.seed),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "training %d → %d...\n", o.inDim, o.outDim)
	start := time.Now()
	res, err := learn.Train(ds.Matrices(), ds.Labels(), learn.TrainOptions{
		Dim: o.outDim, Divergence: match.Hellinger, Bandwidth: o.rule, MaxIter: o.maxIter, Workers: o.workers,
		Progress: func(s learn.IterStats) {
			fmt.Fprintf(stderr, "  iter %3d  cost %12.6g  |grad| %10.3g  %6.3f s\n", s.Iteration, s.Cost, s.GradNorm, s.Seconds)
		},
	})
	if err != nil {
		return err
	}
	total := time.Since(start).Seconds()
	var secs []float64
	for _, s := range res.History {
		if s.Iteration > 0 {
			secs = append(secs, s.Seconds)
		}
	}
	slices.Sort(secs)
	out := benchTrainResult{
		Mode: "train", Sets: len(ds.Sets), Classes: o.classes, Frames: o.frames, InDim: o.inDim, OutDim: o.outDim,
		Pairs: len(res.Pairs), Iterations: res.Iterations, SecTotal: total,
		InitialCost: res.InitialCost, FinalCost: res.FinalCost, Stop: res.Stop,
		GOARCH: runtime.GOARCH, CPU: cpuModel(), GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	if len(secs) > 0 {
		out.SecPerIter = secs[len(secs)/2]
		out.SecPerIterMax = secs[len(secs)-1]
	}
	if o.json {
		return json.NewEncoder(stdout).Encode(out)
	}
	fmt.Fprintf(stdout, "training: %d sets (%d classes) × %d frames, D = %d → d = %d, %d affinity pairs\n",
		out.Sets, out.Classes, out.Frames, out.InDim, out.OutDim, out.Pairs)
	fmt.Fprintf(stdout, "machine: %s, %s, GOMAXPROCS %d\n\n", out.CPU, out.GOARCH, out.GOMAXPROCS)
	fmt.Fprintf(stdout, "  %-28s %12.3f\n", "s per iteration (median)", out.SecPerIter)
	fmt.Fprintf(stdout, "  %-28s %12.3f\n", "s per iteration (slowest)", out.SecPerIterMax)
	fmt.Fprintf(stdout, "  %-28s %12d\n", "iterations", out.Iterations)
	fmt.Fprintf(stdout, "  %-28s %12.2f\n", "s total", out.SecTotal)
	fmt.Fprintf(stdout, "  %-28s %12.6g → %.6g (%s)\n", "cost", out.InitialCost, out.FinalCost, out.Stop)
	return nil
}
