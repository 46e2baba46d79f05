package pca

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/matmul"
)

// All returns every principal direction of the centred N×D frames xc
// (D×m with m = min(N, D), orthonormal columns, largest variance first,
// signs as in the package comment) and the m matching eigenvalues of the
// scatter xcᵀxc, clamped at 0. With fewer frames than features they come
// from a thin SVD of xc, exact to rounding even for directions of tiny
// variance, which the Gram matrix of Leading is not. With more they come
// from the full eigendecomposition of the D×D scatter, whose rounding is
// that of the largest variance (and which takes no copy of the N×D
// frames, as an SVD does): a direction whose variance is v times the
// largest is found to about 1e-16/v (about 1e-6 for v = 1e-10), and one
// of v near 1e-16 is lost. Directions that come back not
// finite (the scatter overflows for values around 1e154 and above) are an
// error.
func All(xc *mat.Dense) (*mat.Dense, []float64, error) {
	n, dim := xc.Dims()
	return all(xc, n < dim)
}

// all is All with the path chosen by the caller (tests compare both).
func all(xc *mat.Dense, useSVD bool) (*mat.Dense, []float64, error) {
	n, dim := xc.Dims()
	m := min(n, dim)
	var vals []float64
	vecs := mat.NewDense(dim, m, nil)
	if useSVD {
		var svd mat.SVD
		if !svd.Factorize(xc, mat.SVDThinV) {
			return nil, nil, errors.New("pca: the SVD of the frames did not converge")
		}
		sv := svd.Values(nil) // decreasing
		vals = make([]float64, m)
		for i := range m {
			vals[i] = sv[i] * sv[i]
		}
		var v mat.Dense
		svd.VTo(&v)
		vecs.Copy(v.Slice(0, dim, 0, m))
	} else {
		var s mat.SymDense
		matmul.Scatter(&s, xc)
		ev, v, err := Eigen(&s)
		if err != nil {
			return nil, nil, fmt.Errorf("pca: the scatter: %w", err)
		}
		vals = make([]float64, m)
		for j := range m {
			vals[j] = max(ev[j], 0)
		}
		vecs.Copy(v.Slice(0, dim, 0, m))
	}
	for i := range dim {
		for _, x := range vecs.RawRowView(i) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, nil, errors.New("pca: the principal directions are not finite (the frames' values are too large for their scatter)")
			}
		}
	}
	fixSigns(vecs)
	return vecs, vals, nil
}

// Eigen returns the eigenvalues of the symmetric s, largest first, and the
// matching orthonormal eigenvectors as the columns of a matrix, signs as
// in the package comment: the full eigendecomposition (gonum's EigenSym).
func Eigen(s *mat.SymDense) ([]float64, *mat.Dense, error) {
	var e mat.EigenSym
	if !e.Factorize(s, true) {
		return nil, nil, errors.New("the eigendecomposition did not converge")
	}
	asc := e.Values(nil)
	var v mat.Dense
	e.VectorsTo(&v)
	n := len(asc)
	vals := make([]float64, n)
	vecs := mat.NewDense(n, n, nil)
	for j := range n {
		vals[j] = asc[n-1-j]
		vecs.SetCol(j, mat.Col(nil, n-1-j, &v))
	}
	fixSigns(vecs)
	return vals, vecs, nil
}
