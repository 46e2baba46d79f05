// Package stats holds the summary statistics of a sample that several
// packages of setmatch take, each written once: of numbers (the median,
// the mean and standard deviation) and of frames, the rows of sets (the
// mean frame and the feature whose sum over the rows overflows it, the
// median of several sets' mean frames, the frames less one, and the
// largest magnitude of a matrix's values). Package sameset finds a set
// given twice.
package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Median returns the median of x, sorting x in place: the middle value of
// an odd count, the mean of the two middle values of an even count, and 0
// when x is empty.
func Median(x []float64) float64 {
	n := len(x)
	if n == 0 {
		return 0
	}
	slices.Sort(x)
	if n%2 == 0 {
		return (x[n/2-1] + x[n/2]) / 2
	}
	return x[n/2]
}

// MeanStd returns the mean of x and its sample standard deviation, 0 for
// one value (a table of one value has no spread to print). Both are NaN
// for no value.
func MeanStd(x []float64) (mean, std float64) {
	switch len(x) {
	case 0:
		return math.NaN(), math.NaN()
	case 1:
		return x[0], 0
	}
	// In order, two passes, each product rounded: the same bits on every
	// architecture (gonum's stat.MeanStdDev sums with SIMD partial sums on
	// amd64 only, and corrects the variance by the rounding of the mean).
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		d := v - mean
		std += float64(d * d) // the conversion keeps arm64 from fusing it into one rounding (FMADD)
	}
	return mean, math.Sqrt(std / float64(len(x)-1))
}

// MeanFrame returns the mean frame (len d) of the rows of the sets, each
// n_i×d with the same d and Σn_i ≥ 1: the sum of each column over the rows
// of every set, set by set and row by row in that order, divided by Σn_i.
// One set gives its column means. The order is fixed so that a mean of the
// sets one by one and of the same rows stacked into one matrix are
// bit-identical.
func MeanFrame(sets ...*mat.Dense) []float64 {
	_, d := sets[0].Dims()
	mean := make([]float64, d)
	n := 0
	for _, x := range sets {
		r, _ := x.Dims()
		for i := range r {
			for j, v := range x.RawRowView(i) {
				mean[j] += v
			}
		}
		n += r
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	return mean
}

// MeanOverflow returns, where mean (MeanFrame of the sets) holds a feature
// that is not finite, its sum over the rows having overflowed a float64
// (the rows' values are finite), the set that holds the largest |value| of
// the first such feature, the feature, and that value: the set that took
// the sum over, rather than the one at which it ran over. set is -1 when
// every feature of mean is finite, and when a value of that feature is
// not (NaN or ±Inf in the rows is no overflow: the checks of the values
// report it).
func MeanOverflow(mean []float64, sets ...*mat.Dense) (set, feature int, value float64) {
	notFinite := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	feature = slices.IndexFunc(mean, notFinite)
	if feature < 0 {
		return -1, -1, 0
	}
	set = -1
	for i, x := range sets {
		r, _ := x.Dims()
		for k := range r {
			v := x.At(k, feature)
			if notFinite(v) {
				return -1, -1, 0
			}
			if set < 0 || math.Abs(v) > math.Abs(value) {
				set, value = i, v
			}
		}
	}
	return set, feature, value
}

// MedianOfMeans returns the median of the sets' mean frames, feature by
// feature (len d; sets each n_i×d with n_i ≥ 1, at least one set): a
// centre of the sets that a few sets far from the others do not move, as
// they move the mean frame of all the rows.
func MedianOfMeans(sets ...*mat.Dense) []float64 {
	means := make([][]float64, len(sets))
	for i, x := range sets {
		means[i] = MeanFrame(x)
	}
	mid := make([]float64, len(means[0]))
	col := make([]float64, len(sets))
	for j := range mid {
		for i, m := range means {
			col[i] = m[j]
		}
		mid[j] = Median(col)
	}
	return mid
}

// SubtractFrame subtracts the frame v (len d) from every row of the n×d
// matrix x, in place.
func SubtractFrame(x *mat.Dense, v []float64) { SubtractFrameTo(x, x, v) }

// SubtractFrameTo writes every row of the n×d matrix x less the frame v
// (len d) into the same row of dst (n×d, which may be x): one pass where
// a copy and SubtractFrame take two.
func SubtractFrameTo(dst, x *mat.Dense, v []float64) {
	n, _ := x.Dims()
	for i := range n {
		out := dst.RawRowView(i)
		for j, e := range x.RawRowView(i) {
			out[j] = e - v[j]
		}
	}
}

// Centred returns a copy of the n×d set x (n ≥ 1) less its mean frame
// (MeanFrame).
func Centred(x *mat.Dense) *mat.Dense {
	xc := mat.DenseCopyOf(x)
	SubtractFrame(xc, MeanFrame(x))
	return xc
}

// MaxAbs returns the largest magnitude of the values of x (0 for a
// matrix of zeros, NaN where a value is NaN).
func MaxAbs(x *mat.Dense) float64 {
	n, _ := x.Dims()
	big := 0.0
	for i := range n {
		for _, v := range x.RawRowView(i) {
			big = max(big, math.Abs(v))
		}
	}
	return big
}
