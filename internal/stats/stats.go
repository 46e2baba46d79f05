// Package stats holds the summary statistics of a sample of numbers that
// several packages of setmatch take, each written once.
package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
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
	return stat.MeanStdDev(x, nil)
}
