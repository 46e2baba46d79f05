package fisher

import "gonum.org/v1/gonum/mat"

// Basis, for tests, returns the D×d Fisher basis W of the n_i×D sets with their class
// labels (one per set, non-negative; C distinct ones) and the mean frame
// (len D): x ↦ (x − mean)·W. The first min(d, C−1) columns are the
// discriminant directions; a larger d is completed as Solve says. reg ≥ 0
// regularises the within-class covariance relative to its mean eigenvalue.
// It fails (never panics) on fewer than 2 classes, d < 1 or d > r, NaN or
// Inf in the frames, and sets or labels that do not match.
func Basis(sets []*mat.Dense, labels []int, d int, reg float64) (w *mat.Dense, mean []float64, err error) {
	s, err := Solve(sets, labels, reg)
	if err != nil {
		return nil, nil, err
	}
	if w, err = s.Basis(d); err != nil {
		return nil, nil, err
	}
	return w, s.Mean, nil
}
