package learn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/matmul"
	"setmatch/internal/stats"
	"setmatch/match"
)

// GlobalTrainingBandwidth returns the one bandwidth held by every set
// during a CG run under TrainOptions.GlobalScale: scale × the median, over
// the projected training sets y (n_i×d each), of each set's median
// nearest-neighbour distance (the per-set nn rule). It is relative to the
// data's spread in the projected space, so it scales with the data
// (h(c·y) = c·h(y)) and does not depend on the basis of the projection.
func GlobalTrainingBandwidth(y []*mat.Dense, scale float64) (float64, error) {
	if !(scale > 0) || math.IsInf(scale, 0) {
		return 0, fmt.Errorf("global bandwidth scale %v: want a finite number > 0", scale)
	}
	var per []float64
	for _, s := range y {
		if n, _ := s.Dims(); n < 2 {
			continue
		}
		if v := match.MedianNearestNeighbour(s); v > 0 {
			per = append(per, v)
		}
	}
	if len(per) == 0 {
		return 0, fmt.Errorf("no training set has two distinct frames in the projected space: no global bandwidth can be derived")
	}
	return scale * stats.Median(per), nil
}

// trainingBandwidths returns the bandwidths held fixed during a CG run from
// W and the centred sets: the per-set rule, or with scale > 0 one global
// bandwidth for all sets (GlobalTrainingBandwidth), and the projected sets.
func trainingBandwidths(centred []*mat.Dense, w *mat.Dense, rule match.BandwidthRule, scale float64) ([]float64, []*mat.Dense, error) {
	if scale <= 0 {
		return projectAndBandwidths(centred, w, rule)
	}
	y := make([]*mat.Dense, len(centred))
	right := matmul.NewRight(w)
	for i, c := range centred {
		y[i] = new(mat.Dense)
		right.Mul(y[i], c, 0)
	}
	g, err := GlobalTrainingBandwidth(y, scale)
	if err != nil {
		return nil, nil, err
	}
	h := make([]float64, len(y))
	for i := range h {
		h[i] = g
	}
	return h, y, nil
}
