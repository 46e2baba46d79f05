// Package kde holds the scalar pieces of a Gaussian kernel density estimate
// in the log domain that package match (matching) and package learn (the
// training cost) share, so that both compute log p(x) the same way:
//
//	log p(x) = s·m + log Σ_i e^{s·(|x − x_i|² − m)} + LogNorm(n, d, h)
//
// with s = −1/(2h²) and m the smallest squared distance, so that the
// largest term of the sum is e^0 = 1. The squared distances come from
// |a|² + |b|² − 2a·b (SqDist) and the exponentials from ExpNonPos.
package kde

import "math"

// LogNorm returns −log n − (d/2)·log(2πh²), the log of the constant in front
// of the kernel sum of a KDE of n samples in d dimensions with bandwidth h.
func LogNorm(n, d int, h float64) float64 {
	return -math.Log(float64(n)) - 0.5*float64(d)*math.Log(2*math.Pi*h*h)
}

// Scale returns s = −1/(2h²), the factor of a squared distance in the
// exponent of a Gaussian kernel of bandwidth h.
func Scale(h float64) float64 { return -0.5 / (h * h) }

// SqDist returns |a−b|² from |a|², |b|² and a·b, clamped at 0 because the
// expansion can round to a tiny negative number for nearly equal vectors.
// Where the expansion is not a number (squared norms that overflowed to
// +Inf give Inf − Inf) no distance can be told: SqDist returns NaN, which
// the callers' checks of their sums catch, rather than a distance of 0
// that would put the two frames on top of each other. The one comparison
// is all it costs; a KDE's frames never get there (match.NewKDE bounds
// their squared norms).
func SqDist(aa, bb, ab float64) float64 {
	d := aa + bb - 2*ab
	if d <= 0 {
		return 0
	}
	return d
}

// LogDensity returns s·m + log(sum) + logNorm: the log density at a point
// whose smallest squared distance to the samples is m, where sum is
// Σ_i ExpNonPos(s·(d_i − m)) over its squared distances d_i.
func LogDensity(s, m, sum, logNorm float64) float64 {
	return s*m + math.Log(sum) + logNorm
}
