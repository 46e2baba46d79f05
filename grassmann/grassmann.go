// Package grassmann holds the geometry of the Grassmann manifold Gr(d, D),
// the set of d-dimensional subspaces of R^D, and a Riemannian conjugate-
// gradient minimiser on it in the style of Manopt's conjugategradient with
// linesearch_adaptive. setmatch learns its projection W with it.
//
// Points are D×d matrices W with orthonormal columns (WᵀW = I). Tangent
// vectors at W are the D×d matrices Z with WᵀZ = 0; the metric is the
// Frobenius inner product. Nothing here forms a D×D matrix.
//
// The package does no I/O and knows nothing of image sets.
package grassmann

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ProjectTangent returns (I − WWᵀ)Z, computed as Z − W(WᵀZ), the projection
// of the D×d matrix z onto the tangent space at w. It is the Riemannian
// gradient when z is the Euclidean gradient of a cost invariant to W → WR,
// and the vector transport of z to w. The result goes into dst if not nil.
func ProjectTangent(dst, w, z *mat.Dense) *mat.Dense {
	_, d := w.Dims()
	var wtz mat.Dense
	wtz.Mul(w.T(), z) // d×d
	var corr mat.Dense
	corr.Mul(w, &wtz) // D×d
	if dst == nil {
		dst = mat.NewDense(z.RawMatrix().Rows, d, nil)
	}
	dst.Sub(z, &corr)
	return dst
}

// Retract returns the QR retraction qf(W + tη) (D×d) of the point w (D×d,
// orthonormal columns) along the tangent vector eta (D×d): the Q factor of
// the thin QR decomposition of W + tη with the signs chosen so that diag(R) > 0, which
// makes it unique. It is computed by classical Gram–Schmidt applied twice
// ("twice is enough"), so that QᵀQ = I to rounding.
func Retract(w, eta *mat.Dense, t float64) *mat.Dense {
	r, c := w.Dims()
	q := mat.NewDense(r, c, nil)
	q.Scale(t, eta)
	q.Add(q, w)
	Orthonormalize(q)
	return q
}

// Orthonormalize replaces the columns of the D×d matrix q (d ≤ D), in place,
// by their Gram–Schmidt orthonormalisation, applied twice, with R of positive
// diagonal. A column that the columns before it leave exactly 0 is completed
// with a unit vector orthogonal to them; one they leave at rounding level
// (a copy of an earlier column, in general) is normalised as it is, which
// is not orthogonal: give a rank-deficient q to OrthonormalizeTol with a
// tolerance. It works on a transposed copy so that every column is
// contiguous.
func Orthonormalize(q *mat.Dense) {
	OrthonormalizeTol(q, 0)
}

// OrthonormalizeTol is Orthonormalize (of the D×d matrix q, d ≤ D, in
// place) with a column counted as depending
// on the columns before it, and completed, when what is left of it after
// the orthogonalisation has norm at most tol (Orthonormalize: exactly 0).
// It is the one thin-QR of the project: with tol a small multiple of
// ‖q‖₂ it gives the Q of q's thin QR decomposition (fisher.Orthonormal).
func OrthonormalizeTol(q *mat.Dense, tol float64) {
	r, c := q.Dims()
	qt := mat.DenseCopyOf(q.T()) // c×r, row j = column j
	for j := range c {
		v := qt.RawRowView(j)
		for pass := 0; pass < 2; pass++ {
			for k := range j {
				u := qt.RawRowView(k)
				dot := 0.0
				for i, x := range u {
					dot += x * v[i]
				}
				for i, x := range u {
					v[i] -= dot * x
				}
			}
		}
		nrm := 0.0
		for _, x := range v {
			nrm += x * x
		}
		nrm = math.Sqrt(nrm)
		if nrm <= tol {
			// A rank-deficient input: complete with a unit vector that is
			// orthogonal to the previous columns (never happens for W + tη
			// with WᵀW = I, since Wᵀ(W + tη) = I).
			for e := range r {
				clear(v)
				v[e] = 1
				for k := range j {
					u := qt.RawRowView(k)
					dot := u[e]
					for i, x := range u {
						v[i] -= dot * x
					}
				}
				nrm = 0
				for _, x := range v {
					nrm += x * x
				}
				if nrm = math.Sqrt(nrm); nrm > 0.5 {
					break
				}
			}
		}
		for i := range v {
			v[i] /= nrm
		}
	}
	q.Copy(qt.T())
}

// PrincipalAngles returns the principal angles (radians, ascending) between
// the subspaces spanned by the orthonormal columns of a (D×d) and b (D×d):
// the arccosines of the singular values of aᵀb.
func PrincipalAngles(a, b *mat.Dense) ([]float64, error) {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb {
		return nil, fmt.Errorf("principal angles: %d and %d rows", ra, rb)
	}
	var m mat.Dense
	m.Mul(a.T(), b)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDNone) {
		return nil, errors.New("principal angles: SVD did not converge")
	}
	s := svd.Values(nil) // descending
	ang := make([]float64, min(ca, cb))
	for i := range ang {
		ang[i] = math.Acos(math.Max(-1, math.Min(1, s[i])))
	}
	return ang, nil
}

// OrthoError returns max |WᵀW − I| for the D×d matrix w. It costs one d×d
// product (D·d² flops), never a D×D matrix.
func OrthoError(w *mat.Dense) float64 {
	_, d := w.Dims()
	var g mat.Dense
	g.Mul(w.T(), w)
	var e float64
	for i := range d {
		for j := range d {
			v := g.At(i, j)
			if i == j {
				v--
			}
			v = math.Abs(v)
			if math.IsNaN(v) {
				return math.NaN()
			}
			e = max(e, v)
		}
	}
	return e
}
