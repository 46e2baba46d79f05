package match

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"setmatch/internal/testutil"
)

// The reference workloads of the design: a query of 100 frames against
// 1000 sets × 100 frames in d = 20, and against 200 sets × 100 frames in
// D = 400. ns/op is per query; divide by m for the time per distance.
func BenchmarkGallery(b *testing.B) {
	for _, c := range []struct{ m, n, d int }{{1000, 100, 20}, {200, 100, 400}} {
		b.Run(fmt.Sprintf("m=%d/n=%d/d=%d", c.m, c.n, c.d), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			sets := make([]*KDE, c.m)
			for k := range sets {
				sets[k] = mustKDE(b, testutil.RandSet(rng, c.n, c.d, rng.Float64(), 1), 1)
			}
			g, err := NewGallery(sets)
			if err != nil {
				b.Fatal(err)
			}
			q := mustKDE(b, testutil.RandSet(rng, c.n, c.d, 0.5, 1), 1)
			dst := make([]Divergences, c.m)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := g.Compare(q, dst); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.m)/1e3, "µs/distance")
		})
	}
}

func BenchmarkCompare(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	p := mustKDE(b, testutil.RandSet(rng, 100, 20, 0, 1), 1)
	q := mustKDE(b, testutil.RandSet(rng, 100, 20, 0.5, 1), 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compare(p, q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPairKDEs: the two KDEs of setmatch div, 100 frames a set in
// d = 20, with a fixed bandwidth (a rule's bandwidth costs the same
// whatever PairKDEs does with it). The sets are centred again each time,
// which costs as the first centring does.
func BenchmarkPairKDEs(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := testutil.RandSet(rng, 100, 20, 0, 1), testutil.RandSet(rng, 100, 20, 0.5, 1)
	rule := BandwidthRule{Kind: Fixed, Fixed: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := PairKDEs("a", "b", x, y, rule); err != nil {
			b.Fatal(err)
		}
	}
}
