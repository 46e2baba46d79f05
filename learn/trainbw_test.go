package learn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
)

// The global training bandwidth is relative to the data: scaling the
// projected frames by c scales it by c, and rotating them leaves it alone.
func TestGlobalTrainingBandwidthScaleAndRotation(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var y, scaled, rotated []*mat.Dense
	r := randomOrthonormal(rng, 5, 5)
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
