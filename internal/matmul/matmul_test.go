package matmul

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// randView returns an r×c view into a larger random matrix: its stride
// is not its width, and its data ends at its last entry (no room after it
// for a kernel to read or write unnoticed). Entries span many orders of
// magnitude, some are exactly ±0 and, with inf, some ±Inf.
func randView(rng *rand.Rand, r, c int, inf bool) *mat.Dense {
	const stride = 3 // extra columns
	big := make([]float64, (r+1)*(c+stride))
	for k := range big {
		v := rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
		switch rng.IntN(20) {
		case 0:
			v = 0
		case 1:
			v = math.Copysign(0, -1)
		case 2:
			if inf {
				v = math.Inf(1 - 2*rng.IntN(2))
			}
		}
		big[k] = v
	}
	ld := c + stride
	off := ld + 2 // from row 1, column 2
	end := off + (r-1)*ld + c
	var m mat.Dense
	m.SetRawMatrix(blas64.General{Rows: r, Cols: c, Stride: ld, Data: big[off:end:end]})
	return &m
}

// same fails the test unless got and want hold the same bits, or are
// both NaN (which NaN a sum keeps where two meet is not promised).
func same(t *testing.T, what string, got, want mat.Matrix) {
	t.Helper()
	r, c := want.Dims()
	if gr, gc := got.Dims(); gr != r || gc != c {
		t.Fatalf("%s: %d×%d, want %d×%d", what, gr, gc, r, c)
	}
	for i := range r {
		for j := range c {
			g, w := got.At(i, j), want.At(i, j)
			if math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
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

// needKernels skips a test that compares the kernels with gonum where
// this build has none: its products are gonum's own, and the comparison
// could not fail (make test runs the package again with the SIMD build).
func needKernels(t *testing.T) {
	t.Helper()
	if !useSIMD {
		t.Skip("no AVX2 kernels in this build (GOEXPERIMENT=simd on amd64 with AVX2): the products are gonum's own")
	}
}

// checkProduct compares got, the product under test, with gonum's want
// (r×c) for several worker counts, and into a view of a larger matrix
// whose entries around the view must stay as they were.
func checkProduct(t *testing.T, name string, r, c int, want mat.Matrix, got func(dst *mat.Dense, workers int)) {
	t.Helper()
	for _, workers := range []int{1, 3} {
		var dst mat.Dense
		got(&dst, workers)
		same(t, name, &dst, want)
	}
	const mark = 12345.5
	big := mat.NewDense(r+2, c+2, nil)
	for i := range r + 2 {
		for j := range c + 2 {
			big.Set(i, j, mark)
		}
	}
	dst := big.Slice(1, r+1, 1, c+1).(*mat.Dense)
	got(dst, 0)
	same(t, name+" into a view", dst, want)
	for i := range r + 2 {
		for j := range c + 2 {
			if inside := i >= 1 && i <= r && j >= 1 && j <= c; !inside && big.At(i, j) != mark {
				t.Fatalf("%s: wrote (%d, %d) outside its view", name, i-1, j-1)
			}
		}
	}
}

// TestMulT and TestTMul compare the products with gonum's, on finite
// entries and with ±Inf among them, where a zero factor gonum skips
// keeps a sum a number and one not skipped makes it NaN.
func TestMulT(t *testing.T) {
	needKernels(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, inf := range []bool{false, true} {
		for _, s := range shapes {
			x, wt := randView(rng, s.n, s.D, inf), randView(rng, s.d, s.D, inf)
			var want mat.Dense
			want.Mul(x, wt.T())
			checkProduct(t, "x·wtᵀ", s.n, s.d, &want, func(dst *mat.Dense, workers int) { MulT(dst, x, wt, workers) })
		}
	}
}

func TestTMul(t *testing.T) {
	needKernels(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, inf := range []bool{false, true} {
		for _, s := range shapes {
			b, x := randView(rng, s.n, s.d, false), randView(rng, s.n, s.D, inf)
			var want mat.Dense
			want.Mul(b.T(), x)
			checkProduct(t, "bᵀ·x", s.d, s.D, &want, func(dst *mat.Dense, workers int) { TMul(dst, b, x, workers) })
		}
	}
}

// TestScatter compares xᵀx with gonum's SymOuterK (its upper triangle,
// all a SymDense holds), into a new matrix and into a view of one holding
// other numbers, whose storage outside the view's upper triangle must
// stay as it was, with ±Inf in x in a second pass (a zero factor skipped
// keeps a sum a number).
func TestScatter(t *testing.T) {
	needKernels(t)
	rng := rand.New(rand.NewPCG(13, 14))
	for _, inf := range []bool{false, true} {
		for _, s := range shapes {
			x := randView(rng, s.n, s.D, inf)
			var want mat.SymDense
			want.SymOuterK(1, x.T())
			var got mat.SymDense
			Scatter(&got, x)
			same(t, "xᵀx", &got, &want)
			// Into a view of a larger matrix (its stride not its size),
			// whose storage below the diagonal, and around the view,
			// must stay as it was, as SymOuterK leaves it.
			const mark = 12345.5
			big := mat.NewSymDense(s.D+3, nil)
			raw := big.RawSymmetric()
			for k := range raw.Data {
				raw.Data[k] = mark
			}
			view := big.SliceSym(1, s.D+1).(*mat.SymDense)
			Scatter(view, x)
			same(t, "xᵀx into a view of a used matrix", view, &want)
			for i := range s.D + 3 {
				for j := range s.D + 3 {
					inside := i >= 1 && j >= i && j <= s.D
					if v := raw.Data[i*raw.Stride+j]; !inside && v != mark {
						t.Fatalf("n=%d D=%d: wrote storage entry (%d, %d) outside the view's upper triangle", s.n, s.D, i-1, j-1)
					}
				}
			}
		}
	}
}

// TestRightMul compares x·w with gonum's, one Right serving the products
// of two sets, with ±Inf in w in a second pass (a zero x skipped keeps a
// sum a number).
func TestRightMul(t *testing.T) {
	needKernels(t)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, inf := range []bool{false, true} {
		for _, s := range shapes {
			w := randView(rng, s.D, s.d, inf)
			r := NewRight(w)
			for range 2 {
				x := randView(rng, s.n, s.D, false)
				var want mat.Dense
				want.Mul(x, w)
				checkProduct(t, "x·w", s.n, s.d, &want, func(dst *mat.Dense, workers int) { r.Mul(dst, x, workers) })
			}
		}
	}
}

// TestOverlap checks that a destination sharing memory with an operand
// panics with ErrOverlap, in every build, and that operands sharing
// memory with each other do not.
func TestOverlap(t *testing.T) {
	x := mat.NewDense(4, 6, nil)
	for name, f := range map[string]func(){
		"MulT into x": func() { MulT(x.Slice(0, 4, 0, 4).(*mat.Dense), x, x.Slice(0, 4, 0, 6).(*mat.Dense), 1) },
		"MulT into wt": func() {
			MulT(x.Slice(1, 3, 0, 2).(*mat.Dense), mat.NewDense(2, 3, nil), x.Slice(0, 2, 0, 3).(*mat.Dense), 1)
		},
		"TMul into b": func() {
			TMul(x.Slice(0, 2, 0, 6).(*mat.Dense), x.Slice(0, 4, 0, 2).(*mat.Dense), mat.NewDense(4, 6, nil), 1)
		},
		"TMul into x itself": func() { TMul(x.Slice(0, 1, 0, 6).(*mat.Dense), mat.NewDense(4, 1, nil), x, 1) },
		"Mul into w": func() {
			NewRight(x.Slice(0, 3, 0, 2).(*mat.Dense)).Mul(x.Slice(0, 2, 0, 2).(*mat.Dense), mat.NewDense(2, 3, nil), 1)
		},
		"Scatter into x": func() {
			s := mat.NewSymDense(6, nil)
			Scatter(s, mat.NewDense(6, 6, s.RawSymmetric().Data))
		},
	} {
		func() {
			defer func() {
				if r := recover(); r != ErrOverlap {
					t.Errorf("%s: panic %v, want ErrOverlap", name, r)
				}
			}()
			f()
		}()
	}
	var g mat.Dense
	TMul(&g, x, x, 1) // xᵀx: operands may share memory
	var want mat.Dense
	want.Mul(x.T(), x)
	same(t, "xᵀx", &g, &want)
}

// TestShapeMismatch checks that a product of mismatched shapes, or into
// a destination of another shape, panics as gonum's does.
func TestShapeMismatch(t *testing.T) {
	for name, f := range map[string]func(){
		"MulT inner":       func() { MulT(&mat.Dense{}, mat.NewDense(2, 3, nil), mat.NewDense(2, 4, nil), 1) },
		"MulT destination": func() { MulT(mat.NewDense(3, 3, nil), mat.NewDense(2, 3, nil), mat.NewDense(2, 3, nil), 1) },
		"TMul inner":       func() { TMul(&mat.Dense{}, mat.NewDense(2, 3, nil), mat.NewDense(3, 3, nil), 1) },
		"TMul destination": func() { TMul(mat.NewDense(2, 2, nil), mat.NewDense(2, 3, nil), mat.NewDense(2, 3, nil), 1) },
		"Mul inner":        func() { NewRight(mat.NewDense(2, 4, nil)).Mul(&mat.Dense{}, mat.NewDense(2, 3, nil), 1) },
		"Mul destination":  func() { NewRight(mat.NewDense(3, 4, nil)).Mul(mat.NewDense(2, 3, nil), mat.NewDense(2, 3, nil), 1) },
		"Scatter":          func() { Scatter(mat.NewSymDense(3, nil), mat.NewDense(2, 4, nil)) },
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

// normal returns an r×c matrix of normal random numbers, as the
// benchmarks' operands: centred frames hold no zero, where randView
// holds one in ten, on which the kernels branch.
func normal(rng *rand.Rand, r, c int) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			m.Set(i, j, rng.NormFloat64())
		}
	}
	return m
}

// The products of one evaluation of the learning cost on training's
// shape (100 classes × 2 sets × 18 frames of 944 features, d = 10).
func benchShapes(b *testing.B, f func(x, w, bm *mat.Dense)) {
	rng := rand.New(rand.NewPCG(7, 8))
	x, w, bm := normal(rng, 3600, 944), normal(rng, 10, 944), normal(rng, 3600, 10)
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

// The scatter of training's frames (3600 × 944), as the PCA start of W
// computes it.
func BenchmarkScatter(b *testing.B) {
	var s mat.SymDense
	benchShapes(b, func(x, _, _ *mat.Dense) { Scatter(&s, x) })
}

func BenchmarkScatterGonum(b *testing.B) {
	s := mat.NewSymDense(944, nil)
	benchShapes(b, func(x, _, _ *mat.Dense) { s.SymOuterK(1, x.T()) })
}

// The projection of one set of 18 frames in 944 dimensions to d = 10,
// which training makes for every set of every fold (W prepared once).
func BenchmarkRightMul(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	x, w := normal(rng, 18, 944), normal(rng, 944, 10)
	r := NewRight(w)
	var y mat.Dense
	for b.Loop() {
		r.Mul(&y, x, 1)
	}
}

func BenchmarkRightMulGonum(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	x, w := normal(rng, 18, 944), normal(rng, 944, 10)
	var y mat.Dense
	for b.Loop() {
		y.Mul(x, w)
	}
}
