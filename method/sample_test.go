package method

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/match"
)

func TestChoiceSample(t *testing.T) {
	// 10 classes of 3, 2 or 4 sets.
	var labels []int
	for c := range 10 {
		for range 2 + c%3 {
			labels = append(labels, c)
		}
	}
	if got := ChoiceSample(labels, len(labels), 1); len(got) != len(labels) {
		t.Fatalf("at the cap: %d of %d sets, want all", len(got), len(labels))
	}
	for _, max := range []int{2, 7, 12, 20} {
		got := ChoiceSample(labels, max, 7)
		if !slices.IsSorted(got) {
			t.Errorf("max %d: %v not in increasing order", max, got)
		}
		classes := map[int]int{}
		for _, i := range got {
			classes[labels[i]]++
		}
		if len(classes) < 2 {
			t.Errorf("max %d: %d classes, want at least 2", max, len(classes))
		}
		if len(classes) > 2 && len(got) > max {
			t.Errorf("max %d: %d sets of %d classes", max, len(got), len(classes))
		}
		for c, n := range classes {
			if want := 2 + c%3; n != want {
				t.Errorf("max %d: class %d has %d of its %d sets: want whole classes", max, c, n, want)
			}
		}
		if again := ChoiceSample(labels, max, 7); !slices.Equal(again, got) {
			t.Errorf("max %d: the same seed gave %v, then %v", max, got, again)
		}
		if max >= 12 && len(got) < max-3 {
			t.Errorf("max %d: only %d sets taken, when classes of at most 4 sets were left", max, len(got))
		}
	}
}

// TestChoiceSampleLargeClass: a class larger than the cap (the household's
// own 400 bursts beside 20 visitors of 5) stays out of the sample, whatever
// the seed, and the sample keeps within the cap and its many classes; it
// was the large class and one other, 405 sets of 2 classes, for the seeds
// that drew it first. Where no two classes fit, the two smallest are taken.
func TestChoiceSampleLargeClass(t *testing.T) {
	labels := slices.Repeat([]int{0}, 400)
	for c := 1; c <= 20; c++ {
		labels = append(labels, slices.Repeat([]int{c}, 5)...)
	}
	for seed := range uint64(8) {
		got := ChoiceSample(labels, ChoiceSets, seed)
		classes := map[int]bool{}
		for _, i := range got {
			classes[labels[i]] = true
		}
		if len(got) > ChoiceSets || len(classes) != 20 || classes[0] {
			t.Errorf("seed %d: %d sets of %d classes (the large one: %v), want the 100 sets of the 20 small classes", seed, len(got), len(classes), classes[0])
		}
	}
	if got := ChoiceSample(slices.Repeat([]int{0}, 300), ChoiceSets, 1); len(got) != 300 {
		t.Errorf("one class of 300 sets: a sample of %d, want the class", len(got))
	}
	big := append(slices.Repeat([]int{0}, 300), slices.Repeat([]int{1}, 250)...)
	big = append(big, slices.Repeat([]int{2}, 260)...)
	got := ChoiceSample(big, ChoiceSets, 1)
	if len(got) != 510 || big[got[0]] != 1 || big[got[len(got)-1]] != 2 {
		t.Errorf("classes of 300, 250 and 260 sets with a cap of %d: a sample of %d sets, want the 250 and 260 of the two smallest", ChoiceSets, len(got))
	}
}

// TestHoldOneOut checks RechooseDR's fold: exactly one set held out of
// every class with two or more, none of a class with one, the same for
// the same seed, and no fold where no class has two sets.
func TestHoldOneOut(t *testing.T) {
	ids := []int{0, 0, 1, 1, 1, 2, 3, 3, 3, 3}
	fold := holdOneOut(ids, 5)
	held := map[int]int{}
	for i, f := range fold {
		switch f {
		case 0:
			held[ids[i]]++
		case -1:
		default:
			t.Fatalf("set %d in fold %d", i, f)
		}
	}
	if want := map[int]int{0: 1, 1: 1, 3: 1}; !maps.Equal(held, want) {
		t.Errorf("held out per class %v, want %v", held, want)
	}
	if !slices.Equal(fold, holdOneOut(ids, 5)) {
		t.Error("the same seed dealt another fold")
	}
	if f := holdOneOut([]int{0, 1, 2}, 5); f != nil {
		t.Errorf("fold %v where every class has one set", f)
	}
}

// TestRechooseDRTakesTheDimensionTheClassesNeed checks that a learned W
// fitted on all sets chooses its d again among its own and the grid's
// larger ones, by sets held out: four classes told apart only by
// features 3 and 4 (coordLearner's W keeps the first d) need d = 4,
// although the W was fitted with d = 2; d = 1 below it is never tried.
// Each fold's W learns from the frame halves of the one set a class
// keeps, and the W deployed from the halves of every set.
func TestRechooseDRTakesTheDimensionTheClassesNeed(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	var sets []*mat.Dense
	var ids []int
	var names []string
	for c := range 4 {
		for k := range 2 {
			x := testutil.RandSet(rng, 12, 6, 0, 0.3)
			for i := range 12 {
				x.Set(i, 2, x.At(i, 2)+4*float64(c&1))
				x.Set(i, 3, x.At(i, 3)+4*float64(c>>1))
			}
			sets, ids, names = append(sets, x), append(ids, c), append(names, fmt.Sprintf("%d/%d", c, k))
		}
	}
	l := &coordLearner{}
	g := Grid{Learn: l.learn, DRDims: []int{1, 2, 4}, Bandwidths: []Bandwidth{{Mode: Global, Scale: 1}, {Mode: Global, Scale: 2}}}
	f := &Fitted{Method: NNHDR, Divergence: match.Hellinger, W: mat.NewDense(6, 2, nil), Learn: LearnParams{Dim: 2, Scale: 1, Halves: true}, Bandwidth: Bandwidth{Mode: Global, Scale: 1}}
	if err := f.RechooseDR(sets, ids, names, g, 3, 1); err != nil {
		t.Fatal(err)
	}
	if _, d := f.W.Dims(); d != 4 || f.Learn.Dim != 4 {
		t.Fatalf("deployed d = %d (Learn.Dim %d), want 4", d, f.Learn.Dim)
	}
	if f.CV != 1 {
		t.Errorf("held-out accuracy %v, want 1", f.CV)
	}
	var tried []int
	for k, p := range l.params {
		n := len(l.calls[k])
		last := k == len(l.params)-1
		switch {
		case last && (n != 16 || !p.Halves):
			t.Errorf("deployed W learned from %d sets (Halves %v), want the 16 halves of the 8 sets", n, p.Halves)
		case !last && n != 8:
			t.Errorf("a fold's W (d = %d) learned from %d sets, want the 8 halves of the 4 sets kept", p.Dim, n)
		case !last:
			tried = append(tried, p.Dim)
		}
	}
	slices.Sort(tried)
	if !slices.Equal(tried, []int{2, 4}) {
		t.Errorf("dimensions tried %v, want [2 4]", tried)
	}
	if f.H == nil {
		t.Error("no bandwidths set on the projected sets")
	}
}
