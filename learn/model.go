package learn

import (
	"fmt"

	"setmatch/model"
)

// Model returns the model of the training run r: its projection and mean,
// and as the gallery the projected training sets with their bandwidths by
// the training's bandwidth rule (r.Projected, r.Bandwidths), labelled
// labels[i] and named names[i]. Incoming batches get their bandwidth by the
// same rule and are compared under r.Divergence. threshold is the open-set
// threshold (+Inf for a closed set); meta records the provenance, with the
// final cost and the iteration count of r filled in. The model is
// validated; it shares W, Mean and the projected sets with r.
func (r *TrainResult) Model(labels, names []string, threshold float64, meta model.Meta) (*model.Model, error) {
	if len(labels) != len(r.Projected) || len(names) != len(r.Projected) {
		return nil, fmt.Errorf("%d labels and %d names for %d training sets", len(labels), len(names), len(r.Projected))
	}
	meta.FinalCost, meta.Iterations = r.FinalCost, r.Iterations
	m := &model.Model{
		Divergence:     r.Divergence,
		QueryBandwidth: r.Bandwidth,
		W:              r.W,
		Mean:           r.Mean,
		Sets:           make([]model.Set, len(r.Projected)),
		Threshold:      threshold,
		Meta:           meta,
	}
	for i, y := range r.Projected {
		m.Sets[i] = model.Set{Label: labels[i], Name: names[i], Samples: y, Bandwidth: r.Bandwidths[i]}
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}
