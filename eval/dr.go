package eval

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
)

// ErrNoLearner reports an -dr method asked for without a projection
// learner.
var ErrNoLearner = errors.New("no projection learner: the -dr methods need Grid.Learn")

// runDR learns W on the training sets (Section 4), projects every set and
// runs NN with the bandwidth chosen by cross-validation in the learned
// space. W itself is learned once on all training sets: learning it again
// inside every fold would multiply the cost by the number of folds, so the
// bandwidth chosen in the projected space is slightly optimistic (the
// held-out sets helped learn W), which does not touch the probes.
func runDR(t *Task, g Grid, m match.Measure) (Prediction, error) {
	if g.Learn == nil {
		return Prediction{}, ErrNoLearner
	}
	sets := make([]*mat.Dense, len(t.Train))
	for k, j := range t.Train {
		sets[k] = t.Pool.Sets[j]
	}
	labels := t.Labels
	if folds(labels, 2, 0) == nil {
		// One gallery set per class (pooled data): the affinity needs
		// within-class pairs, so W is learned on each set's two halves.
		sets, labels = halves(sets, labels)
	}
	w, mean, err := g.Learn(sets, labels, m, int64(t.Seed))
	if err != nil {
		return Prediction{}, fmt.Errorf("learning W: %w", err)
	}
	proj, err := ProjectSets(t.Pool.Sets, w, mean)
	if err != nil {
		return Prediction{}, err
	}
	pp, err := NewPool(proj, t.Pool.Workers)
	if err != nil {
		return Prediction{}, err
	}
	tt := *t
	tt.Pool = pp
	pred, err := runNN(&tt, g, m)
	if err != nil {
		return Prediction{}, err
	}
	_, d := w.Dims()
	pred.Params = fmt.Sprintf("d=%d %s", d, pred.Params)
	return pred, nil
}

// halves splits every set into its even and odd frames (sets of one frame
// are kept whole).
func halves(sets []*mat.Dense, labels []int) ([]*mat.Dense, []int) {
	var out []*mat.Dense
	var lab []int
	for k, x := range sets {
		n, d := x.Dims()
		if n < 4 {
			out, lab = append(out, x), append(lab, labels[k])
			continue
		}
		for part := range 2 {
			h := mat.NewDense((n-part+1)/2, d, nil)
			for r := part; r < n; r += 2 {
				h.SetRow(r/2, x.RawRowView(r))
			}
			out, lab = append(out, h), append(lab, labels[k])
		}
	}
	return out, lab
}

// ProjectSets returns (x − mean)·W for every n×D set x (W is D×d; mean may
// be nil).
func ProjectSets(sets []*mat.Dense, w *mat.Dense, mean []float64) ([]*mat.Dense, error) {
	dIn, _ := w.Dims()
	if mean != nil && len(mean) != dIn {
		return nil, fmt.Errorf("mean has %d entries, W has %d rows", len(mean), dIn)
	}
	out := make([]*mat.Dense, len(sets))
	for i, x := range sets {
		n, c := x.Dims()
		if c != dIn {
			return nil, fmt.Errorf("set %d has %d features, W expects %d", i, c, dIn)
		}
		xc := x
		if mean != nil {
			xc = mat.NewDense(n, c, nil)
			for r := range n {
				row := xc.RawRowView(r)
				for j, v := range x.RawRowView(r) {
					row[j] = v - mean[j]
				}
			}
		}
		var p mat.Dense
		p.Mul(xc, w)
		out[i] = &p
	}
	return out, nil
}
