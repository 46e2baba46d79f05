package method

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/match"
)

// TestRefitLearnsAsFitted: a learned W fitted again on other sets (a
// sample's whole training set, a stand-in fold whose classes keep a set
// fewer) learns as it was fitted: from the frame halves of every set, with
// one neighbour a set in the affinity, where it was (LearnParams.Halves)
// or where no class has two sets; from the sets, with the learner's
// default neighbours, otherwise, whatever the classes' sizes.
func TestRefitLearnsAsFitted(t *testing.T) {
	for _, c := range []struct {
		per    int
		halves bool // as fitted
		want   bool // learned from halves
	}{{1, false, true}, {2, true, true}, {3, true, true}, {2, false, false}, {3, false, false}} {
		rng := rand.New(rand.NewPCG(63, uint64(c.per)))
		var sets []*mat.Dense
		var ids []int
		var names []string
		for cl := range 3 {
			for k := range c.per {
				sets = append(sets, testutil.RandSet(rng, 8, 4, float64(cl), 1))
				ids, names = append(ids, cl), append(names, fmt.Sprintf("%d/%d", cl, k))
			}
		}
		l := &coordLearner{}
		p := LearnParams{Dim: 2, Scale: 1, Halves: c.halves}
		f := &Fitted{Method: NNHDR, Divergence: match.Hellinger, W: mat.NewDense(4, 2, nil), Learn: p, Bandwidth: Bandwidth{Mode: Global, Scale: 1}}
		if err := f.RefitProjection(sets, ids, names, Grid{Learn: l.learn, DRIter: 3}, 1, 1); err != nil {
			t.Fatal(err)
		}
		if len(l.calls) != 1 {
			t.Fatalf("%+v: %d learner calls", c, len(l.calls))
		}
		want, frames := len(sets), 8
		if c.want {
			want, frames = 2*len(sets), 4
		}
		got := l.calls[0]
		if n, _ := got[0].Dims(); len(got) != want || n != frames {
			t.Errorf("%+v: W learned from %d sets of %d frames, want %d of %d", c, len(got), n, want, frames)
		}
		if h := l.params[0].Halves; h != c.want {
			t.Errorf("%+v: W learned with Halves %v", c, h)
		}
	}
}

// TestRefitNamesTheSetTooShortToHalve: where W must learn from halves
// (one set a class) and no set can be halved (fewer than MinHalvedFrames
// frames; a short set among longer ones is kept whole), the error names
// a set, says it is too short to halve and to give more frames, and
// gives no advice that is wrong for one of its callers: a stand-in fold
// refits on one set of each class where every class has two, so "give a
// class a second set" is for the caller to say where it holds.
func TestRefitNamesTheSetTooShortToHalve(t *testing.T) {
	rng := rand.New(rand.NewPCG(64, 1))
	sets := []*mat.Dense{testutil.RandSet(rng, MinHalvedFrames-1, 4, 0, 1), testutil.RandSet(rng, MinHalvedFrames-1, 4, 1, 1)}
	l := &coordLearner{}
	f := &Fitted{Method: NNHDR, Divergence: match.Hellinger, W: mat.NewDense(4, 2, nil), Learn: LearnParams{Dim: 2, Scale: 1, Halves: true}, Bandwidth: Bandwidth{Mode: Global, Scale: 1}}
	err := f.RefitProjection(sets, []int{0, 1}, []string{"alice/a", "bob/b"}, Grid{Learn: l.learn, DRIter: 3}, 1, 1)
	if err == nil {
		t.Fatal("a set of 3 frames was halved")
	}
	for _, want := range []string{"alice/a", "3 frames", "too few to halve", "give the sets more frames"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "second set") {
		t.Errorf("error %q tells to give a class a second set, which a stand-in fold's classes may have", err)
	}
	if len(l.calls) != 0 {
		t.Errorf("W was learned (%d calls) despite the error", len(l.calls))
	}
}

// TestRefitStartOfShortSets: the start of W (LearnParams.Start, the PCA
// or Fisher basis) needs no within-class pair, so where every class has
// one set too short to halve it is fitted again all the same, on the
// sets as they are, where a W learned by conjugate gradient is refused
// (TestRefitNamesTheSetTooShortToHalve).
func TestRefitStartOfShortSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(64, 2))
	sets := []*mat.Dense{testutil.RandSet(rng, MinHalvedFrames-1, 4, 0, 1), testutil.RandSet(rng, MinHalvedFrames-1, 4, 1, 1)}
	l := &coordLearner{}
	f := &Fitted{Method: NNHDR, Divergence: match.Hellinger, W: mat.NewDense(4, 2, nil), Learn: LearnParams{Dim: 2, Start: true, Halves: true}, Bandwidth: Bandwidth{Mode: Global, Scale: 1}}
	if err := f.RefitProjection(sets, []int{0, 1}, []string{"alice/a", "bob/b"}, Grid{Learn: l.learn, DRIter: 3}, 1, 1); err != nil {
		t.Fatalf("the start of sets of 3 frames, one a class: %v", err)
	}
	if len(l.calls) != 1 || !l.params[0].Start {
		t.Fatalf("learner calls %d (params %+v), want one start", len(l.calls), l.params)
	}
}
