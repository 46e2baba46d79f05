package method

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ChoiceSets is the most training sets the choice of the auto method
// scores its candidates on by default (Grid.ChoiceSets). Up to it the
// choice sees every set; beyond it, a seeded sample of whole classes
// (ChoiceSample), and what it chooses is fitted on every set with the
// hyper-parameters chosen. The cross-validation's held-out accuracy over
// about 200 sets resolves differences of a few points (its standard
// error is 2 to 3.5 points between 80% and 50%), which is what the
// one-standard-error rule compares; more sets sharpen the estimate
// slowly and cost the choice their square or more in time and memory.
const ChoiceSets = 200

// ChoiceSample returns the indices of the sets (labels: each set's
// class) that a choice over at most max sets scores its candidates on:
// every set when there are at most max, else the sets of whole classes
// taken in a seeded order where they fit in max, and where fewer than two
// classes fit, the smallest others until there are two. The indices are
// in increasing order; the same seed gives the same sample.
func ChoiceSample(labels []int, max int, seed uint64) []int {
	if len(labels) <= max {
		all := make([]int, len(labels))
		for i := range all {
			all[i] = i
		}
		return all
	}
	counts := classSizes(labels)
	classes := make([]int, 0, len(counts))
	for c := range counts {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	order := rand.New(rand.NewPCG(seed, 0xc401ce)).Perm(len(classes))
	keep := map[int]bool{}
	total := 0
	for _, k := range order {
		c := classes[k]
		if total+counts[c] > max {
			continue
		}
		keep[c] = true
		total += counts[c]
	}
	// A class larger than max (or two that together are) leaves fewer
	// than two: the smallest others join, whatever the cap, since a choice
	// needs two classes; a large class taken first would have made the
	// sample that class and one other, more than max sets.
	if len(keep) < 2 {
		rest := slices.DeleteFunc(slices.Clone(classes), func(c int) bool { return keep[c] })
		slices.SortStableFunc(rest, func(a, b int) int { return counts[a] - counts[b] })
		for _, c := range rest[:min(2-len(keep), len(rest))] {
			keep[c] = true
		}
	}
	var idx []int
	for i, c := range labels {
		if keep[c] {
			idx = append(idx, i)
		}
	}
	return idx
}

// RechooseDR fits f, a learned projection (nn-h-dr, nn-j-dr) chosen and
// fitted on a sample of the classes (ChoiceSample), on every training
// set (raw frames, n_i×D each; ids their classes, one per set), choosing its d and its KDE
// bandwidth again there: a sample of a hundred classes cannot say which
// d a thousand need, nor the bandwidth that separates them in it. The
// candidates are f's d and the larger dimensions of g's grid (autoDims),
// each learned as f was (its training bandwidth, or its start), with g's
// deployable bandwidths. One fold holds out one set of every class that
// has two or more: W is learned on the rest (from their frame halves
// where a class keeps one set, drFoldPart) and the held-out sets,
// decided by 1-NN against the rest, pick the d and the bandwidth as
// runDR's folds do. W is then learned on every set with that d
// (learnInput), and the bandwidths are set on the projected sets.
// Where no class has two sets there is nothing to hold out, and W is
// learned again as it was (RefitProjection). The seed seeds the fold and
// the learner.
func (f *Fitted) RechooseDR(sets []*mat.Dense, ids []int, names []string, g Grid, seed uint64, workers int) error {
	if !f.Method.IsDR() || f.W == nil || f.Learn.Dim < 1 {
		return f.RefitProjection(sets, ids, names, g, seed, workers)
	}
	if g.Learn == nil {
		return ErrNoLearner
	}
	fold := holdOneOut(ids, seed)
	if fold == nil {
		return f.RefitProjection(sets, ids, names, g, seed, workers)
	}
	var dim int
	if len(sets) > 0 {
		_, dim = sets[0].Dims()
	}
	p := f.Learn
	p.Halves, p.MaxIter = false, 0
	cands := []LearnParams{p}
	for _, d := range autoDims(g, dim) {
		if d > p.Dim {
			c := p
			c.Dim = d
			cands = append(cands, c)
		}
	}
	g.Bandwidths = deployableBandwidths(g.Bandwidths)
	c, b, s, err := cvDR(sets, ids, fold, cands, g, f.Divergence, int64(seed), workers, progress{})
	if err != nil {
		return err
	}
	chosen := cands[c]
	chosen.MaxIter = g.DRIter
	ls, ll, lp := learnInput(sets, ids, chosen, 0)
	w, mean, err := g.Learn(ls, ll, f.Divergence, lp, int64(seed))
	if err != nil {
		return fmt.Errorf("d=%d, chosen again on every set: %w", chosen.Dim, err)
	}
	proj, err := ProjectSets(sets, w, mean)
	if err != nil {
		return err
	}
	f.W, f.Mean, f.Learn, f.CV = w, mean, lp, s.acc
	f.Bandwidth = drBandwidths(g)[b]
	return f.SetBandwidthsOn(proj, workers)
}

// holdOneOut returns the fold of RechooseDR: 0 for one set, drawn with
// the seed, of every class (ids: each set's class) that has two or more,
// −1 for the others; nil when no class has two.
func holdOneOut(ids []int, seed uint64) []int {
	k := maxSize(ids)
	if k < 2 {
		return nil
	}
	fold := folds(ids, k, seed^0x1e0)
	for i, f := range fold {
		if f != 0 {
			fold[i] = -1
		}
	}
	return fold
}
