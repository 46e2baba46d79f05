package learn

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/kfda"
)

// KFDAFolds is the number of folds KFDAOpenSetThreshold holds sets out by.
const KFDAFolds = 5

// KFDAOpenSetThreshold calibrates the open-set threshold of a kFDA model
// (a distance in its latent space) on held-out training sets, as
// OpenSetThreshold does for nearest neighbour with divergences. The m sets
// are split into KFDAFolds folds (the j-th set of each class, in order,
// goes to fold j mod KFDAFolds); for each fold, kFDA is fitted on the
// other folds' sets (the m×m training kernel k restricted to them, the
// regulariser reg, dim latent dimensions, ≤ 0 for C−1, as kfda.Fit), each
// held-out set whose class is still among them is mapped to the latent
// space, and its distance to the nearest set of its class there is one
// sample. The threshold is Bound(samples, p). Distances of the training
// sets themselves would be too small: kFDA draws each class together on
// the sets it is fitted on, and a batch is never one of them.
func KFDAOpenSetThreshold(k mat.Symmetric, labels []string, reg float64, dim int, p float64) (float64, error) {
	m := k.SymmetricDim()
	if m != len(labels) {
		return 0, fmt.Errorf("%d labels for %d sets", len(labels), m)
	}
	if err := checkPercent(p); err != nil {
		return 0, err
	}
	fold := make([]int, m)
	rank := map[string]int{}
	for i, l := range labels {
		fold[i] = rank[l] % KFDAFolds
		rank[l]++
	}
	var dist []float64
	var fitErr error
	for f := range KFDAFolds {
		var tr, te []int
		for i := range m {
			if fold[i] == f {
				te = append(te, i)
			} else {
				tr = append(tr, i)
			}
		}
		if len(te) == 0 {
			continue
		}
		class := map[string]int{}
		lab := make([]int, len(tr))
		for a, i := range tr {
			c, ok := class[labels[i]]
			if !ok {
				c = len(class)
				class[labels[i]] = c
			}
			lab[a] = c
		}
		var held []int
		for _, i := range te {
			if _, ok := class[labels[i]]; ok {
				held = append(held, i)
			}
		}
		if len(held) == 0 || len(class) < 2 {
			continue
		}
		ktr := mat.NewSymDense(len(tr), nil)
		for a, i := range tr {
			for b := a; b < len(tr); b++ {
				ktr.SetSym(a, b, k.At(i, tr[b]))
			}
		}
		fit, err := kfda.Fit(ktr, lab, len(class), reg, dim)
		if err != nil {
			fitErr = err
			continue
		}
		kte := mat.NewDense(len(held), len(tr), nil)
		for a, i := range held {
			for b, j := range tr {
				kte.Set(a, b, k.At(i, j))
			}
		}
		z, err := fit.Transform(kte)
		if err != nil {
			return 0, err
		}
		for a, i := range held {
			best := math.Inf(1)
			q := z.RawRowView(a)
			for b, j := range tr {
				if labels[j] != labels[i] {
					continue
				}
				var s float64
				for c, v := range fit.Train.RawRowView(b) {
					e := q[c] - v
					s += e * e
				}
				best = math.Min(best, math.Sqrt(s))
			}
			dist = append(dist, best)
		}
	}
	if len(dist) == 0 {
		if fitErr != nil {
			return 0, fmt.Errorf("calibrating the kFDA threshold: %w", fitErr)
		}
		return 0, errors.New("an automatic kFDA threshold needs a class with at least 2 sets and at least 2 classes")
	}
	return Bound(dist, p), nil
}
