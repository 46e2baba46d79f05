package learn

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
	"setmatch/grassmann/grassmanntest"
	"setmatch/internal/stats"
	"setmatch/internal/testutil"
	"setmatch/match"
	"setmatch/synth"
)

// subspaceData returns sets whose classes differ only inside a known
// d-dimensional subspace (the columns of truth, D×d): there each class has its
// own mean; the other D−d directions hold noise with a larger variance than
// the class structure, so that PCA prefers the noise.
func subspaceData(rng *rand.Rand, classes, perClass, frames, D, d int, noise float64) (sets []*mat.Dense, labels []int, truth *mat.Dense) {
	q := grassmanntest.RandomPoint(rng, D, D)
	truth = mat.DenseCopyOf(q.Slice(0, D, 0, d))
	for c := range classes {
		// Class means: evenly on a circle of radius 4 when d = 2 (so that
		// every direction of the subspace matters), random otherwise.
		mu := make([]float64, d)
		for j := range mu {
			mu[j] = 3 * rng.NormFloat64()
		}
		if d == 2 {
			a := 2 * math.Pi * float64(c) / float64(classes)
			mu[0], mu[1] = 4*math.Cos(a), 4*math.Sin(a)
		}
		for range perClass {
			z := mat.NewDense(frames, D, nil)
			for i := range frames {
				for j := range D {
					if j < d {
						z.Set(i, j, mu[j]+0.5*rng.NormFloat64())
					} else {
						z.Set(i, j, noise*rng.NormFloat64())
					}
				}
			}
			x := new(mat.Dense)
			x.Mul(z, q.T())
			sets = append(sets, x)
			labels = append(labels, c)
		}
	}
	return sets, labels, truth
}

func TestTrainRecoversSubspace(t *testing.T) {
	for _, meas := range []match.Measure{match.Hellinger, match.Jeffrey} {
		rng := rand.New(rand.NewPCG(42, uint64(meas)))
		const D, d = 12, 2
		sets, labels, truth := subspaceData(rng, 6, 3, 40, D, d, 4)
		var progress []IterStats
		res, err := Train(sets, labels, TrainOptions{Dim: d, Divergence: meas, MaxIter: 200, Workers: 2,
			Progress: func(s IterStats) { progress = append(progress, s) }})
		if err != nil {
			t.Fatal(err)
		}
		before, _ := grassmann.PrincipalAngles(res.InitialW, truth)
		after, _ := grassmann.PrincipalAngles(res.W, truth)
		deg := 180 / math.Pi
		t.Logf("%v: %d iterations (%s), cost %.4g -> %.4g, largest angle %.1f° -> %.2f°",
			meas, res.Iterations, res.Stop, res.InitialCost, res.FinalCost, before[d-1]*deg, after[d-1]*deg)
		if before[d-1]*deg < 45 {
			t.Errorf("%v: the PCA start is already close to the truth (%.1f°): the test data are too easy", meas, before[d-1]*deg)
		}
		if after[d-1]*deg > 10 {
			t.Errorf("%v: largest principal angle to the true subspace %.1f°, want < 10°", meas, after[d-1]*deg)
		}
		grassmanntest.CheckMonotone(t, res.History)
		if len(progress) != len(res.History) || progress[0].Iteration != 0 {
			t.Errorf("progress called %d times for %d history entries", len(progress), len(res.History))
		}
		if len(res.Projected) != len(sets) || len(res.Bandwidths) != len(sets) {
			t.Errorf("%d projected sets, %d bandwidths for %d sets", len(res.Projected), len(res.Bandwidths), len(sets))
		}
		if e := orthoError(res.W); e > 1e-12 {
			t.Errorf("|WᵀW − I| = %g", e)
		}
	}
}

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
		a0, _ := grassmann.PrincipalAngles(res.InitialW, basis)
		a, _ := grassmann.PrincipalAngles(res.W, basis)
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

func TestTrainDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	sets, labels, _ := subspaceData(rng, 3, 2, 15, 8, 2, 2)
	opt := TrainOptions{Dim: 2, MaxIter: 5}
	opt.Workers = 1
	a, err := Train(sets, labels, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Workers = 3
	b, err := Train(sets, labels, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(a.W, b.W) || a.FinalCost != b.FinalCost {
		t.Error("training with 1 and 3 workers gives different results")
	}
}

func TestTrainRoundsRefreshBandwidths(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	sets, labels, _ := subspaceData(rng, 3, 2, 15, 8, 2, 2)
	res, err := Train(sets, labels, TrainOptions{Dim: 2, MaxIter: 10, Rounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range res.Bandwidths {
		want, _ := match.BandwidthRule{Kind: match.NearestNeighbour}.Bandwidth(res.Projected[i])
		if math.Abs(h-want) > 1e-12*want {
			t.Errorf("set %d: bandwidth %v, the default (nearest-neighbour) rule on the projection gives %v", i, h, want)
		}
	}
	for i := 1; i < len(res.History); i++ {
		if res.History[i].Iteration != i {
			t.Errorf("history entry %d numbered %d", i, res.History[i].Iteration)
		}
	}
	// The initial cost is the first run's, at the start: not the second
	// run's under its new bandwidths.
	if res.InitialCost != res.History[0].Cost {
		t.Errorf("initial cost %v, want the cost at the start of the first run %v", res.InitialCost, res.History[0].Cost)
	}
}

// TestTrainNeighbourDefaults: ν_w defaults to the smallest class's sets
// less one (DefaultNuW) and ν_b to ν_w; given ones are kept. The pairs
// are the affinity of the initial divergences with them.
func TestTrainNeighbourDefaults(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	sets, labels, _ := subspaceData(rng, 3, 3, 10, 6, 2, 1)
	for _, c := range []struct{ nuW, nuB, wantW, wantB int }{
		{0, 0, 2, 2},
		{1, 0, 1, 1},
		{1, 2, 1, 2},
	} {
		res, err := Train(sets, labels, TrainOptions{Dim: 2, MaxIter: 1, NuW: c.nuW, NuB: c.nuB})
		if err != nil {
			t.Fatal(err)
		}
		if res.NuW != c.wantW || res.NuB != c.wantB {
			t.Errorf("ν_w = %d, ν_b = %d given: got %d, %d, want %d, %d", c.nuW, c.nuB, res.NuW, res.NuB, c.wantW, c.wantB)
		}
		want, err := Affinity(res.InitialDivergences, labels, c.wantW, c.wantB)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Pairs, want) {
			t.Errorf("ν_w = %d, ν_b = %d given: pairs %v, want %v", c.nuW, c.nuB, res.Pairs, want)
		}
	}
}

func TestTrainRejectsBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	sets, labels, _ := subspaceData(rng, 2, 2, 10, 6, 2, 1)
	if _, err := Train(sets, labels[:3], TrainOptions{Dim: 2}); err == nil {
		t.Error("label count: no error")
	}
	if _, err := Train(sets, labels, TrainOptions{Dim: 0}); err == nil {
		t.Error("d = 0: no error")
	}
	if _, err := Train(sets, []int{0, 1, 2, 3}, TrainOptions{Dim: 2}); err == nil {
		t.Error("no class with two sets: no error")
	}
	one := []*mat.Dense{mat.NewDense(1, 6, nil), sets[1]}
	if _, err := Train(one, []int{0, 0}, TrainOptions{Dim: 2}); err == nil {
		t.Error("set with one frame and a rule of thumb: no error")
	}
}

// benchWorkload returns the reference workload of issue 3: 47 classes × 3
// sets × 100 frames in D = 400, with class structure in 20 directions.
func benchWorkload(b *testing.B) ([]*mat.Dense, []int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 47))
	sets, labels, _ := subspaceData(rng, 47, 3, 100, 400, 20, 1.5)
	return sets, labels
}

// BenchmarkCostGrad times one evaluation of the cost and its gradient on the
// reference workload (what each CG iteration needs once, plus one or more
// cost-only evaluations in the line search), at the W of the evaluation
// before, as an iteration evaluates it at the point its line search
// accepted (XW kept).
func BenchmarkCostGrad(b *testing.B) {
	sets, labels := benchWorkload(b)
	c, w := benchCost(b, sets, labels)
	g := mat.NewDense(400, 20, nil)
	cpu := cpuSeconds()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Eval(w, g); err != nil {
			b.Fatal(err)
		}
	}
	reportCost(b, c, cpu)
}

// reportCost reports the number of pairs and the CPU seconds per operation
// (user + system, all threads), a figure less sensitive than wall time to
// other load on a shared machine.
func reportCost(b *testing.B, c *Cost, cpu0 float64) {
	b.ReportMetric(float64(len(c.Pairs())), "pairs")
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// cpuSeconds returns the CPU time of the process so far, in seconds.
func cpuSeconds() float64 { return testutil.CPUTime().Seconds() }

// BenchmarkCost times a cost-only evaluation (one line-search trial): at
// a new W each time, two points taken in turn, as the cost keeps XW of
// the W it was last evaluated at.
func BenchmarkCost(b *testing.B) {
	sets, labels := benchWorkload(b)
	c, w := benchCost(b, sets, labels)
	w2 := grassmann.Retract(w, grassmanntest.RandomPoint(rand.New(rand.NewPCG(2, 47)), 400, 20), 0.01)
	ws := []*mat.Dense{w, w2}
	cpu := cpuSeconds()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if _, err := c.Eval(ws[i%2], nil); err != nil {
			b.Fatal(err)
		}
		i++
	}
	reportCost(b, c, cpu)
}

func benchCost(b *testing.B, sets []*mat.Dense, labels []int) (*Cost, *mat.Dense) {
	w, mean, err := PCABasis(sets, 20, 1)
	if err != nil {
		b.Fatal(err)
	}
	centred := make([]*mat.Dense, len(sets))
	for i, s := range sets {
		centred[i] = mat.DenseCopyOf(s)
		stats.SubtractFrame(centred[i], mean)
	}
	h, y, err := projectAndBandwidths(centred, w, match.BandwidthRule{Kind: match.Scott})
	if err != nil {
		b.Fatal(err)
	}
	div, err := match.DivergenceMatrix(y, h, match.Hellinger, 0)
	if err != nil {
		b.Fatal(err)
	}
	pairs, err := Affinity(div, labels, DefaultNuW(labels), DefaultNuW(labels))
	if err != nil {
		b.Fatal(err)
	}
	c, err := NewCost(centred, pairs, h, match.Hellinger, 20, 0)
	if err != nil {
		b.Fatal(err)
	}
	return c, w
}

// BenchmarkTrain times a whole training run (PCA, affinity, CG) on the
// reference workload, capped at 25 iterations as in the paper.
func BenchmarkTrain(b *testing.B) {
	sets, labels := benchWorkload(b)
	b.ResetTimer()
	for b.Loop() {
		res, err := Train(sets, labels, TrainOptions{Dim: 20, MaxIter: 25})
		if err != nil {
			b.Fatal(err)
		}
		var it float64
		for _, s := range res.History[1:] {
			it += s.Seconds
		}
		b.ReportMetric(float64(res.Iterations), "iterations")
		if res.Iterations > 0 {
			b.ReportMetric(it/float64(res.Iterations), "s/iteration")
		}
	}
}

// BenchmarkTrainFold times one training of W of the shape the nested -dr
// cross-validation of setmatch train runs most on its reference workload
// (docs/PERFORMANCE.md, "Training that scales"): 100 classes × 2 frame
// halves of 9 frames in D = 944, d = 10, one global training bandwidth
// and at most 10 iterations (the fold's cap, method.Grid.DRFoldIter),
// from the PCA start, computed once before the timer as the folds'
// candidates share it (PCACache), for W alone (WAlone) as the -dr
// methods' learner (deploy.DRLearner) learns.
func BenchmarkTrainFold(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 100))
	sets, labels, _ := subspaceData(rng, 100, 2, 9, 944, 10, 1.5)
	starts := new(PCACache)
	if _, _, err := starts.Basis(sets, 10, 1); err != nil {
		b.Fatal(err)
	}
	cpu := cpuSeconds()
	b.ResetTimer()
	for b.Loop() {
		res, err := Train(sets, labels, TrainOptions{Dim: 10, MaxIter: 10, GlobalScale: 1, NuW: 1, NuB: 1, Start: starts.Basis, WAlone: true})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Iterations), "iterations")
	}
	b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
}

func TestTrainRefusesOneClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	sets := make([]*mat.Dense, 3)
	for i := range sets {
		sets[i] = randomSets(rng, 1, 10, 10, 5)[0]
	}
	_, err := Train(sets, []int{0, 0, 0}, TrainOptions{Dim: 2, MaxIter: 3})
	if err == nil || !strings.Contains(err.Error(), "two classes") {
		t.Errorf("one class: err = %v, want a between-class error", err)
	}
}

// TestFrozenSetBandwidth: a training set whose frames are all the same (a
// frozen camera's) takes the median of the other sets' bandwidths when W is
// learned, as the method engine's bandwidths give it the global base; the
// per-set rule failed on it and nn-h-dr could not train while nn-h could.
// Where every set is such a set, no bandwidth can be derived.
func TestFrozenSetBandwidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sets := []*mat.Dense{testutil.RandSet(rng, 12, 4, 0, 1), testutil.RandSet(rng, 12, 4, 1, 2), mat.NewDense(12, 4, nil), testutil.RandSet(rng, 12, 4, 2, 3)}
	w := mat.NewDense(4, 2, []float64{1, 0, 0, 1, 0, 0, 0, 0})
	rule := match.BandwidthRule{Kind: match.NearestNeighbour}
	h, _, err := projectAndBandwidths(sets, w, rule)
	if err != nil {
		t.Fatal(err)
	}
	var others []float64
	for i, s := range sets {
		if i == 2 {
			continue
		}
		var y mat.Dense
		y.Mul(s, w)
		v, err := rule.Bandwidth(&y)
		if err != nil {
			t.Fatal(err)
		}
		if h[i] != v {
			t.Errorf("set %d: bandwidth %v, want its own %v", i, h[i], v)
		}
		others = append(others, v)
	}
	if want := stats.Median(others); h[2] != want {
		t.Errorf("the frozen set's bandwidth %v, want the others' median %v", h[2], want)
	}
	if _, _, err := projectAndBandwidths([]*mat.Dense{mat.NewDense(3, 4, nil), mat.NewDense(3, 4, nil)}, w, rule); !errors.Is(err, match.ErrNoSpread) {
		t.Errorf("every set frozen: %v, want match.ErrNoSpread", err)
	}
}

// TestTrainWAlone: a training for W alone (TrainOptions.WAlone, as the
// -dr methods learn) gives the W, mean and cost of one without it, bit
// for bit, with a warm start (two CG runs) stopped by the iteration cap
// and a run stopped by the cost's change, and no projected sets.
func TestTrainWAlone(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	sets, labels, _ := subspaceData(rng, 4, 3, 12, 10, 2, 1)
	for _, opt := range []TrainOptions{
		{Dim: 3, MaxIter: 6, GlobalScale: 0.25},
		{Dim: 2, MaxIter: 200, CostRelTol: 1e-3},
	} {
		ref, err := Train(sets, labels, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.WAlone = true
		res, err := Train(sets, labels, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !sameBits(res.W, ref.W) || !slices.Equal(res.Mean, ref.Mean) || res.FinalCost != ref.FinalCost || res.Iterations != ref.Iterations {
			t.Errorf("%+v: W, mean, cost %v or %d iterations differ from %v, %d", opt, res.FinalCost, res.Iterations, ref.FinalCost, ref.Iterations)
		}
		if res.Projected != nil || res.Bandwidths != nil || len(ref.Projected) != len(sets) {
			t.Errorf("%+v: %d sets projected for W alone, %d without it, want none and %d", opt, len(res.Projected), len(ref.Projected), len(sets))
		}
	}
}

// TestTrainRefusesFramesTooLarge: frames whose squared norms overflow
// (values around 1e154) have projections whose squared distances are not
// numbers (kde.SqDist's NaN) wherever W turns towards them, even where
// the start's projections are small: Train refuses them before it learns
// W, naming the set, the frame and what to do, where it returned the
// start as W ("line search found no decrease") with no error.
func TestTrainRefusesFramesTooLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	sets, labels, _ := subspaceData(rng, 2, 2, 10, 6, 2, 1)
	for _, s := range sets {
		for i := range 10 {
			for j := 2; j < 6; j++ {
				s.Set(i, j, 1e154*rng.NormFloat64())
			}
		}
	}
	// The start spans the first two features, where the frames are small.
	start := func(sets []*mat.Dense, d int, _ int64) (*mat.Dense, []float64, error) {
		w := mat.NewDense(6, d, nil)
		for i := range d {
			w.Set(i, i, 1)
		}
		return w, make([]float64, 6), nil
	}
	res, err := Train(sets, labels, TrainOptions{Dim: 2, MaxIter: 20, Start: start})
	var se *SetError
	if !errors.As(err, &se) || se.Set != 0 || !errors.Is(err, match.ErrTooLarge) || !strings.Contains(err.Error(), "frame 0") || !strings.Contains(err.Error(), "scale the features down") {
		if err == nil {
			t.Fatalf("Train: no error; stop %q after %d iterations", res.Stop, res.Iterations)
		}
		t.Fatalf("Train: %v, want set 0's frame 0 too large, and what to do", err)
	}
}

// TestTrainPCAStartFramesTooLarge: frames of values around 1e154 make the
// scatter of the PCA start overflow: Train refuses them saying so and what
// to do, where it said only that the eigenvalues did not converge.
func TestTrainPCAStartFramesTooLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	sets, labels, _ := subspaceData(rng, 2, 2, 10, 6, 2, 1)
	for _, s := range sets {
		s.Scale(1e154, s)
	}
	_, err := Train(sets, labels, TrainOptions{Dim: 2, MaxIter: 20})
	if err == nil || !strings.Contains(err.Error(), "too large for a covariance or subspace") || !strings.Contains(err.Error(), "scale the features down") {
		t.Fatalf("Train: %v, want the values too large for the PCA, and what to do", err)
	}
}
