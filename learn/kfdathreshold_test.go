package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
	"setmatch/model"
)

// kfdaClasses returns sets of c Gaussian classes in d dimensions, per sets
// each, with the class means drawn by rng, and the means.
func kfdaSet(rng *rand.Rand, mean []float64, n int) *mat.Dense {
	x := mat.NewDense(n, len(mean), nil)
	for i := range n {
		for j, mu := range mean {
			x.Set(i, j, mu+0.7*rng.NormFloat64())
		}
	}
	return x
}

// TestKFDAOpenSetThreshold calibrates the threshold of a kFDA model and
// checks what it is for: fresh sets of the known classes are mostly
// accepted (a 95% bound from held-out distances), sets of a class
// the model does not know are mostly rejected.
func TestKFDAOpenSetThreshold(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const classes, per, dim = 5, 5, 4
	means := make([][]float64, classes+1)
	for c := range means {
		means[c] = make([]float64, dim)
		for j := range dim {
			means[c][j] = 2.5 * rng.NormFloat64()
		}
	}
	rule := match.BandwidthRule{Kind: match.NearestNeighbour, Scale: 1}
	w := mat.NewDense(dim, dim, nil)
	for i := range dim {
		w.Set(i, i, 1)
	}
	m := &model.Model{Divergence: match.Hellinger, QueryBandwidth: rule, W: w, Mean: make([]float64, dim), Threshold: math.Inf(1)}
	for c := range classes {
		for k := range per {
			x := kfdaSet(rng, means[c], 15)
			h, err := rule.Bandwidth(x)
			if err != nil {
				t.Fatal(err)
			}
			m.Sets = append(m.Sets, model.Set{Label: fmt.Sprint("c", c), Name: fmt.Sprint(k), Samples: x, Bandwidth: h})
		}
	}
	k, err := m.FitKFDA(model.KernelHG, 1, "median", 1e-2, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	th, err := KFDAOpenSetThreshold(k, m.Labels(), 1e-2, 0, AutoThresholdPercentile)
	if err != nil {
		t.Fatal(err)
	}
	lo, _ := KFDAOpenSetThreshold(k, m.Labels(), 1e-2, 0, 1)
	hi, _ := KFDAOpenSetThreshold(k, m.Labels(), 1e-2, 0, 99.9)
	if !(lo > 0 && lo <= th && th <= hi) {
		t.Fatalf("thresholds at 1, 95 and 99.9 percent: %v, %v, %v", lo, th, hi)
	}
	m.Threshold = th
	mt, err := m.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	known, unknownRejected := 0, 0
	const trials = 20
	for i := range trials {
		c := i % classes
		res, err := mt.Match(kfdaSet(rng, means[c], 15))
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision.Known && res.Decision.Label == fmt.Sprint("c", c) {
			known++
		}
		res, err = mt.Match(kfdaSet(rng, means[classes], 15))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Decision.Known {
			unknownRejected++
		}
	}
	t.Logf("threshold %.4g (1%%: %.4g, 99.9%%: %.4g); known accepted right %d/%d, unknown rejected %d/%d", th, lo, hi, known, trials, unknownRejected, trials)
	if known < trials*8/10 {
		t.Errorf("%d of %d sets of known classes accepted with the right label", known, trials)
	}
	if unknownRejected < trials*8/10 {
		t.Errorf("%d of %d sets of an unknown class rejected", unknownRejected, trials)
	}
}

func TestKFDAOpenSetThresholdErrors(t *testing.T) {
	k := mat.NewSymDense(3, []float64{1, 0.5, 0.1, 0.5, 1, 0.2, 0.1, 0.2, 1})
	if _, err := KFDAOpenSetThreshold(k, []string{"a", "b"}, 1e-2, 0, 95); err == nil {
		t.Error("2 labels for 3 sets accepted")
	}
	if _, err := KFDAOpenSetThreshold(k, []string{"a", "b", "c"}, 1e-2, 0, 95); err == nil {
		t.Error("no class with 2 sets accepted")
	}
	if _, err := KFDAOpenSetThreshold(k, []string{"a", "a", "b"}, 1e-2, 0, 101); err == nil {
		t.Error("percentile 101 accepted")
	}
}
