package deploy

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"setmatch/model"
	"setmatch/openset"
)

// A threshold for each class.
//
// One threshold for every class fails where classes spread unlike each
// other: a threshold loose enough to let in the sets of a class whose sets
// lie far apart lets in strangers near a class whose sets lie close. So
// each class's threshold is the model's times exp(α · s_c), s_c how widely
// the class spreads compared with the typical class (openset.ClassSpread of
// the gallery: the log of its median nearest score within the class over
// the median of those), and α, from 0 (one threshold) to 1 (the class's
// spread in full), is chosen on the stand-in strangers with the
// threshold: a stand-in's score is divided by its named class's factor in
// its fold's gallery. A class's spread rests on few sets, and a spread
// read from noise costs where classes spread alike, so α is the smallest
// of the exponents tried (Options.SpreadExponents, by default
// DefaultSpreadExponents) whose balanced accuracy on the stand-ins is
// within one standard error of the best (the one-standard-error rule of
// cross-validation): a larger α must earn its place. Where a fold's
// classes keep one set each (two sets a class, or one), no class has a
// spread in the folds, every α scores alike and α is 0. Strangers' sets
// the user gives are scored at that α but do not choose it: the deployed
// model decides them, whose classes may spread where the folds' do not,
// and the known sets' side of the choice comes from the folds.

// DefaultSpreadExponents are the exponents α the calibration tries where
// Options.SpreadExponents is nil, smallest first.
var DefaultSpreadExponents = []float64{0, 0.25, 0.5, 0.75, 1}

// ParseSpreadExponents reads the exponents α the calibration may choose
// from, as setmatch eval's --spread-exponents gives them: numbers from 0
// to 1, separated by commas, in increasing order ("0" alone: one
// threshold for every class).
func ParseSpreadExponents(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		a, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, fmt.Errorf("spread exponent %q: want a number from 0 (one threshold for every class) to 1 (each class's spread in full)", f)
		}
		out = append(out, a)
	}
	if err := checkSpreadExponents(out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkSpreadExponents reports exponents the calibration cannot choose
// from: one outside 0 to 1, or a list not in increasing order. Build
// checks Options.SpreadExponents with it, whoever set them.
func checkSpreadExponents(exps []float64) error {
	for i, a := range exps {
		if !(a >= 0 && a <= 1) {
			return fmt.Errorf("spread exponent %g: want a number from 0 (one threshold for every class) to 1 (each class's spread in full)", a)
		}
		if i > 0 && a <= exps[i-1] {
			return fmt.Errorf("spread exponents %s: give them in increasing order, each once (the smallest within one standard error of the best is chosen)", FormatSpreadExponents(exps))
		}
	}
	return nil
}

// FormatSpreadExponents writes exps as ParseSpreadExponents reads them.
func FormatSpreadExponents(exps []float64) string {
	f := make([]string, len(exps))
	for i, a := range exps {
		f[i] = strconv.FormatFloat(a, 'g', -1, 64)
	}
	return strings.Join(f, ",")
}

// spreadExponents returns the exponents opt lets the calibration try
// (DefaultSpreadExponents where it gives none).
func spreadExponents(opt Options) []float64 {
	if len(opt.SpreadExponents) == 0 {
		return DefaultSpreadExponents
	}
	return opt.SpreadExponents
}

// atExponent returns the samples' scores as fractions of their named
// class's factor exp(α · spread).
func atExponent(samples []standIn, alpha float64) []openset.Sample {
	out := make([]openset.Sample, len(samples))
	for i, s := range samples {
		out[i] = s.Sample
		out[i].Score /= math.Exp(alpha * s.spread)
	}
	return out
}

// chooseSpread returns the exponent α of exps (increasing) for the
// samples: the smallest whose best balanced accuracy (openset.Balance)
// is within one standard error of the best over them, the error that of
// the best's rates, √(k(1−k)/K + s(1−s)/S)/2 for K known sets of which
// a share k is named right and S strangers of which a share s is kept
// out. It returns the balanced accuracy at α = 0 and at α, for the
// words that say how.
func chooseSpread(samples []standIn, exps []float64) (alpha, atZero, atAlpha float64, err error) {
	bal := make([]float64, len(exps))
	best := 0
	var bestRates openset.Rates
	for i, a := range exps {
		r, err := openset.Balance(atExponent(samples, a))
		if err != nil {
			return 0, 0, 0, err
		}
		bal[i] = r.Balanced
		if i == 0 || r.Balanced > bal[best] {
			best, bestRates = i, r
		}
	}
	k, s := bestRates.KnownRight, bestRates.StrangersOut
	se := math.Sqrt(k*(1-k)/float64(bestRates.Known)+s*(1-s)/float64(bestRates.Strangers)) / 2
	for i, b := range bal {
		if b >= bal[best]-se {
			alpha, atAlpha = exps[i], b
			break
		}
	}
	atZero = bal[0]
	if exps[0] != 0 {
		r, err := openset.Balance(atExponent(samples, 0))
		if err != nil {
			return 0, 0, 0, err
		}
		atZero = r.Balanced
	}
	return alpha, atZero, atAlpha, nil
}

// newSpread returns the Spread of a gallery whose classes spread as
// spread (openset.ClassSpread) at exponent alpha: nil, one threshold for
// all, at alpha 0 or where no class has a spread.
func newSpread(spread map[string]float64, alpha float64) *model.Spread {
	if alpha == 0 || len(spread) == 0 {
		return nil
	}
	f := make(map[string]float64, len(spread))
	for c, s := range spread {
		f[c] = math.Exp(alpha * s)
	}
	return &model.Spread{Exponent: alpha, Factors: f}
}

// spreadText says how the classes' thresholds of m were set, for the
// threshold's source, from the balanced accuracy on the stand-ins at
// exponent 0 and at the exponent chosen among exps.
func spreadText(m *model.Model, atZero, atAlpha float64, exps []float64) string {
	if m.Spread == nil && len(exps) == 1 && exps[0] == 0 {
		return "one threshold for every class, as asked (spread exponent 0)"
	}
	if m.Spread == nil {
		return "one threshold for every class (a threshold that follows each class's spread does not separate the stand-ins better by more than its standard error)"
	}
	lo, hi := m.FactorRange()
	return fmt.Sprintf("each class's threshold is this one times (how widely the class's sets spread over the typical class's) to the power %g, from %.3g to %.3g times it (balanced on the stand-ins: %.1f%%, against %.1f%% with one threshold for all)", m.Spread.Exponent, lo, hi, 100*atAlpha, 100*atZero)
}
