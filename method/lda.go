package method

import (
	"errors"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"setmatch/fisher"
	"setmatch/match"
)

// LDAScales are nn-h-lda's candidate bandwidth scales: the one bandwidth
// of every set is Scale × the Global base in the projected space. The
// first is the default when nothing can be cross-validated.
var LDAScales = []float64{1, 0.25, 0.5, 2}

// runLDA is nn-h-lda: W is Fisher's discriminant of the training frames
// (fisher.Solve, whitened by the within-class covariance, regulariser
// fisher.Reg), fixed, not learned by conjugate gradient; the sets are
// projected by it and classified by nearest neighbour on the Hellinger
// divergence of their KDEs, every set with one global bandwidth (Global
// mode, scale from LDAScales, its base from the projected training sets).
//
// The dimension d (from ldaDims) and the scale are chosen together by the
// task's own cross-validation (t.cv: stratified folds of the training
// sets, or with one training set per class the halves of their frames):
// in each fold the discriminant is computed again from the fold's
// training sets only, and its held-out sets are classified against them
// (crossNN). The pooled held-out accuracy decides, ties by the mean
// margin, then by the order of the candidates (d outer, scale inner).
// The test sets are never looked at. W is then computed on all training
// sets with the chosen d, and the test sets classified as in drPredict.
func runLDA(t *Task, g Grid) (Prediction, error) {
	sets := make([]*mat.Dense, len(t.Train))
	for k, j := range t.Train {
		sets[k] = t.Pool.Sets[j]
	}
	sol, err := fisher.Solve(sets, t.Labels, fisher.Reg)
	if err != nil {
		return Prediction{}, fmt.Errorf("Fisher discriminant of the training sets: %w", err)
	}
	dims := ldaDims(sol.Classes, sol.Rank())
	d, scale := dims[0], LDAScales[0]
	cv, note := -1.0, ""
	train, labels, fold := t.cv(max(g.Folds, 2))
	if fold != nil {
		t.progress().count("projections", foldCount(fold)+1)
		res, err := cvLDA(t.Pool, train, labels, fold, dims, LDAScales, t.progress())
		if err != nil {
			return Prediction{}, err
		}
		best := score{acc: -1}
		for i := range dims {
			for j := range LDAScales {
				if res[i][j].better(best) {
					best, d, scale = res[i][j], dims[i], LDAScales[j]
				}
			}
		}
		cv, note = best.acc, fmt.Sprintf(" ldacv=%.1f%%", 100*best.acc)
	} else {
		t.progress().count("projections", 1)
	}
	w, err := sol.Basis(d)
	if err != nil {
		return Prediction{}, err
	}
	pred, err := drPredict(t, Bandwidth{Mode: Global, Scale: scale}, match.Hellinger, w, sol.Mean)
	if err != nil {
		return Prediction{}, err
	}
	t.progress().inc()
	pred.Params = fmt.Sprintf("d=%d%s %s", d, note, pred.Params)
	pred.Fit.Method, pred.Fit.W, pred.Fit.Mean, pred.Fit.CV = NNHLDA, w, sol.Mean, cv
	// Start: W is not learned (deploy records train-bandwidth=start).
	pred.Fit.Learn = LearnParams{Dim: d, Start: true, Fisher: true}
	return pred, nil
}

// ldaDims returns nn-h-lda's candidate dimensions for C classes and r
// directions the training frames vary in: C−1 (every discriminant
// direction), ⌈(C−1)/2⌉ and 2(C−1) (completed by the leading whitened
// principal directions, fisher.Solve), each clamped to [1, r], without
// repeats, in that order.
func ldaDims(classes, r int) []int {
	k := classes - 1
	var out []int
	for _, d := range []int{k, (k + 1) / 2, 2 * k} {
		d = min(max(d, 1), r)
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// cvLDA scores every dimension × scale by the folds fold of the pool's
// sets train (with their labels): for each fold, the discriminant of its
// training part, the held-out sets classified against that part by
// crossNN. res[i][j] is the pooled held-out accuracy and mean margin of
// dims[i] (clamped to the fold's r) with scales[j].
func cvLDA(p *Pool, train, labels, fold []int, dims []int, scales []float64, tr progress) ([][]score, error) {
	res := make([][]score, len(dims))
	for i := range res {
		res[i] = make([]score, len(scales))
	}
	held := 0
	nf := foldCount(fold)
	for f := range nf {
		var trSets, teSets []*mat.Dense
		var trLab, truth []int
		for k, j := range train {
			if fold[k] == f {
				teSets, truth = append(teSets, p.Sets[j]), append(truth, labels[k])
			} else {
				trSets, trLab = append(trSets, p.Sets[j]), append(trLab, labels[k])
			}
		}
		if len(teSets) == 0 {
			tr.inc()
			continue
		}
		held += len(teSets)
		sol, err := fisher.Solve(trSets, trLab, fisher.Reg)
		if err != nil {
			return nil, fmt.Errorf("Fisher discriminant (cross-validation fold %d of %d): %w", f+1, nf, err)
		}
		all := append(append([]*mat.Dense(nil), trSets...), teSets...)
		cols, rows := make([]int, len(trSets)), make([]int, len(teSets))
		for k := range cols {
			cols[k] = k
		}
		for k := range rows {
			rows[k] = len(trSets) + k
		}
		for i, d := range dims {
			w, err := sol.Basis(min(d, sol.Rank()))
			if err != nil {
				return nil, err
			}
			proj, err := ProjectSets(all, w, sol.Mean)
			if err != nil {
				return nil, err
			}
			fp, err := NewCrossPool(proj, p.Workers, rows, cols)
			if err != nil {
				return nil, err
			}
			bws := make([]Bandwidth, len(scales))
			for j, s := range scales {
				bws[j] = Bandwidth{Mode: Global, Scale: s}
			}
			rs, err := crossNNAll(fp, bws, match.Hellinger, rows, cols, trLab, truth)
			if err != nil {
				return nil, fmt.Errorf("cross-validation fold %d of %d, d=%d: %w", f+1, nf, d, err)
			}
			for j, r := range rs {
				pred, margin := r.pred, r.margin
				for a := range rows {
					res[i][j].add(pred[a] == truth[a], margin[a])
				}
			}
		}
		tr.inc()
	}
	if held == 0 {
		return nil, errors.New("cross-validation: no set held out")
	}
	for i := range res {
		for j := range res[i] {
			res[i][j] = res[i][j].mean(held)
		}
	}
	return res, nil
}
