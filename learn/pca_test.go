package learn

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
	"setmatch/match"
)

// Frames with a large variance in a known 3-dimensional subspace: PCA finds it.
func TestPCABasisFindsDominantSubspace(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const D, d = 15, 3
	q := randomOrthonormal(rng, D, D)
	truth := q.Slice(0, D, 0, d).(*mat.Dense)
	sets := make([]*mat.Dense, 5)
	for s := range sets {
		n := 40
		z := mat.NewDense(n, D, nil)
		for i := range n {
			for j := range D {
				sd := 0.1
				if j < d {
					sd = 5
				}
				z.Set(i, j, 3+sd*rng.NormFloat64()) // offset: the mean must be removed
			}
		}
		sets[s] = new(mat.Dense)
		sets[s].Mul(z, q.T())
	}
	w, mean, err := PCABasis(sets, d, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(mean) != D {
		t.Fatalf("mean has %d entries", len(mean))
	}
	ang, _ := grassmann.PrincipalAngles(w, truth)
	if ang[d-1] > 0.05 {
		t.Errorf("largest angle %g rad", ang[d-1])
	}
	if e := orthoError(w); e > 1e-12 {
		t.Errorf("|WᵀW − I| = %g", e)
	}
}

// The subspace iteration used for large D agrees with the covariance path.
func TestPCASubspaceMatchesCovariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const n, D, d = 200, 60, 5
	x := mat.NewDense(n, D, nil)
	for i := range n {
		for j := range D {
			sd := float64(D-j) / float64(D)
			if j < d {
				sd *= 5
			}
			x.Set(i, j, rng.NormFloat64()*sd)
		}
	}
	subtractRow(x, match.ColumnMeans(x))
	a, err := pcaCovariance(x, d)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pcaSubspace(x, d, 3)
	if err != nil {
		t.Fatal(err)
	}
	ang, _ := grassmann.PrincipalAngles(a, b)
	if ang[d-1] > 1e-4 {
		t.Errorf("largest angle between the two PCA paths %g rad", ang[d-1])
	}
}

func TestPCABasisRejectsBadInput(t *testing.T) {
	good := mat.NewDense(3, 4, []float64{1, 2, 3, 4, 2, 3, 4, 5, 0, 1, 0, 1})
	if _, _, err := PCABasis(nil, 2, 0); err == nil {
		t.Error("no sets: no error")
	}
	if _, _, err := PCABasis([]*mat.Dense{good}, 5, 0); err == nil {
		t.Error("d > D: no error")
	}
	if _, _, err := PCABasis([]*mat.Dense{good, mat.NewDense(2, 3, nil)}, 2, 0); err == nil {
		t.Error("mixed D: no error")
	}
}

// TestPCACache: the cached basis equals PCABasis for several d, computed
// once for the same sets.
func TestPCACache(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sets := make([]*mat.Dense, 4)
	for i := range sets {
		x := mat.NewDense(15, 7, nil)
		for r := range 15 {
			for c := range 7 {
				x.Set(r, c, float64(c+1)*rng.NormFloat64())
			}
		}
		sets[i] = x
	}
	var c PCACache
	for _, d := range []int{1, 3, 7, 3} {
		w, mean, err := c.Basis(sets, d, 1)
		if err != nil {
			t.Fatal(err)
		}
		w0, mean0, _ := PCABasis(sets, d, 1)
		if !mat.EqualApprox(w, w0, 1e-12) || !floats.EqualApprox(mean, mean0, 1e-12) {
			t.Errorf("d = %d: cached basis differs from PCABasis", d)
		}
	}
	if len(c.byKey) != 1 {
		t.Errorf("%d cache entries for one collection of sets", len(c.byKey))
	}
	if _, _, err := c.Basis(sets, 8, 1); err == nil {
		t.Error("d > D accepted")
	}
}
