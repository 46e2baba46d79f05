package method

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Hyper-parameters are chosen by stratified k-fold cross-validation over
// the training (gallery) sets of a split only: the probe sets are never
// looked at. Each class's training sets are shuffled with the split's seed
// and dealt round-robin to the folds; a class with a single training set
// stays in training in every fold. A configuration is scored by its
// held-out accuracy, ties broken by the mean relative margin
// (d_other − d_same)/(d_other + d_same) of the held-out sets, where d_same
// and d_other are the distances to the nearest training set of the same
// and of another class: accuracy on a few dozen sets is coarse and ties
// are common. Margins within marginTol of each other tie too, and the
// configuration met first wins: two configurations can be equal in exact
// arithmetic (kFDA regularisers that give a fold's held-out sets the
// same relative distances, for one) and differ in the last bits of their
// margins, by how a build or a machine rounds (the SIMD and portable
// divergence kernels, fused multiply-adds on arm64). Without the
// tolerance, the rounding chose between them, and a model trained on
// the same sets could differ from one machine to the next.

// marginTol is the difference below which two mean margins tie. A
// margin lies in [−1, 1], and rounding moves a mean of them by about
// 1e-15; a difference that means something is many orders larger. A
// variable only so that a test can compare exactly and show what the
// tolerance changes.
var marginTol = 1e-9

// score is the outcome of one configuration in cross-validation.
type score struct {
	acc, margin float64
}

// add counts one held-out set in s: named its class (right) or not, and
// its margin.
func (s *score) add(right bool, margin float64) {
	if right {
		s.acc++
	}
	s.margin += margin
}

// mean returns s, the counts of n held-out sets (add), as their means:
// the share named right and the mean margin.
func (s score) mean(n int) score {
	return score{s.acc / float64(n), s.margin / float64(n)}
}

// better reports whether s beats t: a higher accuracy, or the same
// accuracy and a mean margin higher by more than marginTol.
func (s score) better(t score) bool {
	if s.acc != t.acc {
		return s.acc > t.acc
	}
	return s.margin-t.margin > marginTol
}

// folds assigns each position of labels to a fold in [0, k), or −1 for
// sets that are never held out. It returns nil if no set can be held out.
func folds(labels []int, k int, seed uint64) []int {
	byClass := map[int][]int{}
	for i, l := range labels {
		byClass[l] = append(byClass[l], i)
	}
	classes := make([]int, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	rng := rand.New(rand.NewPCG(seed, 0x5e7f01d))
	out := make([]int, len(labels))
	any := false
	for _, c := range classes {
		idx := byClass[c]
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for j, i := range idx {
			if len(idx) < 2 {
				out[i] = -1
				continue
			}
			out[i] = j % k
			any = true
		}
	}
	if !any {
		return nil
	}
	return out
}

// pairFolds deals labelled items to 4 folds for classes with few sets:
// the classes with exactly two items are shuffled and split into two
// groups, and fold g (g = 0, 1) holds out the first item of every class
// of group g, fold 2+g the second. A fold's training part thus keeps both
// items of half of those classes: the methods trained on it still see
// within-class pairs, and choose their own settings on sets, not on
// frame halves. (Dealt by folds, every class with two items would keep
// one, and the pairs would all be gone.) Classes with three or more items
// are dealt as by folds; classes with one are never held out (−1).
func pairFolds(labels []int, seed uint64) []int {
	out := folds(labels, 4, seed)
	if out == nil {
		return nil
	}
	byClass := map[int][]int{}
	for i, l := range labels {
		byClass[l] = append(byClass[l], i)
	}
	var pairs []int
	for c, idx := range byClass {
		if len(idx) == 2 {
			pairs = append(pairs, c)
		}
	}
	slices.Sort(pairs)
	rng := rand.New(rand.NewPCG(seed, 0x9a175))
	rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	for k, c := range pairs {
		idx := byClass[c]
		first := rng.IntN(2)
		out[idx[first]], out[idx[1-first]] = k%2, 2+k%2
	}
	return out
}

// nnOutcome is the 1-NN decision for one held-out item with its margin.
func nnOutcome(dist func(j int) float64, train []int, labels []int, truth int) (pred int, margin float64) {
	same, other := math.Inf(1), math.Inf(1)
	best, bl := math.Inf(1), -1
	for k, j := range train {
		d := dist(j)
		if d < best {
			best, bl = d, labels[k]
		}
		if labels[k] == truth {
			same = min(same, d)
		} else {
			other = min(other, d)
		}
	}
	switch {
	case math.IsInf(same, 1) || math.IsInf(other, 1):
		margin = 0
	case same+other > 0:
		margin = (other - same) / (other + same)
	}
	return bl, margin
}
