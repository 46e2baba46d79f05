package method

import (
	"gonum.org/v1/gonum/mat"

	"setmatch/fisher"
)

// ClassShaped reports whether the projection w was shaped by the classes
// it was fitted on: every W a method holds (a Fisher discriminant, a W
// learned by conjugate gradient or its PCA start, all fitted on the
// training frames), not the full space (nil). Such a W is fitted again
// wherever the classes it stands for change (RefitProjection: the
// stand-in folds of training), and cannot be fitted again from sets it
// has projected.
func ClassShaped(w *mat.Dense) bool {
	return w != nil
}

// RefitProjection fits f's projection W (D×d) again on other sets (raw
// frames, n_i×D each; ids their classes, one per set; names what errors
// call them), with the hyper-parameters it was fitted with (d, the
// training bandwidth, the iterations), and sets f's bandwidths on the sets it projects: what
// fitting f's setting on those sets would give. A Fisher discriminant
// (nn-h-lda) is solved again, keeping its d where the sets vary in as
// many directions; a W learned by conjugate gradient (g.Learn) is learned
// again as it was (LearnParams.Halves: from the sets' frame halves where
// it was, or where no class has two sets; from the sets otherwise), so
// that a stand-in fold's W, whose classes keep one set fewer, learns as
// the W deployed did. A method in the full space (W nil) keeps f as it
// is. The seed seeds the learner.
func (f *Fitted) RefitProjection(sets []*mat.Dense, ids []int, names []string, g Grid, seed uint64, workers int) error {
	if !ClassShaped(f.W) {
		return nil
	}
	if g.Learn == nil && f.Method != NNHLDA {
		return ErrNoLearner
	}
	var w *mat.Dense
	var mean []float64
	var err error
	if f.Method == NNHLDA {
		// The fitted d, or as many directions as the frames vary in, if
		// fewer.
		_, d := f.W.Dims()
		var sol *fisher.Solution
		if sol, err = fisher.Solve(sets, ids, fisher.Reg); err == nil {
			mean = sol.Mean
			w, err = sol.Basis(min(d, sol.Rank()))
		}
	} else {
		p := f.Learn
		if p.MaxIter == 0 {
			p.MaxIter = g.DRIter
		}
		learnSets, learnIDs := sets, ids
		if p.Halves || maxSize(ids) < 2 {
			// As it was fitted (learnInput), or where no class has two
			// sets: from every set's frame halves, a set's halves its
			// neighbours.
			learnSets, learnIDs = halves(sets, ids)
			p.Halves = true
		}
		if maxSize(learnIDs) < 2 && needsPairs(p) {
			// No class has a pair: each has one set, too short to halve.
			// Whether a class could be given a second set is the
			// caller's to say: a stand-in fold holds one set of each
			// class out, and its classes may have two.
			n, _ := sets[0].Dims()
			return tooShortForHalves(names[0], n)
		}
		w, mean, err = g.Learn(learnSets, learnIDs, f.Divergence, p, int64(seed))
	}
	if err != nil {
		return err
	}
	f.W, f.Mean = w, mean
	proj, err := ProjectSets(sets, w, mean)
	if err != nil {
		return err
	}
	return f.SetBandwidthsOn(proj, workers)
}
