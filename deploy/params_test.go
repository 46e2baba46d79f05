package deploy

import (
	"math"
	"testing"

	"setmatch/learn"
	"setmatch/method"
	"setmatch/model"
)

// TestEffectiveParams: d is the model's; ν_w and ν_b are those W was
// learned with, the default for a -dr method (the smallest class − 1),
// and dropped when no W was learned.
func TestEffectiveParams(t *testing.T) {
	res, labels := buildNNH(t, map[string]string{"dim": "0", "nu-w": "0", "nu-b": "0"})
	p := res.Model.Meta.Params
	res.EffectiveParams(labels)
	if _, ok := p["nu-w"]; ok || p["dim"] != "6" {
		t.Errorf("nn-h: %v, want dim 6 and no nu-w or nu-b", p)
	}
	res.Model.Selection.Method = method.NNHDR
	res.EffectiveParams(labels)
	if p["nu-w"] != "5" || p["nu-b"] != "5" {
		t.Errorf("nn-h-dr: %v, want nu-w and nu-b 5 (6 sets a class)", p)
	}
	res.Trained = &learn.TrainResult{NuW: 3, NuB: 4}
	res.EffectiveParams(labels)
	if p["nu-w"] != "3" || p["nu-b"] != "4" {
		t.Errorf("learned: %v, want nu-w 3 and nu-b 4", p)
	}
}

// buildNNH returns an nn-h model of data(3), its parameters params, and
// the labels of its training sets.
func buildNNH(t *testing.T, params map[string]string) (*Result, []string) {
	t.Helper()
	sets, ids := data(3)
	labels, names := make([]string, len(sets)), make([]string, len(sets))
	for i, c := range ids {
		labels[i], names[i] = []string{"a", "b", "c"}[c], "s"
	}
	res, err := Build(sets, labels, names, Options{Method: method.NNH, Grid: grid(), Seed: 1, Workers: 1, Threshold: math.Inf(1),
		Meta: model.Meta{Params: params}})
	if err != nil {
		t.Fatal(err)
	}
	return res, labels
}
