package learn

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// AutoThresholdPercentile is the share, in percent, of sets of known
// classes that an automatic open-set threshold aims to accept.
const AutoThresholdPercentile = 95

// OpenSetThreshold calibrates the open-set threshold on the training sets:
// for every set with another set of its class, its smallest divergence to
// one of them is one sample, and the threshold is Bound(samples, p). div is
// the m×m matrix of how far apart the model sees the sets: their
// divergences in the learned space (match.DivergenceMatrix), or for kFDA
// the distances its kernel induces; labels are their classes.
func OpenSetThreshold(div mat.Symmetric, labels []string, p float64) (float64, error) {
	if m := div.SymmetricDim(); m != len(labels) {
		return 0, fmt.Errorf("%d labels for %d sets", len(labels), m)
	}
	if err := checkPercent(p); err != nil {
		return 0, err
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
	return Bound(nn, p), nil
}

func checkPercent(p float64) error {
	if !(p > 0 && p < 100) {
		return fmt.Errorf("percentile %v: want a number strictly between 0 and 100", p)
	}
	return nil
}

// Bound returns a threshold that the score of a new set of a known class
// stays below with probability p percent (0 < p < 100), from samples x of
// such scores (divergences or distances, ≥ 0): the larger of the p-th
// sample percentile (linear interpolation between order statistics) and
// the one-sided p-percent prediction bound of a log-normal fitted to the
// positive samples,
//
//	exp(mean + t_{n−1}(p) · sd · √(1 + 1/n))
//
// with mean and sd the sample mean and standard deviation of their
// logarithms and t_{n−1} Student's t quantile. With few samples the sample
// percentile is too low (it is at most the largest sample, which a new
// set exceeds with probability 1/(n+1)), and the bound widens by how
// little the samples say; with many, the percentile follows a tail the
// log-normal does not. x is reordered.
func Bound(x []float64, p float64) float64 {
	q := percentile(x, p)
	var y []float64
	for _, v := range x {
		if v > 0 && !math.IsInf(v, 1) {
			y = append(y, math.Log(v))
		}
	}
	n := len(y)
	if n < 2 {
		return q
	}
	mean, sd := stat.MeanStdDev(y, nil)
	if !(sd > 0) {
		return q
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(p / 100)
	return math.Max(q, math.Exp(mean+t*sd*math.Sqrt(1+1/float64(n))))
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
