package learn

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"setmatch/fisher"
)

// fisherStart returns the discriminant start of training from Fisher's
// discriminant sol of the training sets' frames (fisher.Solve, every frame
// labelled by its set's class): the subspace of its first d columns with
// orthonormal columns (fisher.Orthonormal, D×d), and the mean frame
// (len D). Its first min(d, C−1) directions span the discriminant
// directions and the rest complete them as fisher.Solve says. Where d is
// above the r directions the frames vary in, those r are completed by
// unit vectors orthogonal to them (as grassmann.Orthonormalize completes
// a rank-deficient matrix), in which the frames do not vary: the PCA start
// is completed alike (pca.Leading). A point of the Grassmann
// manifold is its subspace only, so the whitening of the discriminant
// (its scale within the subspace) is not part of the start.
func fisherStart(sol *fisher.Solution, d int) (*mat.Dense, []float64, error) {
	bigD, _ := sol.W.Dims()
	if d < 1 || d > bigD {
		return nil, nil, fmt.Errorf("dimension %d: want 1 ≤ d ≤ %d (the number of features)", d, bigD)
	}
	// The first min(d, r) directions, and zero columns beyond r, which
	// the thin QR completes (a zero column depends on those before it).
	w := mat.NewDense(bigD, d, nil)
	w.Copy(sol.W)
	return fisher.Orthonormal(w), append([]float64(nil), sol.Mean...), nil
}

// FisherCache remembers Fisher's discriminant of the labelled sets it was
// given (by the identity of the set matrices, which must not change
// afterwards, and their labels), so that the candidates of several
// dimensions d and bandwidths that cross-validation trains on the same
// sets solve it once. It keeps the last few entries only. The zero value
// is ready to use; it is safe for concurrent use.
type FisherCache struct {
	c keyedOnce[*fisher.Solution]
}

// Basis returns the Fisher start of training at dimension d (fisherStart)
// for the n_i×D sets and their class labels: W (D×d, orthonormal columns)
// and the mean frame (len D), solving the discriminant (fisher.Solve with
// fisher.Reg) at most once per sets and labels.
func (c *FisherCache) Basis(sets []*mat.Dense, labels []int, d int) (*mat.Dense, []float64, error) {
	sol, err := c.c.do(setsKey(sets, labels).String(), sets, func() (*fisher.Solution, error) {
		return fisher.Solve(sets, labels, fisher.Reg)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("Fisher start: %w", err)
	}
	return fisherStart(sol, d)
}
