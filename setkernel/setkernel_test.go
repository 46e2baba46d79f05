package setkernel

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
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
	// 4 frames in 3 features span at most 3 dimensions.
	for _, p := range []int{0, 4} {
		if _, err := Basis(x, p); err == nil {
			t.Errorf("p = %d for a 4×3 set accepted", p)
		}
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
		c := setkerneltest.Covariance(x)
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

// TestSpectrumTrace: a spectrum's Trace is that of the sample covariance
// (n−1 in the denominator), as is the sum of its eigenvalues.
func TestSpectrumTrace(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, x := range []*mat.Dense{testutil.RandSet(rng, 3, 5, 0, 1), testutil.RandSet(rng, 9, 4, 2, 3)} {
		s, err := NewSpectrum(x)
		if err != nil {
			t.Fatal(err)
		}
		want := mat.Trace(setkerneltest.Covariance(x))
		var sum float64
		for _, v := range s.Sigma {
			sum += v
		}
		if math.Abs(s.Trace-want) > 1e-12*want || math.Abs(sum-want) > 1e-12*want {
			t.Errorf("%d×%d set: trace %v, eigenvalues sum to %v; covariance trace %v", x.RawMatrix().Rows, x.RawMatrix().Cols, s.Trace, sum, want)
		}
	}
}

// TestLogEuclideanSmallSpread: a direction of small but real spread (1e-4
// of the trace) is kept in the spectrum: against a regulariser smaller
// still it weighs in the kernel, which matches the dense one.
func TestLogEuclideanSmallSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := mat.NewDense(8, 3, nil)
	for i := range 8 {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, 1e-2*rng.NormFloat64())
	}
	const lambda = 1e-6
	s, err := NewSpectrum(x)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Sigma) != 2 {
		t.Errorf("spectrum %v: want 2 eigenvalues above zero", s.Sigma)
	}
	c := setkerneltest.Covariance(x)
	for i := range 3 {
		c.SetSym(i, i, c.At(i, i)+lambda)
	}
	want, err := setkerneltest.LogEuclideanDense(c, c)
	if err != nil {
		t.Fatal(err)
	}
	if got := LogEuclidean(s, s, lambda); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("k = %v, dense %v", got, want)
	}
}

// TestTooLargeValues: a set whose values are too large for their squares
// to be summed in a float64 has no spectrum or basis: it is refused,
// saying so, rather than taken for a set without spread (a spectrum of
// {0}) or given a basis of NaN.
func TestTooLargeValues(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1e200, 0, -1e200, 1e200, 3e200, -2e200})
	if s, err := NewSpectrum(x); err == nil || !strings.Contains(err.Error(), "too large for a covariance or subspace") {
		t.Errorf("NewSpectrum: %v, %v", s.Sigma, err)
	}
	if b, err := Basis(x, 1); err == nil || !strings.Contains(err.Error(), "too large for a covariance or subspace") {
		t.Errorf("Basis: %v, %v", b, err)
	}
	var se *SetError
	if _, err := NewGDAGallery(1, []*mat.Dense{x}, 1); !errors.As(err, &se) || se.Set != 0 {
		t.Errorf("GDA gallery of the set: %v", err)
	}
}
