package learn

import (
	"errors"
	"fmt"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// DefaultNuW returns the default number of within-class neighbours ν_w: the
// number of sets of the smallest class minus one (a set is not its own
// neighbour), and at least 1. labels holds a class index per set.
func DefaultNuW(labels []int) int {
	count := map[int]int{}
	for _, l := range labels {
		count[l]++
	}
	smallest := 0
	for _, c := range count {
		if smallest == 0 || c < smallest {
			smallest = c
		}
	}
	return max(1, smallest-1)
}

// Affinity returns the pairs with non-zero affinity a_ij = g_w − g_b (paper
// Sec. 4.1) from the m×m divergence matrix div between the sets and their
// class labels: g_w(i, j) = 1 when i is among the ν_w nearest same-class sets
// of j or j among those of i ("or" rule, so a is symmetric), g_b likewise
// with the ν_b nearest sets of other classes. Ties in divergence go to the
// lower set index. Each unordered pair appears once, with I < J, in
// increasing (I, J) order; a is +1 (pull together) or −1 (push apart).
func Affinity(div mat.Symmetric, labels []int, nuW, nuB int) ([]PairWeight, error) {
	m := div.SymmetricDim()
	if len(labels) != m {
		return nil, fmt.Errorf("%d labels for %d sets", len(labels), m)
	}
	if nuW < 0 || nuB < 0 {
		return nil, fmt.Errorf("neighbour counts ν_w = %d, ν_b = %d: want ≥ 0", nuW, nuB)
	}
	g := make([]int8, m*m) // +1 within, −1 between, 0 none
	idx := make([]int, 0, m)
	for i := range m {
		for _, within := range []bool{true, false} {
			idx = idx[:0]
			for j := range m {
				if j != i && (labels[j] == labels[i]) == within {
					idx = append(idx, j)
				}
			}
			sort.SliceStable(idx, func(a, b int) bool { return div.At(i, idx[a]) < div.At(i, idx[b]) })
			nu, v := nuB, int8(-1)
			if within {
				nu, v = nuW, 1
			}
			for _, j := range idx[:min(nu, len(idx))] {
				g[i*m+j], g[j*m+i] = v, v
			}
		}
	}
	var pairs []PairWeight
	for i := range m {
		for j := i + 1; j < m; j++ {
			if a := g[i*m+j]; a != 0 {
				pairs = append(pairs, PairWeight{I: i, J: j, A: float64(a)})
			}
		}
	}
	hasWithin, hasBetween := false, false
	for _, p := range pairs {
		hasWithin = hasWithin || p.A > 0
		hasBetween = hasBetween || p.A < 0
	}
	if !hasWithin {
		return nil, errors.New("no within-class pairs: training needs at least one class with two or more sets (and ν_w ≥ 1)")
	}
	if !hasBetween {
		return nil, errors.New("no between-class pairs: training needs at least two classes (and ν_b ≥ 1)")
	}
	return pairs, nil
}
