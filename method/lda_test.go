package method

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/fisher"
	"setmatch/match"
	"setmatch/synth"
)

// ldaTask returns a task on synth.Lighting data (faces under lighting, in
// miniature): the class lives in 3 directions, a strong lighting nuisance
// (mean lighting varying from set to set) in 6 others. Each class has
// train training sets and 2 test sets.
func ldaTask(t *testing.T, classes, train int, seed int64) *Task {
	t.Helper()
	d, err := synth.Generate(synth.Options{Kind: synth.Lighting, Classes: classes, Sets: train + 2, Frames: 16, Dim: 24,
		InfoDim: 3, NuisanceDim: 6, NuisanceStd: 3, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	task := &Task{Classes: classes, Seed: 5}
	sets := make([]*mat.Dense, len(d.Sets))
	for i, s := range d.Sets {
		sets[i] = s.Frames
		if i%(train+2) < train {
			task.Train, task.Labels = append(task.Train, i), append(task.Labels, i/(train+2))
		} else {
			task.Test = append(task.Test, i)
		}
	}
	task.Pool = mustPool(t, sets)
	return task
}

func accuracy(t *Task, pred []int) float64 {
	hits := 0
	for k, p := range pred {
		if p == t.Test[k]/(len(t.Train)/t.Classes+2) {
			hits++
		}
	}
	return float64(hits) / float64(len(pred))
}

// ldaDimOf returns the d of nn-h-lda's parameters text.
func ldaDimOf(t *testing.T, params string) int {
	t.Helper()
	var d int
	if _, err := fmt.Sscanf(params, "d=%d", &d); err != nil {
		t.Fatalf("parameters %q: %v", params, err)
	}
	return d
}

// TestLDABeatsNN checks nn-h-lda through Run on held-out sets under a
// strong lighting nuisance: it does at least as well as nn-h in the full
// space (which the nuisance confuses) and well in absolute terms, and its
// d is one of the candidates.
func TestLDABeatsNN(t *testing.T) {
	task := ldaTask(t, 6, 3, 11)
	g := DefaultGrid()
	nn, err := Run(NNH, task, g)
	if err != nil {
		t.Fatal(err)
	}
	lda, err := Run(NNHLDA, task, g)
	if err != nil {
		t.Fatal(err)
	}
	accNN, accLDA := accuracy(task, nn.Labels), accuracy(task, lda.Labels)
	t.Logf("nn-h %.3f (%s), nn-h-lda %.3f (%s)", accNN, nn.Params, accLDA, lda.Params)
	if accLDA < accNN || accLDA < 0.9 {
		t.Errorf("nn-h-lda %.3f, nn-h %.3f: want nn-h-lda ≥ nn-h and ≥ 0.9", accLDA, accNN)
	}
	d := ldaDimOf(t, lda.Params)
	if !slices.Contains([]int{5, 3, 10}, d) {
		t.Errorf("chose d=%d, not a candidate of 6 classes (5, 3, 10)", d)
	}
	if got := lda.Fit.Method; got != NNHLDA {
		t.Errorf("fit method %q", got)
	}
}

// TestLDAFitDeployable checks the fit for a model (no test sets): every
// field a model needs, one global bandwidth for all sets, the fixed
// query bandwidth, W the Fisher basis of all training sets at the chosen
// d (a candidate) and its held-out score. It also checks that the choice
// never looks at the test sets: the same training sets with other test
// sets give the same parameters.
func TestLDAFitDeployable(t *testing.T) {
	task := ldaTask(t, 4, 3, 12)
	fit, err := Fit(NNHLDA, task, DefaultGrid())
	if err != nil {
		t.Fatal(err)
	}
	if err := fit.Deployable(); err != nil {
		t.Fatal(err)
	}
	if fit.Method != NNHLDA || fit.Divergence != match.Hellinger || fit.Bandwidth.Mode != Global {
		t.Errorf("fit %s, divergence %v, bandwidth %v", fit.Method, fit.Divergence, fit.Bandwidth)
	}
	if !slices.Contains([]int{3, 2, 6}, fit.Learn.Dim) || !fit.Learn.Start {
		t.Errorf("learn params %+v: want d in {3, 2, 6}, not learned", fit.Learn)
	}
	if !(fit.CV >= 0 && fit.CV <= 1) {
		t.Errorf("CV %v: want the held-out accuracy", fit.CV)
	}
	if len(fit.H) != len(task.Train) {
		t.Fatalf("%d bandwidths for %d training sets", len(fit.H), len(task.Train))
	}
	for k, h := range fit.H {
		if h != fit.H[0] || !(h > 0) {
			t.Errorf("set %d bandwidth %v, set 0 %v: want one positive global bandwidth", k, h, fit.H[0])
		}
	}
	if fit.Query.Kind != match.Fixed || fit.Query.Fixed != fit.H[0] {
		t.Errorf("query rule %v, want fixed %v", fit.Query, fit.H[0])
	}
	sets := make([]*mat.Dense, len(task.Train))
	for k, j := range task.Train {
		sets[k] = task.Pool.Sets[j]
	}
	sol, err := fisher.Solve(sets, task.Labels, fisher.Reg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sol.Basis(fit.Learn.Dim)
	if err != nil {
		t.Fatal(err)
	}
	mean := sol.Mean
	if !mat.Equal(w, fit.W) || len(fit.Mean) != len(mean) {
		t.Error("W is not the Fisher basis of all training sets")
	}
	for j := range mean {
		if fit.Mean[j] != mean[j] {
			t.Fatalf("mean[%d] %v, want %v", j, fit.Mean[j], mean[j])
		}
	}
	// The bandwidth is scale × the Global base of the projected training
	// sets.
	proj, err := ProjectSets(sets, w, mean)
	if err != nil {
		t.Fatal(err)
	}
	pp := mustPool(t, proj)
	all := make([]int, len(proj))
	for i := range all {
		all[i] = i
	}
	h, err := pp.FrameBandwidths(fit.Bandwidth, all)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(h[0]-fit.H[0]) > 1e-12*h[0] {
		t.Errorf("bandwidth %v, want %v (%v of the projected training sets)", fit.H[0], h[0], fit.Bandwidth)
	}

	// Other test sets, the same choice.
	p1, err := Run(NNHLDA, task, DefaultGrid())
	if err != nil {
		t.Fatal(err)
	}
	other := ldaTask(t, 4, 3, 99)
	sets2 := append([]*mat.Dense(nil), task.Pool.Sets...)
	for _, j := range task.Test {
		sets2[j] = other.Pool.Sets[j]
	}
	t2 := *task
	t2.Pool = mustPool(t, sets2)
	p2, err := Run(NNHLDA, &t2, DefaultGrid())
	if err != nil {
		t.Fatal(err)
	}
	if p1.Params != p2.Params || p1.Params == "" {
		t.Errorf("parameters %q with one set of test sets, %q with another", p1.Params, p2.Params)
	}
}

// TestLDAOneSetPerClass checks nn-h-lda with a single training set per
// class: the choice is cross-validated on the frame halves of the sets
// (as for the other full-space methods), and the held-out sets are
// still named well.
func TestLDAOneSetPerClass(t *testing.T) {
	task := ldaTask(t, 5, 1, 13)
	p, err := Run(NNHLDA, task, DefaultGrid())
	if err != nil {
		t.Fatal(err)
	}
	if !(p.Fit.CV >= 0) {
		t.Errorf("CV %v: want a score on the frame halves", p.Fit.CV)
	}
	if acc := accuracy(task, p.Labels); acc < 0.8 {
		t.Errorf("accuracy %.3f with one training set per class (%s)", acc, p.Params)
	}
}

// TestLDADims checks the candidate dimensions: C−1, ⌈(C−1)/2⌉,
// min(2(C−1), r), clamped to [1, r], without repeats.
func TestLDADims(t *testing.T) {
	for _, c := range []struct {
		classes, r int
		want       []int
	}{
		{6, 20, []int{5, 3, 10}},
		{6, 7, []int{5, 3, 7}},
		{2, 20, []int{1, 2}},
		{3, 20, []int{2, 1, 4}},
		{10, 4, []int{4}},
	} {
		got := ldaDims(c.classes, c.r)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("ldaDims(%d, %d) = %v, want %v", c.classes, c.r, got, c.want)
		}
	}
}
