package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"setmatch/match"
)

func TestDbg(t *testing.T) {
	for _, rounds := range []int{1, 3} {
		for _, meas := range []match.Measure{match.Hellinger, match.Jeffrey} {
			for seed := range uint64(3) {
				rng := rand.New(rand.NewPCG(42+seed, uint64(meas)))
				const D, d = 12, 2
				sets, labels, truth := subspaceData(rng, 6, 3, 40, D, d, 4)
				res, _ := Train(sets, labels, TrainOptions{Dim: d, Divergence: meas, MaxIter: 100, Rounds: rounds, Workers: 2})
				a0, _ := PrincipalAngles(res.InitialW, truth)
				a, _ := PrincipalAngles(res.W, truth)
				fmt.Println(rounds, meas, seed, res.Stop, res.Iterations, a0[1]*180/math.Pi, a[1]*180/math.Pi)
			}
		}
	}
}
