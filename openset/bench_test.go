package openset

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkBalance: the balanced threshold of 20 000 calibration scores
// (10 000 known sets read for new ones, 10 000 strangers'), about what
// the stand-in folds of 10 000 training sets give.
func BenchmarkBalance(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s []Sample
	for range 10000 {
		s = append(s, Sample{Score: rng.Float64(), Right: true, Draws: 1.5}, stranger(rng.Float64()+0.5))
	}
	for b.Loop() {
		if _, err := Balance(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTransfer: one threshold for every split, and each split at the
// one best on the others, over 10 splits of 2000 probes each (1000 known
// sets, 1000 strangers'), what setmatch eval computes under its open-set
// table for a method on a large protocol.
func BenchmarkTransfer(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 3))
	slices := make([][]Sample, 10)
	for i := range slices {
		for range 1000 {
			slices[i] = append(slices[i], Sample{Score: rng.Float64(), Right: true}, stranger(rng.Float64()+0.5))
		}
	}
	for b.Loop() {
		if _, _, err := Common(slices); err != nil {
			b.Fatal(err)
		}
		if _, err := Transfer(slices); err != nil {
			b.Fatal(err)
		}
	}
}
