package deploy

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/learn"
	"setmatch/match"
	"setmatch/method"
)

// TestDRLearnerStarts: the guard candidate (Start) is the PCA start, or
// with Fisher the Fisher start, to the last bit; a learned W from the
// Fisher start is a point of the Grassmann manifold of the asked d.
func TestDRLearnerStarts(t *testing.T) {
	sets, labels := testutil.Sets{Classes: 4, PerClass: 2, Frames: 10, Dim: 6, Sep: 1, Spread: 1, Noise: 2}.Make(rand.New(rand.NewPCG(3, 3)))
	l := DRLearner(1)
	for _, fisher := range []bool{false, true} {
		w, mean, err := l(sets, labels, match.Hellinger, method.LearnParams{Dim: 2, Start: true, Fisher: fisher}, 1)
		if err != nil {
			t.Fatal(err)
		}
		w0, mean0, _ := learn.PCABasis(sets, 2, 1)
		if fisher {
			w0, mean0, _ = new(learn.FisherCache).Basis(sets, labels, 2)
		}
		if !mat.Equal(w, w0) || !mat.Equal(mat.NewVecDense(6, mean), mat.NewVecDense(6, mean0)) {
			t.Errorf("Fisher %v: the guard is not the start", fisher)
		}
	}
	w, _, err := l(sets, labels, match.Hellinger, method.LearnParams{Dim: 2, Scale: 1, MaxIter: 3, Fisher: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := w.Dims(); r != 6 || c != 2 {
		t.Errorf("W is %d×%d, want 6×2", r, c)
	}

	// A model learned from the Fisher start records it and says so.
	g := method.DefaultGrid()
	g.Learn, g.DRFisher = l, true
	g.DRDims, g.DRScales, g.DRIter, g.DRFoldIter = []int{2}, []float64{1}, 3, 2
	names := []string{"a", "a", "b", "b", "c", "c", "d", "d"}
	res, err := Build(sets, names, []string{"1", "2", "3", "4", "5", "6", "7", "8"}, Options{Method: method.NNHDR, Grid: g, Seed: 1, Workers: 1, Threshold: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Model.Selection.Params["dr-start"]; got != "fisher" {
		t.Errorf("the model records dr-start %q, want fisher", got)
	}
	if got := Describe(res.Fit); !strings.Contains(got, "Fisher start") {
		t.Errorf("Describe says %q, want the Fisher start named", got)
	}
}

// TestDRLearnerNeighbours: with LearnParams.Halves the affinity takes
// one neighbour a set, ν_w = ν_b = 1 (learn.Train gives the same W to the
// last bit); without, learn.Train's default.
func TestDRLearnerNeighbours(t *testing.T) {
	sets, labels := testutil.Sets{Classes: 3, PerClass: 3, Frames: 10, Dim: 6, Sep: 1, Spread: 1, Noise: 2}.Make(rand.New(rand.NewPCG(5, 5)))
	l := DRLearner(1)
	for _, halves := range []bool{false, true} {
		w, _, err := l(sets, labels, match.Hellinger, method.LearnParams{Dim: 2, Scale: 1, MaxIter: 3, Halves: halves}, 1)
		if err != nil {
			t.Fatal(err)
		}
		nu, want := 0, learn.DefaultNuW(labels) // 0: learn.Train's default
		if halves {
			nu, want = 1, 1
		}
		res, err := learn.Train(sets, labels, learn.TrainOptions{Dim: 2, Divergence: match.Hellinger, MaxIter: 3, Seed: 1, Workers: 1, GlobalScale: 1, NuW: nu, NuB: nu})
		if err != nil {
			t.Fatal(err)
		}
		if res.NuW != want || res.NuB != want {
			t.Fatalf("halves %v: learn.Train took ν_w = %d, ν_b = %d, want %d", halves, res.NuW, res.NuB, want)
		}
		if !mat.Equal(w, res.W) {
			t.Errorf("halves %v: the learner's W is not learn.Train's with ν = %d", halves, want)
		}
	}
}
