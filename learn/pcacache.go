package learn

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"setmatch/pca"
)

// PCACache remembers the PCA of the frame sets it was given (by the
// identity of the set matrices, which must not change afterwards), so
// that trainings of several dimensions d and bandwidths on the same sets,
// as cross-validation runs them, share one PCA: its pcaCacheDirs leading
// directions (or d, when more are asked; at most the N − 1 directions N
// frames span). It keeps the last few entries only. The zero value is
// ready to use; it is safe for concurrent use.
type PCACache struct {
	c keyedOnce[pcaEntry]
}

// pcaCacheDirs is how many leading directions an entry holds at least:
// every d of the -dr grid (method.DRDims, DefaultGrid's DRDims).
const pcaCacheDirs = 64

type pcaEntry struct {
	w    *mat.Dense // D×k, principal directions by decreasing variance
	mean []float64
}

// Basis returns PCABasis(sets, d, seed), computing it at most once per
// set of sets for every d up to pcaCacheDirs (for D ≤
// pca.CovarianceMaxDim; above, once per d). With N < D frames, a d of N or more (above any rank they can
// have) is computed on its own.
func (c *PCACache) Basis(sets []*mat.Dense, d int, seed int64) (*mat.Dense, []float64, error) {
	if len(sets) == 0 {
		return PCABasis(sets, d, seed)
	}
	_, dim := sets[0].Dims()
	if d < 1 || d > dim {
		return nil, nil, fmt.Errorf("dimension %d: want 1 ≤ d ≤ %d (the number of features)", d, dim)
	}
	b := setsKey(sets, nil)
	kmax := dim
	if dim > pca.CovarianceMaxDim {
		kmax = d
		fmt.Fprintf(b, "d=%d,seed=%d", d, seed)
	} else if n := frameCount(sets); n < dim {
		kmax = max(n-1, 1) // the most directions N centred frames span
		if d > kmax {
			return PCABasis(sets, d, seed)
		}
	}
	k := min(kmax, max(d, pcaCacheDirs))
	if k > pcaCacheDirs {
		fmt.Fprintf(b, "k=%d", k)
	}
	e, err := c.c.do(b.String(), sets, func() (pcaEntry, error) {
		w, mean, err := PCABasis(sets, k, seed)
		return pcaEntry{w, mean}, err
	})
	if err != nil {
		return nil, nil, err
	}
	return mat.DenseCopyOf(e.w.Slice(0, dim, 0, d)), append([]float64(nil), e.mean...), nil
}

// frameCount returns the number of frames of the sets (nil sets count 0:
// PCABasis reports them).
func frameCount(sets []*mat.Dense) int {
	n := 0
	for _, s := range sets {
		if s != nil && !s.IsEmpty() {
			r, _ := s.Dims()
			n += r
		}
	}
	return n
}
