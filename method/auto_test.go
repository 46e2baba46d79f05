package method

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/match"
	"setmatch/synth"
)

func autoGrid(learn Learner) Grid {
	g := smallGrid()
	g.Learn = learn
	g.AutoMethods = []Name{NNH, KFDAHG, NNHDR}
	g.DRDims = []int{1, 3, 6, 40}
	g.DRScales = []float64{1}
	g.DRIter, g.DRFoldIter = 25, 7
	g.AutoScoreAll = true // the tests below look at every candidate
	return g
}

// scores returns a candidate score per accuracy; −1 is a candidate that
// failed.
func scores(acc ...float64) []CandidateScore {
	var s []CandidateScore
	for _, a := range acc {
		cs := CandidateScore{Accuracy: a}
		if a < 0 {
			cs.Err = errors.New("failed")
		}
		s = append(s, cs)
	}
	return s
}

// TestAutoCandidates checks the candidate list: -dr dimensions below D
// only, the start of each d before its scales, the -dr method whole when
// nested, no -dr without a learner or without a dimension below D.
func TestAutoCandidates(t *testing.T) {
	l := &coordLearner{}
	names := func(cs []Candidate) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.String())
		}
		return out
	}
	got := names(AutoCandidates(autoGrid(l.learn), 6, false))
	want := []string{"nn-h", "kfda-hg", "nn-h-dr d=1 start", "nn-h-dr d=1 train-bw=global*1", "nn-h-dr d=3 start", "nn-h-dr d=3 train-bw=global*1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates %q, want %q", got, want)
	}
	nested := AutoCandidates(autoGrid(l.learn), 6, true)
	if got, want := names(nested), []string{"nn-h", "kfda-hg", "nn-h-dr"}; !reflect.DeepEqual(got, want) {
		t.Errorf("nested candidates %q, want %q", got, want)
	}
	if g := nested[2].grid(autoGrid(l.learn), 6, 9); !reflect.DeepEqual(g.DRDims, []int{1, 3}) || !reflect.DeepEqual(g.DRScales, []float64{1}) || !g.DRGuard || g.DRIter != 9 || len(g.DRRules) != 0 {
		t.Errorf("nested -dr grid: dims %v scales %v guard %v iter %d rules %v", g.DRDims, g.DRScales, g.DRGuard, g.DRIter, g.DRRules)
	}
	for _, nest := range []bool{false, true} {
		if got := AutoCandidates(autoGrid(nil), 6, nest); len(got) != 2 {
			t.Errorf("without a learner: %v, want nn-h and kfda-hg only", got)
		}
		if got := AutoCandidates(autoGrid(l.learn), 1, nest); len(got) != 2 {
			t.Errorf("D = 1: %v, want nn-h and kfda-hg only", got)
		}
	}
	if got := AutoCandidates(Grid{Learn: l.learn}, 944, false); len(got) != len(AutoMethods)-1+len(DRDims)*(1+len(DRScales)) {
		t.Errorf("default candidates: %d", len(got))
	}
	if got := AutoCandidates(Grid{Learn: l.learn}, 944, true); len(got) != len(AutoMethods) {
		t.Errorf("default nested candidates: %d", len(got))
	}
}

// TestAutoProbesNeverInfluence checks that auto's choice is made on the
// gallery only: the learner only ever sees gallery sets (whole or
// halved), and replacing the probe sets by noise changes neither the
// scores of the candidates nor the choice nor the learner's calls. On
// data whose class lives in feature 0, the d = 1 projection wins.
func TestAutoProbesNeverInfluence(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	data := drData(rng)
	sp, labels := drSplit(t, data, 3)
	run := func(sets []*mat.Dense) (*Selection, Prediction, *coordLearner) {
		t.Helper()
		l := &coordLearner{}
		task := &Task{Pool: mustPool(t, sets), Train: sp.Gallery, Labels: labels, Test: sp.Probe, Classes: 3, Seed: 7}
		sel, err := Choose(task, autoGrid(l.learn), nil)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := Run(Auto, task, autoGrid(l.learn))
		if err != nil {
			t.Fatal(err)
		}
		gallery := map[*mat.Dense]bool{}
		for _, j := range sp.Gallery {
			gallery[sets[j]] = true
		}
		for c, call := range l.calls {
			for _, x := range call {
				if n, _ := x.Dims(); !gallery[x] && n != 6 { // 6 frames: a half of a 12-frame gallery set
					t.Fatalf("learner call %d was given a set that is not a gallery set", c)
				}
			}
		}
		return sel, pred, l
	}
	sel, pred, l := run(sp.Sets)
	for _, s := range sel.Scores {
		t.Logf("%-32s %5.1f%% %v", s.Candidate, 100*s.Accuracy, s.Err)
	}
	t.Logf("%s; %s", sel.Folding, pred.Params)
	// Three gallery sets per class: the training part of every outer
	// fold keeps two, so the -dr method is one nested candidate.
	if b := sel.Best(); b.Method != NNHDR || b.Learn.Dim != 0 {
		t.Errorf("chose %v, want nn-h-dr (nested)", b.Candidate)
	}
	if !strings.HasPrefix(pred.Params, "chose nn-h-dr autocv=") || !strings.Contains(pred.Params, " d=1 ") || pred.Fit == nil || pred.Fit.W == nil {
		t.Errorf("auto params %q (fit %v), want the d = 1 projection deployed", pred.Params, pred.Fit)
	}
	if sel.Held != AutoRepeats*len(sp.Gallery) || sel.Sets != len(sp.Gallery) || !strings.HasPrefix(sel.Folding, "3 stratified folds") || !strings.Contains(sel.Folding, "dealt 2 times") {
		t.Errorf("held %d (%s), want every gallery set held out once in 3 folds, on each of %d dealings", sel.Held, sel.Folding, AutoRepeats)
	}
	for _, s := range sel.Scores {
		if len(s.Correct) != sel.Held {
			t.Errorf("%v: %d held-out outcomes, want %d", s.Candidate, len(s.Correct), sel.Held)
		}
	}
	right := 0
	for k, j := range sp.Probe {
		if pred.Labels[k] == sp.Labels[j] {
			right++
		}
	}
	if right != len(sp.Probe) {
		t.Errorf("auto recognised %d of %d probes", right, len(sp.Probe))
	}

	other := append([]*mat.Dense(nil), sp.Sets...)
	for _, j := range sp.Probe {
		other[j] = testutil.RandSet(rng, 12, 6, 5, 1)
	}
	sel2, pred2, l2 := run(other)
	for i := range sel.Scores {
		a, b := sel.Scores[i], sel2.Scores[i]
		if a.Candidate != b.Candidate || a.Accuracy != b.Accuracy {
			t.Errorf("candidate %d moved with the probes: %v %.3f, then %v %.3f", i, a.Candidate, a.Accuracy, b.Candidate, b.Accuracy)
		}
	}
	if sel2.Chosen != sel.Chosen || pred2.Params != pred.Params || len(l2.calls) != len(l.calls) {
		t.Errorf("choice moved with the probes: %q (%d learner calls), then %q (%d)", pred.Params, len(l.calls), pred2.Params, len(l2.calls))
	}
}

// TestAutoFoldings checks the outer folds with two training sets per
// class (by sets) and with one (by frame halves), and that a fitted
// candidate is deployable.
func TestAutoFoldings(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	data := drData(rng)
	for _, c := range []struct {
		gallery int
		about   string
		held    int
	}{{2, "4 folds by training sets", 2 * 6}, {1, "2 folds by frame halves", 6}} {
		sp, labels := drSplit(t, data, c.gallery)
		l := &coordLearner{}
		task := &Task{Pool: mustPool(t, sp.Sets), Train: sp.Gallery, Labels: labels, Test: sp.Probe, Classes: 3, Seed: 3}
		sel, err := Choose(task, autoGrid(l.learn), nil)
		if err != nil {
			t.Fatalf("gallery %d: %v", c.gallery, err)
		}
		for _, s := range sel.Scores {
			t.Logf("gallery %d: %-32s %5.1f%% %v", c.gallery, s.Candidate, 100*s.Accuracy, s.Err)
		}
		if !strings.HasPrefix(sel.Folding, c.about) || sel.Held != c.held {
			t.Errorf("gallery %d: %q, %d held out; want %q, %d", c.gallery, sel.Folding, sel.Held, c.about, c.held)
		}
		fit, err := sel.Deploy(task, autoGrid(l.learn))
		if err != nil {
			t.Fatalf("gallery %d: fit: %v", c.gallery, err)
		}
		// One set per class: the -dr method cannot cross-validate on all
		// training sets, so the validated winner itself is deployed.
		if b := sel.Best(); c.gallery == 1 && b.Method.IsDR() && (fit.Learn.Dim != b.Learn.Dim || fit.Learn.Start != b.Learn.Start || fit.Learn.Scale != b.Learn.Scale) {
			t.Errorf("one set per class: deployed %+v, chose %v", fit.Learn, b.Candidate)
		}
		if len(fit.H) != len(sp.Gallery) || fit.Query.Validate() != nil {
			t.Errorf("gallery %d: fit bandwidths %v, query %v", c.gallery, fit.H, fit.Query)
		}
	}
}

// TestOuterFoldsDealings checks that a second dealing of the training sets
// to the outer folds differs from the first, keeps the folds stratified,
// and that the frame-halves folding has a single dealing.
func TestOuterFoldsDealings(t *testing.T) {
	task := classTask(t, 91, 4, 5, 8, 3, 1)
	task.Seed = 5
	a, err := outerFolds(task, Grid{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := outerFolds(task, Grid{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.fold, b.fold) {
		t.Errorf("the second dealing %v repeats the first", b.fold)
	}
	for _, o := range []*outer{a, b} {
		for f := range o.nf {
			if SmallestClass(o.sub(f).Labels) < 3 {
				t.Errorf("dealing %d, fold %d: training part %v is not stratified", o.rep, f, o.sub(f).Labels)
			}
		}
	}
	if a.sub(0).Seed == b.sub(0).Seed {
		t.Error("the two dealings share the inner cross-validation seeds")
	}
	one := &Task{Pool: task.Pool, Train: []int{0, 5, 10, 15}, Labels: []int{0, 1, 2, 3}, Classes: 4, Seed: 5}
	sel, err := Choose(one, Grid{Bandwidths: []Bandwidth{{Mode: Global, Scale: 1}}, AutoMethods: []Name{NNH}, AutoRepeats: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Held != 8 || strings.Contains(sel.Folding, "dealt") {
		t.Errorf("one set per class: %q, %d held out; want one dealing of the 8 halves", sel.Folding, sel.Held)
	}
}

// TestOneStandardErrorRule checks the choice among scores: the first
// candidate within one standard error of the highest wins, failed
// candidates never do, and a 100% top still has one set's worth of error.
func TestOneStandardErrorRule(t *testing.T) {
	for _, c := range []struct {
		acc      []float64 // −1: failed
		held     int
		chosen   int
		top      int
		seApprox float64
	}{
		{[]float64{0.80, 0.85, 0.90}, 100, 2, 2, 0.03},
		{[]float64{0.88, 0.85, 0.90}, 100, 0, 2, 0.03},
		{[]float64{-1, 0.88, 0.90}, 100, 1, 2, 0.03},
		{[]float64{0.975, 1.0}, 40, 0, 1, 0.025},
		{[]float64{0.95, 1.0}, 40, 1, 1, 0.025},
		// A tie for the highest: the top is the first of them, which is
		// then chosen as the highest, not within an error of a later one.
		{[]float64{0.90, 0.85, 0.90}, 100, 0, 0, 0.03},
	} {
		s := &Selection{Held: c.held, Scores: scores(c.acc...)}
		if err := s.choose(); err != nil {
			t.Fatal(err)
		}
		if s.Chosen != c.chosen || s.Top != c.top || math.Abs(s.SE-c.seApprox) > 1e-9 {
			t.Errorf("%v of %d: chose %d, top %d, SE %g; want %d, %d, %g", c.acc, c.held, s.Chosen, s.Top, s.SE, c.chosen, c.top, c.seApprox)
		}
	}
	// Two dealings of 50 sets: the standard error counts the 50 sets, not
	// the 100 outcomes (sqrt(0.09/50) = 0.0424 against 0.03), and 0.86
	// is then within it of 0.90.
	for _, c := range []struct {
		sets, chosen int
		se           float64
	}{{0, 1, 0.03}, {100, 1, 0.03}, {50, 0, math.Sqrt(0.09 / 50)}} {
		s := &Selection{Held: 100, Sets: c.sets, Scores: []CandidateScore{{Accuracy: 0.86}, {Accuracy: 0.90}}}
		if err := s.choose(); err != nil {
			t.Fatal(err)
		}
		if s.Chosen != c.chosen || math.Abs(s.SE-c.se) > 1e-9 {
			t.Errorf("0.86, 0.90 of 100 outcomes on %d sets: chose %d (SE %g), want %d (SE %g)", c.sets, s.Chosen, s.SE, c.chosen, c.se)
		}
	}
	s := &Selection{Held: 10, Scores: []CandidateScore{{Accuracy: -1, Err: errors.New("a")}}}
	if err := s.choose(); err == nil || !strings.Contains(err.Error(), "--method nn-h") || !strings.Contains(err.Error(), ": a") {
		t.Errorf("every candidate failed: %v", err)
	}
}

// TestSettled: the choice is settled when no later score could move the
// one-standard-error rule off the candidates scored so far.
func TestSettled(t *testing.T) {
	for _, c := range []struct {
		acc  []float64
		held int
		want bool
	}{
		{[]float64{1}, 32, true},
		{[]float64{31.0 / 32}, 32, true},  // a later 100% has SE 1/32
		{[]float64{30.0 / 32}, 32, false}, // a later 100% would win
		{[]float64{0.5, 31.0 / 32}, 32, true},
		{[]float64{-1}, 32, false},
		{[]float64{0.95}, 100, false},
		{[]float64{-1, 1}, 32, true},
		{[]float64{-1, -1}, 32, false},
	} {
		sel := &Selection{Held: c.held, Scores: scores(c.acc...)}
		if got := sel.settled(len(c.acc)); got != c.want {
			t.Errorf("%v of %d: settled %v, want %v", c.acc, c.held, got, c.want)
		}
		// Settled means: whatever a later candidate scores, choose picks
		// the same earlier candidate.
		if c.want {
			base := &Selection{Held: c.held, Scores: scores(c.acc...)}
			if err := base.choose(); err != nil {
				t.Fatal(err)
			}
			for k := 0; k <= c.held; k++ {
				s := &Selection{Held: c.held, Scores: append(scores(c.acc...), CandidateScore{Accuracy: float64(k) / float64(c.held)})}
				if err := s.choose(); err != nil {
					t.Fatal(err)
				}
				if s.Chosen != base.Chosen {
					t.Errorf("%v of %d, then %d/%d: chose %d, settled on %d", c.acc, c.held, k, c.held, s.Chosen, base.Chosen)
				}
			}
		}
	}
}

// TestChooseStopsWhenSettled: on data where a candidate before the last
// recognises every held-out set, Choose scores no further candidate and
// chooses what it chooses when it scores them all.
func TestChooseStopsWhenSettled(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	data := drData(rng)
	sp, labels := drSplit(t, data, 1)
	var sels [2]*Selection
	for i, all := range []bool{true, false} {
		l := &coordLearner{}
		g := autoGrid(l.learn)
		g.AutoScoreAll = all
		task := &Task{Pool: mustPool(t, sp.Sets), Train: sp.Gallery, Labels: labels, Classes: 3, Seed: 7}
		sel, err := Choose(task, g, nil)
		if err != nil {
			t.Fatal(err)
		}
		sels[i] = sel
	}
	full, early := sels[0], sels[1]
	last := -1
	for i, c := range early.Scores {
		if c.Err == nil {
			last = i
		}
	}
	if last < 0 || last == len(early.Scores)-1 {
		t.Fatalf("scored up to candidate %d of %d: the test data should settle early", last, len(early.Scores))
	}
	for i, c := range early.Scores {
		switch {
		case i <= last && errors.Is(c.Err, ErrCutShort):
			// Cut short: it could not have been within one standard
			// error of the highest score.
			if f := full.Scores[i].Accuracy; f >= full.Scores[full.Top].Accuracy-full.SE-1e-12 {
				t.Errorf("candidate %d cut short (%v) but scores %v in full, within one standard error of %v", i, c.Err, f, full.Scores[full.Top].Accuracy)
			}
		case i <= last && (c.Accuracy != full.Scores[i].Accuracy || c.Err != nil):
			t.Errorf("candidate %d: %v (%v), scored alone %v", i, c.Accuracy, c.Err, full.Scores[i].Accuracy)
		case i > last && !errors.Is(c.Err, ErrNotScored):
			t.Errorf("candidate %d after the settled choice: %v", i, c.Err)
		}
	}
	if early.Chosen != full.Chosen {
		t.Errorf("chose %v early, %v with every candidate", early.Best().Candidate, full.Best().Candidate)
	}
}

// TestPairFolds checks the outer folds when classes have two training
// sets: each of those sets is held out once, a class's two sets in folds
// g and 2+g, every fold's training part keeps both sets of at least half
// of those classes, larger classes keep two, single sets are never held
// out, and the dealing depends on the seed.
func TestPairFolds(t *testing.T) {
	var labels []int
	sizes := []int{2, 2, 2, 2, 2, 2, 2, 3, 5, 1}
	for c, n := range sizes {
		for range n {
			labels = append(labels, c)
		}
	}
	a := pairFolds(labels, 7)
	if len(a) != len(labels) {
		t.Fatalf("%d folds for %d sets", len(a), len(labels))
	}
	pos := map[int][]int{}
	for i, l := range labels {
		pos[l] = append(pos[l], i)
	}
	for c, n := range sizes {
		f := []int{}
		for _, i := range pos[c] {
			f = append(f, a[i])
		}
		switch {
		case n == 1 && f[0] != -1:
			t.Errorf("class %d, a single set: fold %d, want −1", c, f[0])
		case n == 2 && (min(f[0], f[1]) > 1 || max(f[0], f[1]) != min(f[0], f[1])+2):
			t.Errorf("class %d, two sets: folds %v, want g and 2+g", c, f)
		}
	}
	for f := range 4 {
		kept := map[int]int{}
		for i, l := range labels {
			if a[i] != f {
				kept[l]++
			}
		}
		pairs := 0
		for c, n := range sizes {
			if n == 2 && kept[c] == 2 {
				pairs++
			}
			if n >= 3 && kept[c] < 2 {
				t.Errorf("fold %d keeps %d of the %d sets of class %d", f, kept[c], n, c)
			}
		}
		if pairs < 3 {
			t.Errorf("fold %d keeps both sets of %d of the 7 classes with two, want at least 3", f, pairs)
		}
	}
	if b := pairFolds(labels, 8); reflect.DeepEqual(a, b) {
		t.Errorf("seeds 7 and 8 deal the same folds %v", a)
	}
}

// coneTask is a task of two training sets per class on Lambertian faces
// (synth.Cone): each class lies near its own subspace, and the sets of a
// class differ in their lighting.
func coneTask(t *testing.T, classes, frames, dim int) *Task {
	d, err := synth.Generate(synth.Options{Kind: synth.Cone, Classes: classes, Sets: 2, Frames: frames, Dim: dim, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sets := make([]*mat.Dense, len(d.Sets))
	var train, labels []int
	for i, s := range d.Sets {
		sets[i] = s.Frames
		train, labels = append(train, i), append(labels, i/2)
	}
	return &Task{Pool: mustPool(t, sets), Train: train, Labels: labels, Classes: classes, Seed: 3}
}

// TestPairFoldsTrainOnPairs checks the training part of the outer folds
// with two sets per class: the class of a held-out set keeps its other
// set as its two frame halves, the other classes keep both sets, so that
// every class has two items; the held-out sets are whole.
func TestPairFoldsTrainOnPairs(t *testing.T) {
	task := coneTask(t, 6, 10, 12)
	o, err := outerFolds(task, Grid{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.nf != 4 || !o.nests() {
		t.Fatalf("%d folds, nests %v; want 4 folds whose training parts keep two items per class", o.nf, o.nests())
	}
	n := len(task.Pool.Sets)
	for f := range o.nf {
		st := o.sub(f)
		held := map[int]bool{}
		for _, j := range st.Test {
			if j >= n {
				t.Errorf("fold %d holds out pool item %d, not a whole set", f, j)
			}
			held[task.Labels[j]] = true
		}
		for k, j := range st.Train {
			l := st.Labels[k]
			whole := j < n
			if whole == held[l] {
				t.Errorf("fold %d: class %d (held out: %v) trains on pool item %d", f, l, held[l], j)
			}
			if !whole {
				r, _ := o.task.Pool.Sets[j].Dims()
				if r != 5 {
					t.Errorf("fold %d: a half of %d frames, want 5", f, r)
				}
			}
		}
	}
}

// TestPairFoldsShortSets: when a set of a two-set class is too short to
// halve, the pairs are not dealt (a class would train on a single item):
// every class keeps one set, as in 2 folds by sets.
func TestPairFoldsShortSets(t *testing.T) {
	task := coneTask(t, 6, 3, 12)
	o, err := outerFolds(task, Grid{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.nf != 2 || o.halves != nil || !strings.HasPrefix(o.about, "2 folds by training sets") {
		t.Fatalf("3-frame sets: %d folds, halves %v, %q; want 2 folds by sets", o.nf, o.halves, o.about)
	}
	for f := range o.nf {
		if n := len(o.sub(f).Train); n != 6 {
			t.Errorf("fold %d trains on %d sets, want one of each of the 6 classes", f, n)
		}
	}
}

// TestAutoTwoSetsPerClassChoosesOnSets: on faces whose sets differ in
// their lighting, kFDA on the set kernels (kfda-mix) recognises new sets
// far better than NN-H, and the outer folds show it. Trained on one set
// per class (the folds dealt so that every class keeps one), every method
// made its choice on the frame halves of that set, which share its
// lighting, and kfda-mix scored no better than NN-H.
func TestAutoTwoSetsPerClassChoosesOnSets(t *testing.T) {
	task := coneTask(t, 12, 12, 60)
	g := DefaultGrid()
	g.AutoMethods, g.AutoScoreAll = []Name{NNH, KFDAMix}, true
	sel, err := Choose(task, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sel.Scores {
		t.Logf("%-10s %5.1f%% %v", s.Candidate, 100*s.Accuracy, s.Err)
	}
	if b := sel.Best(); b.Method != KFDAMix {
		t.Errorf("chose %s (%.1f%%), want kfda-mix", b.Candidate, 100*b.Accuracy)
	}
}

// TestAutoProgressUntimed: until a kind of candidate has run once, the
// reports name it as not timed yet (their time left is a lower bound);
// the reports count every run, and the last one has nothing left.
func TestAutoProgressUntimed(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	data := drData(rng)
	sp, labels := drSplit(t, data, 1)
	l := &coordLearner{}
	task := &Task{Pool: mustPool(t, sp.Sets), Train: sp.Gallery, Labels: labels, Classes: 3, Seed: 7}
	var reps []AutoProgress
	if _, err := Choose(task, autoGrid(l.learn), func(p AutoProgress) { reps = append(reps, p) }); err != nil {
		t.Fatal(err)
	}
	if len(reps) == 0 || reps[len(reps)-1].Done != reps[0].Total || len(reps) != reps[0].Total {
		t.Fatalf("%d reports, want one per run", len(reps))
	}
	first, last := reps[0], reps[len(reps)-1]
	if first.Candidate.Method != NNH || !slices.Contains(first.Untimed, string(KFDAHG)) || slices.Contains(first.Untimed, string(NNH)) {
		t.Errorf("first report (%v): untimed %v, want kfda-hg and not nn-h", first.Candidate, first.Untimed)
	}
	if len(last.Untimed) != 0 || last.ETA != 0 {
		t.Errorf("last report: untimed %v, %v left", last.Untimed, last.ETA)
	}
	for _, p := range reps {
		for _, k := range p.Untimed {
			if k == p.Candidate.String() {
				t.Errorf("report %d/%d names %s, which has just run, as untimed", p.Done, p.Total, k)
			}
		}
	}
}

// TestOuterFoldsSingleSetClasses checks the outer folds where some
// classes have a single training set and others more: each such set is
// replaced by its even and odd frame halves, which are held out in two
// different folds like the two sets of a class; where the sets are too
// short to halve they are never held out, and the note says so.
func TestOuterFoldsSingleSetClasses(t *testing.T) {
	labels := []int{0, 0, 0, 1, 1, 1, 2, 3}
	mixed := func(frames int) *Task {
		rng := rand.New(rand.NewPCG(61, 62))
		var sets []*mat.Dense
		for _, l := range labels {
			sets = append(sets, testutil.RandSet(rng, frames, 3, float64(l), 1))
		}
		train := make([]int, len(sets))
		for i := range train {
			train[i] = i
		}
		return &Task{Pool: mustPool(t, sets), Train: train, Labels: labels, Classes: 4, Seed: 1}
	}

	task := mixed(8)
	o, err := outerFolds(task, Grid{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.note != "" || o.halved != 2 || !strings.Contains(o.about, "2 classes of one set by their even and odd frame halves") {
		t.Errorf("note %q, halved %d, about %q", o.note, o.halved, o.about)
	}
	if len(o.task.Train) != 10 || o.held != 10 {
		t.Fatalf("%d items, %d held out, want 10 and 10", len(o.task.Train), o.held)
	}
	for c := 2; c <= 3; c++ {
		var items, fs []int
		for k, l := range o.task.Labels {
			if l == c {
				items, fs = append(items, o.task.Train[k]), append(fs, o.fold[k])
			}
		}
		if len(items) != 2 || fs[0] == fs[1] || fs[0] < 0 || fs[1] < 0 {
			t.Fatalf("class %d: items %v in folds %v, want two in two folds", c, items, fs)
		}
		for part, j := range items {
			h := o.task.Pool.Sets[j]
			whole := task.Pool.Sets[c+4]
			if n, _ := h.Dims(); n != 4 || !mat.Equal(h.RowView(1), whole.RowView(2+part)) {
				t.Errorf("class %d item %d is not the %d half of its set", c, part, part)
			}
		}
	}

	task = mixed(3) // too short to halve
	if o, err = outerFolds(task, Grid{}, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(o.note, "2 classes have a single training set") || o.halved != 0 {
		t.Errorf("note %q, halved %d", o.note, o.halved)
	}
	for k, f := range o.fold {
		if (labels[k] >= 2) != (f < 0) {
			t.Errorf("set %d of class %d in fold %d", k, labels[k], f)
		}
	}
	task.Labels = []int{0, 0, 0, 1, 1, 1, 2, 2}
	if o, err = outerFolds(task, Grid{}, 0); err != nil || o.note != "" || o.halved != 0 {
		t.Errorf("every class with two sets or more: note %q, halved %d, %v", o.note, o.halved, err)
	}
}

// TestNearChance checks the warning's condition: the highest score within
// two standard errors of a guess.
func TestNearChance(t *testing.T) {
	for _, c := range []struct {
		top, se, chance float64
		want            bool
	}{
		{0.233, 0.109, 0.2, true},
		{0.9, 0.05, 0.2, false},
		{0.45, 0.05, 0.2, false},
		{0.29, 0.05, 0.2, true},
		{0.5, 0.1, 0, false}, // no chance level recorded
	} {
		s := &Selection{Scores: []CandidateScore{{Accuracy: c.top}}, Top: 0, SE: c.se, Chance: c.chance}
		if got := s.NearChance(); got != c.want {
			t.Errorf("top %v, SE %v, chance %v: near chance %v, want %v", c.top, c.se, c.chance, got, c.want)
		}
	}
}

// mixLearner is a deterministic learner whose projection depends on the
// frames it is given: d coordinates picked by their sum, so that folds
// differ in what they keep and the -dr candidate's held-out outcomes
// differ from fold to fold. It is safe for concurrent use.
type mixLearner struct {
	mu    sync.Mutex
	calls int
}

func (l *mixLearner) learn(sets []*mat.Dense, _ []int, _ match.Measure, p LearnParams, _ int64) (*mat.Dense, []float64, error) {
	l.mu.Lock()
	l.calls++
	l.mu.Unlock()
	_, dim := sets[0].Dims()
	var sum float64
	for _, s := range sets {
		sum += mat.Sum(s)
	}
	first := int(math.Abs(sum)*1e3) % dim
	w := mat.NewDense(dim, p.Dim, nil)
	for j := range p.Dim {
		w.Set((first+j)%dim, j, 1)
	}
	return w, nil, nil
}

// countLog is a Counter that keeps every count it reports.
type countLog struct {
	mu          sync.Mutex
	unit        string
	done, total int
	steps       []countStep
}

// countStep is one count a countLog reported: Done of Total units.
type countStep struct {
	Unit        string
	Done, Total int
}

func (c *countLog) Count(unit string, done, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unit, c.done, c.total = unit, done, total
}

func (c *countLog) Inc() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done++
	c.steps = append(c.steps, countStep{c.unit, c.done, c.total})
}

// TestChooseConcurrentRunsSameChoice checks that the -dr candidate's runs,
// two at a time when the pool has two workers, give the same held-out
// outcomes in the same order, the same choice and one progress report per
// run, as one after the other.
func TestChooseConcurrentRunsSameChoice(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	data := drData(rng)
	sp, labels := drSplit(t, data, 3)
	steps := &countLog{} // the stage's progress, as a harness shows it
	choose := func(workers int) (*Selection, []AutoProgress, int) {
		t.Helper()
		pool, err := NewPool(sp.Sets, workers)
		if err != nil {
			t.Fatal(err)
		}
		l := &mixLearner{}
		var mu sync.Mutex
		var reps []AutoProgress
		task := &Task{Pool: pool, Train: sp.Gallery, Labels: labels, Classes: 3, Seed: 7}
		if workers > 1 {
			task.Progress = steps
		}
		sel, err := Choose(task, autoGrid(l.learn), func(p AutoProgress) {
			mu.Lock()
			reps = append(reps, p)
			mu.Unlock()
		})
		if err != nil {
			t.Fatal(err)
		}
		return sel, reps, l.calls
	}
	one, reps1, calls1 := choose(1)
	two, reps2, calls2 := choose(2)
	var dr *CandidateScore
	for i := range one.Scores {
		a, b := one.Scores[i], two.Scores[i]
		if a.Candidate != b.Candidate || a.Accuracy != b.Accuracy || !slices.Equal(a.Correct, b.Correct) || (a.Err == nil) != (b.Err == nil) {
			t.Errorf("%v: %.3f %v with one worker, %.3f %v with two", a.Candidate, a.Accuracy, a.Correct, b.Accuracy, b.Correct)
		}
		if a.Method.IsDR() {
			dr = &one.Scores[i]
		}
	}
	if dr == nil || !slices.Contains(dr.Correct, true) || !slices.Contains(dr.Correct, false) {
		t.Fatalf("the -dr candidate's outcomes %v: want some right and some wrong, so that their order is tested", dr)
	}
	// The outcomes, run by run in fold order, as the folds give them.
	pool, err := NewPool(sp.Sets, 1)
	if err != nil {
		t.Fatal(err)
	}
	task := &Task{Pool: pool, Train: sp.Gallery, Labels: labels, Classes: 3, Seed: 7}
	g := autoGrid((&mixLearner{}).learn)
	var want []bool
	for r := range AutoRepeats {
		o, err := outerFolds(task, g, r)
		if err != nil {
			t.Fatal(err)
		}
		for f := range o.nf {
			p, err := run(dr.Method, o.sub(f), dr.grid(g, pool.Dim(), g.DRFoldIter))
			if err != nil {
				t.Fatal(err)
			}
			for a, l := range o.truth(f) {
				want = append(want, p.Labels[a] == l)
			}
		}
	}
	if !slices.Equal(dr.Correct, want) {
		t.Errorf("-dr outcomes %v, want %v (fold by fold)", dr.Correct, want)
	}
	if one.Chosen != two.Chosen || calls1 != calls2 {
		t.Errorf("chose %d with %d learner calls on one worker, %d with %d on two", one.Chosen, calls1, two.Chosen, calls2)
	}
	if len(reps2) != len(reps1) || reps2[len(reps2)-1].Done != reps2[0].Total {
		t.Errorf("%d progress reports with two workers, %d with one, want one per run", len(reps2), len(reps1))
	}
	for i, p := range reps2 {
		if p.Done != i+1 {
			t.Errorf("report %d says %d done", i, p.Done)
		}
	}
	// Two runs at once report whole runs to the stage, not their own loops.
	var folds []int
	for _, s := range steps.steps {
		if s.Unit == string(NNHDR)+" folds" {
			folds = append(folds, s.Done)
			if s.Total != AutoRepeats*3 {
				t.Errorf("step %+v: want %d runs in all", s, AutoRepeats*3)
			}
		} else if s.Unit == "projections" {
			t.Errorf("step %+v: a run's own progress while two run at once", s)
		}
	}
	if !slices.Equal(folds, []int{1, 2, 3, 4, 5, 6}) {
		t.Errorf("-dr runs reported as done: %v, want 1 to 6", folds)
	}
}

// sixSetData returns 3 classes of 6 sets each, 12 frames in 6 features of
// unit noise, the classes sep apart in the first feature.
func sixSetData(sep float64) *testData {
	rng := rand.New(rand.NewPCG(81, 82))
	data := &testData{Classes: []string{"a", "b", "c"}}
	data.Sets, data.Labels = classSets(3, 6, func(c, _ int) *mat.Dense {
		x := testutil.RandSet(rng, 12, 6, 0, 1)
		for i := range 12 {
			x.Set(i, 0, x.At(i, 0)+sep*float64(c))
		}
		return x
	})
	return data
}

// TestChooseSetsPerClass: whatever the number of training sets per
// class, the default candidates are AutoMethods in that order, every one
// takes part in the rule, and the choice made cutting short equals the
// one made scoring all.
func TestChooseSetsPerClass(t *testing.T) {
	data := sixSetData(0.7)
	for _, gallery := range []int{3, 2} {
		sp, labels := drSplit(t, data, gallery)
		var sels [2]*Selection
		for k, all := range []bool{false, true} {
			l := &coordLearner{}
			g := autoGrid(l.learn)
			g.AutoMethods = nil // the default candidates
			g.AutoScoreAll = all
			task := &Task{Pool: mustPool(t, sp.Sets), Train: sp.Gallery, Labels: labels, Classes: 3, Seed: 7}
			var reps []AutoProgress
			sel, err := Choose(task, g, func(p AutoProgress) { reps = append(reps, p) })
			if err != nil {
				t.Fatal(err)
			}
			// Progress counts the runs that are made: the last report has
			// done them all, with nothing left.
			if last := reps[len(reps)-1]; last.Done != last.Total || last.ETA != 0 || len(last.Untimed) != 0 {
				t.Errorf("gallery %d, score all %v: last report %d/%d, %v left, untimed %v", gallery, all, last.Done, last.Total, last.ETA, last.Untimed)
			}
			var got []Name
			for _, c := range sel.Scores {
				got = append(got, c.Method)
			}
			if !slices.Equal(got, AutoMethods) {
				t.Fatalf("gallery %d: candidates %v, want %v", gallery, got, AutoMethods)
			}
			sels[k] = sel
		}
		early, full := sels[0], sels[1]
		if early.Chosen != full.Chosen {
			t.Errorf("gallery %d: chose %v, scoring all %v", gallery, early.Best().Candidate, full.Best().Candidate)
		}
		// The highest score of all decides: the rule runs among every
		// candidate.
		// With three sets a class the data must test that rule: the
		// highest score is neither kfda-mix's nor nn-h-dr's.
		if top := full.Scores[full.Top].Method; gallery >= 3 && (top == KFDAMix || top == NNHDR) {
			t.Fatalf("gallery %d: the highest score is %s's: the data do not test that the other candidates take part", gallery, top)
		}
		for i, c := range full.Scores {
			if c.Err == nil && c.Accuracy > full.Scores[full.Top].Accuracy {
				t.Errorf("gallery %d: %v scored %.3f above the top %.3f", gallery, full.Scores[i].Candidate, c.Accuracy, full.Scores[full.Top].Accuracy)
			}
		}
	}
}

// failLearner fails to learn W.
func failLearner([]*mat.Dense, []int, match.Measure, LearnParams, int64) (*mat.Dense, []float64, error) {
	return nil, nil, errors.New("no W")
}

// TestAutoDeploysChoice: where every class has three training sets and
// the choice is kfda-mix, the auto row is kfda-mix alone, run as the
// whole method, and Deploy fits kfda-mix alone; where it chooses another,
// the row is that method's, not a vote of several methods.
func TestAutoDeploysChoice(t *testing.T) {
	kept, departed := 0, 0
	for _, sep := range []float64{0.3, 0.5, 0.7, 1.0} {
		sp, labels := drSplit(t, sixSetData(sep), 3)
		l := &coordLearner{}
		g := autoGrid(l.learn)
		g.AutoMethods, g.AutoScoreAll = nil, false
		task := &Task{Pool: mustPool(t, sp.Sets), Train: sp.Gallery, Labels: labels, Test: sp.Probe, Classes: 3, Seed: 7}
		sel, err := Choose(task, g, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := runAuto(task, g)
		if err != nil {
			t.Fatal(err)
		}
		best := sel.Best().Method
		if strings.Contains(got.Params, "vote") || !strings.HasPrefix(got.Params, "chose "+string(best)+" ") {
			t.Errorf("sep %g: chose %s, the row says %q", sep, best, got.Params)
		}
		if best != KFDAMix {
			departed++
			continue
		}
		kept++
		alone, err := run(KFDAMix, task, Candidate{Method: KFDAMix}.grid(g, task.Pool.Dim(), g.DRIter))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Labels, alone.Labels) {
			t.Errorf("sep %g: auto %v, kfda-mix alone %v", sep, got.Labels, alone.Labels)
		}
		fit, err := sel.Deploy(task, g)
		if err != nil {
			t.Fatal(err)
		}
		if fit.Method != KFDAMix || fit.KFDA == nil || fit.W != nil {
			t.Errorf("sep %g: deployed %s (kFDA %v, W %v), want kfda-mix alone", sep, fit.Method, fit.KFDA != nil, fit.W != nil)
		}
	}
	if kept == 0 {
		t.Errorf("the choice kept kfda-mix on no data set (departed from it on %d): the data do not test it", departed)
	}
	t.Logf("kept kfda-mix on %d data sets, departed from it on %d", kept, departed)
}

// TestChooseFoldsLearnWAsDeployed: in Choose's outer folds the -dr
// candidate learns its W as the one fitted on every training set will
// (Grid.DRSmallest): from the sets where every class has three (though a
// fold leaves each class two), from frame halves where a class has two.
func TestChooseFoldsLearnWAsDeployed(t *testing.T) {
	data := drData(rand.New(rand.NewPCG(73, 74)))
	for _, per := range []int{2, 3} {
		sp, labels := drSplit(t, data, per)
		l := &coordLearner{}
		g := autoGrid(l.learn)
		g.AutoMethods = []Name{NNHDR}
		task := &Task{Pool: mustPool(t, data.Sets), Train: sp.Gallery, Labels: labels, Classes: 3, Seed: 7}
		if _, err := Choose(task, g, nil); err != nil {
			t.Fatal(err)
		}
		halves := 0
		for _, p := range l.params {
			if p.Halves {
				halves++
			}
		}
		if (halves > 0) != (per == 2) {
			t.Errorf("%d sets a class: %d of the %d Ws learned from halves as a fold's final W", per, halves, len(l.params))
		}
	}
}

// TestAutoTakesTheDRGrid: there is one -dr grid. DefaultGrid holds the
// package's DRDims and DRScales, and auto's -dr candidates are drawn
// from the grid's DRDims (those below the feature dimension) and
// DRScales, so that eval's --dr-dim and --dr-bandwidth set them too,
// falling back to the package's lists where the grid has none. Auto
// tries its d from the smallest up, whatever the grid's order, whose
// first d is the one nn-h-dr takes when there is nothing to
// cross-validate on.
func TestAutoTakesTheDRGrid(t *testing.T) {
	g := DefaultGrid()
	if !slices.Equal(g.DRDims, DRDims) || !slices.Equal(g.DRScales, DRScales) {
		t.Fatalf("DefaultGrid: DRDims %v, DRScales %v; want %v, %v", g.DRDims, g.DRScales, DRDims, DRScales)
	}
	spec := DefaultGridSpec()
	if spec.DRDims != "10,5,20,40" || spec.DRRules != "global*0.25,global*1,global*2" {
		t.Errorf("DefaultGridSpec: --dr-dim %q, --dr-bandwidth %q", spec.DRDims, spec.DRRules)
	}
	// With nothing to cross-validate on, nn-h-dr takes the first
	// candidate: d = 10, as before d = 5 joined the grid.
	if c := drCandidates(g, 200); c[0].Dim != 10 || len(c) != len(DRDims)*(1+len(DRScales)) {
		t.Errorf("DefaultGrid's -dr candidates start at d = %d (%d of them), want d = 10 (%d)", c[0].Dim, len(c), len(DRDims)*(1+len(DRScales)))
	}
	// dims and scales of the unnested candidates, in order.
	grid := func(c []Candidate) (dims []int, scales []float64) {
		for _, x := range c {
			if !x.Method.IsDR() {
				continue
			}
			if x.Learn.Start {
				dims = append(dims, x.Learn.Dim)
			} else if len(dims) == 1 {
				scales = append(scales, x.Learn.Scale)
			}
		}
		return dims, scales
	}
	g.Learn = nopLearner
	g.AutoMethods = []Name{NNH, NNHDR}
	if d, s := grid(AutoCandidates(g, 30, false)); !slices.Equal(d, []int{5, 10, 20}) || !slices.Equal(s, DRScales) {
		t.Errorf("default grid, D = 30: dims %v, scales %v; want [5 10 20], %v", d, s, DRScales)
	}
	spec.DRDims, spec.DRRules = "8,3,12", "nn,global*0.5"
	pg, err := ParseGrid(spec)
	if err != nil {
		t.Fatal(err)
	}
	pg.Learn, pg.AutoMethods = nopLearner, g.AutoMethods
	if d, s := grid(AutoCandidates(pg, 10, false)); !slices.Equal(d, []int{3, 8}) || !slices.Equal(s, []float64{0.5}) {
		t.Errorf("--dr-dim 8,3,12 --dr-bandwidth nn,global*0.5, D = 10: dims %v, scales %v; want [3 8], [0.5]", d, s)
	}
	// The nested candidate: its own cross-validation runs over the same grid.
	ng := Candidate{Method: NNHDR}.grid(pg, 10, 5)
	if !slices.Equal(ng.DRDims, []int{3, 8}) || !slices.Equal(ng.DRScales, []float64{0.5}) || ng.DRRules != nil || !ng.DRGuard {
		t.Errorf("nested candidate's grid: DRDims %v, DRScales %v, DRRules %v, guard %v", ng.DRDims, ng.DRScales, ng.DRRules, ng.DRGuard)
	}
	// Per-set rules only: auto falls back to the package's scales.
	pg.DRScales = nil
	if d, s := grid(AutoCandidates(pg, 10, false)); !slices.Equal(d, []int{3, 8}) || !slices.Equal(s, DRScales) {
		t.Errorf("no global*S: dims %v, scales %v; want [3 8], %v", d, s, DRScales)
	}
	if d, _ := grid(AutoCandidates(Grid{Learn: nopLearner, AutoMethods: g.AutoMethods}, 944, false)); !slices.Equal(d, []int{5, 10, 20, 40}) {
		t.Errorf("empty grid: dims %v, want [5 10 20 40]", d)
	}
}
