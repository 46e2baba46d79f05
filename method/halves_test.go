package method

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
)

// oneSetTask returns a task with one training set per class (of n frames
// in d dimensions, class c centred at 3c on every coordinate) and one test
// set per class drawn alike.
func oneSetTask(t *testing.T, classes, n, d int) *Task {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var sets []*mat.Dense
	var train, test, labels []int
	for c := range classes {
		train, labels = append(train, len(sets)), append(labels, c)
		sets = append(sets, testutil.RandSet(rng, n, d, 3*float64(c), 1))
		test = append(test, len(sets))
		sets = append(sets, testutil.RandSet(rng, n, d, 3*float64(c), 1))
	}
	return &Task{Pool: mustPool(t, sets), Train: train, Labels: labels, Test: test, Classes: classes, Seed: 1}
}

// TestHalvesPool checks what withHalves adds: the even and odd frames of
// every training set, labelled as it, in two folds, with the training and
// test sets where they were; and that it adds nothing when a class has two
// training sets.
func TestHalvesPool(t *testing.T) {
	task := oneSetTask(t, 3, 9, 2)
	h, err := withHalves(task)
	if err != nil {
		t.Fatal(err)
	}
	if h == task || len(h.halves) != 3 {
		t.Fatalf("withHalves kept the task or made %d halves, want 3 pairs", len(h.halves))
	}
	for _, j := range append(append([]int(nil), task.Train...), task.Test...) {
		if h.Pool.Sets[j] != task.Pool.Sets[j] {
			t.Fatalf("set %d moved", j)
		}
	}
	train, labels, fold := h.cv(5)
	if len(train) != 6 || len(labels) != 6 || len(fold) != 6 {
		t.Fatalf("cv gave %d sets, %d labels, %d folds, want 6 each", len(train), len(labels), len(fold))
	}
	for k, j := range train {
		p := k / 2
		if labels[k] != task.Labels[p] || fold[k] != k%2 {
			t.Errorf("half %d: label %d fold %d, want %d and %d", k, labels[k], fold[k], task.Labels[p], k%2)
		}
		whole := task.Pool.Sets[task.Train[p]]
		part := h.Pool.Sets[j]
		rows, _ := part.Dims()
		if want := (9 - fold[k] + 1) / 2; rows != want {
			t.Errorf("half %d has %d frames, want %d", k, rows, want)
		}
		for r := range rows {
			if !mat.Equal(part.RowView(r), whole.RowView(2*r+fold[k])) {
				t.Errorf("half %d frame %d is not frame %d of its set", k, r, 2*r+fold[k])
			}
		}
	}
	// The frame distances are the parent's, copied: the same as computed
	// afresh.
	fresh := mustPool(t, h.Pool.Sets).SqDist()
	got := h.Pool.SqDist()
	if !mat.EqualApprox(got, fresh, 1e-9) {
		t.Errorf("the halves pool's frame distances differ from those computed afresh")
	}

	again, err := withHalves(task)
	if err != nil || again.Pool != h.Pool {
		t.Errorf("a second call built another pool (err %v)", err)
	}

	task.Pool.DropHalves()
	if after, err := withHalves(task); err != nil || after.Pool == h.Pool {
		t.Errorf("after dropHalves the old pool of halves came back (err %v)", err)
	}

	two := *task
	two.Train, two.Labels = append(append([]int(nil), task.Train...), task.Test...), append(append([]int(nil), task.Labels...), task.Labels...)
	two.Test = nil
	if h2, err := withHalves(&two); err != nil || h2 != &two {
		t.Errorf("two sets per class: withHalves changed the task (err %v)", err)
	}
	short := oneSetTask(t, 3, 3, 2) // fewer than 4 frames: nothing to halve
	if h3, err := withHalves(short); err != nil || h3 != short {
		t.Errorf("3-frame sets: withHalves changed the task (err %v)", err)
	}
}

// TestMixedClassesCVOnHalves checks a method's own folds where some
// classes have one training set and others more: a class of one set is
// held out as its even half in fold 0 and its odd half in fold 1, a class
// of more by its sets as where no class has one, and a class of one set
// too short to halve is left out.
func TestMixedClassesCVOnHalves(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	labels := []int{0, 0, 0, 1, 2, 3}
	frames := []int{6, 6, 6, 6, 9, 3}
	var sets []*mat.Dense
	train := make([]int, len(labels))
	for k, l := range labels {
		train[k] = k
		sets = append(sets, testutil.RandSet(rng, frames[k], 2, float64(l), 1))
	}
	task := &Task{Pool: mustPool(t, sets), Train: train, Labels: labels, Classes: 4, Seed: 1}
	bySet := folds(labels, 3, task.Seed)
	h, err := withHalves(task)
	if err != nil {
		t.Fatal(err)
	}
	if h == task {
		t.Fatal("withHalves kept the task")
	}
	cvTrain, cvLabels, fold := h.cv(3)
	type unit struct{ label, fold, frames int }
	var got []unit
	for k, j := range cvTrain {
		n, _ := h.Pool.Sets[j].Dims()
		got = append(got, unit{cvLabels[k], fold[k], n})
	}
	want := []unit{
		{0, bySet[0], 6}, {0, bySet[1], 6}, {0, bySet[2], 6}, // class 0 by its sets
		{1, 0, 3}, {1, 1, 3}, // class 1: its halves
		{2, 0, 5}, {2, 1, 4}, // class 2: its halves
	}
	if len(got) != len(want) {
		t.Fatalf("cv gave %v, want %v", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("item %d: %+v, want %+v", k, got[k], want[k])
		}
	}
	if j := cvTrain[3]; !mat.Equal(h.Pool.Sets[j].RowView(1), sets[3].RowView(2)) {
		t.Error("class 1's even half is not the even frames of its set")
	}
}

// TestOneSetPerClassValidatedOnHalves: with one training set per class a
// method's own choice is cross-validated on the halves of its sets, not
// left at the first value of its grid. The first bandwidth here is so
// narrow that every divergence saturates and NN is at chance; the halves
// reject it.
func TestOneSetPerClassValidatedOnHalves(t *testing.T) {
	task := oneSetTask(t, 6, 20, 3)
	g := smallGrid()
	g.Bandwidths = []Bandwidth{{Mode: Global, Scale: 1e-4}, {Mode: Global, Scale: 1}}
	for _, m := range []Name{NNH, KFDAHG, GDA, CDL, KFDAMix} {
		p, err := Run(m, task, g)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if !strings.Contains(p.Params, "cv=") {
			t.Errorf("%s: params %q carry no cross-validated score", m, p.Params)
		}
		if m == NNH || m == KFDAHG {
			if !strings.Contains(p.Params, "bw=global*1 ") {
				t.Errorf("%s: params %q, want the bandwidth global*1 chosen on the halves", m, p.Params)
			}
		}
		ok := 0
		for k, l := range p.Labels {
			if l == task.Labels[k] {
				ok++
			}
		}
		t.Logf("%s: %d/%d, %s", m, ok, len(p.Labels), p.Params)
		// GDA and CDL see the spread of a set, not where it lies, which
		// is all that tells these classes apart.
		if m != GDA && m != CDL && ok < len(p.Labels)-1 {
			t.Errorf("%s: %d of %d test sets recognised", m, ok, len(p.Labels))
		}
	}
}

// TestOneSetPerClassWithAShortSet: where one training set is too short to
// halve, the others' halves still cross-validate the kFDA methods, and
// the short set, which has no halves, is left out of them (it keeps its
// own kernel entries).
func TestOneSetPerClassWithAShortSet(t *testing.T) {
	task := oneSetTask(t, 3, 20, 3)
	sets := append([]*mat.Dense(nil), task.Pool.Sets...)
	sets[task.Train[0]] = testutil.RandSet(rand.New(rand.NewPCG(7, 8)), MinHalvedFrames-1, 3, 0, 1)
	task.Pool = mustPool(t, sets)
	h, err := withHalves(task)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.halves) != 3 || h.halves[0] != [2]int{-1, -1} || h.halves[1][0] < 0 {
		t.Fatalf("halves %v, want none of the short set and a pair of the others", h.halves)
	}
	for _, m := range []Name{KFDAHG, CDL, KFDAMix} {
		p, err := Run(m, task, smallGrid())
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if !strings.Contains(p.Params, "cv=") {
			t.Errorf("%s: params %q carry no cross-validated score", m, p.Params)
		}
	}
}

// TestSingleSetHalvesShared: where some classes have one training set
// and others more, the outer folds of Choose (Task.halveSingles) and the
// fit of the method chosen on the same training sets (withHalves) halve
// the same sets, and share one pool of them, with its divergence and
// kernel matrices, rather than each making its own.
func TestSingleSetHalvesShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	labels := []int{0, 0, 0, 1, 1, 1, 2, 3}
	var sets []*mat.Dense
	train := make([]int, len(labels))
	for k, l := range labels {
		train[k] = k
		sets = append(sets, testutil.RandSet(rng, 8, 3, float64(l), 1))
	}
	task := &Task{Pool: mustPool(t, sets), Train: train, Labels: labels, Classes: 4, Seed: 1}
	outer := *task
	if n, err := outer.halveSingles(); err != nil || n != 2 {
		t.Fatalf("halveSingles: %d classes halved, %v; want 2", n, err)
	}
	h, err := withHalves(task)
	if err != nil {
		t.Fatal(err)
	}
	if h.Pool != outer.Pool {
		t.Error("the outer folds and the fit on the same training sets made two pools of the same frame halves")
	}
}
