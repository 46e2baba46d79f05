// Package matmul computes the matrix products training repeats most —
// the frames times a thin projection (x·wtᵀ, and x·w: every set
// projected by W, in training and in the matcher: Right), a thin matrix's
// transpose times the frames (bᵀ·x; also the Gram blocks of the set
// kernels, in training and in the matcher) and the frames' scatter (xᵀx,
// the PCA start of W: Scatter) — to the same bits as gonum's Dense.Mul
// (SymDense.SymOuterK for the scatter) computes them on amd64, for finite
// entries. With Go's SIMD experiment on amd64 and a CPU with AVX2 (the
// workstation build, `make build`), kernels that keep gonum's order of
// summation for every entry, but hold the sums of several entries in
// vector registers, do the work in half to two thirds of gonum's time;
// elsewhere gonum itself does.
// They change how fast W is learned, not what: no number of a training
// moves. (Where a NaN meets a NaN the two may keep different NaNs: no
// caller multiplies a NaN, and the frames are checked finite first.)
//
// The order gonum sums in, on amd64: an entry of bᵀ·x is Σ_l b_li·x_lj
// over the rows l in turn, each product rounded and then added, a product
// whose b_li is zero skipped (Dgemm as AxpyUnitary runs it), and so is an
// entry of x·w, Σ_l x_il·w_lj, a zero x_il skipped; an entry of
// x·wtᵀ is the dot product of two rows taken in runs of 64 features where
// Dgemm splits the product among goroutines (⌈n/64⌉·⌈d/64⌉ ≥ 4 blocks of
// at most 64×64) and in one run otherwise, each run summed as DotUnitary
// sums it (four running sums, of the features ≡ 0, 1, 2, 3 mod 4, the
// features left after the last four added to the first, then
// (s₀+s₂)+(s₁+s₃)), and the runs added in turn.
package matmul

import (
	"errors"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"setmatch/internal/par"
)

// gonum's Dgemm: the side of its blocks, and how many blocks it takes to
// split a product among goroutines (blas/gonum's blockSize, minParBlock).
const (
	blockSize   = 64
	minParBlock = 4
)

// dotRun returns the length of the runs in which gonum's Dgemm sums the
// dot products of an n×d product x·wtᵀ of rows of length D: blockSize
// where it splits the product among goroutines, else D.
func dotRun(n, d, D int) int {
	blocks := func(m int) int { return (m + blockSize - 1) / blockSize }
	if blocks(n)*blocks(d) >= minParBlock {
		return blockSize
	}
	return D
}

// ErrOverlap is the panic of a product whose destination shares memory
// with an operand.
var ErrOverlap = errors.New("matmul: the destination shares memory with an operand")

// check panics with ErrOverlap where the memory dst's entries span
// overlaps that of an operand's, in every build alike (gonum's Mul, which
// checks more finely, would compute some such products): the kernels
// write dst while they read the operands.
func check(dst *mat.Dense, ops ...*mat.Dense) {
	if dst.IsEmpty() {
		return
	}
	r, c := dst.Dims()
	checkSpan(dst.RawMatrix().Data, r, c, dst.RawMatrix().Stride, ops...)
}

// checkSpan is check for a destination of r×c entries of data, stride
// apart.
func checkSpan(data []float64, r, c, stride int, ops ...*mat.Dense) {
	span := func(data []float64, r, c, stride int) (lo, hi uintptr) {
		if r == 0 || c == 0 {
			return 0, 0
		}
		n := (r-1)*stride + c
		lo = uintptr(unsafe.Pointer(unsafe.SliceData(data)))
		return lo, lo + uintptr(n)*unsafe.Sizeof(float64(0))
	}
	dlo, dhi := span(data, r, c, stride)
	for _, op := range ops {
		or, oc := op.Dims()
		if lo, hi := span(op.RawMatrix().Data, or, oc, op.RawMatrix().Stride); lo < dhi && dlo < hi {
			panic(ErrOverlap)
		}
	}
}

// shape sets an empty dst to r×c, and panics with mat.ErrShape where a
// non-empty one has another shape.
func shape(dst *mat.Dense, r, c int) {
	if dst.IsEmpty() {
		dst.ReuseAs(r, c)
		return
	}
	if dr, dc := dst.Dims(); dr != r || dc != c {
		panic(mat.ErrShape)
	}
}

// MulT sets dst (n×d) to x·wtᵀ, for x n×D and wt d×D: the same bits as
// dst.Mul(x, wt.T()). A dst that shares memory with x or wt panics with
// ErrOverlap. The kernels split the rows among at most workers goroutines
// (≤ 0: one per CPU); gonum, where it does the work, takes its own.
func MulT(dst, x, wt *mat.Dense, workers int) {
	n, D := x.Dims()
	d, wD := wt.Dims()
	if wD != D {
		panic(mat.ErrShape)
	}
	check(dst, x, wt)
	if !useSIMD {
		dst.Mul(x, wt.T())
		return
	}
	shape(dst, n, d)
	xr, dr := x.RawMatrix(), dst.RawMatrix()
	groups := wtGroups(wt)
	runLen := dotRun(n, d, D)
	chunks(n, 32, workers, func(i0, i1 int) {
		mulT(dr.Data[i0*dr.Stride:], dr.Stride, xr.Data[i0*xr.Stride:], xr.Stride, groups, i1-i0, d, D, runLen)
	})
}

// chunks calls f(lo, hi) for the chunks [lo, hi) of size (the last one
// shorter) of [0, n), on at most workers goroutines.
func chunks(n, size, workers int, f func(lo, hi int)) {
	par.For((n+size-1)/size, workers, func(_, c int) {
		f(c*size, min(c*size+size, n))
	})
}

// wtGroups returns the rows of wt (d×D) in groups of four, a last group
// of fewer repeating its last row (whose sums mulT computes and drops).
func wtGroups(wt *mat.Dense) [][4][]float64 {
	d, _ := wt.Dims()
	groups := make([][4][]float64, (d+3)/4)
	for g := range groups {
		for c := range 4 {
			groups[g][c] = wt.RawRowView(min(4*g+c, d-1))
		}
	}
	return groups
}

// TMul sets dst (d×D) to bᵀ·x, for b n×d and x n×D: the same bits as
// dst.Mul(b.T(), x). A dst that shares memory with b or x panics with
// ErrOverlap. The kernels split the columns among at most workers
// goroutines (≤ 0: one per CPU); gonum, where it does the work, takes its
// own.
func TMul(dst, b, x *mat.Dense, workers int) {
	n, D := x.Dims()
	bn, d := b.Dims()
	if bn != n {
		panic(mat.ErrShape)
	}
	check(dst, b, x)
	if !useSIMD {
		dst.Mul(b.T(), x)
		return
	}
	shape(dst, d, D)
	xr, br, dr := x.RawMatrix(), b.RawMatrix(), dst.RawMatrix()
	chunks(D, 64, workers, func(j0, j1 int) {
		tmul(dr.Data[j0:], dr.Stride, br.Data, br.Stride, xr.Data[j0:], xr.Stride, n, d, j1-j0, -1)
	})
}

// Scatter sets the upper triangle of dst (D×D) to xᵀ·x, for x n×D (the
// scatter of centred frames): the same bits as dst.SymOuterK(1, x.T()),
// whose Dsyrk sums an entry Σ_l x_li·x_lj as TMul does (over l in turn,
// a zero x_li skipped). The kernels compute the rows of each strip of 16
// columns down to the diagonal, on one goroutine, as gonum's Dsyrk, and
// leave the lower triangle as it was. An empty dst is made D×D; a dst
// that shares memory with x panics with ErrOverlap.
func Scatter(dst *mat.SymDense, x *mat.Dense) {
	n, D := x.Dims()
	if !dst.IsEmpty() {
		if dst.SymmetricDim() != D {
			panic(mat.ErrShape)
		}
		sr := dst.RawSymmetric()
		checkSpan(sr.Data, D, D, sr.Stride, x)
	}
	if !useSIMD {
		dst.SymOuterK(1, x.T())
		return
	}
	if dst.IsEmpty() {
		dst.ReuseAsSym(D)
	}
	sr, xr := dst.RawSymmetric(), x.RawMatrix()
	if sr.Uplo != blas.Upper {
		dst.SymOuterK(1, x.T()) // gonum's panic
		return
	}
	tmul(sr.Data, sr.Stride, xr.Data, xr.Stride, xr.Data, xr.Stride, n, D, D, 0)
}

// A Right is a D×d matrix w prepared as the right factor of products
// x·w: in the build with the AVX2 kernels, a copy of its rows padded with
// zeros to a multiple of 16 columns, the kernel's width, made once for
// every product (the sets one W projects share it).
type Right struct {
	w      *mat.Dense
	padded []float64 // D×ld; nil where gonum does the work
	ld     int
}

// NewRight prepares w (D×d) as the right factor of products. w must not
// change while the Right is in use.
func NewRight(w *mat.Dense) *Right {
	r := &Right{w: w}
	if !useSIMD {
		return r
	}
	D, d := w.Dims()
	r.ld = (d + 15) / 16 * 16
	r.padded = make([]float64, D*r.ld)
	for l := range D {
		copy(r.padded[l*r.ld:l*r.ld+d], w.RawRowView(l))
	}
	return r
}

// Mul sets dst (n×d) to x·w, for x n×D: the same bits as dst.Mul(x, w)
// (each entry Σ_l x_il·w_lj over l in turn, a zero x_il skipped, as
// Dgemm's AxpyUnitary runs it). A dst that shares memory with x or w
// panics with ErrOverlap. The kernels split the rows among at most
// workers goroutines (≤ 0: one per CPU); gonum, where it does the work,
// takes its own.
func (r *Right) Mul(dst, x *mat.Dense, workers int) {
	n, D := x.Dims()
	wD, d := r.w.Dims()
	if wD != D {
		panic(mat.ErrShape)
	}
	check(dst, x, r.w)
	if !useSIMD {
		dst.Mul(x, r.w)
		return
	}
	shape(dst, n, d)
	xr, dr := x.RawMatrix(), dst.RawMatrix()
	chunks(n, 32, workers, func(i0, i1 int) {
		mul(dr.Data[i0*dr.Stride:], dr.Stride, xr.Data[i0*xr.Stride:], xr.Stride, r.padded, r.ld, i1-i0, d, D)
	})
}
