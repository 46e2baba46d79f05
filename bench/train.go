package bench

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"time"

	"setmatch/dataset"
	"setmatch/learn"
	"setmatch/match"
	"setmatch/synth"
)

// TrainOptions configures TrainData and Train: Classes classes × Sets
// sets × Frames frames in InDim dimensions, W learned to OutDim
// dimensions in at most MaxIter iterations.
type TrainOptions struct {
	Classes, Sets, Frames, InDim, OutDim, MaxIter, Workers int
	Seed                                                   uint64
	Rule                                                   match.BandwidthRule
}

// TrainResult is what `setmatch bench --mode train` reports.
type TrainResult struct {
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

// TrainData returns the data Train learns on: synthetic subspace data
// (synth.Subspace) with min(OutDim, InDim) informative directions.
func TrainData(o TrainOptions) (*dataset.Dataset, error) {
	return synth.Generate(synth.Options{
		Kind: synth.Subspace, Classes: o.Classes, Sets: o.Sets, Frames: o.Frames, Dim: o.InDim,
		InfoDim: min(o.OutDim, o.InDim), Seed: int64(o.Seed),
	})
}

// Train times one training run of W (learn.Train, Hellinger) on ds;
// progress, if set, is called after every iteration.
func Train(ds *dataset.Dataset, o TrainOptions, progress func(learn.IterStats)) (TrainResult, error) {
	start := time.Now()
	res, err := learn.Train(ds.Matrices(), ds.Labels(), learn.TrainOptions{
		Dim: o.OutDim, Divergence: match.Hellinger, Bandwidth: o.Rule, MaxIter: o.MaxIter, Workers: o.Workers,
		Progress: progress,
	})
	if err != nil {
		return TrainResult{}, err
	}
	total := time.Since(start).Seconds()
	var secs []float64
	for _, s := range res.History {
		if s.Iteration > 0 {
			secs = append(secs, s.Seconds)
		}
	}
	slices.Sort(secs)
	out := TrainResult{
		Mode: "train", Sets: len(ds.Sets), Classes: o.Classes, Frames: o.Frames, InDim: o.InDim, OutDim: o.OutDim,
		Pairs: len(res.Pairs), Iterations: res.Iterations, SecTotal: total,
		InitialCost: res.InitialCost, FinalCost: res.FinalCost, Stop: res.Stop,
		GOARCH: runtime.GOARCH, CPU: CPUModel(), GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	if len(secs) > 0 {
		out.SecPerIter = secs[len(secs)/2]
		out.SecPerIterMax = secs[len(secs)-1]
	}
	return out, nil
}

// MaxTrainSets bounds the sets of a training benchmark: training holds
// the divergences of every pair of sets, a matrix of 2 GiB at this many.
const MaxTrainSets = 1 << 14

// Check reports whether o is a training run TrainData and Train can
// make: ≥ 2 classes, ≥ 2 sets per class, ≥ 2 frames, 1 ≤ OutDim ≤ InDim,
// MaxIter ≥ 1 (learn.Train reads 0 as its default of 100), at most
// MaxTrainSets sets, and data synth generates. Its errors are
// OptionErrors, but for synth's.
func (o TrainOptions) Check() error {
	var bad []string
	for _, f := range []struct {
		field string
		ok    bool
	}{{"Classes", o.Classes >= 2}, {"Sets", o.Sets >= 2}, {"Frames", o.Frames >= 2}, {"OutDim", o.OutDim >= 1 && o.OutDim <= o.InDim}, {"InDim", o.InDim >= o.OutDim}} {
		if !f.ok {
			bad = append(bad, f.field)
		}
	}
	switch {
	case len(bad) > 0:
		return optionErr(bad, "the training benchmark needs ≥ 2 classes, ≥ 2 sets per class, ≥ 2 frames a set and a learned dimension from 1 to the input dimension")
	case o.MaxIter < 1:
		return optionErr([]string{"MaxIter"}, "the iteration cap must be at least 1, got %d", o.MaxIter)
	case float64(o.Classes)*float64(o.Sets) > MaxTrainSets:
		return optionErr([]string{"Classes", "Sets"}, "%d classes × %d sets are more than the %d sets a training benchmark takes (training holds the divergences of every pair of sets, 2 GiB at that many): give fewer", o.Classes, o.Sets, MaxTrainSets)
	}
	if err := (synth.Options{Kind: synth.Subspace, Classes: o.Classes, Sets: o.Sets, Frames: o.Frames, Dim: o.InDim, InfoDim: min(o.OutDim, o.InDim)}).Validate(); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "synth: "))
	}
	return nil
}
