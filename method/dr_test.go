package method

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/match"
)

// drData returns 3 classes × 6 sets of 12 frames in 6 features: the class
// is in feature 0 only, features 1..5 are wide noise, so a projection on
// feature 0 alone (d = 1) separates the classes and d = 6 barely does.
func drData(rng *rand.Rand) *testData {
	data := &testData{Classes: []string{"a", "b", "c"}}
	data.Sets, data.Labels = classSets(3, 6, func(c, _ int) *mat.Dense {
		x := testutil.RandSet(rng, 12, 6, 0, 3)
		for i := range 12 {
			x.Set(i, 0, 0.2*rng.NormFloat64()+2*float64(c))
		}
		return x
	})
	return data
}

// drSplit returns one random split of data with gallery sets per class
// and 3 probes per class, and the class of each gallery set.
func drSplit(t *testing.T, data *testData, gallery int) (testSplit, []int) {
	t.Helper()
	sp := randomSplit(t, data, gallery, 3, 1)
	labels := make([]int, len(sp.Gallery))
	for k, j := range sp.Gallery {
		labels[k] = sp.Labels[j]
	}
	return sp, labels
}

// coordLearner is a stand-in for learn.Train: W picks the first p.Dim
// features. It records the sets it was given.
type coordLearner struct {
	calls  [][]*mat.Dense
	iters  []int
	params []LearnParams
}

func (l *coordLearner) learn(sets []*mat.Dense, _ []int, _ match.Measure, p LearnParams, _ int64) (*mat.Dense, []float64, error) {
	l.calls = append(l.calls, sets)
	l.iters = append(l.iters, p.MaxIter)
	l.params = append(l.params, p)
	_, dim := sets[0].Dims()
	w := mat.NewDense(dim, p.Dim, nil)
	for j := range p.Dim {
		w.Set(j, j, 1)
	}
	return w, nil, nil
}

// TestDRCrossValidation checks that the -dr methods choose d and the
// training bandwidth rule from the grid by cross-validation on the gallery
// only: W is learned inside the folds on gallery sets alone, the best
// dimension wins although it is not first in the grid, and replacing the
// probe sets (and so their content and true labels) changes neither the
// learner's calls nor the chosen parameters.
func TestDRCrossValidation(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	data := drData(rng)
	sp := randomSplit(t, data, 3, 3, 1)
	run := func(sets []*mat.Dense) (Prediction, *coordLearner) {
		t.Helper()
		l := &coordLearner{}
		g := smallGrid()
		g.Learn = l.learn
		g.DRDims = []int{6, 1, 3}
		g.DRRules = []match.BandwidthRule{{Kind: match.NearestNeighbour}, {Kind: match.Scott}}
		g.DRScales, g.DRGuard = nil, false
		g.DRFolds, g.DRIter, g.DRFoldIter = 3, 25, 7
		pool := mustPool(t, sets)
		labels := make([]int, len(sp.Gallery))
		for k, j := range sp.Gallery {
			labels[k] = sp.Labels[j]
		}
		task := &Task{Pool: pool, Train: sp.Gallery, Labels: labels, Test: sp.Probe, Classes: 3, Seed: 7}
		pred, err := Run(NNHDR, task, g)
		if err != nil {
			t.Fatal(err)
		}
		isGallery := map[*mat.Dense]bool{}
		for _, j := range sp.Gallery {
			isGallery[sets[j]] = true
		}
		for c, call := range l.calls {
			for _, x := range call {
				if !isGallery[x] {
					t.Fatalf("learner call %d was given a set that is not a gallery set", c)
				}
			}
		}
		return pred, l
	}
	pred, l := run(sp.Sets)
	// 3 dims × 2 rules × 3 folds inside the CV, then the final W.
	if want := 3*2*3 + 1; len(l.calls) != want {
		t.Fatalf("%d learner calls, want %d", len(l.calls), want)
	}
	for c, call := range l.calls[:len(l.calls)-1] {
		if len(call) >= len(sp.Gallery) || l.iters[c] != 7 {
			t.Errorf("fold call %d: %d sets (gallery %d), %d iterations", c, len(call), len(sp.Gallery), l.iters[c])
		}
	}
	if last := len(l.calls) - 1; len(l.calls[last]) != len(sp.Gallery) || l.iters[last] != 25 {
		t.Errorf("final W: %d sets, %d iterations", len(l.calls[last]), l.iters[last])
	}
	if !strings.HasPrefix(pred.Params, "d=1 train-bw=") || !strings.Contains(pred.Params, "drcv=") {
		t.Errorf("params %q: want d=1 chosen by cross-validation", pred.Params)
	}

	// Same gallery, probes replaced by noise and shuffled among classes.
	other := append([]*mat.Dense(nil), sp.Sets...)
	for _, j := range sp.Probe {
		other[j] = testutil.RandSet(rng, 12, 6, 5, 1)
	}
	pred2, l2 := run(other)
	if pred2.Params != pred.Params {
		t.Errorf("params moved with the probes: %q, then %q", pred.Params, pred2.Params)
	}
	if len(l2.calls) != len(l.calls) {
		t.Errorf("learner calls moved with the probes: %d, then %d", len(l.calls), len(l2.calls))
	}
}

// TestDRCandidates checks the grid: dimensions clamped to D and
// de-duplicated, and a single candidate when every d is D (W is then a
// rotation, to which the divergences are invariant).
func TestDRCandidates(t *testing.T) {
	nn, sc := match.BandwidthRule{Kind: match.NearestNeighbour}, match.BandwidthRule{Kind: match.Scott}
	g := Grid{DRDims: []int{10, 5, 20}, DRRules: []match.BandwidthRule{nn, sc}}
	got := drCandidates(g, 8)
	want := []LearnParams{{Dim: 8, Rule: nn}, {Dim: 8, Rule: sc}, {Dim: 5, Rule: nn}, {Dim: 5, Rule: sc}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("candidate %d: %v, want %v", i, got[i], want[i])
		}
	}
	if got := drCandidates(g, 4); len(got) != 1 || got[0].Dim != 4 || got[0].Rule != nn {
		t.Errorf("d = D everywhere: %v, want the first candidate only", got)
	}
	if got := SmallestClass([]int{0, 0, 1, 1, 1, 2, 2}); got != 2 {
		t.Errorf("minClass = %d, want 2", got)
	}
	if got := drCandidates(Grid{}, 30); len(got) != 1 || got[0].Dim != 10 {
		t.Errorf("empty grid: %v, want d = 10 with the learner's default rule", got)
	}
	// The Fisher start: every candidate, the guard included, starts there.
	g = Grid{DRDims: []int{5, 10}, DRScales: []float64{1}, DRGuard: true, DRFisher: true}
	want = []LearnParams{{Dim: 5, Scale: 1, Fisher: true}, {Dim: 5, Start: true, Fisher: true}, {Dim: 10, Scale: 1, Fisher: true}, {Dim: 10, Start: true, Fisher: true}}
	if got := drCandidates(g, 30); !slices.Equal(got, want) {
		t.Errorf("Fisher start: %v, want %v", got, want)
	}
	if got := ruleNote(g, want[1]); got != " start from=fisher" {
		t.Errorf("note %q", got)
	}
	cands := AutoCandidates(Grid{AutoMethods: []Name{NNHDR}, DRDims: []int{5}, DRScales: []float64{1}, Learn: nopLearner, DRFisher: true}, 30, false)
	if len(cands) != 2 || cands[0].String() != "nn-h-dr d=5 start from=fisher" || cands[1].String() != "nn-h-dr d=5 train-bw=global*1 from=fisher" {
		t.Errorf("auto's candidates from the Fisher start: %v", cands)
	}
	if cg := cands[1].grid(Grid{}, 30, 3); !cg.DRFisher {
		t.Error("a candidate's grid lost the Fisher start")
	}
}

// nopLearner is a Learner that is never to be called.
func nopLearner([]*mat.Dense, []int, match.Measure, LearnParams, int64) (*mat.Dense, []float64, error) {
	panic("nopLearner called")
}

// TestDRFoldShortSets checks the reason a fold gives when every class has
// one set to learn W from and the sets are too short to halve: it names
// the sets' length, not a lack of sets, and the learner is not called.
func TestDRFoldShortSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	sets, labels := classSets(3, 2, func(c, _ int) *mat.Dense { return testutil.RandSet(rng, 3, 4, float64(c), 1) })
	fold := []int{0, 1, 0, 1, 0, 1}
	l := &coordLearner{}
	g := Grid{Learn: l.learn}
	_, err := drFold(sets, labels, drFoldPart(sets, labels, fold, 0), LearnParams{Dim: 2}, g, []Bandwidth{{Mode: Global, Scale: 1}}, match.Hellinger, 1, 1)
	if err == nil || !strings.Contains(err.Error(), "fewer than 4 frames") {
		t.Errorf("sets of 3 frames, one per class: %v", err)
	}
	if len(l.calls) != 0 {
		t.Errorf("the learner was called %d times", len(l.calls))
	}
}

// TestDRFitReportsHeldOutScore checks that a fitted -dr method reports
// the held-out score of its own choice (W learned without the sets it
// classified), not a score on the sets W was learned from.
func TestDRFitReportsHeldOutScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 56))
	// Classes that overlap: the held-out score is neither 0 nor 100%.
	data := &testData{Classes: []string{"a", "b", "c"}}
	data.Sets, data.Labels = classSets(3, 6, func(c, _ int) *mat.Dense { return testutil.RandSet(rng, 8, 4, 0.4*float64(c), 1) })
	pool := mustPool(t, data.Sets)
	l := &coordLearner{}
	g := smallGrid()
	g.Learn = l.learn
	g.DRDims = []int{6, 1, 3}
	g.DRRules = []match.BandwidthRule{{Kind: match.NearestNeighbour}}
	g.DRScales, g.DRGuard = nil, false
	g.DRFolds, g.DRIter, g.DRFoldIter = 3, 5, 3
	train := make([]int, len(data.Sets))
	for i := range train {
		train[i] = i
	}
	task := &Task{Pool: pool, Train: train, Labels: data.Labels, Classes: 3, Seed: 7}
	pred, err := run(NNHDR, task, g) // no test sets: fitted for a model
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(pred.Params, "drcv=")
	if i < 0 {
		t.Fatalf("no held-out score in %q", pred.Params)
	}
	var pct float64
	if _, err := fmt.Sscanf(pred.Params[i:], "drcv=%f%%", &pct); err != nil {
		t.Fatal(err)
	}
	if math.Abs(100*pred.Fit.CV-pct) > 0.05 {
		t.Errorf("fitted CV %.4f, the held-out score of the choice %.1f%% (%s)", pred.Fit.CV, pct, pred.Params)
	}
}

// TestDRPredictEqualsRunNN checks that the -dr method's predictions from
// the test × training divergences only are those of 1-NN on the whole
// projected pool with the same bandwidth, for both measures and both
// kinds of bandwidth, with sets of the pool in neither part. The
// bandwidths agree to rounding: the two pools hold other sets, so their
// distances are taken from other mean frames.
func TestDRPredictEqualsRunNN(t *testing.T) {
	rng := rand.New(rand.NewPCG(57, 58))
	sets, labels := classSets(3, 5, func(c, _ int) *mat.Dense { return testutil.RandSet(rng, 7+rng.IntN(6), 6, 0.5*float64(c), 1) })
	pool := mustPool(t, sets)
	w := mat.NewDense(6, 3, nil)
	for j := range 3 {
		w.Set(j, j, 1)
	}
	mean := []float64{0.1, -0.2, 0.3, 0, 0, 0}
	// Train on 9 sets, test 5, leave one out of both.
	var train, trainLab, test []int
	for i := range sets {
		switch {
		case i == 4:
		case i%3 == 0:
			test = append(test, i)
		default:
			train, trainLab = append(train, i), append(trainLab, labels[i])
		}
	}
	proj, err := ProjectSets(sets, w, mean)
	if err != nil {
		t.Fatal(err)
	}
	whole := &Task{Pool: mustPool(t, proj), Train: train, Labels: trainLab, Test: test, Classes: 3, Seed: 1}
	task := &Task{Pool: pool, Train: train, Labels: trainLab, Test: test, Classes: 3, Seed: 1}
	for _, m := range []match.Measure{match.Hellinger, match.Jeffrey} {
		for _, b := range []Bandwidth{{Mode: Global, Scale: 0.7}, {Mode: PerSet, Scale: 1.5}} {
			g := smallGrid()
			g.Bandwidths = []Bandwidth{b}
			want, err := runNN(whole, g, m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := drPredict(task, b, m, w, mean)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Labels, want.Labels) {
				t.Errorf("%v %v: %v, 1-NN on the whole pool %v", m, b, got.Labels, want.Labels)
			}
			// Fitted for a model (no test sets): the same fit.
			fitOnly := *task
			fitOnly.Test = nil
			alone, err := drPredict(&fitOnly, b, m, w, mean)
			if err != nil {
				t.Fatal(err)
			}
			if len(alone.Labels) != 0 || !sameBandwidths(alone.Fit.H, want.Fit.H) || !sameQuery(alone.Fit.Query, want.Fit.Query) {
				t.Errorf("%v %v: without test sets, fit %+v; with them %+v", m, b, alone.Fit, want.Fit)
			}
			if got.Fit.Method != want.Fit.Method || got.Fit.Bandwidth != want.Fit.Bandwidth || !sameBandwidths(got.Fit.H, want.Fit.H) || !sameQuery(got.Fit.Query, want.Fit.Query) {
				t.Errorf("%v %v: fit %+v, on the whole pool %+v", m, b, got.Fit, want.Fit)
			}
		}
	}
}

// sameBandwidths reports whether a and b are the same bandwidths to
// rounding (a relative 1e-12).
func sameBandwidths(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Abs(x-y) <= 1e-12*math.Abs(y) })
}

// sameQuery reports whether two query rules are the same, a fixed
// bandwidth to rounding.
func sameQuery(a, b match.BandwidthRule) bool {
	fa, fb := a.Fixed, b.Fixed
	a.Fixed, b.Fixed = 0, 0
	return a == b && sameBandwidths([]float64{fa}, []float64{fb})
}

// TestCVDRLearnsFromTheSameHalves: with two sets per class, the folds of
// the -dr cross-validation learn W from the halves of their training
// sets; every candidate of a fold gets the same matrices, so that a
// learner that caches their PCA by identity (learn.PCACache) computes it
// once per fold.
func TestCVDRLearnsFromTheSameHalves(t *testing.T) {
	rng := rand.New(rand.NewPCG(57, 58))
	sets, labels := classSets(3, 2, func(c, _ int) *mat.Dense { return testutil.RandSet(rng, 8, 4, float64(c), 1) })
	fold := folds(labels, 2, 1)
	l := &coordLearner{}
	g := Grid{Learn: l.learn, Bandwidths: []Bandwidth{{Mode: Global, Scale: 1}}}
	cands := []LearnParams{{Dim: 1, Scale: 1}, {Dim: 2, Scale: 1}, {Dim: 3, Scale: 0.5}}
	if _, _, _, err := cvDR(sets, labels, fold, cands, g, match.Hellinger, 1, 1, progress{}); err != nil {
		t.Fatal(err)
	}
	if len(l.calls) != 2*len(cands) {
		t.Fatalf("%d learner calls, want %d", len(l.calls), 2*len(cands))
	}
	distinct := map[*mat.Dense]bool{}
	for _, call := range l.calls {
		if len(call) != 6 { // the halves of one set per class
			t.Fatalf("W learned from %d sets, want the 6 halves of 3 sets", len(call))
		}
		for _, s := range call {
			distinct[s] = true
		}
	}
	if len(distinct) != 2*6 {
		t.Errorf("%d distinct matrices learned from, want 12: the halves of each fold, made once", len(distinct))
	}
}

// TestDRDeploysWLearnedAsInItsFolds: the W a -dr method deploys is
// learned from what its folds learned from. With two sets per class the
// folds learn from frame halves (a fold leaves each class one set, its
// halves the class's only pair), and so does the final W: its last
// learner call has the even and odd frames of every training set, with
// one neighbour a set in the affinity (LearnParams.Halves), so that it
// pulls a set's halves together and not a class's two sets, and the
// fitted W records it (for RefitProjection). With three sets per class
// the folds and the final W learn from the sets themselves, with the
// learner's default neighbours.
func TestDRDeploysWLearnedAsInItsFolds(t *testing.T) {
	for _, per := range []int{2, 3} {
		rng := rand.New(rand.NewPCG(61, uint64(per)))
		data := &testData{Classes: []string{"a", "b", "c"}}
		data.Sets, data.Labels = classSets(3, per, func(c, _ int) *mat.Dense { return testutil.RandSet(rng, 8, 4, float64(c), 1) })
		l := &coordLearner{}
		g := smallGrid()
		g.Learn = l.learn
		g.DRDims = []int{1, 2}
		g.DRRules, g.DRScales, g.DRGuard = nil, []float64{1}, false
		train := make([]int, len(data.Sets))
		for i := range train {
			train[i] = i
		}
		task := &Task{Pool: mustPool(t, data.Sets), Train: train, Labels: data.Labels, Classes: 3, Seed: 7}
		pred, err := run(NNHDR, task, g)
		if err != nil {
			t.Fatal(err)
		}
		if h := pred.Fit.Learn.Halves; h != (per == 2) {
			t.Errorf("%d sets a class: the fitted W records halves %v", per, h)
		}
		if len(l.calls) < 2 {
			t.Fatalf("%d sets a class: %d learner calls, want the folds' and the final one", per, len(l.calls))
		}
		fold, final := l.calls[0], l.calls[len(l.calls)-1]
		wantFrames, wantSets := 8, 3*per
		if per == 2 {
			wantFrames, wantSets = 4, 2*3*per
		}
		if n, _ := fold[0].Dims(); (n == 4) != (per == 2) {
			t.Errorf("%d sets a class: a fold learned from sets of %d frames", per, n)
		}
		if len(final) != wantSets {
			t.Errorf("%d sets a class: the final W learned from %d sets, want %d", per, len(final), wantSets)
		}
		if h := l.params[len(l.params)-1].Halves; h != (per == 2) {
			t.Errorf("%d sets a class: the final W learned with Halves %v", per, h)
		}
		if h := l.params[0].Halves; h {
			t.Errorf("%d sets a class: a fold learned with Halves, want the default neighbours", per)
		}
		for _, x := range final {
			if n, _ := x.Dims(); n != wantFrames {
				t.Errorf("%d sets a class: the final W learned from a set of %d frames, want %d", per, n, wantFrames)
				break
			}
		}
	}
}

// TestDRNeedsLearner: nn-h-dr without Grid.Learn fails.
func TestDRNeedsLearner(t *testing.T) {
	data := drData(rand.New(rand.NewPCG(31, 32)))
	if _, err := Run(NNHDR, &Task{Pool: mustPool(t, data.Sets), Train: []int{0, 6}, Labels: []int{0, 1}, Test: []int{1}, Classes: 3}, smallGrid()); err == nil {
		t.Error("nn-h-dr without a learner did not fail")
	}
}

// TestDRShortSetsOneAClass checks the reason nn-h-dr gives when every
// class has one set (the pooled layout, or an outer fold's frame halves)
// and the sets are too short to halve: it names a set's length, not a
// lack of sets, and the learner is not called.
func TestDRShortSetsOneAClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 56))
	var sets []*mat.Dense
	for c := range 3 {
		sets = append(sets, testutil.RandSet(rng, 3, 4, float64(c), 1))
	}
	l := &coordLearner{}
	g := smallGrid()
	g.Learn, g.DRDims = l.learn, []int{2}
	_, err := Fit(NNHDR, &Task{Pool: mustPool(t, sets), Train: []int{0, 1, 2}, Labels: []int{0, 1, 2}, Classes: 3}, g)
	if err == nil || !strings.Contains(err.Error(), "too few to halve") {
		t.Errorf("sets of 3 frames, one per class: %v", err)
	}
	if len(l.calls) != 0 {
		t.Errorf("the learner was called %d times", len(l.calls))
	}
}

// TestDRFolds: the folds of the -dr cross-validation are the grid's
// DRFolds from 2 (--dr-folds 2 is allowed), and 3 when it gives fewer.
func TestDRFolds(t *testing.T) {
	for folds, want := range map[int]int{0: 3, 1: 3, 2: 2, 3: 3, 5: 5} {
		if got := drFolds(Grid{DRFolds: folds}); got != want {
			t.Errorf("DRFolds %d: %d folds, want %d", folds, got, want)
		}
	}
}

// TestDRFoldsAndMethod: the -dr cross-validation runs two folds where the
// smallest class has two training sets (each fold then keeps one set of
// every class to learn from), whatever DRFolds says and however many sets
// the other classes have; a single candidate
// is not cross-validated at all (one W, no held-out score); and the
// fitted method is the one run, nn-j-dr on the Jeffrey divergence.
func TestDRFoldsAndMethod(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	data := drData(rng)
	for _, c := range []struct {
		name    string
		method  Name
		gallery int // sets a class; below 0: one set fewer in class 0
		dims    []int
		calls   int
	}{
		{"two sets a class, two candidates", NNHDR, 2, []int{1, 3}, 2*2 + 1},
		{"two sets in one class, three in the others", NNHDR, -3, []int{1, 3}, 2*2 + 1},
		{"three sets a class, two candidates", NNJDR, 3, []int{1, 3}, 3*2 + 1},
		{"one candidate", NNJDR, 3, []int{1}, 1},
	} {
		sp, labels := drSplit(t, data, max(c.gallery, -c.gallery))
		if c.gallery < 0 {
			// One set fewer in class 0.
			k := slices.Index(labels, 0)
			sp.Gallery, labels = slices.Delete(sp.Gallery, k, k+1), slices.Delete(labels, k, k+1)
		}
		l := &coordLearner{}
		g := smallGrid()
		g.Learn = l.learn
		g.DRDims, g.DRRules, g.DRScales, g.DRGuard = c.dims, nil, []float64{1}, false
		g.DRFolds = 3
		task := &Task{Pool: mustPool(t, sp.Sets), Train: sp.Gallery, Labels: labels, Test: sp.Probe, Classes: 3, Seed: 7}
		pred, err := Run(c.method, task, g)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(l.calls) != c.calls {
			t.Errorf("%s: %d learner calls, want %d", c.name, len(l.calls), c.calls)
		}
		if cv := strings.Contains(pred.Params, "drcv="); cv != (c.calls > 1) || (pred.Fit.CV >= 0) != cv {
			t.Errorf("%s: params %q, held-out score %v: want one only with a choice to make", c.name, pred.Params, pred.Fit.CV)
		}
		if pred.Fit.Method != c.method {
			t.Errorf("%s: fitted method %s, want %s", c.name, pred.Fit.Method, c.method)
		}
	}
}

// TestDRNearestOnItsMeasure: the -dr methods' nearest neighbours, in
// their cross-validation (crossNNAll) and in their predictions (crossNN,
// drPredict), are by the method's own divergence: nn-j-dr's by the
// Jeffrey divergence, on sets (of spreads 0.2 to 3) whose nearest
// training set by the Hellinger distance is another for some.
func TestDRNearestOnItsMeasure(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 60))
	sets, labels := classSets(3, 5, func(c, _ int) *mat.Dense {
		return testutil.RandSet(rng, 8, 2, 0.5*float64(c), []float64{0.2, 1, 3}[rng.IntN(3)])
	})
	var train, trainLab, test []int
	for i := range sets {
		if i%3 == 0 {
			test = append(test, i)
		} else {
			train, trainLab = append(train, i), append(trainLab, labels[i])
		}
	}
	task := &Task{Pool: mustPool(t, sets), Train: train, Labels: trainLab, Test: test, Classes: 3, Seed: 1}
	b := Bandwidth{Mode: PerSet, Scale: 1}
	g := smallGrid()
	g.Bandwidths = []Bandwidth{b}
	byH, err := runNN(task, g, match.Hellinger)
	if err != nil {
		t.Fatal(err)
	}
	byJ, err := runNN(task, g, match.Jeffrey)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(byH.Labels, byJ.Labels) {
		t.Fatalf("the sets do not tell the measures apart: %v by both", byJ.Labels)
	}
	w := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	got, err := drPredict(task, b, match.Jeffrey, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Labels, byJ.Labels) {
		t.Errorf("drPredict by J: %v, want %v (by H %v)", got.Labels, byJ.Labels, byH.Labels)
	}
	fp, err := NewCrossPool(sets, 1, test, train)
	if err != nil {
		t.Fatal(err)
	}
	res, err := crossNNAll(fp, []Bandwidth{b}, match.Jeffrey, test, train, trainLab, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res[0].pred, byJ.Labels) {
		t.Errorf("crossNNAll by J: %v, want %v (by H %v)", res[0].pred, byJ.Labels, byH.Labels)
	}
}

// TestProjectSets: each set's frames less the mean, times W, by hand; a
// nil mean takes nothing off, a nil W only centres; a mean or set of the
// wrong length is an error.
func TestProjectSets(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	w := mat.NewDense(2, 1, []float64{1, 2})
	for _, c := range []struct {
		w    *mat.Dense
		mean []float64
		want []float64
	}{
		{w, []float64{1, 1}, []float64{2, 8}},
		{w, nil, []float64{5, 11}},
		{nil, []float64{1, 1}, []float64{0, 1, 2, 3}},
	} {
		got, err := ProjectSets([]*mat.Dense{x}, c.w, c.mean)
		if err != nil {
			t.Fatal(err)
		}
		if r, k := got[0].Dims(); !slices.Equal(got[0].RawMatrix().Data, c.want) || r*k != len(c.want) {
			t.Errorf("W %v, mean %v: %v, want %v", c.w, c.mean, mat.Formatted(got[0]), c.want)
		}
	}
	if x.At(0, 0) != 1 {
		t.Error("ProjectSets changed its argument")
	}
	if _, err := ProjectSets([]*mat.Dense{x}, w, []float64{1}); err == nil {
		t.Error("a mean of 1 entry for W of 2 rows accepted")
	}
	if _, err := ProjectSets([]*mat.Dense{mat.NewDense(2, 3, nil)}, w, nil); err == nil {
		t.Error("a set of 3 features for W of 2 rows accepted")
	}
}

// TestDRStartOfShortSetsOneAClass: where every class has one set too
// short to halve, the start of W (a guard candidate, LearnParams.Start)
// needs no within-class pair: it is scored over the inner folds and fitted
// on every set, where the settings learned by conjugate gradient are
// refused (TestDRShortSetsOneAClass).
func TestDRStartOfShortSetsOneAClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 57))
	var sets []*mat.Dense
	var labels []int
	for c := range 3 {
		for range 2 {
			sets = append(sets, testutil.RandSet(rng, 3, 4, float64(c), 1))
			labels = append(labels, c)
		}
	}
	train := []int{0, 1, 2, 3, 4, 5}
	l := &coordLearner{}
	g := smallGrid()
	g.Learn, g.DRDims, g.DRRules, g.DRScales, g.DRGuard = l.learn, []int{1, 2}, nil, nil, true
	pred, err := Fit(NNHDR, &Task{Pool: mustPool(t, sets), Train: train, Labels: labels, Classes: 3}, g)
	if err != nil {
		t.Fatalf("the starts of sets of 3 frames, two a class: %v", err)
	}
	if pred.W == nil {
		t.Fatal("no W fitted")
	}
	for i, p := range l.params {
		if !p.Start {
			t.Errorf("learner call %d is not a start: %+v", i, p)
		}
	}
	if len(l.calls) < 3 {
		t.Errorf("%d learner calls, want the inner folds' and the final fit", len(l.calls))
	}
	// One set a class (the pooled layout): no inner folds, the start
	// fitted on every set.
	l.calls, l.params = nil, nil
	g.DRDims = []int{2}
	pred, err = Fit(NNHDR, &Task{Pool: mustPool(t, sets), Train: []int{0, 2, 4}, Labels: []int{0, 1, 2}, Classes: 3}, g)
	if err != nil {
		t.Fatalf("the start of sets of 3 frames, one a class: %v", err)
	}
	if pred.W == nil || len(l.calls) != 1 || !l.params[0].Start {
		t.Errorf("one set a class: W %v, learner calls %d (%+v), want one start", pred.W != nil, len(l.calls), l.params)
	}
	// Settings learned by conjugate gradient beside the starts still
	// fail, with the reason.
	g.DRScales = []float64{1}
	if _, err := Fit(NNHDR, &Task{Pool: mustPool(t, sets), Train: train, Labels: labels, Classes: 3}, g); err == nil || !strings.Contains(err.Error(), "too few to halve") {
		t.Errorf("a learned setting beside the starts: %v", err)
	}
}
