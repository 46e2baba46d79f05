package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/match"
)

// mfBatch returns a raw n×D batch whose projection lies near the sets of
// class shift/3 of mfModel (gallery sets are shifted by 3 per class in the
// projected space).
func mfBatch(rng *rand.Rand, m *Model, n int, shift float64) *mat.Dense {
	return rawBatch(m, testutil.RandSet(rng, n, m.Dim(), shift, 1))
}

// rawBatch returns the raw n×D batch whose projection by m is the n×d y:
// W y plus the model's mean frame.
func rawBatch(m *Model, y *mat.Dense) *mat.Dense {
	n, _ := y.Dims()
	x := mat.NewDense(n, m.InputDim(), nil)
	if m.Identity {
		x.Copy(y)
	} else {
		x.Mul(y, m.W.T()) // W y lies in the span of W; W ᵀ W y = y
	}
	for i := range n {
		row := x.RawRowView(i)
		for j := range row {
			row[j] += m.Mean[j]
		}
	}
	return x
}

func TestMatchEqualsCompareByHand(t *testing.T) {
	for _, div := range []match.Measure{match.Hellinger, match.Jeffrey} {
		m := mfModel(11, 10, 3, []int{6, 8, 5, 7, 9, 4})
		m.Divergence = div
		mt := mustMatcher(t, m)
		rng := rand.New(rand.NewPCG(3, 4))
		batch := mfBatch(rng, m, 12, 3) // near class "b"
		res, err := mt.Match(batch)
		if err != nil {
			t.Fatal(err)
		}

		// The same computation written out: centre, project, Scott rule,
		// match.Compare with every gallery set.
		n, bigD := batch.Dims()
		c := mat.NewDense(n, bigD, nil)
		for i := range n {
			for j := range bigD {
				c.Set(i, j, batch.At(i, j)-m.Mean[j])
			}
		}
		var p mat.Dense
		p.Mul(c, m.W)
		h, err := match.BandwidthRule{Kind: match.Scott}.Bandwidth(&p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := match.NewKDE(&p, h)
		if err != nil {
			t.Fatal(err)
		}
		if res.Frames != 12 || math.Abs(res.Bandwidth-h) > 1e-12*h {
			t.Errorf("frames %d bandwidth %v, want 12 and %v", res.Frames, res.Bandwidth, h)
		}
		if len(res.Divergences) != len(m.Sets) {
			t.Fatalf("%d divergences for %d sets", len(res.Divergences), len(m.Sets))
		}
		best, bestScore := -1, math.Inf(1)
		for k, s := range m.Sets {
			g, err := match.NewKDE(s.Samples, s.Bandwidth)
			if err != nil {
				t.Fatal(err)
			}
			want, err := match.Compare(g, q)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Divergences[k]
			if math.Abs(got.Hellinger2-want.Hellinger2) > 1e-9 || math.Abs(got.Jeffrey-want.Jeffrey) > 1e-9*(1+want.Jeffrey) {
				t.Errorf("%v set %d: %+v, want %+v", div, k, got, want)
			}
			if v := want.Of(div); v < bestScore {
				best, bestScore = k, v
			}
		}
		d := res.Decision
		if d.Best != best || !d.Known || d.Label != m.Sets[best].Label {
			t.Errorf("%v: decision %+v, want set %d (%s) known", div, d, best, m.Sets[best].Label)
		}
		if d.Label != "b" {
			t.Errorf("%v: label %q, want b (the batch was drawn near class b)", div, d.Label)
		}
		if d.RunnerUp < 0 || m.Sets[d.RunnerUp].Label == d.Label || d.RunnerScore < d.Score {
			t.Errorf("%v: runner-up %+v", div, d)
		}
	}
}

func TestMatchOpenSet(t *testing.T) {
	m := mfModel(12, 10, 3, []int{6, 8, 5})
	rng := rand.New(rand.NewPCG(5, 6))
	batch := mfBatch(rng, m, 10, 30) // far from every class
	closed := mustMatcher(t, m)
	rc, err := closed.Match(batch)
	if err != nil {
		t.Fatal(err)
	}
	if !rc.Decision.Known || rc.Decision.Label == "" {
		t.Errorf("closed set (threshold +Inf) must always decide a label: %+v", rc.Decision)
	}
	m.Threshold = rc.Decision.Score / 2
	open := mustMatcher(t, m)
	ro, err := open.Match(batch)
	if err != nil {
		t.Fatal(err)
	}
	if ro.Decision.Known || ro.Decision.Label != "" || ro.Decision.Best != rc.Decision.Best {
		t.Errorf("open set: %+v, want unknown with the same nearest set %d", ro.Decision, rc.Decision.Best)
	}
	// A batch near a class is within a threshold set between the two.
	near := mfBatch(rng, m, 10, 0)
	rn, err := open.Match(near)
	if err != nil {
		t.Fatal(err)
	}
	if rn.Decision.Score > m.Threshold {
		t.Fatalf("near batch scored %v above threshold %v: the seeded data no longer puts it between the classes", rn.Decision.Score, m.Threshold)
	}
	if !rn.Decision.Known || rn.Decision.Label != "a" {
		t.Errorf("near batch: %+v, want known label a", rn.Decision)
	}
}

func TestMatchErrors(t *testing.T) {
	m := mfModel(13, 10, 3, []int{6, 8})
	mt := mustMatcher(t, m)
	if _, err := mt.Match(mat.NewDense(5, 9, nil)); err == nil || err.Error() != "batch has 9 features, model expects 10" {
		t.Errorf("width: %v", err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	if _, err := mt.Match(mfBatch(rng, m, 1, 0)); err == nil {
		t.Error("1-frame batch with the Scott rule: no error")
	}
	// A fixed query bandwidth handles a single frame.
	m.QueryBandwidth = match.BandwidthRule{Kind: match.Fixed, Fixed: 0.7}
	mt = mustMatcher(t, m)
	r, err := mt.Match(mfBatch(rng, m, 1, 0))
	if err != nil || r.Bandwidth != 0.7 || r.Frames != 1 {
		t.Errorf("fixed bandwidth, 1 frame: %+v, %v", r, err)
	}
	m.Sets = nil
	if _, err := m.NewMatcher(); err == nil {
		t.Error("invalid model: NewMatcher did not fail")
	}
}

// TestMatchSpreadBelowMeansRounding: a batch whose frames differ by far
// less than the rounding of the model's mean frame (features of another
// scale than the model's) is every frame the same once the mean is taken
// from it; the error says so, not that the camera is frozen, which it
// says of a batch whose frames are the same to begin with.
func TestMatchSpreadBelowMeansRounding(t *testing.T) {
	m := mfModel(17, 10, 3, []int{6, 8})
	mt := mustMatcher(t, m)
	rng := rand.New(rand.NewPCG(5, 6))
	tiny := mat.NewDense(5, 10, nil)
	for i := range 5 {
		for j := range 10 {
			tiny.Set(i, j, 1e-300*rng.NormFloat64())
		}
	}
	_, err := mt.Match(tiny)
	if err == nil || !strings.Contains(err.Error(), "the batch's frames differ (by up to") || !strings.Contains(err.Error(), "not on the scale of the features the model was trained on") || errors.Is(err, match.ErrNoSpread) {
		t.Errorf("frames of 1e-300 against a mean frame of values about 1: %v", err)
	}
	frozen := mat.NewDense(5, 10, nil)
	for i := range 5 {
		frozen.SetRow(i, tiny.RawRowView(0))
	}
	if _, err := mt.Match(frozen); !errors.Is(err, match.ErrNoSpread) {
		t.Errorf("the same frame five times: %v, want %v", err, match.ErrNoSpread)
	}
}

// TestMatchConcurrent runs Match from several goroutines (meaningful under
// -race) and checks every result equals the sequential one.
func TestMatchConcurrent(t *testing.T) {
	m := mfModel(14, 12, 4, []int{9, 7, 8, 6, 10, 5})
	mt, err := m.NewMatcherWorkers(2)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	batches := make([]*mat.Dense, 8)
	want := make([]Result, len(batches))
	for i := range batches {
		batches[i] = mfBatch(rng, m, 6+i, 3*float64(i%3))
		if want[i], err = mt.Match(batches[i]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 3 * len(batches) {
				i := (k + g) % len(batches)
				r, err := mt.Match(batches[i])
				if err != nil {
					errs <- err.Error()
					return
				}
				if r.Decision != want[i].Decision || r.Bandwidth != want[i].Bandwidth {
					errs <- "result differs from the sequential one"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func BenchmarkMatch(b *testing.B) {
	sizes := make([]int, 100)
	for i := range sizes {
		sizes[i] = 100
	}
	m := mfModel(15, 400, 20, sizes)
	mt, err := m.NewMatcher()
	if err != nil {
		b.Fatal(err)
	}
	batch := mfBatch(rand.New(rand.NewPCG(1, 2)), m, 100, 0)
	for b.Loop() {
		if _, err := mt.Match(batch); err != nil {
			b.Fatal(err)
		}
	}
}

// WithThreshold overrides the model's threshold in a matcher that shares the
// gallery, and leaves the original matcher deciding with the model's.
func TestMatcherWithThreshold(t *testing.T) {
	m := mfModel(16, 10, 3, []int{6, 8, 5})
	rng := rand.New(rand.NewPCG(7, 8))
	batch := mfBatch(rng, m, 10, 30)
	closed := mustMatcher(t, m)
	if !math.IsInf(closed.Threshold(), 1) {
		t.Fatalf("matcher threshold %v, want the model's +Inf", closed.Threshold())
	}
	rc, err := closed.Match(batch)
	if err != nil {
		t.Fatal(err)
	}
	open, err := closed.WithThreshold(rc.Decision.Score / 2)
	if err != nil {
		t.Fatal(err)
	}
	if open.Threshold() != rc.Decision.Score/2 || open.Model() != m {
		t.Errorf("threshold %v, model %p; want %v, %p", open.Threshold(), open.Model(), rc.Decision.Score/2, m)
	}
	ro, err := open.Match(batch)
	if err != nil {
		t.Fatal(err)
	}
	if ro.Decision.Known || ro.Decision.Label != "" || ro.Decision.Best != rc.Decision.Best || ro.Decision.Score != rc.Decision.Score {
		t.Errorf("with threshold %v: %+v; closed: %+v", open.Threshold(), ro.Decision, rc.Decision)
	}
	if again, err := closed.Match(batch); err != nil || !again.Decision.Known {
		t.Errorf("the original matcher changed: %+v, %v", again.Decision, err)
	}
	// As a model's threshold (Validate): NaN and numbers below 0 are
	// refused, 0 is taken.
	for _, bad := range []float64{math.NaN(), -0.5, math.Inf(-1)} {
		if _, err := closed.WithThreshold(bad); err == nil {
			t.Errorf("threshold %v accepted", bad)
		}
	}
	if _, err := closed.WithThreshold(0); err != nil {
		t.Errorf("threshold 0: %v", err)
	}
}

// TestMatchRepeatedFrames checks that a batch whose every frame is
// repeated (a camera or a frame-rate conversion that doubles frames) is
// matched as the batch itself under the nn rule: the same density, so the
// same bandwidth, divergences and decision. Before, the rule gave h = 0
// and the batch failed.
func TestMatchRepeatedFrames(t *testing.T) {
	m := mfModel(14, 10, 3, []int{6, 8, 5})
	m.QueryBandwidth = match.BandwidthRule{Kind: match.NearestNeighbour}
	mt := mustMatcher(t, m)
	rng := rand.New(rand.NewPCG(7, 8))
	batch := mfBatch(rng, m, 9, 3)
	n, bigD := batch.Dims()
	twice := mat.NewDense(2*n, bigD, nil)
	for i := range n {
		twice.SetRow(2*i, batch.RawRowView(i))
		twice.SetRow(2*i+1, batch.RawRowView(i))
	}
	a, err := mt.Match(batch)
	if err != nil {
		t.Fatal(err)
	}
	b, err := mt.Match(twice)
	if err != nil {
		t.Fatalf("batch of doubled frames: %v", err)
	}
	if math.Abs(a.Bandwidth-b.Bandwidth) > 1e-12*a.Bandwidth {
		t.Errorf("bandwidth %v, doubled %v", a.Bandwidth, b.Bandwidth)
	}
	for k := range a.Divergences {
		x, y := a.Divergences[k], b.Divergences[k]
		if math.Abs(x.Hellinger2-y.Hellinger2) > 1e-9 || math.Abs(x.Jeffrey-y.Jeffrey) > 1e-9*(1+x.Jeffrey) {
			t.Errorf("set %d: %+v, doubled %+v", k, x, y)
		}
	}
	if a.Decision.Best != b.Decision.Best || a.Decision.Label != b.Decision.Label {
		t.Errorf("decision %+v, doubled %+v", a.Decision, b.Decision)
	}
	// One image repeated: an error that says so, not a zero bandwidth.
	still := mat.NewDense(5, bigD, nil)
	for i := range 5 {
		still.SetRow(i, batch.RawRowView(0))
	}
	if _, err := mt.Match(still); err == nil || !strings.Contains(err.Error(), "same image") {
		t.Errorf("a batch of one image repeated: err = %v, want one that says every frame is the same image", err)
	}
}

// TestMatchNoFiniteDivergence: a batch at no finite divergence from any
// gallery set (the Jeffrey divergence of kernels of the smallest
// bandwidth, with the batch so far from the gallery that every density of
// one set at the other's frames is 0) has no nearest set:
// Match fails with ErrNoDecision rather than deciding, whatever the
// threshold; under the Hellinger distance, bounded by 2, the same batch
// is decided.
func TestMatchNoFiniteDivergence(t *testing.T) {
	m := mfModel(17, 6, 2, []int{4, 5, 3})
	for i := range m.Sets {
		m.Sets[i].Bandwidth = match.MinBandwidth
	}
	m.QueryBandwidth = match.BandwidthRule{Kind: match.Fixed, Fixed: match.MinBandwidth}
	batch := mfBatch(rand.New(rand.NewPCG(9, 9)), m, 4, 1e5)
	for _, th := range []float64{math.Inf(1), 1} {
		m.Divergence, m.Threshold = match.Jeffrey, th
		mt := mustMatcher(t, m)
		if r, err := mt.Match(batch); !errors.Is(err, ErrNoDecision) {
			t.Errorf("Jeffrey, threshold %v: %+v, %v; want ErrNoDecision", th, r.Decision, err)
		}
		m.Divergence = match.Hellinger
		mt = mustMatcher(t, m)
		if r, err := mt.Match(batch); err != nil || r.Decision.Score != 2 || r.Decision.Known != math.IsInf(th, 1) {
			t.Errorf("Hellinger, threshold %v: %+v, %v; want a score of 2, known only in a closed set", th, r.Decision, err)
		}
	}
}
