package matmul

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randView returns an r×c view into a larger random matrix (so that its
// stride is not its width), with some entries exactly ±0 and some
// products that cancel to the last bit.
func randView(rng *rand.Rand, r, c int) *mat.Dense {
	big := mat.NewDense(r+1, c+3, nil)
	for i := range r + 1 {
		for j := range c + 3 {
			v := rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
			switch rng.IntN(20) {
			case 0:
				v = 0
			case 1:
				v = math.Copysign(0, -1)
			}
			big.Set(i, j, v)
		}
	}
	return big.Slice(1, r+1, 2, c+2).(*mat.Dense)
}

// same fails the test unless got and want hold the same bits.
func same(t *testing.T, what string, got, want mat.Matrix) {
	t.Helper()
	r, c := want.Dims()
	if gr, gc := got.Dims(); gr != r || gc != c {
		t.Fatalf("%s: %d×%d, want %d×%d", what, gr, gc, r, c)
	}
	for i := range r {
		for j := range c {
			if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
				t.Fatalf("%s: entry (%d, %d) is %v (%#x), gonum's %v (%#x)", what, i, j, g, math.Float64bits(g), w, math.Float64bits(w))
			}
		}
	}
}

// shapes cover both of gonum's ways to sum x·wtᵀ's dot products (runs of
// 64 from 193 rows on, for d ≤ 64; one run below), rows and columns that
// are not multiples of the kernels' blocks, dot products shorter than four
// and training's own shapes.
var shapes = []struct{ n, d, D int }{
	{1, 1, 1}, {2, 3, 3}, {3, 5, 7}, {5, 4, 16}, {17, 9, 63}, {33, 2, 65},
	{192, 10, 130}, {193, 10, 130}, {256, 1, 200}, {64, 65, 70}, {300, 40, 944}, {1800, 10, 944},
}

// checkProduct compares got, the product under test, with gonum's want
// (r×c) for several worker counts and into a view of a larger matrix.
func checkProduct(t *testing.T, name string, r, c int, want mat.Matrix, got func(dst *mat.Dense, workers int)) {
	t.Helper()
	for _, workers := range []int{1, 3} {
		var dst mat.Dense
		got(&dst, workers)
		same(t, name, &dst, want)
	}
	dst := mat.NewDense(r+2, c+1, nil).Slice(1, r+1, 1, c+1).(*mat.Dense)
	got(dst, 0)
	same(t, name+" into a view", dst, want)
}

func TestMulT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range shapes {
		x, wt := randView(rng, s.n, s.D), randView(rng, s.d, s.D)
		var want mat.Dense
		want.Mul(x, wt.T())
		checkProduct(t, "x·wtᵀ", s.n, s.d, &want, func(dst *mat.Dense, workers int) { MulT(dst, x, wt, workers) })
	}
}

func TestTMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range shapes {
		b, x := randView(rng, s.n, s.d), randView(rng, s.n, s.D)
		var want mat.Dense
		want.Mul(b.T(), x)
		checkProduct(t, "bᵀ·x", s.d, s.D, &want, func(dst *mat.Dense, workers int) { TMul(dst, b, x, workers) })
	}
}

// TestShapeMismatch checks that a product of mismatched shapes, or into
// a destination of another shape, panics as gonum's does.
func TestShapeMismatch(t *testing.T) {
	for name, f := range map[string]func(){
		"MulT inner":       func() { MulT(&mat.Dense{}, mat.NewDense(2, 3, nil), mat.NewDense(2, 4, nil), 1) },
		"MulT destination": func() { MulT(mat.NewDense(3, 3, nil), mat.NewDense(2, 3, nil), mat.NewDense(2, 3, nil), 1) },
		"TMul inner":       func() { TMul(&mat.Dense{}, mat.NewDense(2, 3, nil), mat.NewDense(3, 3, nil), 1) },
		"TMul destination": func() { TMul(mat.NewDense(2, 2, nil), mat.NewDense(2, 3, nil), mat.NewDense(2, 3, nil), 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// The products of one evaluation of the learning cost on training's
// shape (100 classes × 2 sets × 18 frames of 944 features, d = 10).
func benchShapes(b *testing.B, f func(x, w, bm *mat.Dense)) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := randView(rng, 3600, 944)
	w := randView(rng, 10, 944)
	bm := randView(rng, 3600, 10)
	for b.Loop() {
		f(x, w, bm)
	}
}

func BenchmarkMulT(b *testing.B) {
	var y mat.Dense
	benchShapes(b, func(x, w, _ *mat.Dense) { MulT(&y, x, w, 0) })
}

func BenchmarkMulTGonum(b *testing.B) {
	var y mat.Dense
	benchShapes(b, func(x, w, _ *mat.Dense) { y.Mul(x, w.T()) })
}

func BenchmarkTMul(b *testing.B) {
	var g mat.Dense
	benchShapes(b, func(x, _, bm *mat.Dense) { TMul(&g, bm, x, 0) })
}

func BenchmarkTMulGonum(b *testing.B) {
	var g mat.Dense
	benchShapes(b, func(x, _, bm *mat.Dense) { g.Mul(bm.T(), x) })
}
