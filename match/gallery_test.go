package match

import (
	"math"
	"math/rand/v2"
	"testing"

	"setmatch/internal/testutil"
)

func randGallery(t testing.TB, rng *rand.Rand, m, n, d int) []*KDE {
	sets := make([]*KDE, m)
	for k := range sets {
		nk := n
		if n > 3 {
			nk = n/2 + rng.IntN(n) // sets of different sizes
		}
		sets[k] = mustKDE(t, testutil.RandSet(rng, nk, d, rng.Float64()*2, 0.5+rng.Float64()), 0.3+rng.Float64())
	}
	return sets
}

// halfAtBandwidth returns sets with every other one (0, 2, …) estimated
// again at bandwidth h.
func halfAtBandwidth(t testing.TB, sets []*KDE, h float64) []*KDE {
	for k := range sets {
		if k%2 == 0 {
			sets[k] = mustKDE(t, sets[k].Samples(), h)
		}
	}
	return sets
}

func TestGalleryEqualsPairwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, c := range []struct{ m, n, d, workers int }{
		{1, 5, 1, 0}, {7, 12, 3, 1}, {40, 20, 8, 3}, {25, 30, 64, 0}, {9, 10, 400, 2},
	} {
		sets := randGallery(t, rng, c.m, c.n, c.d)
		g, err := NewGallery(sets)
		if err != nil {
			t.Fatal(err)
		}
		g.Workers = c.workers
		q := mustKDE(t, testutil.RandSet(rng, 3+rng.IntN(30), c.d, 1, 1), 0.8)
		got, err := g.Compare(q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != c.m {
			t.Fatalf("got %d results for %d sets", len(got), c.m)
		}
		for k, s := range sets {
			want, err := Compare(s, q)
			if err != nil {
				t.Fatal(err)
			}
			if !close(got[k].Hellinger2, want.Hellinger2, 1e-9, 1e-12) ||
				!close(got[k].Jeffrey, want.Jeffrey, 1e-9, 1e-12) ||
				!close(got[k].Bhattacharyya, want.Bhattacharyya, 1e-9, 1e-12) {
				t.Errorf("m=%d d=%d set %d: gallery %+v, pairwise %+v", c.m, c.d, k, got[k], want)
			}
		}
	}
}

func TestGalleryFarApartAndHighDim(t *testing.T) {
	// Sets far apart in 400 dimensions: every density underflows in the
	// linear domain; the log domain must give finite values, H2 = 2 and a
	// huge J.
	rng := rand.New(rand.NewPCG(23, 24))
	a := testutil.RandSet(rng, 20, 400, 0, 1)
	b := testutil.RandSet(rng, 15, 400, 50, 1)
	d := galleryCompare(t, []*KDE{mustKDE(t, a, 1)}, mustKDE(t, b, 1))[0]
	if d.Hellinger2 != 2 || math.IsInf(d.Jeffrey, 0) || math.IsNaN(d.Jeffrey) || d.Jeffrey < 1e5 {
		t.Errorf("far apart: %+v, want H2 = 2 and a huge finite J", d)
	}
}

func TestGalleryErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	if _, err := NewGallery(nil); err == nil {
		t.Error("empty gallery accepted")
	}
	if _, err := NewGallery([]*KDE{mustKDE(t, testutil.RandSet(rng, 3, 2, 0, 1), 1), mustKDE(t, testutil.RandSet(rng, 3, 3, 0, 1), 1)}); err == nil {
		t.Error("gallery with mixed dimensions accepted")
	}
	g, _ := NewGallery([]*KDE{mustKDE(t, testutil.RandSet(rng, 3, 2, 0, 1), 1)})
	if _, err := g.Compare(mustKDE(t, testutil.RandSet(rng, 3, 5, 0, 1), 1), nil); err == nil {
		t.Error("query of another dimension accepted")
	}
}

func TestNearest(t *testing.T) {
	div := []Divergences{
		{Hellinger2: 0.9, Jeffrey: 5},
		{Hellinger2: 0.2, Jeffrey: 9},
		{Hellinger2: 0.3, Jeffrey: 1},
		{Hellinger2: 0.25, Jeffrey: 2},
	}
	labels := []string{"a", "b", "b", "c"}
	d := Nearest(div, labels, Hellinger, math.Inf(1))
	if d.Best != 1 || d.Label != "b" || !d.Known || d.RunnerUp != 3 || d.RunnerLabel != "c" || d.RunnerScore != 0.25 {
		t.Errorf("Hellinger decision = %+v", d)
	}
	d = Nearest(div, labels, Jeffrey, 0.5)
	if d.Best != 2 || d.Known || d.Label != "" || d.Score != 1 || d.RunnerLabel != "c" {
		t.Errorf("Jeffrey open-set decision = %+v", d)
	}
	d = Nearest(div[:1], labels[:1], Jeffrey, math.Inf(1))
	if d.RunnerUp != -1 || !math.IsInf(d.RunnerScore, 1) {
		t.Errorf("single-set decision = %+v", d)
	}
}

// TestNearestTiesAndThreshold: a score equal to the threshold is let in
// (Score ≤ threshold) and the next number below the score is not, and of
// equal scores the first set is the nearest, and the first of another
// label the runner-up.
func TestNearestTiesAndThreshold(t *testing.T) {
	score := []float64{0.5, 0.3, 0.4, 0.3, 0.4}
	labels := []string{"a", "b", "c", "b", "d"}
	for _, c := range []struct {
		threshold float64
		known     bool
	}{
		{0.3, true},
		{math.Nextafter(0.3, 0), false},
		{math.Inf(1), true},
		{0, false},
	} {
		d := NearestScores(score, labels, c.threshold)
		if d.Best != 1 || d.Score != 0.3 || d.RunnerUp != 2 || d.RunnerLabel != "c" || d.RunnerScore != 0.4 {
			t.Errorf("threshold %v: %+v, want set 1 (b, 0.3) nearest and set 2 (c, 0.4) the runner-up", c.threshold, d)
		}
		if want := map[bool]string{true: "b", false: ""}[c.known]; d.Known != c.known || d.Label != want {
			t.Errorf("threshold %v: known %v, label %q; want %v, %q", c.threshold, d.Known, d.Label, c.known, want)
		}
	}
}

// TestNearestNaNNeverWins: a NaN score is never the nearest nor the
// runner-up, wherever it stands, and with only NaN scores there is no
// nearest set, so nothing is known even in a closed set.
func TestNearestNaNNeverWins(t *testing.T) {
	labels := []string{"a", "b", "c", "d"}
	nan := math.NaN()
	for _, score := range [][]float64{{0.3, nan, 0.5, nan}, {nan, 0.3, nan, 0.5}} {
		d := NearestScores(score, labels, math.Inf(1))
		best, runner := 0, 2
		if math.IsNaN(score[0]) {
			best, runner = 1, 3
		}
		if d.Best != best || d.Score != 0.3 || d.RunnerUp != runner || d.RunnerScore != 0.5 || !d.Known {
			t.Errorf("scores %v: %+v, want set %d nearest and set %d the runner-up", score, d, best, runner)
		}
	}
	if d := NearestScores([]float64{nan, nan}, labels[:2], math.Inf(1)); d.Best != -1 || d.Known || d.Label != "" {
		t.Errorf("only NaN: %+v, want no nearest set", d)
	}
}

func TestGalleryMemoryIndependentOfSize(t *testing.T) {
	// Per-query allocations must not grow with the gallery: the scratch is
	// per worker and reused, and results go into the caller's slice.
	rng := rand.New(rand.NewPCG(27, 28))
	q := mustKDE(t, testutil.RandSet(rng, 20, 4, 0, 1), 1)
	var allocs []float64
	for _, m := range []int{16, 400} {
		g, err := NewGallery(randGallery(t, rng, m, 20, 4))
		if err != nil {
			t.Fatal(err)
		}
		g.Workers = 2
		dst := make([]Divergences, m)
		allocs = append(allocs, testing.AllocsPerRun(20, func() {
			if _, err := g.Compare(q, dst); err != nil {
				t.Fatal(err)
			}
		}))
	}
	if allocs[1] > allocs[0]+1 {
		t.Errorf("allocations per query grow with the gallery: %v for m = 16 and 400", allocs)
	}
}

// TestNearestGated: the label comes from the rank scores, acceptance from
// the gate scores of that label's sets.
func TestNearestGated(t *testing.T) {
	labels := []string{"a", "a", "b", "b", "c"}
	rank := []float64{0.5, 0.2, 0.3, 0.9, 0.4}
	gate := []float64{0.7, 0.9, 0.1, math.NaN(), 0.8}
	d := NearestGated(rank, gate, labels, 0.75)
	// Set 1 is nearest by rank (label a); a's best gate is set 0's 0.7.
	// The runner-up by rank is set 2 (b), whose label's best gate is 0.1
	// (NaN never wins).
	if d.Best != 1 || d.Score != 0.7 || !d.Known || d.Label != "a" || d.RunnerUp != 2 || d.RunnerLabel != "b" || d.RunnerScore != 0.1 {
		t.Errorf("decision %+v", d)
	}
	if d := NearestGated(rank, gate, labels, 0.6); d.Known || d.Label != "" || d.Best != 1 {
		t.Errorf("threshold 0.6: %+v", d)
	}
	if d := NearestGated([]float64{math.Inf(1)}, []float64{0}, []string{"a"}, 1); d.Best != -1 || d.Known {
		t.Errorf("no finite rank: %+v", d)
	}
}

// TestAccept: a decision made closed-set is accepted, or not, by a
// threshold given after it, as if it had been given to NearestScores.
func TestAccept(t *testing.T) {
	labels := []string{"a", "b", "a"}
	score := []float64{0.4, 0.2, 0.3}
	for _, th := range []float64{0.1, 0.2, 0.25, math.Inf(1)} {
		d := NearestScores(score, labels, math.Inf(1))
		d.Accept(labels, th)
		if want := NearestScores(score, labels, th); d != want {
			t.Errorf("threshold %v: accepted %+v, decided %+v", th, d, want)
		}
	}
	d := Decision{Best: -1, Score: math.Inf(1)}
	if d.Accept(labels, math.Inf(1)); d.Known || d.Label != "" {
		t.Errorf("no nearest set, accepted: %+v", d)
	}
}

// TestCompareMember: a gallery set against the gallery is Compare of it
// as a query, but for its own entry, which is zero, also in a dst reused
// from the set before.
func TestCompareMember(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	sets := randGallery(t, rng, 6, 15, 4)
	g, err := NewGallery(sets)
	if err != nil {
		t.Fatal(err)
	}
	// One dst for every set, as deploy's margins reuse it: the entry of
	// set i is zeroed, not left as the set before it wrote it.
	var got []Divergences
	for i, s := range sets {
		got, err = g.CompareMember(i, got)
		if err != nil {
			t.Fatal(err)
		}
		want, err := g.Compare(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k := range want {
			if k == i {
				if got[k] != (Divergences{}) {
					t.Errorf("set %d with itself: %+v, want 0", i, got[k])
				}
				continue
			}
			if got[k] != want[k] {
				t.Errorf("set %d, gallery set %d: %+v, Compare %+v", i, k, got[k], want[k])
			}
		}
	}
	if _, err := g.CompareMember(len(sets), nil); err == nil {
		t.Error("a set past the gallery's: no error")
	}
}
