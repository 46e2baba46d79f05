package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"setmatch/match"
)

// BenchmarkMatchKFDA times Matcher.Match for the reference workload of the
// appliance (a 100-frame batch against 1000 gallery sets × 100 frames,
// d = D = 20), deciding by nearest neighbour and by kFDA (100 classes,
// r = 99 latent dimensions), and reports the median and 99th percentile
// per batch. The kFDA solution has random coefficients of the right
// shapes: the cost of a decision does not depend on their values, and
// fitting a real one on 1000 sets takes a minute of divergences.
func BenchmarkMatchKFDA(b *testing.B) {
	const m, n, d, classes = 1000, 100, 20, 100
	sizes := make([]int, m)
	for i := range sizes {
		sizes[i] = n
	}
	base := mfModel(17, d, d, sizes)
	for i := range base.Sets {
		base.Sets[i].Label = fmt.Sprint("c", i%classes)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	r := classes - 1
	k := &KFDA{Kernel: KernelHG, Width: 1, Scale: 0.5, WidthScale: "median", Reg: 1e-2, Epsilon: 1e-3,
		ColMean: make([]float64, m), Values: make([]float64, r), Alpha: mfRandom(rng, m, r, 0), Latent: mfRandom(rng, m, r, 0)}
	for i := range k.ColMean {
		k.ColMean[i] = rng.Float64()
	}
	for i := range k.Values {
		k.Values[i] = float64(r - i)
	}
	batch := mfBatch(rng, base, n, 0)
	for _, method := range []string{"nn-h", "kfda-hg"} {
		b.Run(method, func(b *testing.B) {
			mm := *base
			if method == "kfda-hg" {
				mm.KFDA, mm.Selection.Method = k, method
			}
			mt, err := mm.NewMatcher()
			if err != nil {
				b.Fatal(err)
			}
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := mt.Match(batch); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-p50")
			b.ReportMetric(float64(times[min(len(times)-1, len(times)*99/100)].Microseconds())/1000, "ms-p99")
		})
	}
}

// BenchmarkDecideKFDA times what kFDA adds to a nearest-neighbour match
// for 1000 gallery sets and r = 99: the kernel vector from the
// divergences, centring, the latent point and the distances to the
// gallery's latent points.
func BenchmarkDecideKFDA(b *testing.B) {
	const m, r = 1000, 99
	rng := rand.New(rand.NewPCG(5, 6))
	base := mfModel(18, 2, 2, make([]int, 0))
	base.Sets = make([]Set, m)
	for i := range base.Sets {
		base.Sets[i] = Set{Label: fmt.Sprint("c", i%(r+1)), Name: fmt.Sprint(i), Samples: mfRandom(rng, 2, 2, 0), Bandwidth: 1}
	}
	k := &KFDA{Kernel: KernelHG, Width: 1, Scale: 0.5, WidthScale: "median", Reg: 1e-2, Epsilon: 1e-3,
		ColMean: make([]float64, m), Values: make([]float64, r), Alpha: mfRandom(rng, m, r, 0), Latent: mfRandom(rng, m, r, 0)}
	for i := range k.Values {
		k.Values[i] = float64(r - i)
	}
	base.KFDA, base.Selection.Method = k, "kfda-hg"
	mt, err := base.NewMatcher()
	if err != nil {
		b.Fatal(err)
	}
	res := Result{Divergences: make([]match.Divergences, m)}
	for i := range res.Divergences {
		res.Divergences[i] = match.Divergences{Hellinger2: rng.Float64(), Jeffrey: rng.Float64()}
	}
	for b.Loop() {
		if err := mt.decideKFDA(&res, mt.divKernel(res.Divergences)); err != nil {
			b.Fatal(err)
		}
	}
}
