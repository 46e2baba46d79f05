package openset

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"setmatch/internal/stats"
)

// AutoThresholdPercentile is the share, in percent, of sets of known
// classes that an automatic open-set threshold aims to accept.
const AutoThresholdPercentile = 95

// AutoThreshold calibrates the open-set threshold on the training sets:
// for every set with another set of its class, its smallest divergence to
// one of them is one sample, and the threshold is Bound(samples, p). div is
// the m×m matrix of how far apart the model sees the sets: their
// divergences in the learned space (match.DivergenceMatrix), or for kFDA
// the distances its kernel induces; labels are their classes.
func AutoThreshold(div mat.Symmetric, labels []string, p float64) (float64, error) {
	if m := div.SymmetricDim(); m != len(labels) {
		return 0, fmt.Errorf("%d labels for %d sets", len(labels), m)
	}
	if err := checkPercent(p); err != nil {
		return 0, err
	}
	nn, _ := Nearest(div, labels)
	if len(nn) == 0 {
		return 0, errors.New("an automatic threshold needs a class with at least 2 sets")
	}
	return Bound(nn, p), nil
}

// Nearest returns, for every set of div (m×m) with another set of its
// class, its smallest score to one of them (same), and for every set with
// a set of another class, its smallest score to one of those (other), in
// the order of the sets. labels are the sets' classes.
func Nearest(div mat.Symmetric, labels []string) (same, other []float64) {
	s, o := FoldByClass(div, labels, math.Inf(1), math.Min)
	for i := range s {
		if !math.IsInf(s[i], 1) {
			same = append(same, s[i])
		}
		if !math.IsInf(o[i], 1) {
			other = append(other, o[i])
		}
	}
	return same, other
}

// FoldByClass folds, for every set i of div (m×m; labels are the sets'
// classes), its scores to the other sets of its class into same[i] and
// its scores to the sets of other classes into other[i]: each begins at
// start and takes fold(acc, score) of the sets in their order, and stays
// start where there is no such set. Nearest folds by math.Min from +Inf.
func FoldByClass(div mat.Symmetric, labels []string, start float64, fold func(acc, score float64) float64) (same, other []float64) {
	same, other = make([]float64, len(labels)), make([]float64, len(labels))
	for i := range labels {
		s, o := start, start
		for j := range labels {
			switch {
			case j == i:
			case labels[j] == labels[i]:
				s = fold(s, div.At(i, j))
			default:
				o = fold(o, div.At(i, j))
			}
		}
		same[i], other[i] = s, o
	}
	return same, other
}

// ClassSpread returns how widely each class spreads compared with the
// others, as a log ratio: for every label with two sets or more in div
// (the m×m scores of the sets, labels their classes), its radius is the
// median over its sets of each one's smallest score to another set of
// its label, and its entry is log(radius / r̃), r̃ the median radius over
// those labels: 0 for the typical class, > 0 for one whose sets lie
// farther apart. Labels with one set, or with a radius that is not a
// finite number > 0, have no entry; the map is empty when no label has
// one.
func ClassSpread(div mat.Symmetric, labels []string) map[string]float64 {
	nearest, _ := FoldByClass(div, labels, math.Inf(1), math.Min)
	same := map[string][]float64{}
	for i, s := range nearest {
		if !math.IsInf(s, 1) && !math.IsNaN(s) {
			same[labels[i]] = append(same[labels[i]], s)
		}
	}
	radius := map[string]float64{}
	var radii []float64
	for l, x := range same {
		if r := stats.Median(x); r > 0 && !math.IsInf(r, 1) {
			radius[l] = r
			radii = append(radii, r)
		}
	}
	out := map[string]float64{}
	typical := stats.Median(radii)
	if !(typical > 0) {
		return out
	}
	for l, r := range radius {
		out[l] = math.Log(r / typical)
	}
	return out
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
// logarithms (stats.MeanStd, summed in order) and t_{n−1} Student's t
// quantile. With few samples the sample percentile is too low (it is at
// most the largest sample, which a new set exceeds with probability
// 1/(n+1)), and the bound widens by how
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
	mean, sd := stats.MeanStd(y)
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

// BalancedThreshold calibrates the open-set threshold for a door where
// strangers come as often as known people, on the training sets
// themselves. Every training class stands in turn for a stranger: a set's
// smallest score to a set of another class is what a stranger's best
// score would be (a stranger is a class the gallery does not hold), and
// its smallest score to another set of its own class what a new batch of
// a known class scores, as in AutoThreshold. The threshold and its
// rates are Calibrate's on those samples (a known set let in
// counts as named right: its score is to its own class), the rule of the
// calibration on stand-in strangers: the highest balanced accuracy, in
// the geometric middle of its range of equal decisions, or where no
// threshold does better than chance the one that lets in the fewest sets.
// div and labels are as for AutoThreshold; it needs two classes and a
// class with two sets.
func BalancedThreshold(div mat.Symmetric, labels []string) (Rates, error) {
	if m := div.SymmetricDim(); m != len(labels) {
		return Rates{}, fmt.Errorf("%d labels for %d sets", len(labels), m)
	}
	known, strangers := Nearest(div, labels)
	if len(known) == 0 {
		return Rates{}, errors.New("a balanced threshold needs a class with at least 2 sets")
	}
	if len(strangers) == 0 {
		return Rates{}, errors.New("a balanced threshold needs at least 2 classes: each stands in turn for a stranger to the others")
	}
	s := make([]Sample, 0, len(known)+len(strangers))
	for _, v := range known {
		s = append(s, Sample{Score: v, Right: true})
	}
	for _, v := range strangers {
		s = append(s, Sample{Score: v, Stranger: true})
	}
	return Calibrate(s)
}
