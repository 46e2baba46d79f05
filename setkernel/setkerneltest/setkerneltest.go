// Package setkerneltest holds, for tests only, the dense references of
// package setkernel's low-rank log-Euclidean kernel (CDL's): a set's
// sample covariance, the matrix logarithm of a symmetric positive
// definite matrix and tr(log(A) log(B)).
package setkerneltest

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/stats"
)

// Covariance returns the d×d sample covariance (n−1 in the denominator) of
// the n×d set x: the dense reference for setkernel's covariance spectrum.
func Covariance(x *mat.Dense) *mat.SymDense {
	n, d := x.Dims()
	xc := stats.Centred(x)
	c := mat.NewSymDense(d, nil)
	c.SymOuterK(1/float64(n-1), xc.T())
	return c
}

// LogSPD returns the principal logarithm of the symmetric positive definite
// matrix a, from its eigendecomposition. It is the reference for
// setkernel's low-rank computation of the log-Euclidean kernel.
func LogSPD(a mat.Symmetric) (*mat.SymDense, error) {
	var es mat.EigenSym
	if !es.Factorize(a, true) {
		return nil, fmt.Errorf("eigendecomposition did not converge")
	}
	vals := es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	n := len(vals)
	out := mat.NewSymDense(n, nil)
	for k, l := range vals {
		if !(l > 0) {
			return nil, fmt.Errorf("matrix is not positive definite (eigenvalue %g): increase the regulariser", l)
		}
		col := mat.Col(nil, k, &v)
		out.SymRankOne(out, math.Log(l), mat.NewVecDense(n, col))
	}
	return out, nil
}

// LogEuclideanDense returns tr(log(A) log(B)) for SPD a and b, computed
// densely: the reference for setkernel.LogEuclidean.
func LogEuclideanDense(a, b mat.Symmetric) (float64, error) {
	la, err := LogSPD(a)
	if err != nil {
		return 0, err
	}
	lb, err := LogSPD(b)
	if err != nil {
		return 0, err
	}
	n := la.SymmetricDim()
	var s float64
	for i := range n {
		for j := range n {
			s += la.At(i, j) * lb.At(j, i)
		}
	}
	return s, nil
}
