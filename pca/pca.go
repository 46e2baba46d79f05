// Package pca computes the principal directions of frames: the
// eigenvectors of their scatter matrix, largest eigenvalue first. It is
// the one implementation of that piece of math for the feature pipeline's
// PCA stage (features.FitPCA), the start of a learned projection
// (learn.PCABasis), the directions a Fisher discriminant is computed in
// (fisher.Solve) and the set subspaces and covariance spectra of the set
// kernels (setkernel.Basis, setkernel.NewSpectrum).
//
// Every function takes the frames already centred: xc is N×D, N frames of
// D features, each column of mean 0. The scatter is S = xcᵀxc (D×D, not
// divided by N − 1: callers scale the eigenvalues as they need). A
// direction is a unit D-vector; a basis is D×k with orthonormal columns,
// the first column of largest variance. Each column's sign is fixed so
// that its entry of largest magnitude (the first one on ties) is
// positive, so that the same frames give the same basis on every machine
// up to rounding.
//
// Two functions, for two needs:
//
//   - Leading: the k leading directions only, as cheaply as the shape
//     allows (the D×D scatter, the N×N Gram matrix, or a seeded subspace
//     iteration), for a PCA that keeps a few directions of many.
//   - All: every direction (a thin SVD of xc, exact; or, with more
//     frames than features, the full eigendecomposition of S, accurate
//     down to variances of about 1e-10 of the largest), for a caller
//     that whitens by small variances and needs them accurately.
//
// Beside them: Eigen, the eigendecomposition of a symmetric matrix with
// the same signs (fisher's whitening); Rank, how many directions the
// frames span; and TooLarge, the error of frames whose values are too
// large for a scatter or covariance.
//
// The package does no I/O.
package pca

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Rank returns how many of the scatter's eigenvalues vals (largest first,
// of N×D frames) are clearly above zero: above max(N, D)·ε times the
// largest, the rounding of the computation that gave them.
func Rank(vals []float64, n, d int) int {
	if len(vals) == 0 || !(vals[0] > 0) {
		return 0
	}
	tol := float64(max(n, d)) * 0x1p-52 * vals[0]
	r := 0
	for r < len(vals) && vals[r] > tol {
		r++
	}
	return r
}

// fixSigns flips every column of w whose entry of largest magnitude (the
// first one on ties) is negative.
func fixSigns(w *mat.Dense) {
	rows, cols := w.Dims()
	for k := range cols {
		big := 0
		for j := range rows {
			if math.Abs(w.At(j, k)) > math.Abs(w.At(big, k)) {
				big = j
			}
		}
		if w.At(big, k) < 0 {
			for j := range rows {
				w.Set(j, k, -w.At(j, k))
			}
		}
	}
}
