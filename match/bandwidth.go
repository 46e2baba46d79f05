package match

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// BandwidthRule chooses the bandwidth h of a set's KDE: a fixed value, or a
// rule of thumb computed from the set's own samples.
type BandwidthRule struct {
	Kind  RuleKind
	Fixed float64 // h when Kind is Fixed
}

// RuleKind names how a bandwidth is chosen.
type RuleKind int

const (
	Fixed     RuleKind = iota // h given
	Scott                     // h = σ·n^(−1/(d+4))
	Silverman                 // h = σ·(n(d+2)/4)^(−1/(d+4))
)

// String returns the rule as ParseBandwidthRule accepts it.
func (r BandwidthRule) String() string {
	switch r.Kind {
	case Scott:
		return "scott"
	case Silverman:
		return "silverman"
	}
	return strconv.FormatFloat(r.Fixed, 'g', -1, 64)
}

// ParseBandwidthRule reads "scott", "silverman" or a positive number.
func ParseBandwidthRule(s string) (BandwidthRule, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "scott":
		return BandwidthRule{Kind: Scott}, nil
	case "silverman":
		return BandwidthRule{Kind: Silverman}, nil
	}
	h, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(h > 0) || math.IsInf(h, 0) {
		return BandwidthRule{}, fmt.Errorf("bandwidth %q: want a number > 0, \"scott\" or \"silverman\"", s)
	}
	return BandwidthRule{Kind: Fixed, Fixed: h}, nil
}

// Bandwidth returns h for the n×d set x.
//
// The rules of thumb use σ, the root mean variance over the d features
// (sample variance, n−1 in the denominator), so that h is the same whatever
// orthonormal basis the features are expressed in, as the divergences are.
// They need n ≥ 2 and a set whose frames are not all identical.
func (r BandwidthRule) Bandwidth(x *mat.Dense) (float64, error) {
	if r.Kind == Fixed {
		if !(r.Fixed > 0) || math.IsInf(r.Fixed, 0) {
			return 0, fmt.Errorf("%w (got %v)", ErrBandwidth, r.Fixed)
		}
		return r.Fixed, nil
	}
	if x == nil || x.IsEmpty() {
		return 0, ErrEmptySet
	}
	n, d := x.Dims()
	if n < 2 {
		return 0, fmt.Errorf("%w to choose a bandwidth by the %s rule (got %d)", ErrTooFewFrames, r, n)
	}
	sigma := RootMeanVariance(x)
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return 0, fmt.Errorf("the %s rule needs frames that differ (spread %v): give a fixed bandwidth", r, sigma)
	}
	nf, df := float64(n), float64(d)
	switch r.Kind {
	case Scott:
		return sigma * math.Pow(nf, -1/(df+4)), nil
	case Silverman:
		return sigma * math.Pow(nf*(df+2)/4, -1/(df+4)), nil
	}
	return 0, fmt.Errorf("unknown bandwidth rule %d", r.Kind)
}

// RootMeanVariance returns sqrt of the mean over columns of the sample
// variance of each column of the n×d matrix x (n ≥ 2).
func RootMeanVariance(x *mat.Dense) float64 {
	n, d := x.Dims()
	mean := make([]float64, d)
	for i := range n {
		for j, v := range x.RawRowView(i) {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	var ss float64
	for i := range n {
		for j, v := range x.RawRowView(i) {
			e := v - mean[j]
			ss += e * e
		}
	}
	return math.Sqrt(ss / float64((n-1)*d))
}
