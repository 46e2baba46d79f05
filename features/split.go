package features

import (
	"gonum.org/v1/gonum/mat"

	"setmatch/internal/stats"
)

// SplitTransform returns the feature step of an evaluation split, as
// eval.Options.Transform takes it: a PCA to k dimensions (k > 0) fitted
// on the frames of the sets listed in fit only (PCASets, whitened if
// whiten), then, if centre, each n_i×k set minus its own mean frame
// (stats.Centred).
func SplitTransform(k int, whiten, centre bool) func(sets []*mat.Dense, fit []int) ([]*mat.Dense, error) {
	return func(sets []*mat.Dense, fit []int) ([]*mat.Dense, error) {
		if k > 0 {
			var err error
			if sets, err = PCASets(sets, fit, k, whiten); err != nil {
				return nil, err
			}
		}
		if !centre {
			return sets, nil
		}
		out := make([]*mat.Dense, len(sets))
		for i, x := range sets {
			out[i] = stats.Centred(x)
		}
		return out, nil
	}
}
