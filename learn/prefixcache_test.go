package learn

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestPrefixCache: trainings at global*0.25 (whose warm start at
// global*1 is the first half of the training at global*1), global*1 and
// global*2 on the same sets, sharing their first iterations through a
// PrefixCache, in either order or at once, each learn the W (and mean,
// costs, iterations, stop and History but its Seconds) they learn
// without it, bit for bit, for W alone and not; the trainings at 0.25
// and 1 share one entry, and the one at 2 has its own.
func TestPrefixCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	sets, labels, _ := subspaceData(rng, 4, 3, 12, 10, 2, 1)
	scales := []float64{0.25, 1, 2}
	for _, wAlone := range []bool{false, true} {
		opts := make([]TrainOptions, len(scales))
		want := make([]*TrainResult, len(scales))
		for i, s := range scales {
			opts[i] = TrainOptions{Dim: 3, MaxIter: 7, GlobalScale: s, CostRelTol: 1e-12, WAlone: wAlone}
			var err error
			if want[i], err = Train(sets, labels, opts[i]); err != nil {
				t.Fatal(err)
			}
		}
		for _, order := range []string{"0.25 first", "1 first", "at once"} {
			var (
				c   PrefixCache
				got = make([]*TrainResult, len(scales))
				err = make([]error, len(scales))
			)
			train := func(i int) {
				o := opts[i]
				o.Prefixes = &c
				got[i], err[i] = Train(sets, labels, o)
			}
			switch order {
			case "0.25 first":
				for i := range scales {
					train(i)
				}
			case "1 first":
				for _, i := range []int{1, 0, 2} {
					train(i)
				}
			default:
				var wg sync.WaitGroup
				for i := range scales {
					wg.Go(func() { train(i) })
				}
				wg.Wait()
			}
			for i, s := range scales {
				if err[i] != nil {
					t.Fatal(err[i])
				}
				if w, g := want[i], got[i]; !sameBits(g.W, w.W) || !slices.Equal(g.Mean, w.Mean) || !sameTraining(g, w) {
					t.Errorf("W alone %t, %s, global*%g: %d iterations, cost %v (%s) with the cache, %d, %v (%s) without", wAlone, order, s, g.Iterations, g.FinalCost, g.Stop, w.Iterations, w.FinalCost, w.Stop)
				}
			}
			if n := len(c.c.order); n != 2 {
				t.Errorf("W alone %t, %s: %d entries in the cache, want 2 (global*0.25 and global*1 one)", wAlone, order, n)
			}
		}
		if want[1].Iterations <= warmIter(opts[1]) || want[1].Stop != "iteration limit" {
			t.Errorf("W alone %t: the training at global*1 stops (%s) after %d iterations: nothing of it is continued", wAlone, want[1].Stop, want[1].Iterations)
		}
	}
}

// sameTraining reports whether two trainings have the same costs,
// iterations, stop and History, but the iterations' Seconds, bit for bit.
func sameTraining(a, b *TrainResult) bool {
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	if !same(a.InitialCost, b.InitialCost) || !same(a.FinalCost, b.FinalCost) || a.Iterations != b.Iterations ||
		a.Stop != b.Stop || len(a.History) != len(b.History) || !slices.Equal(a.TrainBandwidths, b.TrainBandwidths) {
		return false
	}
	for i, h := range a.History {
		g := b.History[i]
		if h.Iteration != g.Iteration || !same(h.Cost, g.Cost) || !same(h.GradNorm, g.GradNorm) || !same(h.Step, g.Step) || h.Evals != g.Evals || h.Restart != g.Restart {
			return false
		}
	}
	return true
}
