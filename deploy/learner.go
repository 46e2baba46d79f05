package deploy

import (
	"gonum.org/v1/gonum/mat"

	"setmatch/learn"
	"setmatch/match"
	"setmatch/method"
)

// DRLearner returns the projection learner of the -dr methods: learn.Train
// (Section 4) with the default affinity (ν_w = smallest class − 1,
// ν_b = ν_w; one neighbour each with p.Halves) and the dimension,
// training bandwidth rule, iteration cap and start of p (d is clamped to
// the feature dimension; the PCA start, or with p.Fisher the Fisher
// start, learn.FisherCache), learning on workers goroutines (0:
// GOMAXPROCS), for W alone (learn.TrainOptions.WAlone). setmatch train
// and eval give it to the engine as Grid.Learn.
func DRLearner(workers int) method.Learner {
	// The folds' candidates share their sets' PCA and Fisher starts, and
	// the first iterations where they begin alike: the warm start of
	// global*0.25 is the first half of global*1 (learn.PrefixCache).
	pcaStarts, fisherStarts, prefixes := new(learn.PCACache), new(learn.FisherCache), new(learn.PrefixCache)
	return func(sets []*mat.Dense, labels []int, m match.Measure, p method.LearnParams, seed int64) (*mat.Dense, []float64, error) {
		_, d := sets[0].Dims()
		start := learn.StartFunc(pcaStarts.Basis)
		if p.Fisher {
			start = func(sets []*mat.Dense, d int, _ int64) (*mat.Dense, []float64, error) {
				return fisherStarts.Basis(sets, labels, d)
			}
		}
		if p.Start {
			return start(sets, min(p.Dim, d), seed)
		}
		nu := 0 // learn.Train's default
		if p.Halves {
			nu = 1
		}
		res, err := learn.Train(sets, labels, learn.TrainOptions{
			Dim: min(p.Dim, d), Divergence: m, Bandwidth: p.Rule, MaxIter: p.MaxIter, Seed: seed, Workers: workers,
			GlobalScale: p.Scale, Start: start, NuW: nu, NuB: nu, WAlone: true, Prefixes: prefixes,
		})
		if err != nil {
			return nil, nil, err
		}
		return res.W, res.Mean, nil
	}
}
