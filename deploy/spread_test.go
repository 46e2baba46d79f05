package deploy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/method"
	"setmatch/openset"
)

// spreadSamples returns stand-ins of two kinds of class: wide ones
// (spread log 4) whose known sets score about 4 and whose nearby
// strangers score about 16, and tight ones (spread −log 4) whose known
// sets score about 1/4 and whose nearby strangers score about 1; n of
// each of the four, scores jittered by a factor of e^±jitter. With one
// threshold for all, the tight classes' strangers score below the wide
// classes' known sets; divided by exp(α · spread) at α = 1 every known
// set scores about 1 and every stranger about 4.
func spreadSamples(n int, jitter float64, seed uint64) []standIn {
	rng := rand.New(rand.NewPCG(seed, 3))
	var s []standIn
	add := func(score, spread float64, stranger bool) {
		score *= math.Exp(jitter * (2*rng.Float64() - 1))
		s = append(s, standIn{openset.Sample{Score: score, Stranger: stranger, Right: !stranger}, spread, 1, ""})
	}
	for range n {
		add(4, math.Log(4), false)
		add(16, math.Log(4), true)
		add(0.25, -math.Log(4), false)
		add(1, -math.Log(4), true)
	}
	return s
}

// TestChooseSpreadFollowsClassesThatSpreadUnlike: where the classes'
// spread separates what one threshold cannot, the exponent is 1; where
// the spreads carry nothing (every class's is 0, as where the folds keep
// one set a class), it is 0; and where a larger exponent is better by
// less than a standard error, it is the smaller one.
func TestChooseSpreadFollowsClassesThatSpreadUnlike(t *testing.T) {
	s := spreadSamples(20, 0.3, 1)
	alpha, atZero, atAlpha, err := chooseSpread(s, DefaultSpreadExponents)
	if err != nil {
		t.Fatal(err)
	}
	// At α = 0.75 a wide class's known sets score at most 4^0.25·e^0.3
	// < 1.91 and a tight class's strangers at least 4^0.75·e^−0.3 > 2.09;
	// at 0.5 they overlap.
	if alpha != 0.75 || atAlpha != 1 || !(atZero < 0.9) {
		t.Errorf("classes that spread unlike: exponent %v, balanced %v (%v with one threshold); want 0.75, 1 and below 0.9", alpha, atAlpha, atZero)
	}
	flat := spreadSamples(20, 0.3, 1)
	for i := range flat {
		flat[i].spread = 0
	}
	if alpha, _, _, err := chooseSpread(flat, DefaultSpreadExponents); err != nil || alpha != 0 {
		t.Errorf("no class has a spread: exponent %v (%v), want 0", alpha, err)
	}
	// Ten known sets, nine at 1 and one of a wide class at 2.5, which
	// only an exponent above 0 lets in with the others; ten strangers,
	// five at 2 and five at 0.9, which no threshold keeps out. The gain,
	// 0.7 to 0.75, is less than the standard error of the best, √(0.5 ·
	// 0.5/10)/2 ≈ 0.079.
	var near []standIn
	for k := range 10 {
		score := 0.9
		if k%2 == 0 {
			score = 2
		}
		near = append(near, standIn{openset.Sample{Score: score, Stranger: true}, 0, 1, ""})
		if k < 9 {
			near = append(near, standIn{openset.Sample{Score: 1, Right: true}, 0, 1, ""})
		}
	}
	near = append(near, standIn{openset.Sample{Score: 2.5, Right: true}, math.Log(4), 1, ""})
	if alpha, atZero, atAlpha, err := chooseSpread(near, DefaultSpreadExponents); err != nil || alpha != 0 || atAlpha != atZero || math.Abs(atZero-0.7) > 1e-12 {
		t.Errorf("one set's gain: exponent %v (balanced %v, %v at 0; %v), want 0", alpha, atAlpha, atZero, err)
	}
}

// TestNewSpread: the factors are exp(α · spread), and exponent 0 or no
// spread is one threshold for all (nil).
func TestNewSpread(t *testing.T) {
	sp := newSpread(map[string]float64{"a": math.Log(4), "b": -math.Log(4), "c": 0}, 0.5)
	want := map[string]float64{"a": 2, "b": 0.5, "c": 1}
	if sp == nil || sp.Exponent != 0.5 || len(sp.Factors) != len(want) {
		t.Fatalf("spread %+v, want factors %v", sp, want)
	}
	for l, w := range want {
		if math.Abs(sp.Factors[l]-w) > 1e-12 || math.Abs(sp.Factor(l)-w) > 1e-12 {
			t.Errorf("class %s: factor %v, want %v", l, sp.Factors[l], w)
		}
	}
	if sp.Factor("d") != 1 {
		t.Errorf("a class without a spread: factor %v, want 1", sp.Factor("d"))
	}
	if newSpread(map[string]float64{"a": 1}, 0) != nil || newSpread(nil, 1) != nil {
		t.Error("exponent 0, or no spread: want nil (one threshold)")
	}
}

// spreadingClasses returns sets (frames in 3 dimensions) of eight classes:
// four tight ones, whose sets lie 0.1 apart, in two pairs whose classes
// lie 0.6 apart, and four wide ones, whose sets lie about 1.5 apart, far
// from the rest; perClass sets each, 12 frames of noise 0.3.
func spreadingClasses(perClass int, seed uint64) (xs []*mat.Dense, labels, names []string, wide map[string]bool) {
	rng := rand.New(rand.NewPCG(seed, 11))
	wide = map[string]bool{}
	for c := range 8 {
		centre, spread := []float64{20 * float64(c/2), 0.6 * float64(c%2), 0}, 0.1
		label := fmt.Sprint("t", c)
		if c >= 4 {
			centre, spread, label = []float64{20 * float64(c), 30, 0}, 1.5, fmt.Sprint("w", c)
			wide[label] = true
		}
		for s := range perClass {
			x := mat.NewDense(12, 3, nil)
			off := []float64{spread * rng.NormFloat64(), spread * rng.NormFloat64(), spread * rng.NormFloat64()}
			for i := range 12 {
				for j := range 3 {
					x.Set(i, j, centre[j]+off[j]+0.3*rng.NormFloat64())
				}
			}
			xs, labels, names = append(xs, x), append(labels, label), append(names, fmt.Sprint(s))
		}
	}
	return xs, labels, names, wide
}

// buildSpreading trains nn-h with the default threshold on
// spreadingClasses(perClass, seed), with the strangers' sets given, and
// returns the result and the wide classes.
func buildSpreading(t *testing.T, perClass int, seed uint64, strangers ...*mat.Dense) (*Result, map[string]bool) {
	t.Helper()
	return buildSpreadingAt(t, nil, perClass, seed, strangers...)
}

// buildSpreadingAt is buildSpreading with the calibration choosing from
// the spread exponents exps (nil: the default).
func buildSpreadingAt(t *testing.T, exps []float64, perClass int, seed uint64, strangers ...*mat.Dense) (*Result, map[string]bool) {
	t.Helper()
	sets, labels, names, wide := spreadingClasses(perClass, seed)
	opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1, Strangers: strangers, SpreadExponents: exps}
	return buildRule(t, &opt, "", sets, labels, names), wide
}

// TestSpreadExponentsAsked: the exponents the calibration may choose
// from are the caller's. On the classes where the default gives each
// class a threshold of its own, exponent 0 alone gives one threshold for
// every class, and says it was asked; exponent 1 alone follows each
// class's spread in full, and reports the balance with one threshold
// beside it.
func TestSpreadExponentsAsked(t *testing.T) {
	res, _ := buildSpreadingAt(t, []float64{0}, 5, 1)
	if res.Model.Spread != nil || !strings.Contains(res.ThresholdSource, "one threshold for every class, as asked") {
		t.Errorf("exponent 0 asked: spread %+v (%s)", res.Model.Spread, res.ThresholdSource)
	}
	res, _ = buildSpreadingAt(t, []float64{1}, 5, 1)
	if sp := res.Model.Spread; sp == nil || sp.Exponent != 1 || !strings.Contains(res.ThresholdSource, "to the power 1,") {
		t.Errorf("exponent 1 asked: spread %+v (%s)", sp, res.ThresholdSource)
	}
}

// TestParseSpreadExponents reads lists of exponents from 0 to 1 in
// increasing order, writes them back alike, and refuses the rest.
func TestParseSpreadExponents(t *testing.T) {
	for in, want := range map[string][]float64{"0": {0}, "0,0.25,0.5,0.75,1": DefaultSpreadExponents, "0.5, 1": {0.5, 1}} {
		got, err := ParseSpreadExponents(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v (%v), want %v", in, got, err, want)
		}
	}
	if got := FormatSpreadExponents(DefaultSpreadExponents); got != "0,0.25,0.5,0.75,1" {
		t.Errorf("default written as %q", got)
	}
	for _, in := range []string{"", "x", "-0.25", "1.5", "NaN", "0.5,0.25", "0,0", "0,,1"} {
		if got, err := ParseSpreadExponents(in); err == nil {
			t.Errorf("%q: %v, want an error", in, got)
		}
	}
}

// TestBuildRefusesSpreadExponents: Build checks the exponents it is
// given as ParseSpreadExponents checks a flag's, before any training.
func TestBuildRefusesSpreadExponents(t *testing.T) {
	sets, labels, names, _ := spreadingClasses(3, 1)
	for _, exps := range [][]float64{{2}, {-0.5}, {math.NaN()}, {0.5, 0.25}, {0, 0}} {
		opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1, SpreadExponents: exps}
		if _, err := Build(sets, labels, names, opt); err == nil || !strings.Contains(err.Error(), "spread exponent") {
			t.Errorf("exponents %v: %v, want an error naming them", exps, err)
		}
	}
}

// TestCalibrationGivesWideClassesLooserThresholds: where some classes
// spread far more widely than others, and the tight ones lie near each
// other, the calibration gives each class a threshold of its own, looser
// for every wide class than for any tight one; where every class has two
// sets, the folds see no spread and one threshold serves all.
func TestCalibrationGivesWideClassesLooserThresholds(t *testing.T) {
	res, wide := buildSpreading(t, 5, 1)
	sp := res.Model.Spread
	if sp == nil {
		t.Fatalf("one threshold for all: %s", res.ThresholdSource)
	}
	lowestWide, highestTight := math.Inf(1), 0.0
	for _, c := range res.Model.Classes() {
		if wide[c] {
			lowestWide = math.Min(lowestWide, sp.Factor(c))
		} else {
			highestTight = math.Max(highestTight, sp.Factor(c))
		}
	}
	if !(lowestWide > highestTight) {
		t.Errorf("factors %v: a wide class's is not above every tight one's", sp.Factors)
	}
	if !strings.Contains(res.ThresholdSource, "each class's threshold") {
		t.Errorf("the threshold's source does not say so: %q", res.ThresholdSource)
	}
	// Two sets a class, with strangers' sets given: the deployed gallery's
	// classes spread, the folds' do not, and the strangers given do not
	// choose the exponent alone.
	rng := rand.New(rand.NewPCG(9, 11))
	var strangers []*mat.Dense
	for range 10 { // near the tight class t0
		x := mat.NewDense(12, 3, nil)
		for i := range 12 {
			x.Set(i, 0, 0.5+0.3*rng.NormFloat64())
			x.Set(i, 1, 0.3*rng.NormFloat64())
			x.Set(i, 2, 0.3*rng.NormFloat64())
		}
		strangers = append(strangers, x)
	}
	for _, given := range [][]*mat.Dense{nil, strangers} {
		if res, _ = buildSpreading(t, 2, 2, given...); res.Model.Spread != nil || !strings.Contains(res.ThresholdSource, "one threshold for every class") {
			t.Errorf("two sets a class, %d strangers' sets given: spread %+v (%s), want one threshold", len(given), res.Model.Spread, res.ThresholdSource)
		}
	}
}

// TestForgetSetsEachClassThresholdAgain: forgetting a class of a model
// with a threshold for each class calibrates them again on the gallery
// left, which holds no factor of the class forgotten.
func TestForgetSetsEachClassThresholdAgain(t *testing.T) {
	res, _ := buildSpreading(t, 5, 1)
	m := res.Model
	if m.Spread == nil {
		t.Fatal("trained with one threshold for all")
	}
	before := m.Spread.Factor("w4")
	if _, err := Forget(m, "w7", "", nil, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	if m.Spread == nil {
		t.Fatalf("after forgetting: one threshold for all (%s)", m.Selection.Params["threshold"])
	}
	if _, ok := m.Spread.Factors["w7"]; ok {
		t.Errorf("factors after forgetting w7: %v", m.Spread.Factors)
	}
	if m.Spread.Factor("w4") == before {
		t.Errorf("w4's factor %v is the same after the gallery's typical radius changed", before)
	}
	if err := m.Validate(); err != nil {
		t.Error(err)
	}
}

// TestSpreadOf checks the spread a decision carries into the
// calibration: its named class's, 0 for a class without one, and 0
// where the decision named no set (every score +Inf), which must not
// index the labels.
func TestSpreadOf(t *testing.T) {
	v := galleryView{scale: 1, spread: map[string]float64{"a": 0.5}}
	labels := []string{"a", "b"}
	for _, c := range []struct {
		best int
		want float64
	}{{0, 0.5}, {1, 0}, {-1, 0}} {
		if got := v.spreadOf(labels, c.best); got != c.want {
			t.Errorf("best %d: spread %v, want %v", c.best, got, c.want)
		}
	}
}

// TestGivenStrangersCarryTheirNamedClassSpread: a strangers' set the user
// gives (--strangers) is scored by the deployed model as a fraction of
// its scale and carries the spread of the class the model named it, so
// that at an exponent α its score is divided by that class's factor, as
// the model's threshold for that class will be multiplied by it.
func TestGivenStrangersCarryTheirNamedClassSpread(t *testing.T) {
	sets, labels, names := separated(4, 3, 2)
	opt := Options{Method: method.NNH, Grid: grid(), Seed: 1, Workers: 1}
	res := buildRule(t, &opt, "none", sets, labels, names)
	view := galleryView{scale: 2, spread: map[string]float64{"c0": 0.1, "c1": 0.2, "c2": 0.3, "c3": 0.4}}
	// Sets of the model's classes, given as strangers': each is named as
	// its own class.
	given := []*mat.Dense{sets[1], sets[4], sets[11]}
	samples, err := givenStrangers(res.Model, given, view, 1)
	if err != nil {
		t.Fatal(err)
	}
	for k, i := range []int{1, 4, 11} {
		s := samples[k]
		if !s.Stranger || s.fold != 0 || s.spread != view.spread[labels[i]] {
			t.Errorf("set %s/%s given as a stranger's: stranger %v, fold %d, spread %v; want a stranger of no fold with %s's spread %v",
				labels[i], names[i], s.Stranger, s.fold, s.spread, labels[i], view.spread[labels[i]])
		}
	}
}
