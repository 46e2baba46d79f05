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
