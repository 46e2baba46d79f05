package learn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
	"setmatch/match"
)

// pcaCovarianceMaxDim is the largest feature dimension D for which PCABasis
// forms the D×D covariance of the frames. Above it, PCABasis uses subspace
// iteration with n×D products only.
const pcaCovarianceMaxDim = 2000

// PCABasis returns the starting point of training: the top-d principal
// directions of all frames of all sets stacked together (W, D×d, orthonormal
// columns) and the mean frame (len D), which is subtracted before projection.
//
// For D ≤ 2000 it takes the leading eigenvectors of the D×D sample
// covariance (this is the PCA of the data, formed once, not part of the
// cost's gradient), or, when there are fewer frames N than features and
// the frames span at least d directions, of the N×N Gram matrix of the
// centred frames, mapped back to features (the same subspace for N²D
// work instead of D³: D = 944 LBP features from a few hundred frames).
// Either way only the d leading eigenvectors are computed (topEigen: an
// eigendecomposition of every direction was most of the nested -dr
// candidate's time). For larger D it runs a seeded block subspace
// iteration on the stacked frames. The result is deterministic for a
// given seed; the seed only matters for D > 2000.
func PCABasis(sets []*mat.Dense, d int, seed int64) (w *mat.Dense, mean []float64, err error) {
	x, err := stackFrames(sets)
	if err != nil {
		return nil, nil, err
	}
	n, dim := x.Dims()
	if d < 1 || d > dim {
		return nil, nil, fmt.Errorf("dimension %d: want 1 ≤ d ≤ %d (the number of features)", d, dim)
	}
	if n < 2 {
		return nil, nil, errors.New("PCA needs at least 2 frames in total")
	}
	mean = match.ColumnMeans(x)
	subtractRow(x, mean)
	if n < dim && d < n && dim <= pcaCovarianceMaxDim {
		// N centred frames span at most N − 1 directions. Above their
		// rank the covariance path below gives directions of no variance.
		if w, err := pcaGram(x, d); err == nil {
			return w, mean, nil
		}
	}
	if dim <= pcaCovarianceMaxDim {
		w, err = pcaCovariance(x, d)
	} else {
		w, err = pcaSubspace(x, d, seed)
	}
	if err != nil {
		return nil, nil, err
	}
	return w, mean, nil
}

// errRank reports more directions asked of the frames than they span.
var errRank = errors.New("PCA: more directions than the frames span")

// pcaGram returns the top-d principal directions of the centred N×D x
// (N < D) from the leading eigenvectors u of the N×N Gram matrix x·xᵀ:
// v = xᵀu/‖xᵀu‖, orthonormalised. errRank when the d-th eigenvalue is
// not clearly above zero.
func pcaGram(x *mat.Dense, d int) (*mat.Dense, error) {
	n, dim := x.Dims()
	g := mat.NewSymDense(n, nil)
	g.SymOuterK(1, x)
	u, vals, err := topEigen(g, d)
	if err != nil {
		return nil, err
	}
	if tol := float64(max(n, dim)) * 0x1p-52 * vals[0]; !(vals[d-1] > tol) || !(vals[0] > 0) {
		return nil, errRank
	}
	w := mat.NewDense(dim, d, nil)
	w.Mul(x.T(), u)
	grassmann.Orthonormalize(w)
	return w, nil
}

// stackFrames copies the sets, one under the other, into one N×D matrix.
func stackFrames(sets []*mat.Dense) (*mat.Dense, error) {
	if len(sets) == 0 {
		return nil, errors.New("no training sets")
	}
	total, dim := 0, -1
	for i, s := range sets {
		if s == nil || s.IsEmpty() {
			return nil, fmt.Errorf("set %d has no frames", i)
		}
		r, c := s.Dims()
		if dim < 0 {
			dim = c
		} else if c != dim {
			return nil, fmt.Errorf("set %d has %d features, set 0 has %d: all sets need the same features", i, c, dim)
		}
		total += r
	}
	x := mat.NewDense(total, dim, nil)
	row := 0
	for i, s := range sets {
		r, _ := s.Dims()
		for k := range r {
			src := s.RawRowView(k)
			for _, v := range src {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("set %d frame %d holds NaN or Inf", i, k)
				}
			}
			copy(x.RawRowView(row), src)
			row++
		}
	}
	return x, nil
}

func subtractRow(x *mat.Dense, v []float64) {
	n, _ := x.Dims()
	for i := range n {
		row := x.RawRowView(i)
		for j := range row {
			row[j] -= v[j]
		}
	}
}

// pcaCovariance returns the top-d eigenvectors of xᵀx for the centred N×D x.
func pcaCovariance(x *mat.Dense, d int) (*mat.Dense, error) {
	_, dim := x.Dims()
	cov := mat.NewSymDense(dim, nil)
	cov.SymOuterK(1, x.T())
	w, _, err := topEigen(cov, d)
	if err != nil {
		return nil, fmt.Errorf("PCA: %w", err)
	}
	return w, nil
}

// pcaSubspace approximates the top-d right singular vectors of the centred
// N×D x by block subspace iteration from a seeded random start, followed by a
// Rayleigh–Ritz step. Only N×D, N×k and D×k matrices appear (k = d + 10).
func pcaSubspace(x *mat.Dense, d int, seed int64) (*mat.Dense, error) {
	n, dim := x.Dims()
	k := min(d+10, dim, n)
	if k < d {
		k = d
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5ca1ab1e))
	q := mat.NewDense(dim, k, nil)
	for i := range dim {
		for j := range k {
			q.Set(i, j, rng.NormFloat64())
		}
	}
	grassmann.Orthonormalize(q)
	xq := mat.NewDense(n, k, nil)
	for range 12 {
		xq.Mul(x, q)
		q.Mul(x.T(), xq)
		grassmann.Orthonormalize(q)
	}
	xq.Mul(x, q)
	small := mat.NewSymDense(k, nil)
	small.SymOuterK(1, xq.T())
	var eig mat.EigenSym
	if !eig.Factorize(small, true) {
		return nil, errors.New("PCA: eigendecomposition did not converge")
	}
	var vec mat.Dense
	eig.VectorsTo(&vec)
	vals := eig.Values(nil)
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
	sel := mat.NewDense(k, d, nil)
	for j := range d {
		sel.SetCol(j, mat.Col(nil, order[j], &vec))
	}
	w := mat.NewDense(dim, d, nil)
	w.Mul(q, sel)
	grassmann.Orthonormalize(w)
	return w, nil
}
