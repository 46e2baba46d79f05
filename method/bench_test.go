package method

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/synth"
)

// benchPool returns the pool of 40 random sets of 41 frames in 400
// dimensions (an ETH-80 sized gallery) and the indices of all its sets.
func benchPool(b *testing.B) (*Pool, []int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	sets := make([]*mat.Dense, 40)
	for i := range sets {
		sets[i] = testutil.RandSet(rng, 41, 400, 0, 1)
	}
	p, err := NewPool(sets, 0)
	if err != nil {
		b.Fatal(err)
	}
	all := make([]int, len(sets))
	for i := range all {
		all[i] = i
	}
	return p, all
}

// BenchmarkDivergences times one all-pairs divergence matrix of 40 sets of
// 41 frames in 400 dimensions (ETH-80 sized gallery, distances cached).
func BenchmarkDivergences(b *testing.B) {
	p, all := benchPool(b)
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

// BenchmarkDivergencesBatched times the divergence matrices of the nine
// deployable bandwidths of DefaultGrid on the sets of BenchmarkDivergences:
// one pass over the pairs of sets for all nine (Pool.divergencesOf)
// against nine passes, one per bandwidth, each computing the frames'
// distances again.
func BenchmarkDivergencesBatched(b *testing.B) {
	p, all := benchPool(b)
	var hs [][]float64
	for _, bw := range deployableBandwidths(DefaultGrid().Bandwidths) {
		h, err := p.FrameBandwidths(bw, all)
		if err != nil {
			b.Fatal(err)
		}
		hs = append(hs, h)
	}
	b.Run("one-pass", func(b *testing.B) {
		for b.Loop() {
			if _, err := p.divergencesOf(hs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pass-per-bandwidth", func(b *testing.B) {
		for b.Loop() {
			for _, h := range hs {
				if _, err := p.Divergences(h); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkChoose times the choice of the auto method with its default
// candidates and grid on synthetic lighting data of 12 classes × 2 sets ×
// 10 frames × 8 features (TestChooseCutsOnlyLosers's first data) (W learned by a stand-in that picks
// coordinates, so that the benchmark times the choice, not the learner),
// with the runs that cannot change the choice left out, and with every
// candidate scored in full (Grid.AutoScoreAll).
func BenchmarkChoose(b *testing.B) {
	ds, err := synth.Generate(synth.Options{Kind: synth.Lighting, Classes: 12, Sets: 2, Frames: 10, Dim: 8, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	train := make([]int, len(ds.Sets))
	for i := range train {
		train[i] = i
	}
	for _, all := range []bool{false, true} {
		name := "cut"
		if all {
			name = "score-all"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				pool, err := NewPool(ds.Matrices(), 0)
				if err != nil {
					b.Fatal(err)
				}
				g := DefaultGrid()
				g.Learn = (&coordLearner{}).learn
				g.AutoScoreAll = all
				task := &Task{Pool: pool, Train: train, Labels: ds.Labels(), Classes: 12, Seed: 7}
				if _, err := Choose(task, g, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSetKernels times the set kernel matrices a cross-validation
// makes on the sets of BenchmarkDivergences, their bases and spectra
// cached: GDA's for every p of DefaultGrid in one pass over the pairs of
// sets (gdaKernels), and CDL's for every regulariser of DefaultGrid in one
// pass (cdlKernels).
func BenchmarkSetKernels(b *testing.B) {
	p, all := benchPool(b)
	g := DefaultGrid()
	pmax := 0
	for _, d := range g.GDAP {
		pmax = max(pmax, d)
	}
	if _, err := p.gdaBases(pmax); err != nil {
		b.Fatal(err)
	}
	var lambdas []float64
	var cover [][]int
	for _, r := range g.CDLRegs {
		l, err := p.cdlLambda(r, all)
		if err != nil {
			b.Fatal(err)
		}
		lambdas, cover = append(lambdas, l), append(cover, nil)
	}
	b.Run("gda", func(b *testing.B) {
		for b.Loop() {
			p.gdaK = nil
			if _, err := p.gdaKernels(g.GDAP, pmax); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cdl", func(b *testing.B) {
		for b.Loop() {
			p.cdlK = nil
			if _, err := p.cdlKernels(lambdas, cover); err != nil {
				b.Fatal(err)
			}
		}
	})
}
