package setkernel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/pca"
)

// GDA: each set is the span of its top-p right singular vectors (of the
// uncentred frames, as in the original), compared with the projection
// kernel k(A, B) = ‖AᵀB‖_F².

// Basis returns the d×p orthonormal basis of the top-p right singular
// vectors of the n×d set x (1 ≤ p ≤ min(n, d)).
func Basis(x *mat.Dense, p int) (*mat.Dense, error) {
	n, d := x.Dims()
	if p < 1 || p > min(n, d) {
		return nil, fmt.Errorf("subspace dimension p=%d: want 1 ≤ p ≤ min(frames, features) = %d", p, min(n, d))
	}
	v, _, err := pca.All(x) // of xᵀx: the frames are not centred here
	if err != nil {
		if big := tooLarge(x); big != nil {
			err = big
		}
		return nil, fmt.Errorf("a %d×%d set: %w", n, d, err)
	}
	return mat.DenseCopyOf(v.Slice(0, d, 0, p)), nil
}

// Projection returns ‖AᵀB‖_F² for the d×p_a basis a and the d×p_b basis b.
func Projection(a, b mat.Matrix) float64 {
	var g mat.Dense
	g.Mul(a.T(), b)
	return ProjectionGram(&g)
}

// ProjectionGram returns ‖G‖_F², the projection kernel of two bases from
// their p_a×p_b Gram matrix G = AᵀB (which may be a block of a larger
// Gram matrix).
func ProjectionGram(g mat.RawMatrixer) float64 {
	raw := g.RawMatrix()
	var s float64
	for i := range raw.Rows {
		for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			s += v * v
		}
	}
	return s
}

// tooLarge returns, for the n×d set x whose subspace or covariance could
// not be computed, the error that says its values are too large for one,
// and what to do, where they are: the squares a scatter or covariance sums
// (n·d of the largest square bounds its trace) overflow a float64, as
// they do for features around 1e153 and above. Else it returns nil.
func tooLarge(x *mat.Dense) error {
	n, d := x.Dims()
	big := 0.0
	for i := range n {
		for _, v := range x.RawRowView(i) {
			big = max(big, math.Abs(v))
		}
	}
	if finite.Is(float64(n*d) * big * big) {
		return nil
	}
	return fmt.Errorf("its values, up to %.3g, are too large for a covariance or subspace: their squares, summed over its frames, overflow a float64 (%.3g at most); scale the features down, e.g. divide them by %.0e", big, math.MaxFloat64, math.Pow(10, math.Floor(math.Log10(big))))
}
