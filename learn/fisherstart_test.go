package learn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"setmatch/fisher"
	"setmatch/grassmann"
	"setmatch/match"
)

// fisherBasis is the Fisher start without the cache, the reference the
// tests hold FisherCache to: fisher.Solve with fisher.Reg, then fisherStart.
func fisherBasis(sets []*mat.Dense, labels []int, d int) (*mat.Dense, []float64, error) {
	sol, err := fisher.Solve(sets, labels, fisher.Reg)
	if err != nil {
		return nil, nil, err
	}
	return fisherStart(sol, d)
}

// TestFisherBasisFindsClassSubspace: on sets whose classes differ only in
// a known 2-dimensional subspace, with noise of larger variance elsewhere,
// the PCA start lies far from that subspace and the Fisher start close to
// it; the Fisher start has orthonormal columns, spans the columns of
// fisher.Basis, a smaller d is a prefix of a larger, and Train started
// from it starts there (InitialW) and ends close to the truth.
func TestFisherBasisFindsClassSubspace(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 3))
	const D, d = 12, 2
	sets, labels, truth := subspaceData(rng, 6, 3, 40, D, d, 4)
	deg := 180 / math.Pi
	p, _, err := PCABasis(sets, d, 1)
	if err != nil {
		t.Fatal(err)
	}
	w, mean, err := fisherBasis(sets, labels, d)
	if err != nil {
		t.Fatal(err)
	}
	ap, _ := grassmann.PrincipalAngles(p, truth)
	af, _ := grassmann.PrincipalAngles(w, truth)
	t.Logf("largest angle to the classes' subspace: PCA start %.1f°, Fisher start %.1f°", ap[d-1]*deg, af[d-1]*deg)
	if ap[d-1]*deg < 45 {
		t.Errorf("the PCA start is %.1f° from the truth: the data are too easy to tell the starts apart", ap[d-1]*deg)
	}
	if af[d-1]*deg > 5 {
		t.Errorf("the Fisher start is %.1f° from the classes' subspace, want < 5°", af[d-1]*deg)
	}
	if e := orthoError(w); e > 1e-12 {
		t.Errorf("|WᵀW − I| = %g", e)
	}
	sol, err := fisher.Solve(sets, labels, fisher.Reg)
	if err != nil {
		t.Fatal(err)
	}
	wf, err := sol.Basis(5)
	if err != nil {
		t.Fatal(err)
	}
	if !floats.EqualApprox(mean, sol.Mean, 1e-12) {
		t.Error("the mean differs from fisher's")
	}
	w5, _, err := fisherBasis(sets, labels, 5)
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := grassmann.PrincipalAngles(w5, fisher.Orthonormal(wf)); a[4] > 1e-6 {
		t.Errorf("d = 5: %g rad from the span of fisher's Basis(5)", a[4])
	}
	if !mat.EqualApprox(w5.Slice(0, D, 0, d), w, 1e-12) {
		t.Error("d = 2 is not the prefix of d = 5")
	}

	var c FisherCache
	res, err := Train(sets, labels, TrainOptions{Dim: d, Divergence: match.Hellinger, MaxIter: 50, Workers: 2,
		Start: func(s []*mat.Dense, d int, _ int64) (*mat.Dense, []float64, error) { return c.Basis(s, labels, d) }})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(res.InitialW, w, 1e-12) || !floats.EqualApprox(res.Mean, mean, 1e-12) {
		t.Error("Train from the cached Fisher start did not start at the uncached one (fisherBasis)")
	}
	if a, _ := grassmann.PrincipalAngles(res.W, truth); a[d-1]*deg > 10 {
		t.Errorf("trained from the Fisher start: %.1f° from the truth, want < 10°", a[d-1]*deg)
	}
}

// TestFisherBasisAboveRank: with d above the directions the frames vary
// in, the start is those directions completed by orthonormal ones.
func TestFisherBasisAboveRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	const D = 10
	// Frames in a 4-dimensional subspace of R^10: r = 4.
	basis := mat.NewDense(4, D, nil)
	for i := range 4 {
		for j := range D {
			basis.Set(i, j, rng.NormFloat64())
		}
	}
	var sets []*mat.Dense
	var labels []int
	for c := range 3 {
		for range 2 {
			z := mat.NewDense(8, 4, nil)
			for i := range 8 {
				for j := range 4 {
					z.Set(i, j, float64(c)+rng.NormFloat64())
				}
			}
			x := new(mat.Dense)
			x.Mul(z, basis)
			sets, labels = append(sets, x), append(labels, c)
		}
	}
	sol, err := fisher.Solve(sets, labels, fisher.Reg)
	if err != nil {
		t.Fatal(err)
	}
	if sol.Rank() != 4 {
		t.Fatalf("rank %d, want 4", sol.Rank())
	}
	w, _, err := fisherBasis(sets, labels, 7)
	if err != nil {
		t.Fatal(err)
	}
	if e := orthoError(w); e > 1e-12 {
		t.Errorf("|WᵀW − I| = %g", e)
	}
	if a, _ := grassmann.PrincipalAngles(w.Slice(0, D, 0, 4).(*mat.Dense), fisher.Orthonormal(sol.W)); a[3] > 1e-6 {
		t.Errorf("the first 4 columns are %g rad from the frames' directions", a[3])
	}
	if _, _, err := fisherBasis(sets, labels, 11); err == nil {
		t.Error("d > D accepted")
	}
	if _, _, err := fisherBasis(sets, make([]int, len(sets)), 2); err == nil {
		t.Error("one class accepted")
	}
}

// TestFisherCache: the cached start equals the uncached one for several
// d, from one solution per sets and labels; other labels are another
// entry.
func TestFisherCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	sets, labels, _ := subspaceData(rng, 4, 2, 10, 6, 2, 1)
	var c FisherCache
	for _, d := range []int{1, 3, 2} {
		w, mean, err := c.Basis(sets, labels, d)
		if err != nil {
			t.Fatal(err)
		}
		w0, mean0, _ := fisherBasis(sets, labels, d)
		if !mat.EqualApprox(w, w0, 1e-12) || !floats.EqualApprox(mean, mean0, 1e-12) {
			t.Errorf("d = %d: cached start differs from the uncached one (fisherBasis)", d)
		}
	}
	if c.c.len() != 1 {
		t.Errorf("%d cache entries for one collection of sets", c.c.len())
	}
	other := append([]int(nil), labels...)
	other[0], other[len(other)-1] = other[len(other)-1], other[0]
	if _, _, err := c.Basis(sets, other, 2); err != nil {
		t.Fatal(err)
	}
	if c.c.len() != 2 {
		t.Errorf("other labels: %d cache entries, want 2", c.c.len())
	}
}

// TestTrainChecksStart: a start that is not D×d with orthonormal columns
// is refused, with what is wrong.
func TestTrainChecksStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	sets, labels, _ := subspaceData(rng, 2, 2, 10, 6, 2, 1)
	for _, tc := range []struct {
		start StartFunc
		want  string
	}{
		{func(s []*mat.Dense, d int, _ int64) (*mat.Dense, []float64, error) {
			return mat.NewDense(6, d+1, nil), make([]float64, 6), nil
		}, "is 6×3"},
		{func(s []*mat.Dense, d int, _ int64) (*mat.Dense, []float64, error) {
			w := mat.NewDense(6, d, nil)
			w.Set(0, 0, 2)
			w.Set(1, 1, 1)
			return w, make([]float64, 6), nil
		}, "from orthonormal"},
	} {
		_, err := Train(sets, labels, TrainOptions{Dim: 2, Start: tc.start})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}
