package learn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
	"setmatch/grassmann/grassmanntest"
)

// The global training bandwidth is relative to the data: scaling the
// projected frames by c scales it by c, and rotating them leaves it alone.
func TestGlobalTrainingBandwidthScaleAndRotation(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var y, scaled, rotated []*mat.Dense
	r := grassmanntest.RandomPoint(rng, 5, 5)
	for i := range 7 {
		x := mat.NewDense(10+i, 5, nil)
		for k := range 10 + i {
			for j := range 5 {
				x.Set(k, j, rng.NormFloat64()*float64(1+i%3))
			}
		}
		y = append(y, x)
		var s, q mat.Dense
		s.Scale(3.5, x)
		q.Mul(x, r)
		scaled, rotated = append(scaled, &s), append(rotated, &q)
	}
	h, err := GlobalTrainingBandwidth(y, 2)
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := GlobalTrainingBandwidth(scaled, 2)
	hr, _ := GlobalTrainingBandwidth(rotated, 2)
	if math.Abs(hs-3.5*h) > 1e-12*h {
		t.Errorf("h(3.5·y) = %v, want 3.5·h(y) = %v", hs, 3.5*h)
	}
	if math.Abs(hr-h) > 1e-12*h {
		t.Errorf("h(y·R) = %v, want h(y) = %v", hr, h)
	}
	if _, err := GlobalTrainingBandwidth(y, 0); err == nil {
		t.Error("scale 0 accepted")
	}
	// A set of one frame has no nearest neighbour: it takes no part.
	one := mat.NewDense(1, 5, []float64{1, 2, 3, 4, 5})
	if h1, err := GlobalTrainingBandwidth(append(slices.Clone(y), one), 2); err != nil || h1 != h {
		t.Errorf("with a set of one frame: %v (%v), want %v as without it", h1, err, h)
	}
	same := mat.NewDense(3, 2, []float64{1, 1, 1, 1, 1, 1})
	if _, err := GlobalTrainingBandwidth([]*mat.Dense{same}, 1); err == nil {
		t.Error("identical frames accepted")
	}
}

// With GlobalScale, every set holds the same bandwidth while training, and
// the whole training is invariant to the scale of the data: W learned on
// c·X equals W learned on X.
func TestTrainGlobalScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sets, labels, _ := subspaceData(rng, 4, 3, 20, 8, 2, 2)
	opt := TrainOptions{Dim: 2, GlobalScale: 1, MaxIter: 15, Workers: 1}
	a, err := Train(sets, labels, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range a.TrainBandwidths {
		if v != a.TrainBandwidths[0] {
			t.Fatalf("training bandwidth of set %d is %v, set 0 has %v: want one for all", i, v, a.TrainBandwidths[0])
		}
	}
	scaled := make([]*mat.Dense, len(sets))
	for i, s := range sets {
		var c mat.Dense
		c.Scale(10, s)
		scaled[i] = &c
	}
	b, err := Train(scaled, labels, opt)
	if err != nil {
		t.Fatal(err)
	}
	ang, err := grassmann.PrincipalAngles(a.W, b.W)
	if err != nil {
		t.Fatal(err)
	}
	if d := ang[len(ang)-1] * 180 / math.Pi; d > 1e-3 {
		t.Errorf("W learned on 10·X is %.2g° from W learned on X, want the same subspace", d)
	}
}

// The CG runs of Train: a narrow global scale starts with half as many
// iterations again at a wide one; S ≥ 1, the per-set rules and WarmScale < 0
// have no warm start; later rounds keep their budget.
func TestTrainingRuns(t *testing.T) {
	for _, c := range []struct {
		opt  TrainOptions
		want []trainingRun
	}{
		{TrainOptions{GlobalScale: 0.25, MaxIter: 25}, []trainingRun{{1, 13}, {0.25, 25}}},
		{TrainOptions{GlobalScale: 0.25, MaxIter: 10}, []trainingRun{{1, 5}, {0.25, 10}}},
		{TrainOptions{GlobalScale: 0.25, MaxIter: 10, Rounds: 2}, []trainingRun{{1, 5}, {0.25, 10}, {0.25, 10}}},
		{TrainOptions{GlobalScale: 0.25, MaxIter: 10, WarmScale: 2}, []trainingRun{{2, 5}, {0.25, 10}}},
		{TrainOptions{GlobalScale: 0.25, MaxIter: 10, WarmScale: -1}, []trainingRun{{0.25, 10}}},
		{TrainOptions{GlobalScale: 0.25, MaxIter: 1}, []trainingRun{{1, 1}, {0.25, 1}}},
		{TrainOptions{GlobalScale: 0.25}, []trainingRun{{1, 50}, {0.25, 100}}},
		{TrainOptions{GlobalScale: 1, MaxIter: 10}, []trainingRun{{1, 10}}},
		{TrainOptions{GlobalScale: 2, MaxIter: 10}, []trainingRun{{2, 10}}},
		{TrainOptions{MaxIter: 10}, []trainingRun{{0, 10}}},
		{TrainOptions{MaxIter: 10, WarmScale: 1}, []trainingRun{{0, 10}}},
	} {
		if got := trainingRuns(c.opt); !slices.Equal(got, c.want) {
			t.Errorf("trainingRuns(GlobalScale %v, MaxIter %d, Rounds %d, WarmScale %v) = %v, want %v",
				c.opt.GlobalScale, c.opt.MaxIter, c.opt.Rounds, c.opt.WarmScale, got, c.want)
		}
	}
}

// With the warm start, the affinity and the first half of the iterations
// are those of a training at the warm scale, to the last bit; the rest
// runs under the narrow bandwidth, re-estimated from the warm W.
func TestTrainWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sets, labels, _ := subspaceData(rng, 4, 3, 20, 8, 2, 2)
	warm, err := Train(sets, labels, TrainOptions{Dim: 2, GlobalScale: 0.25, MaxIter: 10, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	wide, err := Train(sets, labels, TrainOptions{Dim: 2, GlobalScale: 1, MaxIter: 5, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(warm.Pairs, wide.Pairs) {
		t.Errorf("warm-started affinity %v, want the one at the warm scale %v", warm.Pairs, wide.Pairs)
	}
	if len(wide.History) != 6 || len(warm.History) <= 6 {
		t.Fatalf("%d iterations at the warm scale alone, %d warm-started: want 5 and more than 5", len(wide.History)-1, len(warm.History)-1)
	}
	for i, s := range wide.History {
		if w := warm.History[i]; w.Cost != s.Cost || w.GradNorm != s.GradNorm {
			t.Errorf("iteration %d: warm-started cost %v, gradient %v; at the warm scale %v, %v", i, w.Cost, w.GradNorm, s.Cost, s.GradNorm)
		}
	}
	// The last run holds 0.25 × the base at the W the warm run ended at.
	h, err := GlobalTrainingBandwidth(wide.Projected, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range warm.TrainBandwidths {
		if math.Abs(v-h) > 1e-12*h {
			t.Errorf("set %d trained last at bandwidth %v, want 0.25 × the base at the warm W = %v", i, v, h)
		}
	}
	if warm.TrainBandwidths[0] == wide.TrainBandwidths[0] {
		t.Errorf("the last run held the warm bandwidth %v", wide.TrainBandwidths[0])
	}
}
