package deploy

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/learn"
	"setmatch/match"
	"setmatch/method"
	"setmatch/model"
	"setmatch/openset"
)

// separated returns sets of classes far apart (class c's first feature
// near 10·c), sets per class each, with names.
func separated(classes, sets int, seed uint64) (xs []*mat.Dense, labels, names []string) {
	rng := rand.New(rand.NewPCG(seed, 7))
	for c := range classes {
		for s := range sets {
			x := mat.NewDense(12, 4, nil)
			for i := range 12 {
				for j := range 4 {
					x.Set(i, j, 0.3*rng.NormFloat64())
				}
				x.Set(i, 0, 10*float64(c)+0.3*rng.NormFloat64())
			}
			xs, labels, names = append(xs, x), append(labels, fmt.Sprint("c", c)), append(names, fmt.Sprint(c, "-", s))
		}
	}
	return xs, labels, names
}

// standInKnown6 is the number of known probes of the stand-in folds of
// six classes (see TestStandInCalibration).
const standInKnown6 = 4 + 5 + 5 + 5 + 5

// TestStandInCalibration: on classes far apart, the threshold calibrated
// on stand-in strangers separates them on the calibration (every class
// stands for a stranger once; the held-out known sets are named), and on
// sets it never saw it lets in new sets of the known classes and keeps
// out two classes the training never had.
func TestStandInCalibration(t *testing.T) {
	all, labels, names := separated(8, 4, 1)
	const known = 6 * 4 // classes c0–c5 train, three sets each; c6, c7 are strangers
	var train, held, strangers []*mat.Dense
	var lab, nam []string
	for i, x := range all {
		switch {
		case i >= known:
			strangers = append(strangers, x)
		case i%4 == 3:
			held = append(held, x)
		default:
			train, lab, nam = append(train, x), append(lab, labels[i]), append(nam, names[i])
		}
	}
	for _, name := range []method.Name{method.NNH, method.KFDAHG, method.NNHLDA, method.NNHDR} {
		opt := Options{Method: name, Grid: grid(), Seed: 3, Workers: 1}
		res := buildRule(t, &opt, "", train, lab, nam)
		c := res.Calibration
		if c == nil {
			t.Fatalf("%s: not calibrated on stand-ins: %s", name, res.ThresholdSource)
		}
		// Five folds over six classes: each class is a stranger once (its
		// three sets), and every known one holds out a set: the first
		// fold, with two stand-ins, has 4 known classes and the others 5.
		if c.Strangers != len(train) || c.Known != standInKnown6 {
			t.Errorf("%s: %d stand-in strangers' sets and %d known probes, want %d and %d", name, c.Strangers, c.Known, len(train), standInKnown6)
		}
		if c.KnownRight != 1 || c.StrangersOut != 1 {
			t.Errorf("%s: calibration %v, want every set right on classes this far apart", name, c)
		}
		if !strings.Contains(res.ThresholdSource, "stand-in strangers") || !strings.Contains(res.Model.Selection.Params["threshold"], "auto:balanced") {
			t.Errorf("%s: the model does not say how its threshold was set: %q", name, res.Model.Selection.Params["threshold"])
		}
		mt, err := res.Model.NewMatcher()
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range held {
			r, err := mt.Match(x)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprint("c", i); !r.Decision.Known || r.Decision.Label != want {
				t.Errorf("%s: a new set of %s decided %+v (threshold %v)", name, want, r.Decision, res.Model.Threshold)
			}
		}
		for _, x := range strangers {
			r, err := mt.Match(x)
			if err != nil {
				t.Fatal(err)
			}
			if r.Decision.Known {
				t.Errorf("%s: a stranger let in as %s (score %v, threshold %v)", name, r.Decision.Label, r.Decision.Score, res.Model.Threshold)
			}
		}
	}
}

// TestStandInFar: auto:far=0 lets in none of the stand-in strangers on
// classes that overlap, and rejects at least as many as auto:balanced.
func TestStandInFar(t *testing.T) {
	sets, labels := dataSpread(4, 1.2)
	var lab, names []string
	for i, l := range labels {
		lab, names = append(lab, fmt.Sprint("c", l)), append(names, fmt.Sprint(i))
	}
	// dataSpread has three classes: two known ones and a stand-in each fold.
	var out [2]float64
	for k, flag := range []string{"auto:balanced", "auto:far=0"} {
		opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1}
		res := buildRule(t, &opt, flag, sets, lab, names)
		if res.Calibration == nil {
			t.Fatalf("%s: %s", flag, res.ThresholdSource)
		}
		out[k] = res.Calibration.StrangersOut
		t.Logf("%s: %v", flag, res.Calibration)
	}
	if out[1] != 1 || out[1] < out[0] {
		t.Errorf("stand-in strangers kept out: balanced %v, far=0 %v", out[0], out[1])
	}
}

// TestStandInFallback: with two classes no class can stand for a
// stranger while two stay known: the balanced threshold is set on the
// training sets, and says why. On classes far apart it lies in the gap
// between every set's nearest score to its own class and to the other,
// at its geometric middle.
func TestStandInFallback(t *testing.T) {
	all, labels, names := separated(2, 3, 2)
	opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1}
	res := buildRule(t, &opt, "", all, labels, names)
	if res.Calibration != nil || !strings.Contains(res.ThresholdSource, "cannot stand in") || math.IsInf(res.Model.Threshold, 1) {
		t.Fatalf("threshold %v: %s", res.Model.Threshold, res.ThresholdSource)
	}
	same, other := openset.Nearest(res.Gallery, res.Model.Labels())
	hi, lo := slices.Max(same), slices.Min(other)
	if !(hi < lo) || math.Abs(res.Model.Threshold-math.Sqrt(hi*lo)) > 1e-9*lo || strings.Contains(res.ThresholdSource, "tells the classes apart") {
		t.Errorf("threshold %v, want √(%v·%v), the middle of the gap between the within-class and other-class nearest scores: %s", res.Model.Threshold, hi, lo, res.ThresholdSource)
	}
}

// TestStandInFallbackFar: auto:far=P where no stand-ins can be made (two
// classes), or with no cross-validated fit to repeat without them (the
// learned method), falls back to the balanced threshold on the training
// sets, as auto:balanced does there, not to auto's bound that 95% of
// known sets stay below.
func TestStandInFallbackFar(t *testing.T) {
	two, twoLabels, twoNames := separated(2, 3, 2)
	sets, ids := data(3)
	labels, names := make([]string, len(sets)), make([]string, len(sets))
	for i, c := range ids {
		labels[i], names[i] = fmt.Sprintf("c%d", c), fmt.Sprintf("s%d", i)
	}
	learned := Options{Method: Learned, Dim: 2, Workers: 1,
		Train: learn.TrainOptions{Divergence: match.Hellinger, MaxIter: 2, Seed: 1, Workers: 1, GlobalScale: 1, NuW: 2, NuB: 2}}
	for _, c := range []struct {
		name          string
		opt           Options
		sets          []*mat.Dense
		labels, names []string
	}{
		{"nn-h on two classes", Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1}, two, twoLabels, twoNames},
		{"learned", learned, sets, labels, names},
	} {
		far, balanced := c.opt, c.opt
		rf := buildRule(t, &far, "auto:far=5", c.sets, c.labels, c.names)
		rb := buildRule(t, &balanced, "auto:balanced", c.sets, c.labels, c.names)
		if rf.Model.Threshold != rb.Model.Threshold || !strings.Contains(rf.ThresholdSource, "balanced on the training sets") {
			t.Errorf("%s: auto:far=5 set %v (%s), want auto:balanced's %v", c.name, rf.Model.Threshold, rf.ThresholdSource, rb.Model.Threshold)
		}
	}
}

// crossedClasses returns classes a, b, … (as many as n) of three
// training sets each (12 frames × 4 features), whose sets lie in rows:
// set s of every class beside set s of the others, each row far from the
// others, so that every set's nearest of another class is nearer than its
// nearest of its own; and a new set beside each training set, of its
// class.
func crossedClasses(n int) (train, probes []*mat.Dense, labels, names []string) {
	rng := rand.New(rand.NewPCG(5, 7))
	set := func(at float64) *mat.Dense {
		x := mat.NewDense(12, 4, nil)
		for i := range 12 {
			for j := range 4 {
				x.Set(i, j, 0.3*rng.NormFloat64())
			}
			x.Set(i, 0, at+0.3*rng.NormFloat64())
		}
		return x
	}
	for c := range n {
		class := string(rune('a' + c))
		for s := range 3 {
			train = append(train, set(10*float64(s)+0.2*float64(c)))
			probes = append(probes, set(10*float64(s)+0.2*float64(c)))
			labels, names = append(labels, class), append(names, fmt.Sprint(class, s))
		}
	}
	return train, probes, labels, names
}

// buildDefault trains method on the sets with train's default threshold
// and logs how the threshold was set; the options are returned for a
// recalibration.
func buildDefault(t *testing.T, m method.Name, train []*mat.Dense, labels, names []string) (*Result, Options) {
	t.Helper()
	opt := Options{Method: m, Grid: grid(), Seed: 3, Workers: 1}
	res := buildRule(t, &opt, "", train, labels, names)
	t.Log(res.ThresholdSource)
	return res, opt
}

// withThreshold returns opt with the threshold rule as train's
// --threshold reads it (ParseThreshold), failing t on an error.
func withThreshold(t testing.TB, opt Options, rule string) Options {
	t.Helper()
	if err := ParseThreshold(rule, &opt); err != nil {
		t.Fatal(err)
	}
	return opt
}

// buildRule builds the model opt describes, with the threshold rule as
// train's --threshold reads it (ParseThreshold sets it in opt), on the
// sets, failing t on an error.
func buildRule(t testing.TB, opt *Options, rule string, sets []*mat.Dense, labels, names []string) *Result {
	t.Helper()
	*opt = withThreshold(t, *opt, rule)
	res, err := Build(sets, labels, names, *opt)
	if err != nil {
		t.Fatalf("%s, --threshold %q: %v", opt.Method, rule, err)
	}
	return res
}

// keptOut fails t for every probe (of the class labels gives it) that
// the model of res lets in.
func keptOut(t *testing.T, res *Result, probes []*mat.Dense, labels []string) {
	t.Helper()
	mt, err := res.Model.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range probes {
		r, err := mt.Match(p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Decision.Known {
			t.Errorf("a new set of class %s let in as %s (score %v, threshold %v)", labels[i], r.Decision.Label, r.Decision.Score, res.Model.Threshold)
		}
	}
}

// TestStandInFallbackNothingSeparates: two classes whose sets lie in pairs, one
// set of each class together and each far from the other set of its
// class. Every set's nearest of another class is nearer than its nearest
// of its own, so no threshold on the training sets tells the classes
// apart: the fallback keeps every set out, new sets of both classes
// included, and train says so and what to do.
func TestStandInFallbackNothingSeparates(t *testing.T) {
	train, probes, labels, names := crossedClasses(2)
	res, _ := buildDefault(t, method.NNH, train, labels, names)
	src := res.ThresholdSource
	for _, want := range []string{"cannot stand in", "accepts 0% of 6 within-class", "rejects 100% of 6 other-class", "no threshold tells the classes apart", "keeps every set out", "setmatch test", "--threshold X"} {
		if !strings.Contains(src, want) {
			t.Errorf("the threshold's source does not say %q: %s", want, src)
		}
	}
	same, other := openset.Nearest(res.Gallery, res.Model.Labels())
	if thr := res.Model.Threshold; thr != slices.Min(append(same, other...))/2 {
		t.Errorf("threshold %v, want half the smallest score (same %v, other %v)", thr, same, other)
	}
	keptOut(t, res, probes, labels)
}

// TestStandInFallbackCopy: two classes that nothing separates, as in
// TestStandInFallbackNothingSeparates, and a set of class b an exact
// copy of a set of class a, so two other-class scores are 0, which no
// threshold keeps out. The fallback's threshold is 0: it keeps out every
// new set, not one above every score that lets every set in; and train
// says so, and names the copy; set again by enroll or forget, it says so
// of the model's sets.
func TestStandInFallbackCopy(t *testing.T) {
	train, probes, labels, names := crossedClasses(2)
	train[3] = mat.DenseCopyOf(train[0]) // b/b0, a copy of a/a0
	// kFDA: the distance its kernel induces between a set and its copy
	// is 0 to the last bit, where a divergence is a rounding error above.
	res, opt := buildDefault(t, method.KFDAHG, train, labels, names)
	src := res.ThresholdSource
	if _, other := openset.Nearest(res.Gallery, res.Model.Labels()); slices.Min(other) != 0 {
		t.Fatalf("the copy's other-class score is %v, want 0", slices.Min(other))
	}
	if res.Model.Threshold != 0 {
		t.Errorf("threshold %v, want 0", res.Model.Threshold)
	}
	for _, want := range []string{"accepts 0% of 6 within-class", "rejects 67% of 6 other-class", "no threshold tells the classes apart", "keeps out every set but exact copies", "setmatch test", "is an exact copy of a set of another (a/a0 and b/b0)", "check the training folders"} {
		if !strings.Contains(src, want) {
			t.Errorf("the threshold's source does not say %q: %s", want, src)
		}
	}
	keptOut(t, res, probes, labels)

	// Set again as enroll and forget set it (recalibrateOn), on the
	// model's sets, which may be enrolled ones: the words say so.
	src, _, err := recalibrateAlone(res.Model, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(src)
	for _, want := range []string{"balanced on the model's sets", "keeps out every set but exact copies of a set of the model", "(a/a0 and b/b0): remove the copy (setmatch forget --label LABEL --set NAME)"} {
		if !strings.Contains(src, want) {
			t.Errorf("set again, the threshold's source does not say %q: %s", want, src)
		}
	}
	if strings.Contains(src, "training folders") {
		t.Errorf("set again, the threshold's source speaks of the training folders: %s", src)
	}
}

// TestStandInCopyNothingSeparates: three classes that nothing separates
// (crossedClasses), so that a held-out known set is nearest a set of
// another class, and two sets of class c exact copies of sets of class
// a, so that stand-ins of c score 0 where a is known. No threshold on
// the stand-ins does better than chance and none keeps the 0 out: the
// threshold is 0, the one that lets in the fewest, and it keeps out every
// new set.
func TestStandInCopyNothingSeparates(t *testing.T) {
	train, probes, labels, names := crossedClasses(3)
	train[6], train[7] = mat.DenseCopyOf(train[0]), mat.DenseCopyOf(train[1]) // c/c0 and c/c1, copies of a/a0 and a/a1
	// kFDA: the distance its kernel induces between a set and its copy
	// is 0 to the last bit.
	res, _ := buildDefault(t, method.KFDAHG, train, labels, names)
	c := res.Calibration
	if c == nil {
		t.Fatalf("not calibrated on stand-ins: %s", res.ThresholdSource)
	}
	if res.Model.Threshold != 0 || c.KnownIn != 0 || c.StrangersOut == 1 || c.Balanced > 0.5 {
		t.Errorf("threshold %v, rates %v; want 0, letting in only the stand-ins at 0", res.Model.Threshold, c)
	}
	if want := "no threshold does better than chance on them, so it is the one that lets in the fewest sets"; !strings.Contains(res.ThresholdSource, want) {
		t.Errorf("the threshold's source does not say %q: %s", want, res.ThresholdSource)
	}
	keptOut(t, res, probes, labels)
}

// TestStandInPooled: with one set per class, each set's even frames are
// its class's gallery and its odd frames the probe.
func TestStandInPooled(t *testing.T) {
	all, labels, names := separated(6, 1, 3)
	opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1}
	res := buildRule(t, &opt, "auto:balanced", all, labels, names)
	c := res.Calibration
	if c == nil || c.Strangers != 6 || c.Known != standInKnown6 || c.Balanced != 1 {
		t.Fatalf("calibration %v: %s", c, res.ThresholdSource)
	}
}

func TestParseThreshold(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Options
	}{
		{"", Options{Threshold: math.Inf(1), AutoThreshold: true, AutoBalanced: true}},
		{"none", Options{Threshold: math.Inf(1)}},
		{"0.5", Options{Threshold: 0.5}},
		{"0", Options{Threshold: 0}}, // a number ≥ 0: only exact copies of a gallery set let in
		{"auto", Options{Threshold: math.Inf(1), AutoThreshold: true}},
		{"auto:90", Options{Threshold: math.Inf(1), AutoThreshold: true, AutoAccept: 90}},
		{"auto:far=1", Options{Threshold: math.Inf(1), AutoThreshold: true, AutoFAR: true, FARPercent: 1}},
		{"auto:far=0", Options{Threshold: math.Inf(1), AutoThreshold: true, AutoFAR: true}},
	} {
		var got Options
		if err := ParseThreshold(tc.in, &got); err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if got.Threshold != tc.want.Threshold || got.AutoThreshold != tc.want.AutoThreshold || got.AutoBalanced != tc.want.AutoBalanced ||
			got.AutoAccept != tc.want.AutoAccept || got.AutoFAR != tc.want.AutoFAR || got.FARPercent != tc.want.FARPercent {
			t.Errorf("%q: got %+v", tc.in, got)
		}
	}
	for _, bad := range []string{"auto:far=100", "auto:far=x", "auto:0", "-1", "nan", "auto:balance"} {
		var o Options
		if err := ParseThreshold(bad, &o); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// recalibrateAlone is recalibrateOn without the model before the change
// and without scores: a model recalibrated on its own gallery.
func recalibrateAlone(m *model.Model, opt Options) (string, *openset.Rates, error) {
	src, rates, _, _, err := recalibrateOn(m, nil, opt, nil)
	return src, rates, err
}

// TestRecalibrateAsTrain: a model recalibrated on its own gallery (as
// setmatch enroll and forget do, W kept) gets the threshold train gave
// it, for methods with no W to learn again: the folds, the refits and the
// scores are the same (to rounding: the gallery is centred once more).
func TestRecalibrateAsTrain(t *testing.T) {
	sets, labels := dataSpread(5, 1)
	var lab, names []string
	for i, l := range labels {
		lab, names = append(lab, fmt.Sprint("c", l%3, "-", i%2)), append(names, fmt.Sprint(i))
	}
	for _, name := range []method.Name{method.NNH, method.KFDAHG, method.KFDAMix} {
		for _, flag := range []string{"auto:balanced", "auto:far=10"} {
			opt := Options{Method: name, Grid: grid(), Seed: 3, Workers: 1}
			res := buildRule(t, &opt, flag, sets, lab, names)
			m := *res.Model
			m.Threshold = 0
			src, rates, err := recalibrateAlone(&m, opt)
			if err != nil {
				t.Fatalf("%s %s: %v", name, flag, err)
			}
			close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
			if rates == nil || rates.Known != res.Calibration.Known || rates.Strangers != res.Calibration.Strangers ||
				!close(rates.Balanced, res.Calibration.Balanced) || !close(m.Threshold, res.Model.Threshold) {
				t.Errorf("%s %s: recalibrated %v (%v), train %v (%v)\n%s", name, flag, m.Threshold, rates, res.Model.Threshold, res.Calibration, src)
			}
			// None of these methods has a W, so none is said to be kept.
			if strings.Contains(src, "W kept") {
				t.Errorf("%s %s: %q speaks of a W the model does not have", name, flag, src)
			}
		}
	}
}

// TestRecalibrateLearnedAsTrain: a model of --method learned, which train
// balanced on its own training sets (no cross-validated fit to repeat
// without stand-ins), is balanced on its gallery again when recalibrated,
// not calibrated on stand-ins of its W: it keeps train's threshold.
func TestRecalibrateLearnedAsTrain(t *testing.T) {
	sets, ids := data(3)
	labels, names := make([]string, len(sets)), make([]string, len(sets))
	for i, c := range ids {
		labels[i], names[i] = fmt.Sprintf("c%d", c), fmt.Sprintf("s%d", i)
	}
	opt := Options{Method: Learned, Dim: 2, Workers: 1, Meta: model.Meta{Params: map[string]string{"method": string(Learned)}},
		Train: learn.TrainOptions{Divergence: match.Hellinger, MaxIter: 2, Seed: 1, Workers: 1, GlobalScale: 1, NuW: 2, NuB: 2}}
	res := buildRule(t, &opt, "auto:balanced", sets, labels, names)
	m := *res.Model
	m.Threshold = 0
	src, rates, err := recalibrateAlone(&m, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rates != nil || strings.Contains(src, "calibrated on stand-in") || math.Abs(m.Threshold-res.Model.Threshold) > 1e-9*res.Model.Threshold {
		t.Errorf("recalibrated to %v (rates %v): %s\nwant train's %v: %s", m.Threshold, rates, src, res.Model.Threshold, res.ThresholdSource)
	}
}

// TestStandInFoldLearnsItsOwnW: a stand-in fold's model projects by a W
// fitted again on the fold's gallery alone (here nn-h-lda's Fisher
// discriminant), not the deployed W, which the stand-ins' classes and the
// held-out sets shaped: it would pull the known probes to their classes,
// push the stand-ins away, and make the threshold let in more strangers
// than the calibration says.
func TestStandInFoldLearnsItsOwnW(t *testing.T) {
	sets, labels, names := separated(5, 3, 6)
	opt := Options{Method: method.NNHLDA, Grid: grid(), Seed: 1, Workers: 1}
	res := buildRule(t, &opt, "auto:balanced", sets, labels, names)
	// A fold: class c4 stands in, and each other class holds a set out.
	var fs []*mat.Dense
	var fl, fn []string
	for i, x := range sets {
		if labels[i] != "c4" && i%3 != 0 {
			fs, fl, fn = append(fs, x), append(fl, labels[i]), append(fn, names[i])
		}
	}
	m, _, err := res.refit(fs, fl, fn, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := *res.Fit
	ids, _ := model.ClassIndex(fl)
	if err := want.RefitProjection(fs, ids, setNames(fl, fn), opt.Grid, opt.Seed, 1); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(m.W, want.W, 1e-12) {
		t.Errorf("the fold's W is not the one fitted on its gallery alone:\n%v\nwant\n%v", mat.Formatted(m.W), mat.Formatted(want.W))
	}
	if mat.EqualApprox(m.W, res.Fit.W, 1e-9) {
		t.Error("the fold projects by the deployed W, which the stand-ins' class shaped")
	}
}

// TestStandInFoldsNeverScoreWhatTheyFit: in every fold, no probe is one
// of the sets or halves the fold's model was fitted on, no stand-in's
// class is in its gallery, every class stands in once, and every known
// class gives one known probe and keeps the rest in the gallery: a class
// of one set its odd frame half (the even half in the gallery, Draws 1),
// a class of n ≥ 2 sets one of its sets (Draws n/(n−1)); a stand-in's
// probes are its sets, or the odd half of its one set. A class of one
// set too short to halve keeps it whole in the gallery of every fold
// where it is known, gives no known probe, and as a stand-in its whole
// set is the probe. For layouts of one, two and three sets a class, and
// for classes mixed.
func TestStandInFoldsNeverScoreWhatTheyFit(t *testing.T) {
	for _, perClass := range [][]int{
		{1, 1, 1, 1, 1, 1, 1},
		{2, 2, 2, 2, 2, 2, 2},
		{3, 3, 3, 3, 3, 3, 3},
		{1, 2, 1, 3, 1, 1, 2},  // mixed
		{2, 1, 1, 1, 1, 1, 1},  // one class with a second set
		{1, 2, -1, 3, 1, 1, 2}, // mixed, c2 one set of 3 frames (−1)
		{-1, 1, 1, 1, 1, 1, 1}, // one set a class, c0's of 3 frames
		{2, 2, 2, -1, 2, 2, 2}, // two sets a class, c3 one set of 3 frames
	} {
		all, allLabels, allNames := separated(len(perClass), 3, 4)
		var sets []*mat.Dense
		var labels, names []string
		short := map[string]bool{} // classes of one set too short to halve
		for i := range all {
			var c, s int
			fmt.Sscanf(allNames[i], "%d-%d", &c, &s)
			switch {
			case perClass[c] < 0 && s == 0:
				sets, labels, names = append(sets, mat.DenseCopyOf(all[i].Slice(0, method.MinHalvedFrames-1, 0, 4))), append(labels, allLabels[i]), append(names, allNames[i])
				short[allLabels[i]] = true
			case s < perClass[c]:
				sets, labels, names = append(sets, all[i]), append(labels, allLabels[i]), append(names, allNames[i])
			}
		}
		count := map[string]int{}
		for _, l := range labels {
			count[l]++
		}
		// What a probe or gallery item is: a set, or an even (0) or odd
		// (1) frame half of one.
		type item struct {
			set  int
			half int // −1: the whole set
		}
		whatIs := func(x *mat.Dense) item {
			for i, s := range sets {
				if mat.Equal(s, x) {
					return item{i, -1}
				}
				for h, hs := range method.FrameHalves(s) {
					if mat.Equal(hs, x) {
						return item{i, h}
					}
				}
			}
			t.Fatalf("%v sets a class: a fold holds an item that is no set nor half of one", perClass)
			return item{}
		}
		type probed struct {
			fold int
			item
		}
		var galleries [][]item
		var probes []probed
		fit := func(g []*mat.Dense, l, _ []string) (*model.Model, func(*mat.Dense) (model.Result, error), galleryView, error) {
			var items []item
			for _, x := range g {
				items = append(items, whatIs(x))
			}
			galleries = append(galleries, items)
			m := &model.Model{}
			for _, lab := range l {
				m.Sets = append(m.Sets, model.Set{Label: lab})
			}
			fold := len(galleries) - 1
			return m, func(p *mat.Dense) (model.Result, error) {
				it := whatIs(p)
				for _, g := range galleries[fold] {
					if g == it || (g.set == it.set && (g.half < 0 || it.half < 0)) {
						t.Errorf("%v sets a class: fold %d scores %v, and was fitted on %v", perClass, fold, it, g)
					}
				}
				probes = append(probes, probed{fold, it})
				return model.Result{Decision: match.Decision{Best: 0, Score: 1}}, nil
			}, galleryView{scale: 1}, nil
		}
		samples, err := standInSamples(sets, labels, names, "the training sets", 9, fit, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(samples) != len(probes) {
			t.Fatalf("%v sets a class: %d samples of %d probes", perClass, len(samples), len(probes))
		}
		stood := map[string]int{}
		for f, items := range galleries {
			in := map[string]int{}
			for _, it := range items {
				l := labels[it.set]
				in[l]++
				if want := -1; count[l] == 1 && !short[l] {
					want = 0
					if it.half != want {
						t.Errorf("%v sets a class: fold %d's gallery holds %v of %s, a class of one set; want its even half", perClass, f, it, l)
					}
				} else if it.half != want {
					t.Errorf("%v sets a class: fold %d's gallery holds %v of %s, a class of %d sets; want whole sets", perClass, f, it, l, count[l])
				}
			}
			known := map[string]int{} // known probes per class
			for k, p := range probes {
				if p.fold != f {
					continue
				}
				l, s := labels[p.set], samples[k]
				if s.Stranger != (in[l] == 0) {
					t.Errorf("%v sets a class: fold %d: a probe of %s, stranger %v, with %d of its sets in the gallery", perClass, f, l, s.Stranger, in[l])
				}
				wantHalf, wantDraws := -1, float64(count[l])/float64(count[l]-1)
				if count[l] == 1 && !short[l] {
					wantHalf, wantDraws = 1, 1 // the odd half, read as it is
				}
				if p.half != wantHalf {
					t.Errorf("%v sets a class: fold %d scores %v of %s; want half %d", perClass, f, p.item, l, wantHalf)
				}
				if !s.Stranger {
					known[l]++
					if s.Draws != wantDraws {
						t.Errorf("%v sets a class: fold %d: a known probe of %s (%d sets) has draws %v, want %v", perClass, f, l, count[l], s.Draws, wantDraws)
					}
				}
			}
			for l, n := range in {
				want := 1
				if short[l] {
					want = 0 // never held out
				}
				if known[l] != want {
					t.Errorf("%v sets a class: fold %d: known class %s gives %d known probes, want %d", perClass, f, l, known[l], want)
				}
				if want := max(count[l]-1, 1); n != want {
					t.Errorf("%v sets a class: fold %d's gallery holds %d items of %s, want %d", perClass, f, n, l, want)
				}
			}
			for _, l := range labels {
				if in[l] == 0 {
					stood[l]++
				}
			}
		}
		for _, l := range labels {
			if stood[l] != count[l] { // counted once per set of the class
				t.Errorf("%v sets a class: class %s stood in %d times for its %d sets", perClass, l, stood[l], count[l])
			}
		}
		strangers := 0
		for _, s := range samples {
			if s.Stranger {
				strangers++
			}
		}
		if strangers != len(sets) {
			t.Errorf("%v sets a class: %d stand-ins' probes, want one per set (%d)", perClass, strangers, len(sets))
		}
	}
}

// TestStandInKnownRightOnlyWhenNamedRight: a held-out known set counts as
// named right only when the fold's model names its own class; one named
// as another class is a known set let in under a wrong name, which the
// calibration must not count as a success.
func TestStandInKnownRightOnlyWhenNamedRight(t *testing.T) {
	sets, labels, names := separated(4, 3, 5)
	class := map[*mat.Dense]string{}
	for i, x := range sets {
		class[x] = labels[i]
	}
	for _, own := range []bool{true, false} {
		fit := func(g []*mat.Dense, l, _ []string) (*model.Model, func(*mat.Dense) (model.Result, error), galleryView, error) {
			m := &model.Model{}
			for _, lab := range l {
				m.Sets = append(m.Sets, model.Set{Label: lab})
			}
			return m, func(p *mat.Dense) (model.Result, error) {
				// The first gallery set of the probe's class, or of another.
				best := slices.IndexFunc(l, func(lab string) bool { return (lab == class[p]) == own })
				return model.Result{Decision: match.Decision{Best: best, Score: 1}}, nil
			}, galleryView{scale: 1}, nil
		}
		samples, err := standInSamples(sets, labels, names, "the training sets", 9, fit, nil)
		if err != nil {
			t.Fatal(err)
		}
		known := 0
		for _, s := range samples {
			if s.Stranger {
				continue
			}
			known++
			if s.Right != own {
				t.Errorf("named as its own class %v: a known sample right %v", own, s.Right)
			}
		}
		if known == 0 {
			t.Fatal("no known samples")
		}
	}
}

// TestRecalibrateRefusesAVote: recalibrateOn takes one model; a vote's
// members are recalibrated each alone (recalibrate), not as one.
func TestRecalibrateRefusesAVote(t *testing.T) {
	sets, labels, names := separated(3, 2, 1)
	opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1}
	res := buildRule(t, &opt, "auto:balanced", sets, labels, names)
	m := *res.Model
	member := *res.Model
	m.Voters = []*model.Model{&member}
	if _, _, err := recalibrateAlone(&m, opt); err == nil || !strings.Contains(err.Error(), "vote") {
		t.Errorf("recalibrateOn of a vote: err %v, want one that says to recalibrate each member", err)
	}
}

// TestBuildStrangers: strangers' sets given to training (setmatch train
// --strangers) count beside the stand-ins, each decided by the deployed
// model. Sets of a class near a known one, which the stand-ins (classes
// far apart) say nothing of, are let in by the threshold calibrated
// without them and kept out by the one calibrated with them, while the
// known classes' new sets still get in.
func TestBuildStrangers(t *testing.T) {
	all, labels, names := separated(4, 4, 5)
	var train, fresh []*mat.Dense
	var lab, nam []string
	for i, x := range all {
		if i%4 == 3 {
			fresh = append(fresh, x) // a new set of each known class
			continue
		}
		train, lab, nam = append(train, x), append(lab, labels[i]), append(nam, names[i])
	}
	// Strangers: class c0's clouds moved by delta along a second feature.
	near := func(seed uint64, n int) []*mat.Dense {
		xs, _, _ := separated(1, n, seed)
		for _, x := range xs {
			for i := range 12 {
				x.Set(i, 1, x.At(i, 1)+strangerShift)
			}
		}
		return xs
	}
	given, coming := near(11, 6), near(12, 6)
	build := func(strangers []*mat.Dense) *Result {
		opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1, Strangers: strangers}
		return buildRule(t, &opt, "", train, lab, nam)
	}
	decide := func(res *Result, sets []*mat.Dense) (known int) {
		mt, err := res.Model.NewMatcherWorkers(1)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range sets {
			r, err := mt.Match(x)
			if err != nil {
				t.Fatal(err)
			}
			if r.Decision.Known {
				known++
			}
		}
		return known
	}
	without, with := build(nil), build(given)
	if with.Calibration.Strangers != without.Calibration.Strangers+len(given) || !strings.Contains(with.ThresholdSource, "--strangers") {
		t.Errorf("calibrated on %d strangers' sets with %d given, %d without; %s", with.Calibration.Strangers, len(given), without.Calibration.Strangers, with.ThresholdSource)
	}
	if n, m := RecordedStrangers(with.Model), RecordedStrangers(without.Model); n != len(given) || m != 0 {
		t.Errorf("the models record %d strangers' sets with %d given and %d without, want %d and 0", n, len(given), m, len(given))
	}
	if in := decide(without, coming); in == 0 {
		t.Fatalf("without the strangers' sets the threshold %v keeps out all %d near strangers already: the test cannot tell", without.Model.Threshold, len(coming))
	}
	if in := decide(with, coming); in != 0 {
		t.Errorf("with the strangers' sets the threshold %v lets in %d of %d near strangers", with.Model.Threshold, in, len(coming))
	}
	if in := decide(with, fresh); in != len(fresh) {
		t.Errorf("with the strangers' sets the threshold %v lets in %d of %d new known sets", with.Model.Threshold, in, len(fresh))
	}
	t.Logf("threshold %.4g without the strangers' sets (%d of %d near strangers let in), %.4g with them", without.Model.Threshold, decide(without, coming), len(coming), with.Model.Threshold)

	// They need the stand-in calibration.
	for _, tc := range []struct {
		threshold string
		classes   int
		want      string
	}{{"none", 4, "auto:balanced"}, {"0.5", 4, "auto:balanced"}, {"auto", 4, "auto:balanced"}, {"", 2, "three classes"}} {
		xs, l, n := separated(tc.classes, 3, 5)
		opt := withThreshold(t, Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1, Strangers: given}, tc.threshold)
		if _, err := Build(xs, l, n, opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--threshold %q, %d classes, with strangers' sets: %v, want an error that says %q", tc.threshold, tc.classes, err, tc.want)
		}
	}
}

// strangerShift is how far TestBuildStrangers moves its strangers from
// class c0 (whose frames spread 0.3 about their centre).
const strangerShift = 1.0

// TestStandInFARCopy: two sets of class c1 are exact copies of two sets
// of class c0, one of them with its frames in reverse order, which the
// model scores 0 all the same. Where c1 stands for the strangers, the
// copy of a set the fold's gallery holds (c0 holds out one) scores 0,
// which no threshold keeps out, so no threshold lets in at most 1% of
// the stand-ins: train fails, and says why, which sets the model scores
// 0 against a set of another class and what share auto:far=P must allow.
// Allowed that share, it calibrates.
func TestStandInFARCopy(t *testing.T) {
	all, labels, names := separated(5, 3, 2)
	all[3], all[4] = mat.DenseCopyOf(all[0]), reversed(all[1]) // c1/1-0 and 1-1, copies of c0/0-0 and 0-1
	build := func(flag string) (*Result, error) {
		// kFDA: the distance its kernel induces between a set and its
		// copy is 0 to the last bit.
		opt := withThreshold(t, Options{Method: method.KFDAHG, Grid: grid(), Seed: 3, Workers: 1}, flag)
		return Build(all, labels, names, opt)
	}
	res, err := build("auto:far=1")
	if err == nil {
		t.Fatalf("no error: threshold %v: %s", res.Model.Threshold, res.ThresholdSource)
	}
	t.Log(err)
	var e *openset.StrangersAtZeroError
	if !errors.As(err, &e) || e.Zero == 0 {
		t.Fatalf("error %v, want an openset.StrangersAtZeroError", err)
	}
	share := float64((1000*e.Zero+e.Strangers-1)/e.Strangers) / 10
	for _, want := range []string{"auto:far=1: ", "score 0", "exact copies", "(2 pairs: c0/0-0 and c1/1-0, c0/0-1 and c1/1-1)", "check the training folders", fmt.Sprintf("or let that share in: --threshold auto:far=P with P of at least %g", share)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	res, err = build(fmt.Sprintf("auto:far=%g", share))
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Calibration; c == nil || c.Strangers == 0 || 1-c.StrangersOut > share/100+1e-12 {
		t.Errorf("auto:far=%g: %v: %s", share, c, res.ThresholdSource)
	}
}

// reversed returns a copy of x with its rows (frames) in reverse order.
func reversed(x *mat.Dense) *mat.Dense {
	n, d := x.Dims()
	y := mat.NewDense(n, d, nil)
	for i := range n {
		y.SetRow(i, x.RawRowView(n-1-i))
	}
	return y
}

// TestAtZeroText: the words after openset's error of stand-ins at 0 say
// what to do as the caller can: train, to check the training folders or
// let the share in; enroll and forget, to remove the copy or train again;
// and neither offers auto:far=P where every stranger scores 0, as no P
// below 100 passes.
func TestAtZeroText(t *testing.T) {
	sets := []model.Set{{Label: "a", Name: "a0"}, {Label: "b", Name: "b0"}}
	scores := mat.NewSymDense(2, nil) // b/b0 an exact copy of a/a0
	some := &openset.StrangersAtZeroError{Zero: 1, Strangers: 3, P: 0.01}
	all := &openset.StrangersAtZeroError{Zero: 3, Strangers: 3, P: 0.01}
	copies := "a set of one class is an exact copy of a set of another (a/a0 and b/b0): "
	for _, tc := range []struct {
		err            *openset.StrangersAtZeroError
		given, changed bool
		want           string
	}{
		{some, false, false, "; " + copies + "check the training folders for sets filed under two classes, or let that share in: --threshold auto:far=P with P of at least 33.4"},
		{some, true, false, "; " + copies + "check the training folders for sets filed under two classes, and check the strangers' sets (--strangers) for a copy of a training set, or let that share in: --threshold auto:far=P with P of at least 33.4"},
		{all, false, false, "; " + copies + "check the training folders for sets filed under two classes"},
		{some, false, true, "; " + copies + "remove the copy (setmatch forget --label LABEL --set NAME), or train again with --threshold auto:far=P (P ≥ 33.4)"},
		{all, true, true, "; " + copies + "remove the copy (setmatch forget --label LABEL --set NAME), and check the strangers' sets (--strangers) for a copy of a set of the model"},
	} {
		if got := atZeroText(tc.err, sets, scores, tc.given, tc.changed); got != tc.want {
			t.Errorf("%d of %d at 0, given %v, changed %v:\n got %q\nwant %q", tc.err.Zero, tc.err.Strangers, tc.given, tc.changed, got, tc.want)
		}
	}
	// No copy among the model's sets (a stranger's set given may be one).
	apart := mat.NewSymDense(2, []float64{0, 1, 1, 0})
	if got, want := atZeroText(some, sets, apart, true, false), "; check the training folders for sets filed under two classes, and check the strangers' sets (--strangers) for a copy of a training set, or let"; !strings.HasPrefix(got, want) {
		t.Errorf("none named, train:\n got %q\nwant %q…", got, want)
	}
	if got, want := atZeroText(some, sets, apart, true, true), "; check the model's sets for a set filed under two classes (setmatch forget --label LABEL --set NAME removes one), and check the strangers' sets (--strangers) for a copy of a set of the model, or train"; !strings.HasPrefix(got, want) {
		t.Errorf("none named, changed:\n got %q\nwant %q…", got, want)
	}
	if got := atZeroText(errors.New("other"), sets, scores, false, false); got != "" {
		t.Errorf("another error: %q, want none", got)
	}
}

// TestStandInFoldCannotRefit: where the stand-in folds cannot fit the
// method again (nn-h-dr on two sets of three frames a class: a fold
// keeps one set of each known class, too short to learn W from its
// halves, while the deployed W learned from the pair), the error says
// that it is the folds' refit that failed and what to give instead (a
// threshold that needs no folds, or another method), where it said only
// to give a class a second set, which every class had.
func TestStandInFoldCannotRefit(t *testing.T) {
	all, labels, names := separated(4, 2, 5)
	for i, x := range all {
		all[i] = mat.DenseCopyOf(x.Slice(0, 3, 0, 4))
	}
	g := method.DefaultGrid()
	g.DRIter, g.DRFoldIter, g.Learn = 4, 2, DRLearner(1)
	opt := withThreshold(t, Options{Method: method.NNHDR, Grid: g, Seed: 1, Workers: 1}, "")
	_, err := Build(all, labels, names, opt)
	if err == nil {
		t.Fatal("nn-h-dr whose stand-in folds cannot learn W: built")
	}
	for _, want := range []string{"stand-in fold", "one set of every other class held out", "give --threshold auto (", "another --method"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// Every class has two sets: the advice to give one a second set is
	// wrong here.
	if strings.Contains(err.Error(), "second set") {
		t.Errorf("error %q tells to give a class a second set, which every class has", err)
	}
	// The same model with a threshold that needs no folds is built.
	opt = withThreshold(t, opt, "auto")
	if _, err := Build(all, labels, names, opt); err != nil {
		t.Errorf("--threshold auto: %v", err)
	}
}

// TestStandInMixedClasses: where some classes have one set and others
// more, every class gives a known probe in each fold where it is known
// (a class of one set its odd frame half), where only the classes with
// two sets did: here c0 alone, 3 known probes, and a fold whose only
// class with two sets stood in was not fitted. The threshold's words say
// which classes gave halves. A class of one set too short to halve stops
// the stand-ins, naming it, as where every class has one set.
func TestStandInMixedClasses(t *testing.T) {
	all, labels, names := separated(4, 2, 5)
	var sets []*mat.Dense
	var lab, nam []string
	for i := range all {
		if labels[i] == "c0" || names[i][len(names[i])-1] == '0' {
			sets, lab, nam = append(sets, all[i]), append(lab, labels[i]), append(nam, names[i])
		}
	}
	opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1}
	res := buildRule(t, &opt, "", sets, lab, nam)
	if res.Calibration == nil || res.Calibration.Known != 12 {
		t.Fatalf("calibration %v, want 12 known probes (each of 4 classes known in 3 of 4 folds): %s", res.Calibration, res.ThresholdSource)
	}
	for _, w := range []string{"over 4 folds", "from 12 held-out sets and frame halves", "a held-out set is read for new sets", "a class of one set holds out the odd frame half of it, read as it is, as a new set meets the one set of its class (3 classes: c1, c2, c3)"} {
		if !strings.Contains(res.ThresholdSource, w) {
			t.Errorf("threshold %q; want it to say %q", res.ThresholdSource, w)
		}
	}
	short := slices.Clone(sets)
	for i := range short {
		if lab[i] == "c2" {
			short[i] = mat.DenseCopyOf(sets[i].Slice(0, 3, 0, 4))
		}
	}
	// c2's one set of 3 frames is too short to halve: it stays in the
	// gallery of the 3 folds where c2 is known and gives no known probe
	// there; the other classes are calibrated as before.
	res = buildRule(t, &opt, "", short, lab, nam)
	if res.Calibration == nil || res.Calibration.Known != 9 || res.Calibration.Strangers != 5 {
		t.Fatalf("c2's one set of 3 frames: calibration %v, want 9 known probes (c0, c1, c3 each known in 3 of 4 folds) and 5 stand-ins (c2's whole set among them): %s", res.Calibration, res.ThresholdSource)
	}
	for _, w := range []string{"over 4 folds", "from 9 held-out sets and frame halves", "(2 classes: c1, c3)", "1 class has a single set too short to halve (fewer than 4 frames): it is in the gallery of every fold where it is known but never held out"} {
		if !strings.Contains(res.ThresholdSource, w) {
			t.Errorf("c2's one set of 3 frames: threshold %q; want it to say %q", res.ThresholdSource, w)
		}
	}
}

// TestStandInAllTooShort: where every class has one set and each is too
// short to halve, no fold has a known probe, and the stand-ins fail with
// errNoStandIns, saying why and what to give.
func TestStandInAllTooShort(t *testing.T) {
	all, labels, names := separated(4, 1, 5)
	for i, x := range all {
		all[i] = mat.DenseCopyOf(x.Slice(0, method.MinHalvedFrames-1, 0, 4))
	}
	fit := func([]*mat.Dense, []string, []string) (*model.Model, func(*mat.Dense) (model.Result, error), galleryView, error) {
		t.Fatal("a fold was fitted")
		return nil, nil, galleryView{}, nil
	}
	_, err := standInSamples(all, labels, names, "the training sets", 9, fit, nil)
	if !errors.Is(err, errNoStandIns) {
		t.Fatalf("every class one set of 3 frames: %v, want errNoStandIns", err)
	}
	want := "the training sets cannot stand in for strangers: every class has one set, each of fewer than 4 frames, too few to halve, so no fold holds out a known set to stand in for a new set of its class (give the classes sets of 4 frames or more, or second sets)"
	if err.Error() != want {
		t.Errorf("every class one set of 3 frames: %q, want %q", err, want)
	}
}

// TestStandInFarLetsNoKnownIn: where every threshold that lets in at
// most P% of the stand-in strangers lets no known set in either
// (auto:far=0 on classes that nothing separates), the model keeps every
// set out; train says so and what to give instead, where it gave only
// the rate, 0% of known sets named right.
func TestStandInFarLetsNoKnownIn(t *testing.T) {
	train, _, labels, names := crossedClasses(4)
	opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1}
	res := buildRule(t, &opt, "auto:far=0", train, labels, names)
	if res.Calibration == nil || res.Calibration.KnownIn != 0 {
		t.Fatalf("auto:far=0 on crossed classes: %v (%s), want no known set let in", res.Calibration, res.ThresholdSource)
	}
	for _, want := range []string{"keeps every set out, known ones too", "auto:balanced", "larger P"} {
		if !strings.Contains(res.ThresholdSource, want) {
			t.Errorf("threshold: %s; want it to say %q", res.ThresholdSource, want)
		}
	}
	// A calibration that lets known sets in says nothing of the kind.
	all, lab, nam := separated(4, 3, 2)
	res = buildRule(t, &opt, "auto:far=0", all, lab, nam)
	if res.Calibration == nil || res.Calibration.KnownIn == 0 || strings.Contains(res.ThresholdSource, "keeps every set out") {
		t.Errorf("auto:far=0 on classes far apart: %v: %s", res.Calibration, res.ThresholdSource)
	}
}

// TestRecalibrateRefusesFewerThanTwoClasses: a gallery of one class, or
// of none, has no threshold to set (forget keeps two classes, but
// recalibrateOn is called on any model): it is refused with
// model.ErrTooFewClasses, by every rule, where the bound of auto set a
// threshold on one class and an empty gallery failed with "divergence
// matrix: no sets".
func TestRecalibrateRefusesFewerThanTwoClasses(t *testing.T) {
	all, labels, names := separated(3, 3, 8)
	for _, rule := range []string{"", "auto", "auto:far=5"} {
		opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1}
		res := buildRule(t, &opt, rule, all, labels, names)
		for _, keep := range []int{2, 1, 0} { // sets of class c0 only, then none
			m := *res.Model
			m.Sets = m.Sets[:keep]
			_, _, err := recalibrateAlone(&m, opt)
			if !errors.Is(err, model.ErrTooFewClasses) || !strings.Contains(err.Error(), "setmatch train") {
				t.Errorf("rule %q, %d sets of one class: %v; want a refusal with model.ErrTooFewClasses that says to train", rule, keep, err)
			}
		}
	}
}

// TestGivenThresholdSaysItsUnit: a threshold given as a number is held
// against the model's own scores, whose scale each method has its own:
// train and inspect say which scores, where they said "given" alone.
func TestGivenThresholdSaysItsUnit(t *testing.T) {
	all, labels, names := separated(3, 3, 8)
	for m, want := range map[method.Name]string{method.NNH: "hellinger divergence", method.KFDAHG: "kfda-hg kernel distance"} {
		opt := Options{Method: m, Grid: grid(), Seed: 3, Workers: 1}
		res := buildRule(t, &opt, "0.5", all, labels, names)
		if res.Model.Threshold != 0.5 {
			t.Fatalf("%s: threshold %v, want 0.5", m, res.Model.Threshold)
		}
		for _, w := range []string{"0.5", "given", want, "scale of its own"} {
			if !strings.Contains(res.ThresholdSource, w) {
				t.Errorf("%s: threshold set %q; want it to say %q", m, res.ThresholdSource, w)
			}
		}
	}
}

// TestInfiniteThresholdSaysSo: a threshold given as an infinite number
// (Inf, in any of the spellings strconv takes) accepts every set, a
// closed set, the same as none: the words say what was given and that it
// is none, where they said "(--threshold none)" as if none had been
// typed, beside inspect's parameters that list what was. The model is
// the same as with none.
func TestInfiniteThresholdSaysSo(t *testing.T) {
	all, labels, names := separated(3, 3, 8)
	for _, in := range []string{"Inf", "inf", "+Inf", "infinity", "INF"} {
		opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1}
		res := buildRule(t, &opt, in, all, labels, names)
		if !math.IsInf(res.Model.Threshold, 1) || res.Model.Selection.Params[ThresholdRuleParam] != "none" {
			t.Errorf("--threshold %s: threshold %v, rule %q; want +Inf, none", in, res.Model.Threshold, res.Model.Selection.Params[ThresholdRuleParam])
		}
		for _, w := range []string{"closed set", "--threshold " + in + ":", "the same as --threshold none"} {
			if !strings.Contains(res.ThresholdSource, w) {
				t.Errorf("--threshold %s: threshold set %q; want it to say %q", in, res.ThresholdSource, w)
			}
		}
		if strings.Contains(res.ThresholdSource, "(--threshold none)") {
			t.Errorf("--threshold %s: threshold set %q says none was given", in, res.ThresholdSource)
		}
	}
	opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1}
	res := buildRule(t, &opt, "none", all, labels, names)
	if want := "closed set (no threshold): every set is named, strangers too (--threshold none)"; res.ThresholdSource != want {
		t.Errorf("--threshold none: threshold set %q, want %q", res.ThresholdSource, want)
	}
}

// TestStandInHalvesReadAsTheyAre: where every class has one set, frame
// halves stand for sets and a held-out half meets one half of its class,
// as a new set meets one set: the rates are read as they are, and the
// threshold's words say so, where they said the known sets were "read
// for new sets that meet every set of their class". With two sets a
// class the words are as they were.
func TestStandInHalvesReadAsTheyAre(t *testing.T) {
	opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1}
	one, labels, names := separated(5, 1, 4)
	res := buildRule(t, &opt, "", one, labels, names)
	if res.Calibration == nil {
		t.Fatalf("one set a class: no calibration on stand-ins (%s)", res.ThresholdSource)
	}
	for _, w := range []string{"held-out frame halves", "read as they are"} {
		if !strings.Contains(res.ThresholdSource, w) {
			t.Errorf("one set a class: threshold %q; want it to say %q", res.ThresholdSource, w)
		}
	}
	if strings.Contains(res.ThresholdSource, "every set of their class") {
		t.Errorf("one set a class: threshold %q says the rates are read for new sets", res.ThresholdSource)
	}
	two, labels, names := separated(5, 2, 4)
	res = buildRule(t, &opt, "", two, labels, names)
	if !strings.Contains(res.ThresholdSource, "held-out sets, read for new sets that meet every set of their class") {
		t.Errorf("two sets a class: threshold %q", res.ThresholdSource)
	}
}

// TestHeldOutText: the words on the known samples say whether they are
// held-out sets, frame halves or both, and where both, which classes
// gave halves (sorted, at most four named).
func TestHeldOutText(t *testing.T) {
	half := func(class string) standIn { return standIn{openset.Sample{Draws: 1}, 0, 1, class} }
	set := func(class string) standIn { return standIn{openset.Sample{Draws: 2}, 0, 1, class} }
	stranger := standIn{openset.Sample{Stranger: true}, 0, 1, "z"}
	for _, c := range []struct {
		samples []standIn
		want    string
	}{
		{[]standIn{half("a"), half("b"), stranger}, "held-out frame halves, read as they are"},
		{[]standIn{set("a"), set("b"), stranger}, "held-out sets, read for new sets that meet every set of their class"},
		{[]standIn{set("a"), half("b"), half("b"), stranger}, "(1 class: b)"},
		{[]standIn{set("a"), half("f"), half("c"), half("e"), half("b"), half("d"), half("b"), half("g")}, "(6 classes: b, c, d, e and 2 more)"},
	} {
		if got := heldOutText(c.samples); !strings.HasSuffix(got, c.want) && !strings.HasPrefix(got, c.want) {
			t.Errorf("%v: %q, want it to say %q", c.samples, got, c.want)
		}
	}
}

// TestGalleryScaleRounding: a gallery whose sets each have a copy in
// another class scores them a rounding error above 0, which differs from
// one architecture to another: a scale within rounding of 0 beside the
// gallery's scores is refused as no scale, where one small but real is
// taken.
func TestGalleryScaleRounding(t *testing.T) {
	labels := []string{"a", "b", "a", "b"}
	scores := func(near float64) *mat.SymDense {
		// Sets 0 and 1 (a, b) and 2 and 3 (a, b) are pairs of near sets;
		// every other pair lies 1 apart.
		s := mat.NewSymDense(4, nil)
		for i := range 4 {
			for j := i + 1; j < 4; j++ {
				s.SetSym(i, j, 1)
			}
		}
		s.SetSym(0, 1, near)
		s.SetSym(2, 3, near)
		return s
	}
	for _, c := range []struct {
		near float64
		ok   bool
	}{{0, false}, {3e-16, false}, {1e-10, false}, {1e-6, true}, {0.5, true}} {
		scale, err := galleryScale(scores(c.near), labels)
		if (err == nil) != c.ok || (c.ok && scale != c.near) {
			t.Errorf("nearest scores %g beside 1: scale %g, error %v; want a scale: %v", c.near, scale, err, c.ok)
		}
		// keepCalibration tells no scale from any other error by its type.
		var why noScaleError
		if err != nil && !errors.As(err, &why) {
			t.Errorf("nearest scores %g beside 1: error %T, want a noScaleError", c.near, err)
		}
	}
	var why noScaleError
	if _, err := galleryScale(scores(0.5), []string{"a", "a", "a", "a"}); !errors.As(err, &why) {
		t.Errorf("a gallery of one class: error %v (%T), want a noScaleError", err, err)
	}
}

// TestFarthest: each set's largest finite score to another class, 0
// where none is above 0; scores that are not finite are passed over, and
// a set with none finite to another class, or with no other class, has no
// entry.
func TestFarthest(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	scores := mat.NewSymDense(5, []float64{
		0, 5, 2, inf, inf,
		5, 0, nan, -3, nan,
		2, nan, 0, 4, inf,
		inf, -3, 4, 0, -inf,
		inf, nan, inf, -inf, 0,
	})
	if got, want := farthest(scores, []string{"a", "a", "b", "c", "d"}), []float64{2, 0, 4, 4}; !slices.Equal(got, want) {
		t.Errorf("farthest = %v, want %v", got, want)
	}
	if got := farthest(scores, []string{"a", "a", "a", "a", "a"}); len(got) != 0 {
		t.Errorf("farthest of one class = %v, want none", got)
	}
}
