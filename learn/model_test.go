package learn

import (
	"math"
	"math/rand/v2"
	"testing"

	"setmatch/match"
	"setmatch/model"
)

// The model of a training run matches each training set to itself with
// divergence 0.
func TestTrainResultModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	sets, classes, _ := subspaceData(rng, 3, 2, 12, 8, 2, 2)
	res, err := Train(sets, classes, TrainOptions{Dim: 2, Divergence: match.Jeffrey, MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	labels := []string{"x", "x", "y", "y", "z", "z"}
	names := []string{"0", "1", "2", "3", "4", "5"}
	m, err := res.Model(labels, names, 7, model.Meta{Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Divergence != match.Jeffrey || m.QueryBandwidth != (match.BandwidthRule{Kind: match.NearestNeighbour}) ||
		m.Threshold != 7 || m.Meta.Tool != "test" || m.Meta.Iterations != res.Iterations || m.Meta.FinalCost != res.FinalCost {
		t.Errorf("model header: %v %v %v %+v", m.Divergence, m.QueryBandwidth, m.Threshold, m.Meta)
	}
	mt, err := m.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sets {
		r, err := mt.Match(s)
		if err != nil {
			t.Fatal(err)
		}
		if r.Decision.Label != labels[i] || r.Decision.Score > 1e-9 || math.Abs(r.Bandwidth-res.Bandwidths[i]) > 1e-12*res.Bandwidths[i] {
			t.Errorf("set %d: %+v, bandwidth %v (training %v)", i, r.Decision, r.Bandwidth, res.Bandwidths[i])
		}
	}
	if _, err := res.Model(labels[:5], names, 7, model.Meta{}); err == nil {
		t.Error("5 labels for 6 sets: no error")
	}
	if _, err := res.Model(labels, names, math.NaN(), model.Meta{}); err == nil {
		t.Error("NaN threshold: no error")
	}
}
