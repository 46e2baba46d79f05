// Package openset measures and calibrates the open-set decision of a
// model: a probe set is let in (named) when its score, how far it lies
// from what the model knows, is at or below a threshold, and kept out
// (“unknown”) above it.
//
// A Sample is one probe set's outcome; a slice of them, from held-out
// sets of known classes and from strangers (classes the model does not
// hold), is what the rates are read from. The same functions serve the
// calibration of a model's threshold on stand-in strangers (deploy) and
// the measurement of the open set on real probes (setmatch test and
// setmatch eval, package openeval), so both speak of the same rates.
//
// A model's own sets give thresholds too (matrix.go): from the m×m matrix
// of its scores between them, each set's nearest score within its class
// stands for a new set of a known class, and its nearest to another class
// for a stranger (AutoThreshold, BalancedThreshold); the same walk gives
// how widely each class spreads (ClassSpread).
//
// Computation only: no I/O.
package openset

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Sample is the outcome of one probe set.
type Sample struct {
	// Score is how far the set lies from the model's gallery, as the
	// model compares it with its threshold (a divergence, or a kernel
	// distance): it is let in when Score ≤ threshold.
	Score float64
	// Stranger is true for a set of a class the model does not hold.
	Stranger bool
	// Right is true for a known set whose nearest label is its own (it is
	// named right when it is also let in); ignored for strangers.
	Right bool
	// Draws, for a known set scored against fewer sets of its class than
	// a new set of that class will meet (a held-out set in a calibration
	// fold), is how many times as many the new set will meet: with n
	// sets of the class deployed and n−1 in the fold, n/(n−1). A set's
	// score is the smallest over the sets of its class, so if the sets
	// of a class are alike (exchangeable), a share G of such samples let
	// in at a threshold stands for 1 − (1 − G)^Draws of the new sets
	// (Rates' KnownRight and KnownIn). 0 and 1 read as the share
	// measured; ignored for strangers.
	Draws float64
}

// Rates are the open-set rates of a threshold on a slice of samples.
type Rates struct {
	Threshold float64
	Known     int // sets of known classes
	Strangers int // strangers' sets
	// KnownRight is the share of known sets let in with the right name;
	// KnownIn the share let in with any name.
	KnownRight, KnownIn float64
	// StrangersOut is the share of strangers' sets kept out.
	StrangersOut float64
	// Balanced is the mean of KnownRight and StrangersOut: the accuracy
	// if known sets and strangers came as often.
	Balanced float64
}

// Chance reports whether the rates are no better than chance: a
// balanced accuracy of at most one half (to rounding), as where no
// threshold tells known sets from strangers.
func (r Rates) Chance() bool { return r.Balanced <= 0.5+1e-12 }

// String returns the rates as text, in percent.
func (r Rates) String() string {
	return fmt.Sprintf("threshold %.6g: %.1f%% of %d known sets named right, %.1f%% of %d strangers' sets kept out (balanced %.1f%%)",
		r.Threshold, 100*r.KnownRight, r.Known, 100*r.StrangersOut, r.Strangers, 100*r.Balanced)
}

// check returns the number of strangers' samples of s, or an error for
// a score that is not a number ≥ 0, and ErrOneSided where s lacks known
// samples or strangers'.
func check(s []Sample) (strangers int, err error) {
	for i, x := range s {
		if math.IsNaN(x.Score) || x.Score < 0 {
			return 0, fmt.Errorf("sample %d: score %v, want a number ≥ 0", i, x.Score)
		}
		if x.Stranger {
			strangers++
		}
	}
	if strangers == 0 || strangers == len(s) {
		return 0, ErrOneSided
	}
	return strangers, nil
}

// At returns the rates of threshold t on s. A share whose sets are
// absent is NaN, and so is Balanced then. The known sets' shares are
// read per value of Draws and weighed by their sets.
func At(s []Sample, t float64) Rates {
	c := newTally(s)
	for _, x := range s {
		if x.Score <= t {
			c.letIn(x)
		}
	}
	return c.rates(t)
}

// tally holds the counts the rates of a threshold on a slice of samples
// are read from: how many sets there are, and how many of them it lets
// in.
type tally struct {
	s     []Sample  // the slice it counts
	draws []float64 // the known sets' values of Draws (0 read as 1), increasing
	// Per value of draws: the known sets, those let in, and those let in
	// and named right.
	known, in, right       []int
	strangers, strangersIn int
}

// newTally returns the tally of s with nothing let in.
func newTally(s []Sample) *tally {
	c := &tally{s: s}
	for _, x := range s {
		if d := max(x.Draws, 1); !x.Stranger && !slices.Contains(c.draws, d) {
			c.draws = append(c.draws, d)
		}
	}
	slices.Sort(c.draws)
	c.known, c.in, c.right = make([]int, len(c.draws)), make([]int, len(c.draws)), make([]int, len(c.draws))
	for _, x := range s {
		if x.Stranger {
			c.strangers++
		} else {
			c.known[c.group(x)]++
		}
	}
	return c
}

// group returns the index of x's value of Draws.
func (c *tally) group(x Sample) int {
	k, _ := slices.BinarySearch(c.draws, max(x.Draws, 1))
	return k
}

// letIn counts x, a sample of the slice c was made of, as let in.
func (c *tally) letIn(x Sample) {
	if x.Stranger {
		c.strangersIn++
		return
	}
	k := c.group(x)
	c.in[k]++
	if x.Right {
		c.right[k]++
	}
}

// rates returns the rates of what c counts as let in, at threshold t.
func (c *tally) rates(t float64) Rates {
	r := Rates{Threshold: t, Strangers: c.strangers}
	for _, n := range c.known {
		r.Known += n
	}
	r.KnownRight, r.KnownIn = math.NaN(), math.NaN()
	if r.Known > 0 {
		r.KnownRight, r.KnownIn = 0, 0
		for k, d := range c.draws {
			w := float64(c.known[k]) / float64(r.Known)
			r.KnownRight += w * drawn(share(c.right[k], c.known[k]), d)
			r.KnownIn += w * drawn(share(c.in[k], c.known[k]), d)
		}
	}
	r.StrangersOut = share(c.strangers-c.strangersIn, c.strangers)
	r.Balanced = (r.KnownRight + r.StrangersOut) / 2
	return r
}

// drawn returns the share g of samples let in as the share of sets let
// in that meet d times as many sets of their class: 1 − (1 − g)^d.
func drawn(g, d float64) float64 {
	if d == 1 {
		return g
	}
	return 1 - math.Pow(1-g, d)
}

func share(k, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return float64(k) / float64(n)
}

// ErrOneSided is returned when the samples lack known sets or strangers,
// which a threshold must tell apart.
var ErrOneSided = errors.New("the samples need both sets of known classes and strangers' sets")

// counter counts the samples of a slice that a threshold lets in, by
// their index in the slice, and gives the rates of what it counted at
// threshold t.
type counter interface {
	add(k int)
	rates(t float64) Rates
}

// add counts sample k of the slice c was made of as let in.
func (c *tally) add(k int) { c.letIn(c.s[k]) }

// ranges calls f for every range of thresholds over which the decisions
// on s are the same, [lo, hi) between consecutive distinct scores (and
// [0, smallest) below them all when the smallest is above 0, as no
// threshold keeps out a score of 0; [largest, +Inf) above), with the
// rates of the threshold that stands for it (middle), so that it lies as
// far as the scores allow from those on both sides.
// The rates are those of a counter from count (a tally of s, or one that
// counts the slices s pools), fed in one pass over the sorted scores,
// so that all ranges cost a sort.
func ranges(s []Sample, count func() counter, f func(lo, hi float64, r Rates)) {
	type scored struct {
		score float64
		k     int // index in s
	}
	v := make([]scored, len(s))
	for k, x := range s {
		v[k] = scored{x.Score, k}
	}
	slices.SortFunc(v, func(a, b scored) int { return cmp.Compare(a.score, b.score) })
	if v[0].score > 0 { // [0, smallest): nothing let in
		f(0, v[0].score, count().rates(middle(0, v[0].score)))
	}
	c := count()
	for j, x := range v {
		c.add(x.k)
		lo := x.score
		if j+1 < len(v) && !(v[j+1].score > lo) {
			continue
		}
		if j+1 == len(v) {
			t := math.Inf(1) // only +Inf lets in a score of +Inf
			if !math.IsInf(lo, 1) {
				t = middle(lo, math.Inf(1))
			}
			f(lo, math.Inf(1), c.rates(t))
			return
		}
		hi := v[j+1].score
		f(lo, hi, c.rates(middle(lo, hi)))
	}
}

// tallyOf is the counter of s alone, for ranges and choose.
func tallyOf(s []Sample) func() counter {
	return func() counter { return newTally(s) }
}

// middle returns the threshold that stands for the range [lo, hi) of
// equal decisions below the score hi: the geometric middle of lo and hi,
// hi/2 from 0; below a score of +Inf (a set at no finite divergence),
// 2·lo (1 from 0) as above the largest score, but finite. It lies in
// [lo, hi), so that it makes the range's decisions: a threshold of +Inf
// would let in the score of +Inf the range keeps out, and the geometric
// middle of scores whose product overflows (underflows) would be +Inf
// (0), taken here as the product of their square roots.
func middle(lo, hi float64) float64 {
	switch {
	case math.IsInf(hi, 1) && lo == 0:
		return 1
	case math.IsInf(hi, 1):
		return min(2*lo, math.MaxFloat64)
	case lo == 0:
		return hi / 2
	}
	if p := lo * hi; p >= 0x1p-1022 && p <= math.MaxFloat64 {
		return math.Sqrt(p)
	}
	return math.Sqrt(lo) * math.Sqrt(hi)
}

// logWidth is the width of [lo, hi) on a log scale: +Inf from 0 or to
// +Inf.
func logWidth(lo, hi float64) float64 {
	if lo == 0 || math.IsInf(hi, 1) {
		return math.Inf(1)
	}
	return math.Log(hi / lo)
}

// choose returns the rates of the threshold that maximises score among
// those whose rates pass ok, over the ranges of equal decisions of s
// counted by count (as ranges takes it): of equal scores, the one
// standing for the widest range on a log scale. ok may be nil.
func choose(s []Sample, count func() counter, score func(Rates) float64, ok func(Rates) bool) (Rates, bool) {
	var best Rates
	bestScore, bestWidth, found := math.Inf(-1), math.Inf(-1), false
	ranges(s, count, func(lo, hi float64, r Rates) {
		if ok != nil && !ok(r) {
			return
		}
		v, w := score(r), logWidth(lo, hi)
		if v > bestScore+1e-12 || (v > bestScore-1e-12 && w > bestWidth) {
			best, bestScore, bestWidth, found = r, v, w, true
		}
	})
	return best, found
}

// Balance returns the threshold with the highest balanced accuracy on s
// (the mean of known sets named right and strangers kept out), placed in
// the middle of its range of equal decisions, and its rates. On
// calibration samples it is a model's balanced threshold; on test probes,
// the best any single threshold reaches there.
func Balance(s []Sample) (Rates, error) {
	if _, err := check(s); err != nil {
		return Rates{}, err
	}
	r, _ := choose(s, tallyOf(s), func(r Rates) float64 { return r.Balanced }, nil)
	return r, nil
}

// Calibrate returns the balanced threshold a model is given on
// calibration samples s, and its rates: Balance's, but where no
// threshold does better than chance (a balanced accuracy of at most one
// half) and Balance's lets some set in, 0, the threshold that lets in the
// fewest (only the scores of 0, which no threshold keeps out): where
// nothing tells known sets from strangers, a door that lets no one in is
// the safe side. Where the smallest score is above 0, Balance's threshold
// then lies below every score and keeps every set out already. Balance
// stays the measure: the best a single threshold reaches on s.
func Calibrate(s []Sample) (Rates, error) {
	r, err := Balance(s)
	if err != nil || !r.Chance() || (r.KnownIn == 0 && r.StrangersOut == 1) {
		return r, err
	}
	return At(s, 0), nil
}

// StrangersAtZeroError is AtMost's error where more than the share P of
// the strangers' sets score 0, as a set does that is an exact copy of a
// set of a known class: no threshold keeps a score of 0 out, so none
// lets in at most P of them.
type StrangersAtZeroError struct {
	Zero, Strangers int     // strangers' sets that score 0, of all
	P               float64 // the share AtMost was asked for
}

// Error says how many strangers' sets score 0, and the share asked for
// in percent, to 12 digits: as the user gave it (auto:far=7), not as
// 100 times the share rounds (7.000000000000001).
func (e *StrangersAtZeroError) Error() string {
	return fmt.Sprintf("%d of %d strangers' sets score 0, as a set does that is an exact copy of a known set, and no threshold keeps a score of 0 out: none lets in at most %.12g%% of them", e.Zero, e.Strangers, 100*e.P)
}

// AtMost returns the threshold that names the most known sets right
// while it lets in at most the share p (in [0, 1)) of the strangers' sets
// of s, placed in the middle of its range, and its rates. Where more than
// that share of them score 0, which no threshold keeps out, the error is
// a *StrangersAtZeroError.
func AtMost(s []Sample, p float64) (Rates, error) {
	if !(p >= 0 && p < 1) {
		return Rates{}, fmt.Errorf("share of strangers let in %v: want 0 ≤ p < 1", p)
	}
	strangers, err := check(s)
	if err != nil {
		return Rates{}, err
	}
	r, ok := choose(s, tallyOf(s), func(r Rates) float64 { return r.KnownRight }, func(r Rates) bool { return 1-r.StrangersOut <= p+1e-12 })
	if !ok {
		// The lowest range lets in only the scores of 0 (nobody, where
		// none is 0), and every higher one more: that of 0 failed.
		e := &StrangersAtZeroError{Strangers: strangers, P: p}
		for _, x := range s {
			if x.Stranger && x.Score == 0 {
				e.Zero++
			}
		}
		return Rates{}, e
	}
	return r, nil
}

// StrangersIn returns, free of any threshold, the share of strangers'
// sets let in by the smallest threshold that lets in at least the share p
// (in (0, 1]) of the known sets (by score alone, whatever their names):
// a point of the curve of the two, as a share; and that threshold.
func StrangersIn(s []Sample, p float64) (share, threshold float64, err error) {
	if !(p > 0 && p <= 1) {
		return 0, 0, fmt.Errorf("share of known sets let in %v: want 0 < p ≤ 1", p)
	}
	strangers, err := check(s)
	if err != nil {
		return 0, 0, err
	}
	var k []float64
	for _, x := range s {
		if !x.Stranger {
			k = append(k, x.Score)
		}
	}
	sort.Float64s(k)
	// The smallest threshold letting in ⌈p·n⌉ known sets is the score of
	// the ⌈p·n⌉-th smallest.
	need := int(math.Ceil(p*float64(len(k)) - 1e-9))
	t := k[max(need, 1)-1]
	in := 0
	for _, x := range s {
		if x.Stranger && x.Score <= t {
			in++
		}
	}
	return float64(in) / float64(strangers), t, nil
}
