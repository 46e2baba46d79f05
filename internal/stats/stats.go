// Package stats holds the summary statistics of a sample of numbers that
// several packages of setmatch take, each written once.
package stats

import "slices"

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
