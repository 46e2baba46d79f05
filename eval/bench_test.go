package eval

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkDivergences times one all-pairs divergence matrix of 40 sets of
// 41 frames in 400 dimensions (ETH-80 sized gallery, distances cached).
func BenchmarkDivergences(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	sets := make([]*mat.Dense, 40)
	for i := range sets {
		sets[i] = randSet(rng, 41, 400, 0, 1)
	}
	p, err := NewPool(sets, 0)
	if err != nil {
		b.Fatal(err)
	}
	all := make([]int, len(sets))
	for i := range all {
		all[i] = i
	}
	h, err := p.FrameBandwidths(Bandwidth{Mode: Global, Scale: 1}, all)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Divergences(h); err != nil {
			b.Fatal(err)
		}
	}
}
