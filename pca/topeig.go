package pca

import (
	"errors"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// The leading eigenvectors of a symmetric matrix.
//
// The PCA start needs the top d ≤ 40 or so principal directions, of a
// covariance of D = 944 features (LBP) or of the Gram matrix of a few
// hundred frames. gonum's EigenSym computes every eigenvector, and most
// of its time goes to accumulating the rotations of the implicit QL
// iteration into all n of them (n³ work without blocking: 31 s for
// n = 944 on the shared 2-core build machine, against 5 s for the
// reduction to tridiagonal form). topEigen reduces the matrix to
// tridiagonal form T = QᵀAQ (blocked Householder, as EigenSym does), takes
// every eigenvalue of T (Dsterf, O(n²)), and computes the eigenvectors of
// the k largest only, by inverse iteration on T (LAPACK's dstein scheme:
// a tridiagonal LU with partial pivoting per eigenvalue, eigenvalues
// closer than 10⁻³‖T‖ reorthogonalised against each other), then maps
// them back by Q. The eigenvectors are those of EigenSym up to sign, to
// rounding, and within a cluster of equal eigenvalues up to a rotation
// in the cluster (which no method fixes).

// topEigen returns the k eigenvectors of the symmetric a with the largest
// eigenvalues (n×k, by decreasing eigenvalue) and those eigenvalues. Each
// column is computed alone, from a seeded start: the first k' < k columns
// are those topEigen returns for k'.
func topEigen(a mat.Symmetric, k int) (*mat.Dense, []float64, error) {
	n := a.SymmetricDim()
	if k < 1 || k > n {
		return nil, nil, errors.New("eigenvectors: k outside [1, n]")
	}
	q := make([]float64, n*n) // row-major, upper triangle of a
	big := 0.0
	for i := range n {
		for j := i; j < n; j++ {
			q[i*n+j] = a.At(i, j)
			big = max(big, math.Abs(q[i*n+j]))
		}
	}
	// gonum's Dsterf rescales a block whose norm is beyond about 1e153 or
	// below 1e-122, and panics doing so (it passes Dlascl a wrong leading
	// dimension): a matrix of entries far from 1 (the scatter of features
	// of 1e75, or of 1e-61) is scaled by a power of two first, which is
	// exact, and its eigenvalues back. Within the band nothing changes.
	exp := 0
	if big > 0x1p+400 || (big > 0 && big < 0x1p-300) {
		_, exp = math.Frexp(big)
		for i := range q {
			q[i] = math.Ldexp(q[i], -exp)
		}
	}
	var impl gonum.Implementation
	d := make([]float64, n)
	e := make([]float64, max(n-1, 1))
	tau := make([]float64, max(n-1, 1))
	work := make([]float64, 1)
	impl.Dsytrd(blas.Upper, n, q, n, d, e, tau, work, -1)
	lw := int(work[0])
	impl.Dorgtr(blas.Upper, n, q, n, tau, work, -1)
	lw = max(lw, int(work[0]), 1)
	work = make([]float64, lw)
	impl.Dsytrd(blas.Upper, n, q, n, d, e, tau, work, lw)
	impl.Dorgtr(blas.Upper, n, q, n, tau, work, lw)
	vals := append([]float64(nil), d...)
	if n > 1 {
		ee := append([]float64(nil), e[:n-1]...)
		if !impl.Dsterf(n, vals, ee) {
			return nil, nil, errors.New("eigenvalues of the tridiagonal form did not converge")
		}
	}
	// Dsterf sorts ascending: the k largest, largest first.
	top := make([]float64, k)
	for j := range k {
		top[j] = vals[n-1-j]
	}
	z := tridiagVectors(d, e[:max(n-1, 0)], top)
	for j := range top {
		top[j] = math.Ldexp(top[j], exp)
	}
	// v_j = Q z_j, column by column in a fixed order.
	v := mat.NewDense(n, k, nil)
	col := make([]float64, n)
	for j := range k {
		zj := z[j]
		for i := range n {
			row := q[i*n : i*n+n]
			var s float64
			for l, x := range row {
				s += x * zj[l]
			}
			col[i] = s
		}
		v.SetCol(j, col)
	}
	return v, top, nil
}

// tridiagVectors returns unit eigenvectors of the symmetric tridiagonal
// matrix with diagonal d and off-diagonal e, one for each eigenvalue of
// lam (sorted by decreasing value), by inverse iteration.
func tridiagVectors(d, e, lam []float64) [][]float64 {
	n := len(d)
	norm := 0.0 // ‖T‖₁
	for i := range n {
		s := math.Abs(d[i])
		if i > 0 {
			s += math.Abs(e[i-1])
		}
		if i < n-1 {
			s += math.Abs(e[i])
		}
		norm = max(norm, s)
	}
	const eps = 0x1p-52
	ortol := 1e-3 * norm
	out := make([][]float64, len(lam))
	lu := newTridiagLU(n)
	var prev float64
	first := 0 // first eigenvalue of the current cluster
	for j, x := range lam {
		if j > 0 {
			if prev-x > ortol {
				first = j
			} else if pert := 10 * math.Abs(eps*x); prev-x < pert {
				// Equal (to rounding) to the one before: shift apart, as
				// dstein does, so that the factorisations differ.
				x = prev - pert
			}
		}
		prev = x
		lu.factor(d, e, x, eps*norm)
		rng := rand.New(rand.NewPCG(uint64(j)+1, 0x7e16e))
		b := make([]float64, n)
		for i := range b {
			b[i] = 2*rng.Float64() - 1
		}
		for range 4 {
			scale(b, 1/maxAbs(b))
			lu.solve(b)
			// Reorthogonalise against the cluster's vectors found so far.
			for c := first; c < j; c++ {
				var s float64
				for i, v := range out[c] {
					s += v * b[i]
				}
				for i, v := range out[c] {
					b[i] -= s * v
				}
			}
		}
		scale(b, 1/math.Sqrt(dotSelf(b)))
		out[j] = b
	}
	return out
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	if m == 0 {
		return 1
	}
	return m
}

func dotSelf(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s
}

func scale(x []float64, a float64) {
	for i := range x {
		x[i] *= a
	}
}

// tridiagLU is the LU factorisation with partial pivoting of T − xI for a
// symmetric tridiagonal T: U has three diagonals (u0, u1, u2), L the
// multipliers l, and swap says where rows i and i+1 were exchanged.
type tridiagLU struct {
	u0, u1, u2, l []float64
	swap          []bool
}

func newTridiagLU(n int) *tridiagLU {
	return &tridiagLU{u0: make([]float64, n), u1: make([]float64, n), u2: make([]float64, n), l: make([]float64, n), swap: make([]bool, n)}
}

// factor factorises T − xI; a pivot smaller than tiny in magnitude is
// replaced by tiny (with its sign), which inverse iteration tolerates.
func (f *tridiagLU) factor(d, e []float64, x, tiny float64) {
	n := len(d)
	if tiny == 0 {
		tiny = math.SmallestNonzeroFloat64
	}
	alpha := d[0] - x // the pivot row's entry in column i
	beta := 0.0       // and in column i+1
	if n > 1 {
		beta = e[0]
	}
	for i := 0; i < n-1; i++ {
		c := e[i] // row i+1, column i
		dn := d[i+1] - x
		en := 0.0
		if i+1 < n-1 {
			en = e[i+1]
		}
		if math.Abs(alpha) >= math.Abs(c) {
			if math.Abs(alpha) < tiny {
				alpha = math.Copysign(tiny, alpha)
			}
			f.swap[i] = false
			f.u0[i], f.u1[i], f.u2[i] = alpha, beta, 0
			m := c / alpha
			f.l[i] = m
			alpha, beta = dn-m*beta, en
		} else {
			f.swap[i] = true
			f.u0[i], f.u1[i], f.u2[i] = c, dn, en
			m := alpha / c
			f.l[i] = m
			alpha, beta = beta-m*dn, -m*en
		}
	}
	if math.Abs(alpha) < tiny {
		alpha = math.Copysign(tiny, alpha)
	}
	f.u0[n-1] = alpha
}

// solve overwrites b with (T − xI)⁻¹ b.
func (f *tridiagLU) solve(b []float64) {
	n := len(b)
	for i := 0; i < n-1; i++ {
		if f.swap[i] {
			b[i], b[i+1] = b[i+1], b[i]
		}
		b[i+1] -= f.l[i] * b[i]
	}
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		if i+1 < n {
			s -= f.u1[i] * b[i+1]
		}
		if i+2 < n {
			s -= f.u2[i] * b[i+2]
		}
		b[i] = s / f.u0[i]
	}
}
