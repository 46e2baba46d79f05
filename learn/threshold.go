package learn

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// AutoThresholdPercentile is the percentile of the within-class
// nearest-neighbour divergences that an automatic open-set threshold takes.
const AutoThresholdPercentile = 95

// OpenSetThreshold calibrates the open-set threshold on the training sets:
// for every set with another set of its class, its smallest divergence to
// one of them, and of those the p-th percentile (0 ≤ p ≤ 100, linear
// interpolation between order statistics). div is the m×m divergence matrix
// between the sets in the learned space (match.DivergenceMatrix) and labels
// their classes.
func OpenSetThreshold(div mat.Symmetric, labels []string, p float64) (float64, error) {
	if m := div.SymmetricDim(); m != len(labels) {
		return 0, fmt.Errorf("%d labels for %d sets", len(labels), m)
	}
	if !(p >= 0 && p <= 100) {
		return 0, fmt.Errorf("percentile %v: want a number in [0, 100]", p)
	}
	var nn []float64
	for i := range labels {
		best := math.Inf(1)
		for j := range labels {
			if j != i && labels[j] == labels[i] {
				best = math.Min(best, div.At(i, j))
			}
		}
		if !math.IsInf(best, 1) {
			nn = append(nn, best)
		}
	}
	if len(nn) == 0 {
		return 0, errors.New("an automatic threshold needs a class with at least 2 sets")
	}
	return percentile(nn, p), nil
}

// percentile returns the p-th percentile of x (sorted in place), with
// linear interpolation between order statistics.
func percentile(x []float64, p float64) float64 {
	sort.Float64s(x)
	pos := p / 100 * float64(len(x)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(x)-1)
	return x[lo] + (pos-float64(lo))*(x[hi]-x[lo])
}
