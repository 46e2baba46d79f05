package method

import (
	"math/rand/v2"
	"slices"
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
// taken in a seeded order while they fit in max (at least two classes,
// whatever their size). The indices are in increasing order; the same
// seed gives the same sample.
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
		if len(keep) >= 2 && total+counts[c] > max {
			continue
		}
		keep[c] = true
		total += counts[c]
	}
	var idx []int
	for i, c := range labels {
		if keep[c] {
			idx = append(idx, i)
		}
	}
	return idx
}
