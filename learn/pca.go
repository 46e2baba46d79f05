package learn

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/internal/stats"
	"setmatch/pca"
)

// PCABasis returns the starting point of training: the top-d principal
// directions of all frames of all sets stacked together (W, D×d, orthonormal
// columns, pca.Leading) and the mean frame (len D), which is subtracted
// before projection. The result is deterministic for a given seed; the
// seed only matters above pca.CovarianceMaxDim features.
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
	mean = stats.MeanFrame(x)
	stats.SubtractFrame(x, mean)
	if w, _, err = pca.Leading(x, d, seed); err != nil {
		return nil, nil, err
	}
	return w, mean, nil
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
				if !finite.Is(v) {
					return nil, fmt.Errorf("set %d frame %d holds NaN or Inf", i, k)
				}
			}
			copy(x.RawRowView(row), src)
			row++
		}
	}
	return x, nil
}
