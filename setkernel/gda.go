package setkernel

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

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
		if big := pca.TooLarge(x); big != nil {
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
