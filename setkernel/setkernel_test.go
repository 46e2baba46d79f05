package setkernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/setkernel/setkerneltest"
)

func TestProjectionKernelByHand(t *testing.T) {
	s := 1 / math.Sqrt2
	a := mat.NewDense(3, 2, []float64{1, 0, 0, 1, 0, 0})
	b := mat.NewDense(3, 2, []float64{1, 0, 0, s, 0, s})
	// AᵀB = [[1, 0], [0, 1/√2]]: ‖·‖² = 1 + 1/2.
	if got := Projection(a, b); math.Abs(got-1.5) > 1e-12 {
		t.Errorf("projection kernel = %v, want 1.5", got)
	}
	if got := Projection(a, a); math.Abs(got-2) > 1e-12 {
		t.Errorf("projection kernel of a 2-D subspace with itself = %v, want 2", got)
	}
	// A set whose frames lie in the x–y plane, with most energy along x.
	x := mat.NewDense(4, 3, []float64{3, 0.1, 0, -3, 0.2, 0, 2, -0.1, 0, 1, 1, 0})
	basis, err := Basis(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := Projection(basis, a); math.Abs(got-2) > 1e-12 {
		t.Errorf("basis of an x–y set against the x–y plane: %v, want 2", got)
	}
	b1, _ := Basis(x, 1)
	if v := math.Abs(b1.At(0, 0)); v < 0.99 {
		t.Errorf("top direction %v is not close to x", mat.Formatted(b1.T()))
	}
	if _, err := Basis(x, 5); err == nil {
		t.Error("p larger than the set accepted")
	}
}

// TestLogEuclideanMatchesDense checks the low-rank kernel of one pair
// against dense matrix logarithms, for rank-deficient covariances (n < d)
// and a full-rank one.
func TestLogEuclideanMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sets := []*mat.Dense{testutil.RandSet(rng, 4, 6, 0, 1), testutil.RandSet(rng, 5, 6, 1, 2), testutil.RandSet(rng, 9, 6, -1, 0.5)}
	const lambda = 0.05
	reg := func(x *mat.Dense) *mat.SymDense {
		c := Covariance(x)
		for i := range 6 {
			c.SetSym(i, i, c.At(i, i)+lambda)
		}
		return c
	}
	for i, a := range sets {
		sa, err := NewSpectrum(a)
		if err != nil {
			t.Fatal(err)
		}
		for j, b := range sets {
			sb, err := NewSpectrum(b)
			if err != nil {
				t.Fatal(err)
			}
			want, err := setkerneltest.LogEuclideanDense(reg(a), reg(b))
			if err != nil {
				t.Fatal(err)
			}
			if got := LogEuclidean(sa, sb, lambda); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("k(%d,%d) = %v, dense %v", i, j, got, want)
			}
		}
	}
}

func TestSpectrumOfEqualFrames(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1, 2, 1, 2, 1, 2})
	s, err := NewSpectrum(x)
	if err != nil {
		t.Fatal(err)
	}
	// C = 0: log(λI) = log λ·I, tr(log λI · log λI) = d·log²λ.
	if got, want := LogEuclidean(s, s, 0.5), 2*math.Log(0.5)*math.Log(0.5); math.Abs(got-want) > 1e-12 {
		t.Errorf("k of constant sets = %v, want %v", got, want)
	}
	if _, err := NewSpectrum(mat.NewDense(1, 2, []float64{1, 2})); err == nil {
		t.Error("a one-frame set has a covariance")
	}
}
