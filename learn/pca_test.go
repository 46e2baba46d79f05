package learn

import (
	"math/rand/v2"
	"testing"

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
