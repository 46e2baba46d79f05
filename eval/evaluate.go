package eval

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/stats"
	"setmatch/method"
)

// Options configures Evaluate.
type Options struct {
	Methods []method.Name
	Grid    method.Grid
	Seed    uint64 // seed of the inner cross-validation folds
	Workers int    // goroutines for all-pairs work; 0 = GOMAXPROCS
	// Transform, if set, maps the sets of a split to features fitted on its
	// gallery sets only (e.g. PCA on gallery frames); it must not look at
	// the probe sets beyond transforming them.
	Transform func(sets []*mat.Dense, gallery []int) ([]*mat.Dense, error)
	// Names, if set, are the data's sets' names ("class/set", Data.Names),
	// by which errors name a set; the sets of a pooled split, drawn from
	// the frames of their class, are named by their index in it.
	Names []string
	// Progress, if set, is called after each split.
	Progress func(Progress)
	// Step, if set, is called as work within a split gets done: for the
	// shared work (divergence matrices, subspaces, covariance spectra) and
	// for each method's loops whose length is known (cross-validation
	// candidates, projections learned). Calls come one at a time, possibly
	// from different goroutines.
	Step func(Step)
}

// Progress reports how far an evaluation is.
type Progress struct {
	Split, Splits int
	Elapsed, ETA  time.Duration
	// Accuracy of each method on the split just done, in percent.
	Accuracy map[method.Name]float64
}

// MethodResult holds one method's accuracies over the splits.
type MethodResult struct {
	Mean       float64   `json:"mean"`       // percent
	Std        float64   `json:"std"`        // sample standard deviation over splits, percent
	Accuracies []float64 `json:"accuracies"` // percent, one per split
	Seconds    float64   `json:"seconds"`    // cross-validation, fitting and classification, all splits
	Params     []string  `json:"params"`     // hyper-parameters chosen per split
	// AutoMinus, when auto was evaluated too and there are two splits or
	// more, is auto's accuracy minus this method's, split by split.
	AutoMinus *Paired `json:"auto_minus,omitempty"`
}

// Paired summarises the differences a − b of two methods' accuracies on
// the same splits: the probe sets are the same, so much of what makes one
// split harder than another cancels, and the standard error of the mean
// difference is smaller than the spread of either method over the splits
// suggests. It treats the splits as independent: they are drawn
// independently, but from the same sets, so it understates the
// uncertainty of a difference on the data set as a whole.
type Paired struct {
	Mean float64 `json:"mean"` // mean of a − b over the splits, points
	SE   float64 `json:"se"`   // sample standard deviation of a − b / √splits
}

// PairedDiff returns the mean difference a − b over the splits and its
// standard error; a and b hold one accuracy per split, in the same order.
// It needs two splits or more.
func PairedDiff(a, b []float64) (Paired, error) {
	if len(a) != len(b) {
		return Paired{}, fmt.Errorf("%d accuracies against %d: want one per split for both", len(a), len(b))
	}
	if len(a) < 2 {
		return Paired{}, fmt.Errorf("%d split: a standard error needs two or more", len(a))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	mean, std := stats.MeanStd(d)
	return Paired{Mean: mean, SE: std / math.Sqrt(float64(len(d)))}, nil
}

// Result is the outcome of Evaluate.
type Result struct {
	Methods map[method.Name]*MethodResult `json:"methods"`
	Order   []method.Name                 `json:"-"`
	Splits  int                           `json:"splits"`
	// SharedSeconds: work shared by the methods (features, squared
	// distances, divergence matrices for the bandwidth grid, subspaces,
	// covariance spectra), all splits.
	SharedSeconds float64 `json:"shared_seconds"`
	TotalSeconds  float64 `json:"total_seconds"`
}

// Evaluate runs every method on every split and collects the accuracies on
// the probe sets.
func Evaluate(splits []Split, classes int, opt Options) (*Result, error) {
	if len(splits) == 0 {
		return nil, fmt.Errorf("no splits")
	}
	if len(opt.Methods) == 0 {
		return nil, fmt.Errorf("no methods")
	}
	res := &Result{Methods: map[method.Name]*MethodResult{}, Order: opt.Methods, Splits: len(splits)}
	for _, m := range opt.Methods {
		res.Methods[m] = &MethodResult{}
	}
	start := time.Now()
	var tr *tracker
	if opt.Step != nil {
		tr = &tracker{fn: opt.Step, splits: len(splits)}
	}
	var pool *method.Pool
	var poolSets []*mat.Dense
	for si, sp := range splits {
		t0 := time.Now()
		sets := sp.AllSets()
		if opt.Transform != nil {
			var err error
			sets, err = opt.Transform(sets, sp.Gallery)
			if err != nil {
				return nil, fmt.Errorf("split %d: features: %w", si+1, err)
			}
		}
		// Splits over the same sets share one pool and its caches.
		if pool == nil || opt.Transform != nil || !sameSets(poolSets, sets) {
			var err error
			pool, err = method.NewPool(sets, opt.Workers)
			if err != nil {
				return nil, fmt.Errorf("split %d: %w", si+1, err)
			}
			if sp.Sets != nil && len(opt.Names) == len(sets) {
				pool.Names = opt.Names
			}
			poolSets = sets
		}
		labels := make([]int, len(sp.Gallery))
		for k, j := range sp.Gallery {
			labels[k] = sp.Labels[j]
		}
		task := &method.Task{Pool: pool, Train: sp.Gallery, Labels: labels, Test: sp.Probe, Classes: classes, Seed: opt.Seed*1000003 + uint64(si)}
		if tr != nil {
			task.Progress = tr
		}
		tr.begin(si+1, StageShared)
		if err := method.Warm(task, opt.Methods, opt.Grid); err != nil {
			return nil, fmt.Errorf("split %d: %w", si+1, err)
		}
		res.SharedSeconds += time.Since(t0).Seconds()
		acc := map[method.Name]float64{}
		for _, m := range opt.Methods {
			t1 := time.Now()
			tr.begin(si+1, string(m))
			pred, err := method.Run(m, task, opt.Grid)
			if err != nil {
				return nil, fmt.Errorf("split %d: %s: %w", si+1, m, err)
			}
			mr := res.Methods[m]
			mr.Seconds += time.Since(t1).Seconds()
			var ok int
			for k, q := range sp.Probe {
				if pred.Labels[k] == sp.Labels[q] {
					ok++
				}
			}
			a := 100 * float64(ok) / float64(len(sp.Probe))
			mr.Accuracies = append(mr.Accuracies, a)
			mr.Params = append(mr.Params, pred.Params)
			acc[m] = a
		}
		// The next split's gallery is another: its frame halves too.
		pool.DropHalves()
		if opt.Progress != nil {
			el := time.Since(start)
			eta := time.Duration(float64(el) / float64(si+1) * float64(len(splits)-si-1))
			opt.Progress(Progress{Split: si + 1, Splits: len(splits), Elapsed: el, ETA: eta, Accuracy: acc})
		}
	}
	for _, mr := range res.Methods {
		mr.Mean, mr.Std = stats.MeanStd(mr.Accuracies)
	}
	if auto := res.Methods[method.Auto]; auto != nil && len(splits) >= 2 {
		for m, mr := range res.Methods {
			if m == method.Auto {
				continue
			}
			d, err := PairedDiff(auto.Accuracies, mr.Accuracies)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m, err)
			}
			mr.AutoMinus = &d
		}
	}
	res.TotalSeconds = time.Since(start).Seconds()
	return res, nil
}

func sameSets(a, b []*mat.Dense) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
