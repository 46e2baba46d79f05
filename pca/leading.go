package pca

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
	"setmatch/internal/matmul"
)

// CovarianceMaxDim is the largest feature dimension D for which Leading
// forms a D×D (or smaller N×N) matrix and takes its eigenvectors exactly.
// Above it, Leading runs a seeded subspace iteration with N×D products
// only.
const CovarianceMaxDim = 2000

// errRank reports more directions asked of the Gram matrix than the
// frames span (Leading then takes them from the scatter).
var errRank = errors.New("pca: more directions than the frames span")

// Leading returns the k leading principal directions of the centred N×D
// frames xc (D×k, orthonormal columns, largest variance first, signs as
// in the package comment) and the k matching eigenvalues of the scatter
// xcᵀxc. Where the frames span fewer than k directions, the last columns
// are directions of no variance and their eigenvalues are 0 up to
// rounding (Rank counts the others).
//
// For D ≤ CovarianceMaxDim it takes the k leading eigenvectors of the D×D
// scatter, or, when there are fewer frames than features and they span at
// least k directions, of the N×N Gram matrix xc·xcᵀ, mapped back to
// features (the same subspace for N²D work instead of D³: D = 944 LBP
// features from a few hundred frames). Either way only the k leading
// eigenvectors are computed (topEigen). For larger D it runs a block
// subspace iteration from a random start drawn from seed; the seed
// matters only there. Where the directions cannot be computed because the
// frames' squares overflow a float64 (values around 1e153 and above), the
// error says so and what to do (TooLarge).
func Leading(xc *mat.Dense, k int, seed int64) (*mat.Dense, []float64, error) {
	n, dim := xc.Dims()
	if k < 1 || k > dim {
		return nil, nil, fmt.Errorf("pca: %d directions asked of %d features: want 1 to %d", k, dim, dim)
	}
	if n < 1 {
		return nil, nil, errors.New("pca: no frames")
	}
	var w *mat.Dense
	var vals []float64
	err := errRank
	if n < dim && k < n && dim <= CovarianceMaxDim {
		// N centred frames span at most N − 1 directions. Above their
		// rank the scatter's path below gives directions of no variance.
		w, vals, err = gram(xc, k)
	}
	if err == errRank {
		if dim <= CovarianceMaxDim {
			w, vals, err = scatter(xc, k)
		} else {
			w, vals, err = subspace(xc, k, seed)
		}
	}
	if err != nil {
		if big := TooLarge(xc); big != nil {
			err = fmt.Errorf("pca of a %d×%d matrix of frames: %w", n, dim, big)
		}
		return nil, nil, err
	}
	fixSigns(w)
	return w, vals, nil
}

// gram returns the k leading principal directions of the centred N×D xc
// (N < D) from the leading eigenvectors u of the N×N Gram matrix xc·xcᵀ:
// v = xcᵀu/‖xcᵀu‖, orthonormalised. errRank when the k-th eigenvalue is
// not clearly above zero.
func gram(xc *mat.Dense, k int) (*mat.Dense, []float64, error) {
	n, dim := xc.Dims()
	g := mat.NewSymDense(n, nil)
	g.SymOuterK(1, xc)
	u, vals, err := topEigen(g, k)
	if err != nil {
		return nil, nil, fmt.Errorf("pca: %w", err)
	}
	if Rank(vals, n, dim) < k {
		return nil, nil, errRank
	}
	w := mat.NewDense(dim, k, nil)
	w.Mul(xc.T(), u)
	grassmann.Orthonormalize(w)
	return w, vals, nil
}

// scatter returns the k leading eigenvectors of xcᵀxc and their
// eigenvalues.
func scatter(xc *mat.Dense, k int) (*mat.Dense, []float64, error) {
	var s mat.SymDense
	matmul.Scatter(&s, xc)
	w, vals, err := topEigen(&s, k)
	if err != nil {
		return nil, nil, fmt.Errorf("pca: %w", err)
	}
	return w, vals, nil
}

// subspace approximates the k leading right singular vectors of the
// centred N×D xc by block subspace iteration from a seeded random start,
// followed by a Rayleigh–Ritz step, and returns them with their Ritz
// values. Only N×D, N×b and D×b matrices appear (b = k + 10).
func subspace(xc *mat.Dense, k int, seed int64) (*mat.Dense, []float64, error) {
	n, dim := xc.Dims()
	b := max(min(k+10, dim, n), k)
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5ca1ab1e))
	q := mat.NewDense(dim, b, nil)
	for i := range dim {
		for j := range b {
			q.Set(i, j, rng.NormFloat64())
		}
	}
	grassmann.Orthonormalize(q)
	xq := mat.NewDense(n, b, nil)
	for range 12 {
		xq.Mul(xc, q)
		q.Mul(xc.T(), xq)
		grassmann.Orthonormalize(q)
	}
	xq.Mul(xc, q)
	small := mat.NewSymDense(b, nil)
	small.SymOuterK(1, xq.T())
	ev, vec, err := Eigen(small) // largest first
	if err != nil {
		return nil, nil, fmt.Errorf("pca: %w", err)
	}
	sel := vec.Slice(0, b, 0, k)
	vals := make([]float64, k)
	for j := range k {
		vals[j] = max(ev[j], 0)
	}
	w := mat.NewDense(dim, k, nil)
	w.Mul(q, sel)
	grassmann.Orthonormalize(w)
	return w, vals, nil
}
