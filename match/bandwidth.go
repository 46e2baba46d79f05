package match

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/internal/scaleadvice"
	"setmatch/internal/stats"
)

// BandwidthRule chooses the bandwidth h of a set's KDE: a fixed value, or a
// rule computed from the set's own samples, optionally multiplied by Scale.
type BandwidthRule struct {
	Kind  RuleKind
	Fixed float64 // h when Kind is Fixed
	// Scale multiplies the rule's value (Scott, Silverman, NearestNeighbour);
	// 0 means 1. Rules of thumb assume a Gaussian and, in tens of dimensions,
	// give kernels so narrow that every frame's density is its own kernel:
	// a scale, or the nearest-neighbour rule, corrects that.
	Scale float64
}

// RuleKind names how a bandwidth is chosen.
type RuleKind int

const (
	Fixed            RuleKind = iota // h given
	Scott                            // h = σ·n^(−1/(d+4))
	Silverman                        // h = σ·(n(d+2)/4)^(−1/(d+4))
	NearestNeighbour                 // h = median over frames of the distance to the nearest other frame
)

var ruleNames = map[RuleKind]string{Scott: "scott", Silverman: "silverman", NearestNeighbour: "nn"}

// String returns the rule as ParseBandwidthRule accepts it: "0.5", "scott",
// "silverman", "nn", with "*S" appended for a scale S ≠ 1.
func (r BandwidthRule) String() string {
	name, ok := ruleNames[r.Kind]
	if !ok {
		return strconv.FormatFloat(r.Fixed, 'g', -1, 64)
	}
	if r.Scale != 0 && r.Scale != 1 {
		name += "*" + strconv.FormatFloat(r.Scale, 'g', -1, 64)
	}
	return name
}

// ParseBandwidthRule reads a positive number (a fixed h), or "scott",
// "silverman" or "nn" (median nearest-neighbour distance), each optionally
// followed by "*S" to scale it by S > 0, e.g. "scott*2". A fixed h must be
// one a KDE takes (CheckBandwidth).
func ParseBandwidthRule(s string) (BandwidthRule, error) {
	r, err := ParseRecordedBandwidthRule(s)
	if err != nil {
		return BandwidthRule{}, err
	}
	if r.Kind == Fixed {
		if err := CheckBandwidth(r.Fixed); err != nil {
			return BandwidthRule{}, fmt.Errorf("bandwidth %q: %w", s, err)
		}
	}
	return r, nil
}

// ParseRecordedBandwidthRule is ParseBandwidthRule but for the range of a
// fixed h, which may be any finite number > 0: the rule a model records
// for its batches, which one that builds no KDE (a set kernel's) records
// without using it. The model checks the range where it builds a KDE.
func ParseRecordedBandwidthRule(s string) (BandwidthRule, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	name, scale, scaled := strings.Cut(t, "*")
	for kind, n := range ruleNames {
		if name != n {
			continue
		}
		r := BandwidthRule{Kind: kind}
		if scaled {
			v, err := strconv.ParseFloat(strings.TrimSpace(scale), 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				return BandwidthRule{}, fmt.Errorf("bandwidth %q: the scale after * must be a number > 0", s)
			}
			r.Scale = v
		}
		return r, nil
	}
	h, err := strconv.ParseFloat(t, 64)
	if err != nil || !(h > 0) || math.IsInf(h, 0) {
		return BandwidthRule{}, fmt.Errorf("bandwidth %q: want a number > 0, or scott, silverman or nn, optionally with *SCALE (e.g. scott*2)", s)
	}
	return BandwidthRule{Kind: Fixed, Fixed: h}, nil
}

// MinBandwidth and MaxBandwidth bound a bandwidth h: beyond them the
// kernel's 1/h² and h^d near the limits of a float64, and the divergences
// under- or overflow.
const (
	MinBandwidth = 1e-150
	MaxBandwidth = 1e150
)

// MinScale and MaxScale bound the scale of a rule (Scott, Silverman,
// NearestNeighbour) that can give a bandwidth a KDE takes: beyond them a
// scale takes every bandwidth from MinBandwidth to MaxBandwidth outside
// that range, and the rule fails for every set (RuleBandwidthError).
const (
	MinScale = MinBandwidth / MaxBandwidth
	MaxScale = MaxBandwidth / MinBandwidth
)

// CheckScale returns an error where r is a rule whose scale is outside
// MinScale to MaxScale: one with which Bandwidth fails for every set,
// whatever its frames. A fixed h, and a rule without a scale, pass.
func (r BandwidthRule) CheckScale() error {
	name, rule := ruleNames[r.Kind]
	if !rule || r.Scale == 0 || (r.Scale >= MinScale && r.Scale <= MaxScale) {
		return nil
	}
	return fmt.Errorf("the %s rule's scale is %g, outside %g to %g: scaled by it, no bandwidth a KDE takes (%g to %g) stays one", name, r.Scale, MinScale, MaxScale, MinBandwidth, MaxBandwidth)
}

// CheckBandwidth returns an error unless h is a number from MinBandwidth
// to MaxBandwidth: a *BandwidthError where h is a finite number > 0
// outside that range.
func CheckBandwidth(h float64) error {
	if !(h > 0) || math.IsInf(h, 0) {
		return fmt.Errorf("bandwidth is %v, want a finite number > 0", h)
	}
	if !InRange(h) {
		return &BandwidthError{H: h, Large: h > MaxBandwidth}
	}
	return nil
}

// InRange reports whether h is a bandwidth a KDE takes: a number from
// MinBandwidth to MaxBandwidth.
func InRange(h float64) bool { return h >= MinBandwidth && h <= MaxBandwidth }

// BandwidthError is CheckBandwidth's error of a bandwidth H, a finite
// number > 0, that a KDE does not take: beyond MaxBandwidth (Large), or
// below MinBandwidth. The features' values are then too large, or too
// small, for the kernel.
type BandwidthError struct {
	H     float64
	Large bool
}

// Bound returns the bound H passes: MaxBandwidth where it is Large, else
// MinBandwidth.
func (e *BandwidthError) Bound() float64 {
	if e.Large {
		return MaxBandwidth
	}
	return MinBandwidth
}

// Error says which way to scale the features, and by what power of ten
// (scaleadvice, from H: it brings the bandwidth to between 1 and 10).
func (e *BandwidthError) Error() string {
	advice := scaleadvice.Up(e.H)
	if e.Large {
		advice = scaleadvice.Down(e.H)
	}
	return fmt.Sprintf("bandwidth is %v, outside %g to %g, where the kernel nears the limits of a float64: %s", e.H, MinBandwidth, MaxBandwidth, advice)
}

// Validate reports whether r is a usable rule.
func (r BandwidthRule) Validate() error {
	switch r.Kind {
	case Fixed:
		err := CheckBandwidth(r.Fixed)
		if err == nil {
			return nil
		}
		if _, outside := err.(*BandwidthError); outside { // a number > 0, out of range
			return fmt.Errorf("fixed %w", err)
		}
		return fmt.Errorf("%w: fixed %w", ErrBandwidth, err)
	case Scott, Silverman, NearestNeighbour:
		if r.Scale < 0 || !finite.Is(r.Scale) {
			return fmt.Errorf("bandwidth rule %s: scale must be a finite number > 0, got %v", ruleNames[r.Kind], r.Scale)
		}
		return nil
	}
	return fmt.Errorf("unknown bandwidth rule %d", int(r.Kind))
}

// Bandwidth returns h for the n×d set x.
//
// Scott's and Silverman's rules use σ, the root mean variance over the d
// features (sample variance, n−1 in the denominator), so that h is the same
// whatever orthonormal basis the features are expressed in, as the
// divergences are; so is the nearest-neighbour rule. The rules need n ≥ 2 and
// a set whose frames are not all identical. A bandwidth a KDE does not
// take (InRange) is refused, a *RuleBandwidthError saying whether the
// features or the rule's scale are at fault.
func (r BandwidthRule) Bandwidth(x *mat.Dense) (float64, error) {
	h, hs, err := r.measure(x)
	if err != nil || r.Kind == Fixed {
		return hs, err
	}
	// A bandwidth a KDE does not take, whose divergences would not be
	// numbers: the features' fault, or the scale's.
	if !InRange(h) || !InRange(hs) {
		return 0, &RuleBandwidthError{Rule: r, H0: h, H: hs}
	}
	return hs, nil
}

// Recorded is Bandwidth for a set whose bandwidth is only recorded, never
// given to a KDE (the set kernels' models): the rule's bandwidth of any
// finite scale, a number > 0, a fixed one as it is.
func (r BandwidthRule) Recorded(x *mat.Dense) (float64, error) {
	if r.Kind == Fixed {
		// Of any scale: out of a KDE's range (a *BandwidthError) too.
		var out *BandwidthError
		if err := CheckBandwidth(r.Fixed); err != nil && !errors.As(err, &out) {
			return 0, err
		}
		return r.Fixed, nil
	}
	h, hs, err := r.measure(x)
	if err != nil {
		return 0, err
	}
	if !finite.Is(hs) || !(hs > 0) {
		// h is a finite number > 0: the scale took it past the largest
		// float64, or below the smallest.
		return 0, fmt.Errorf("the %s rule gives a bandwidth of %.3g, which its scale, %g, makes %v, not a finite number > 0: give a scale from about %.3g to %.3g",
			ruleNames[r.Kind], h, r.Scale, hs, math.SmallestNonzeroFloat64/h, math.MaxFloat64/h)
	}
	return hs, nil
}

// measure returns, for a valid r, the bandwidth of the n×d set x by its
// rule without its scale (h) and with it (hs); a fixed h is both.
func (r BandwidthRule) measure(x *mat.Dense) (h, hs float64, err error) {
	if err := r.Validate(); err != nil {
		return 0, 0, err
	}
	if r.Kind == Fixed {
		return r.Fixed, r.Fixed, nil
	}
	if h, err = r.unscaled(x); err != nil {
		return 0, 0, err
	}
	return h, r.scaled(h), nil
}

// unscaled returns the bandwidth of the n×d set x by r's rule (Scott,
// Silverman or NearestNeighbour), without its scale: a finite number > 0,
// or an error saying why the set has no spread to measure.
func (r BandwidthRule) unscaled(x *mat.Dense) (float64, error) {
	if x == nil || x.IsEmpty() {
		return 0, ErrEmptySet
	}
	n, d := x.Dims()
	if n < 2 {
		return 0, fmt.Errorf("%w to choose a bandwidth by the %s rule (got %d)", ErrTooFewFrames, r, n)
	}
	nf, df := float64(n), float64(d)
	var h float64
	switch r.Kind {
	case Scott:
		h = RootMeanVariance(x) * math.Pow(nf, -1/(df+4))
	case Silverman:
		h = RootMeanVariance(x) * math.Pow(nf*(df+2)/4, -1/(df+4))
	case NearestNeighbour:
		h = MedianNearestNeighbour(x)
	}
	if !finite.Is(h) || !(h > 0) {
		why := WhyNoSpread(x)
		if errors.Is(why, ErrNoSpread) {
			return 0, fmt.Errorf("%w: the %s rule has no spread to measure (it gave h = %v); only a fixed bandwidth works for such a set", why, r, h)
		}
		return 0, fmt.Errorf("the %s rule gave h = %v: %w", r, h, why)
	}
	return h, nil
}

// RuleBandwidthError is Bandwidth's error of a set whose bandwidth by
// Rule a KDE does not take (CheckBandwidth): H0 without the rule's scale,
// H with it (H0 where the rule has none). Where H0 is out of range the
// features' values are too large or too small for a KDE; where only H
// is, the scale is (Scaled).
type RuleBandwidthError struct {
	Rule  BandwidthRule
	H0, H float64
}

// Scaled reports whether the rule's scale is at fault: the rule's
// bandwidth is in range without it.
func (e *RuleBandwidthError) Scaled() bool { return InRange(e.H0) }

// Error says what is at fault: the features' values, with which way to
// scale them and by what power of ten (BandwidthError's words, from H0),
// or the scale, with the scales that bring the bandwidth into range.
func (e *RuleBandwidthError) Error() string {
	name := ruleNames[e.Rule.Kind]
	if !e.Scaled() {
		return fmt.Sprintf("the %s rule: %v", name, &BandwidthError{H: e.H0, Large: e.H0 > MaxBandwidth})
	}
	side, bound := "below", MinBandwidth
	if !(e.H < MinBandwidth) {
		side, bound = "beyond", MaxBandwidth
	}
	return fmt.Sprintf("the %s rule gives a bandwidth of %.3g, which its scale, %g, makes %.3g, %s %g, where the kernel nears the limits of a float64: give a scale from about %.3g to %.3g",
		name, e.H0, e.Rule.Scale, e.H, side, bound, MinBandwidth/e.H0, MaxBandwidth/e.H0)
}

// scaled returns h0, a bandwidth by r's rule without its scale, times the
// scale (h0 where r has none).
func (r BandwidthRule) scaled(h0 float64) float64 {
	if r.Scale > 0 {
		return h0 * r.Scale
	}
	return h0
}

// WhyNoSpread says why no spread could be measured on the sets xs (a
// bandwidth rule or a median of distances gave 0, NaN or ±Inf): each set
// is one frame repeated (ErrNoSpread), or their values are too large or too
// small for the squares of float64 distances (a ScaleError, Large where
// the largest magnitude of their values about their set's mean frame is
// above 1: the size of the differences whose squares are out of range,
// not of a feature that is the same in every frame), with what to do.
func WhyNoSpread(xs ...*mat.Dense) error {
	largest := 0.0
	same := true
	for _, x := range xs {
		same = same && sameFrames(x)
		largest = max(largest, stats.MaxAbs(stats.Centred(x)))
	}
	if same {
		return ErrNoSpread
	}
	return &ScaleError{Large: largest > 1, Largest: largest}
}

// ScaleError is WhyNoSpread's error of frames whose values are too large
// (Large) or too small for the squares of float64 distances: no data or
// method on KDEs measures their spread until the features are scaled.
// Largest is the largest magnitude of their values about their set's mean
// frame.
type ScaleError struct {
	Large   bool
	Largest float64
}

// Error says which way to scale the features, and by what power of ten
// (scaleadvice, from Largest).
func (e *ScaleError) Error() string {
	if e.Large {
		return "the frames' values are too large to measure their spread (around 1e150 or more); " + scaleadvice.Down(e.Largest)
	}
	return "the frames' values are too small to measure their spread (around 1e-150 or less); " + scaleadvice.Up(e.Largest)
}

// sameFrames reports whether every row of the n×d x equals the first: a
// set with no spread to measure, as against one whose spread is too small
// for float64 squares.
func sameFrames(x *mat.Dense) bool {
	n, _ := x.Dims()
	first := x.RawRowView(0)
	for i := 1; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			if v != first[j] {
				return false
			}
		}
	}
	return true
}

// RootMeanVariance returns sqrt of the mean over columns of the sample
// variance of each column of the n×d matrix x (n ≥ 2).
func RootMeanVariance(x *mat.Dense) float64 {
	n, d := x.Dims()
	mean := stats.MeanFrame(x)
	var ss float64
	for i := range n {
		for j, v := range x.RawRowView(i) {
			e := v - mean[j]
			ss += e * e
		}
	}
	return math.Sqrt(ss / float64((n-1)*d))
}

// MedianNearestNeighbour returns the median over the rows of the n×d matrix
// x (n ≥ 2) of the Euclidean distance to the nearest other row, as
// NearestNeighbourMedian takes it: duplicate frames count as distance 0,
// unless half of the rows or more repeat another. It is 0 only when every
// row is the same.
func MedianNearestNeighbour(x *mat.Dense) float64 {
	n, _ := x.Dims()
	nn := make([]float64, n)   // to any other row (squared, then not)
	diff := make([]float64, n) // to a row that differs
	for i := range nn {
		nn[i], diff[i] = math.Inf(1), math.Inf(1)
	}
	for i := range n {
		xi := x.RawRowView(i)
		for j := i + 1; j < n; j++ {
			xj := x.RawRowView(j)[:len(xi)]
			var s float64
			for k, v := range xi {
				u := v - xj[k]
				s += u * u
			}
			nn[i] = min(nn[i], s)
			nn[j] = min(nn[j], s)
			if s > 0 {
				diff[i] = min(diff[i], s)
				diff[j] = min(diff[j], s)
			}
		}
	}
	for i := range nn {
		nn[i], diff[i] = math.Sqrt(nn[i]), math.Sqrt(diff[i])
	}
	return NearestNeighbourMedian(nn, diff)
}

// NearestNeighbourMedian is the nn rule from each frame's distance to its
// nearest other frame (nearest) and to its nearest frame that differs from
// it (differing, +Inf where none does): the median of nearest, or, when
// that is 0 because half of the frames or more repeat another (a still
// scene, or a camera or frame-rate conversion that repeats frames), the
// median of differing, which a set's repeats do not change. It returns 0
// when no frame differs from another. Both slices are sorted in place.
func NearestNeighbourMedian(nearest, differing []float64) float64 {
	if h := stats.Median(nearest); h > 0 {
		return h
	}
	if h := stats.Median(differing); !math.IsInf(h, 1) {
		return h
	}
	return 0
}
