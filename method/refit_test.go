package method

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/match"
)

// TestRefitLearnsAsFitted: a learned W fitted again on other sets (a
// sample's whole training set, a stand-in fold) learns from what runDR
// learns from on those sets: the frame halves of every set, with one
// neighbour a set in the affinity, where a class has fewer than three
// sets; the sets themselves otherwise.
func TestRefitLearnsAsFitted(t *testing.T) {
	for _, per := range []int{1, 2, 3} {
		rng := rand.New(rand.NewPCG(63, uint64(per)))
		var sets []*mat.Dense
		var ids []int
		var names []string
		for c := range 3 {
			for k := range per {
				sets = append(sets, testutil.RandSet(rng, 8, 4, float64(c), 1))
				ids, names = append(ids, c), append(names, fmt.Sprintf("%d/%d", c, k))
			}
		}
		l := &coordLearner{}
		f := &Fitted{Method: NNHDR, Divergence: match.Hellinger, W: mat.NewDense(4, 2, nil), Learn: LearnParams{Dim: 2, Scale: 1}, Bandwidth: Bandwidth{Mode: Global, Scale: 1}}
		if err := f.RefitProjection(sets, ids, names, Grid{Learn: l.learn, DRIter: 3}, 1, 1); err != nil {
			t.Fatal(err)
		}
		if len(l.calls) != 1 {
			t.Fatalf("%d sets a class: %d learner calls", per, len(l.calls))
		}
		want, frames := len(sets), 8
		if per < 3 {
			want, frames = 2*len(sets), 4
		}
		got := l.calls[0]
		if n, _ := got[0].Dims(); len(got) != want || n != frames {
			t.Errorf("%d sets a class: W learned from %d sets of %d frames, want %d of %d", per, len(got), n, want, frames)
		}
		if nu := l.params[0].Nu; (nu == 1) != (per < 3) {
			t.Errorf("%d sets a class: W learned with ν = %d", per, nu)
		}
	}
}
