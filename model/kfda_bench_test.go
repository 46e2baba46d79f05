package model

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"setmatch/internal/testutil"
	"setmatch/kfda"
	"setmatch/match"
	"setmatch/method"
)

// BenchmarkMatchKFDA times Matcher.Match for the reference workload of the
// appliance (a 100-frame batch against 1000 gallery sets × 100 frames,
// d = D = 20), deciding by nearest neighbour and by kFDA (100 classes,
// r = 99 latent dimensions), and reports the median and 99th percentile
// per batch. The kFDA solution has random coefficients of the right
// shapes: the cost of a decision does not depend on their values, and
// fitting a real one on 1000 sets takes a minute of divergences. gda
// (p = 10) and cdl decide by kFDA on the set kernels instead of the
// divergences; kfda-mix on the sum of all three (the most a kfda-mix
// model computes). vote is a vote of three models as a model file can
// hold one (FORMATS.md): that kfda-mix model with two voters, nn-h-dr (a
// D×10 W, its own gallery of n×10 sets) and kfda-hl in the full space,
// each also timed alone; the metric members says how many were matched
// (2 when the first two agree and decide the vote; this batch needs 3).
func BenchmarkMatchKFDA(b *testing.B) {
	benchMatch(b, 17, 1000, 100, 20, 100, []string{"nn-h", "kfda-hg", "gda", "cdl", "kfda-mix", "nn-h-dr", "kfda-hl", "vote"})
}

// BenchmarkMatchFullSpace times Matcher.Match in the full space of the
// features as ETH-80's gallery with LBP gives it (80 gallery sets × 41
// frames, D = d = 944, 8 classes, r = 7) for the methods auto deploys
// there: nn-h, kfda-hg, gda (p = 10), cdl and their sum (kfda-mix), and
// the vote (as in BenchmarkMatchKFDA). The
// projection is the identity, as train writes it for these methods;
// BenchmarkMatchFullSpaceW stores it as a 944×944 W instead (format 4).
func BenchmarkMatchFullSpace(b *testing.B) {
	benchMatch(b, 19, 80, 41, -944, 8, []string{"nn-h", "kfda-hg", "gda", "cdl", "kfda-mix", "nn-h-dr", "kfda-hl", "vote"})
}

func BenchmarkMatchFullSpaceW(b *testing.B) {
	benchMatch(b, 19, 80, 41, 944, 8, []string{"nn-h", "kfda-hg", "gda", "cdl", "kfda-mix"})
}

// benchMatch runs one sub-benchmark per method on a model of m gallery
// sets × n frames, d = D (a D×D orthonormal W; −d: the identity
// projection), in the given number of classes (seed: the model's random
// stream), matching one n-frame batch: nearest neighbour, or kFDA with
// random coefficients of the right shapes (r = classes − 1) on the
// method's kernel.
func benchMatch(b *testing.B, seed uint64, m, n, d, classes int, methods []string) {
	sizes := make([]int, m)
	for i := range sizes {
		sizes[i] = n
	}
	identity := d < 0
	d = max(d, -d)
	base := mfModel(seed, d, d, sizes)
	if identity {
		base.W, base.Identity = nil, true
	}
	for i := range base.Sets {
		base.Sets[i].Label = fmt.Sprint("c", i%classes)
	}
	rng := rand.New(rand.NewPCG(seed, 4))
	r := classes - 1
	k := &Discriminant{Term: Term{Kernel: string(method.KernelHG), Width: 1, Scale: 0.5, WidthScale: "median"}, OpenSet: OpenSetKernel, Reg: 1e-2,
		Solution: kfda.KFDA{Reg: 1e-3, ColMean: make([]float64, m), Values: make([]float64, r), Alpha: testutil.RandSet(rng, m, r, 0, 1), Train: testutil.RandSet(rng, m, r, 0, 1)}}
	for i := range k.Solution.ColMean {
		k.Solution.ColMean[i] = rng.Float64()
	}
	for i := range k.Solution.Values {
		k.Solution.Values[i] = float64(r - i)
	}
	mix := func() *Discriminant {
		kk := *k
		kk.Term, kk.Terms = Term{Kernel: string(method.KernelSum)}, []Term{
			{Kernel: string(method.KernelHG), Width: 1, Scale: 0.5, WidthScale: "median", Weight: 1},
			{Kernel: string(method.KernelGDA), Width: 1, Scale: 1, WidthScale: "raw", P: 10, Weight: 0.1},
			{Kernel: string(method.KernelCDL), Width: 1, Scale: 1, WidthScale: "raw", Lambda: 0.1, Weight: 0.01},
		}
		return &kk
	}()
	// The voters of the vote: kFDA on the Hellinger distance, and nearest
	// neighbour after a D×10 W with its own gallery.
	hl := *base
	kh := *k
	kh.Kernel = string(method.KernelHL)
	hl.Discriminant, hl.Selection.Method = &kh, "kfda-hl"
	dr := mfModel(seed+1, d, min(10, d), sizes)
	for i := range dr.Sets {
		dr.Sets[i].Label = base.Sets[i].Label
	}
	dr.Selection.Method = "nn-h-dr"
	batch := mfBatch(rng, base, n, 0)
	for _, name := range methods {
		b.Run(name, func(b *testing.B) {
			mm := *base
			switch name {
			case "kfda-hg":
				mm.Discriminant, mm.Selection.Method = k, method.Name(name)
			case string(method.KernelGDA), string(method.KernelCDL):
				kk := *k
				kk.Kernel, kk.Width, kk.Scale, kk.WidthScale = name, 1, 1, "raw"
				if name == string(method.KernelGDA) {
					kk.P = 10
				} else {
					kk.Lambda = 0.1
				}
				mm.Discriminant, mm.Selection.Method = &kk, method.Name(name)
			case "kfda-mix":
				mm.Discriminant, mm.Selection.Method = mix, method.Name(name)
			case "nn-h-dr":
				mm = *dr
			case "kfda-hl":
				mm = hl
			case "vote":
				mm.Discriminant, mm.Selection.Method = mix, "kfda-mix"
				mm.Voters = []*Model{dr, &hl}
			}
			mt, err := mm.NewMatcher()
			if err != nil {
				b.Fatal(err)
			}
			var times []time.Duration
			matched := 0
			for b.Loop() {
				start := time.Now()
				res, err := mt.Match(batch)
				if err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
				for _, v := range res.Votes {
					if v != "" {
						matched++
					}
				}
			}
			if name == "vote" {
				// 2: the first two members agreed and decided the vote.
				b.ReportMetric(float64(matched)/float64(len(times)), "members")
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
		base.Sets[i] = Set{Label: fmt.Sprint("c", i%(r+1)), Name: fmt.Sprint(i), Samples: testutil.RandSet(rng, 2, 2, 0, 1), Bandwidth: 1}
	}
	k := &Discriminant{Term: Term{Kernel: string(method.KernelHG), Width: 1, Scale: 0.5, WidthScale: "median"}, OpenSet: OpenSetKernel, Reg: 1e-2,
		Solution: kfda.KFDA{Reg: 1e-3, ColMean: make([]float64, m), Values: make([]float64, r), Alpha: testutil.RandSet(rng, m, r, 0, 1), Train: testutil.RandSet(rng, m, r, 0, 1)}}
	for i := range k.Solution.Values {
		k.Solution.Values[i] = float64(r - i)
	}
	base.Discriminant, base.Selection.Method = k, "kfda-hg"
	mt, err := base.NewMatcher()
	if err != nil {
		b.Fatal(err)
	}
	res := Result{Divergences: make([]match.Divergences, m)}
	for i := range res.Divergences {
		res.Divergences[i] = match.Divergences{Hellinger2: rng.Float64(), Jeffrey: rng.Float64()}
	}
	for b.Loop() {
		k, self, err := mt.kernelVector(context.Background(), nil, res.Divergences)
		if err != nil {
			b.Fatal(err)
		}
		if err := mt.decideKFDA(&res, k, self); err != nil {
			b.Fatal(err)
		}
	}
}
