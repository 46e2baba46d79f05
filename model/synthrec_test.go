package model

import (
	"math"
	"testing"

	"setmatch/match"
	"setmatch/synth"
)

// Recovery on the data of `setmatch synth --kind subspace`: 6 classes × 3
// sets × 40 frames in D = 20 whose classes differ only in 2 known
// directions, with stronger noise elsewhere.
func TestTrainRecoversSynthSubspace(t *testing.T) {
	ds, basis, err := synth.GenerateWithBasis(synth.Options{Kind: synth.Subspace, Classes: 6, Sets: 3, Frames: 40, Dim: 20, InfoDim: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, meas := range []match.Measure{match.Hellinger, match.Jeffrey} {
		res, err := Train(ds.Matrices(), ds.Labels(), TrainOptions{Dim: 2, Divergence: meas})
		if err != nil {
			t.Fatal(err)
		}
		a0, _ := PrincipalAngles(res.InitialW, basis)
		a, _ := PrincipalAngles(res.W, basis)
		deg := 180 / math.Pi
		t.Logf("%v: %d iterations (%s), largest angle %.1f° -> %.2f°", meas, res.Iterations, res.Stop, a0[1]*deg, a[1]*deg)
		if a0[1]*deg < 45 {
			t.Errorf("%v: PCA start already %.1f° from the truth: the generator changed?", meas, a0[1]*deg)
		}
		if a[1]*deg > 10 {
			t.Errorf("%v: largest principal angle to the true subspace %.1f°, want < 10°", meas, a[1]*deg)
		}
	}
}
