package openset

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func known(score float64, right bool) Sample { return Sample{Score: score, Right: right} }
func stranger(score float64) Sample          { return Sample{Score: score, Stranger: true} }

func TestAt(t *testing.T) {
	s := []Sample{known(1, true), known(2, false), known(5, true), stranger(3), stranger(6)}
	r := At(s, 4)
	if r.Known != 3 || r.Strangers != 2 {
		t.Fatalf("counts %d %d", r.Known, r.Strangers)
	}
	// Let in: 1 (right), 2 (wrong), 3 (stranger); kept out: 5, 6.
	if r.KnownRight != 1.0/3 || r.KnownIn != 2.0/3 || r.StrangersOut != 0.5 {
		t.Fatalf("rates %+v", r)
	}
	if want := (1.0/3 + 0.5) / 2; math.Abs(r.Balanced-want) > 1e-15 {
		t.Fatalf("balanced %v, want %v", r.Balanced, want)
	}
	if r := At(s[:3], 4); !math.IsNaN(r.StrangersOut) || !math.IsNaN(r.Balanced) {
		t.Fatalf("no strangers: %+v", r)
	}
}

func TestAtDraws(t *testing.T) {
	drawn := func(score float64, right bool) Sample { return Sample{Score: score, Right: right, Draws: 2} }
	// Two samples of sets that met half the sets of their class that new
	// ones will: one let in of two stands for 1 − (1 − 1/2)² = 3/4.
	s := []Sample{drawn(1, true), drawn(3, true), stranger(4)}
	if r := At(s, 2); r.KnownRight != 0.75 || r.KnownIn != 0.75 || r.StrangersOut != 1 {
		t.Fatalf("rates %+v, want known 0.75, strangers out 1", r)
	}
	// Samples measured as they are (Draws 0) weigh by their number.
	s = append(s, known(1, true), known(5, true))
	if r := At(s, 2); r.KnownRight != 0.625 || r.Known != 4 {
		t.Fatalf("rates %+v, want known right (0.75+0.5)/2", r)
	}
	// Groups of unequal size weigh by their sets: one drawn sample, let in
	// (1), and three measured as they are, one of them let in (1/3).
	s = []Sample{drawn(1, true), known(1, true), known(3, true), known(5, true), stranger(4)}
	if r := At(s, 2); r.KnownRight != 0.5 || r.KnownIn != 0.5 || r.Known != 4 {
		t.Fatalf("rates %+v, want known right 1/4·1 + 3/4·1/3 = 1/2", r)
	}
	// A set named wrong is let in but not named right, with the same
	// correction.
	s = []Sample{drawn(1, false), drawn(3, true), stranger(4)}
	if r := At(s, 2); r.KnownRight != 0 || r.KnownIn != 0.75 {
		t.Fatalf("rates %+v, want known right 0, in 0.75", r)
	}
}

// TestDrawsPredictsMoreSets checks the correction against what it stands
// for: sets of a class whose scores to each set of it are alike; a held-out
// set meets n−1 of them, a new set n, and its score is the smallest.
func TestDrawsPredictsMoreSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const trials, n = 20000, 3
	nearest := func(k int) float64 {
		m := math.Inf(1)
		for range k {
			m = min(m, rng.ExpFloat64())
		}
		return m
	}
	var held, fresh []Sample
	for range trials {
		held = append(held, Sample{Score: nearest(n - 1), Right: true, Draws: float64(n) / (n - 1)})
		fresh = append(fresh, Sample{Score: nearest(n), Right: true})
	}
	for _, th := range []float64{0.05, 0.2, 0.5, 1} {
		got, want := At(held, th).KnownIn, At(fresh, th).KnownIn
		if math.Abs(got-want) > 0.015 {
			t.Errorf("threshold %v: held-out sets corrected give %.3f let in, new sets %.3f", th, got, want)
		}
		if raw := 1 - math.Exp(-(n-1)*th); math.Abs(raw-want) < 0.03 {
			t.Errorf("threshold %v: uncorrected %.3f is already near %.3f; the test does not tell the correction", th, raw, want)
		}
	}
}

func TestBalanceSeparable(t *testing.T) {
	s := []Sample{known(1, true), known(2, true), known(4, true), stranger(16), stranger(20)}
	r, err := Balance(s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Balanced != 1 {
		t.Fatalf("balanced %v, want 1", r.Balanced)
	}
	// The geometric middle of the gap [4, 16).
	if math.Abs(r.Threshold-8) > 1e-12 {
		t.Fatalf("threshold %v, want 8", r.Threshold)
	}
}

func TestBalanceOverlapMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var s []Sample
		for range 1 + rng.IntN(12) {
			x := known(float64(rng.IntN(20)), rng.IntN(4) > 0)
			x.Draws = []float64{0, 0, 1.5, 2}[rng.IntN(4)] // the rates read per value of Draws, as At reads them
			s = append(s, x)
		}
		for range 1 + rng.IntN(12) {
			s = append(s, stranger(float64(rng.IntN(20))+5))
		}
		r, err := Balance(s)
		if err != nil {
			t.Fatal(err)
		}
		// No threshold does better: try every score, between scores and
		// beyond them.
		best := math.Inf(-1)
		for t := -0.5; t < 40; t += 0.25 {
			best = math.Max(best, At(s, t).Balanced)
		}
		if math.Abs(best-r.Balanced) > 1e-12 {
			t.Fatalf("trial %d: Balance gives %v at %v, brute force %v", trial, r.Balanced, r.Threshold, best)
		}
		if got := At(s, r.Threshold); got != r {
			t.Fatalf("trial %d: rates %+v, At gives %+v", trial, r, got)
		}
	}
}

// TestInfiniteAndHugeScores: a score of +Inf (a set at no finite
// divergence from any of another class) or scores so large (small) that
// their product overflows (underflows) leave every threshold where its
// range's decisions are: the threshold of a range below a score of +Inf is finite, so it
// keeps that score out, and the rates returned are At's of the
// threshold returned.
func TestInfiniteAndHugeScores(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name     string
		s        []Sample
		balanced float64
	}{
		{"a stranger at +Inf", []Sample{known(1, true), known(2, true), stranger(inf)}, 1},
		{"a stranger at 0 and one at +Inf", []Sample{known(0, true), stranger(inf)}, 1},
		{"every score +Inf", []Sample{known(inf, true), stranger(inf)}, 0.5},
		{"huge scores", []Sample{known(1e200, true), stranger(1e250)}, 1},
		{"tiny scores", []Sample{known(1e-200, true), stranger(1e-170)}, 1},
	} {
		for what, f := range map[string]func([]Sample) (Rates, error){
			"Balance":   Balance,
			"Calibrate": Calibrate,
			"AtMost":    func(s []Sample) (Rates, error) { return AtMost(s, 0) },
		} {
			r, err := f(c.s)
			if err != nil {
				t.Fatalf("%s: %s: %v", c.name, what, err)
			}
			if got := At(c.s, r.Threshold); got != r {
				t.Errorf("%s: %s gives %+v, At of its threshold %+v", c.name, what, r, got)
			}
			if what == "Balance" && r.Balanced != c.balanced {
				t.Errorf("%s: balanced %v, want %v", c.name, r.Balanced, c.balanced)
			}
		}
		th, bal, err := Common([][]Sample{c.s, c.s})
		if err != nil || bal != c.balanced || At(c.s, th).Balanced != bal {
			t.Errorf("%s: Common gives %v at %v (%v), At of it %v", c.name, bal, th, err, At(c.s, th).Balanced)
		}
	}
}

// TestTopRangeThreshold: the threshold standing for the range above the
// largest score lets every set in and is finite, also where twice that
// score overflows, and +Inf only above a score of +Inf.
func TestTopRangeThreshold(t *testing.T) {
	for _, c := range []struct {
		top  float64
		want float64
	}{{0, 1}, {3, 6}, {1.5e308, math.MaxFloat64}, {math.Inf(1), math.Inf(1)}} {
		s := []Sample{stranger(0.5), known(c.top, true)}
		if c.top == 0 {
			s[0] = stranger(0)
		}
		var last Rates
		ranges(s, tallyOf(s), func(lo, hi float64, r Rates) { last = r })
		if last.Threshold != c.want || last.KnownIn != 1 || last.StrangersOut != 0 {
			t.Errorf("largest score %v: the top range's rates %+v, want threshold %v letting every set in", c.top, last, c.want)
		}
	}
}

func TestAtMost(t *testing.T) {
	s := []Sample{known(1, true), known(2, true), known(3, true), known(8, false), known(9, true), stranger(4), stranger(5), stranger(6), stranger(7)}
	r, err := AtMost(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.StrangersOut != 1 || r.KnownRight != 0.6 {
		t.Fatalf("p=0: %+v", r)
	}
	if r.Threshold <= 3 || r.Threshold >= 4 {
		t.Fatalf("p=0: threshold %v, want in the gap (3, 4)", r.Threshold)
	}
	// A quarter of the strangers may come in, but that names no more
	// known sets right: the widest range of the best stays.
	if r, _ := AtMost(s, 0.25); r.KnownRight != 0.6 || r.StrangersOut != 1 {
		t.Fatalf("p=0.25: %+v", r)
	}
	// The known set at 9 lies above every stranger: naming it lets all
	// four in, more than 99%.
	if r, _ := AtMost(s, 0.99); r.KnownRight != 0.6 {
		t.Fatalf("p=0.99: %+v", r)
	}
	if _, err := AtMost(s, 1); err == nil {
		t.Fatal("p=1 accepted")
	}

	// A stranger at 0 (an exact copy of a known set): no threshold keeps
	// it out, so none lets in at most 1% of the two strangers.
	z := []Sample{known(1, true), known(2, true), stranger(0), stranger(3)}
	r, err = AtMost(z, 0.01)
	var e *StrangersAtZeroError
	if !errors.As(err, &e) || e.Zero != 1 || e.Strangers != 2 || e.P != 0.01 {
		t.Fatalf("a stranger at 0, p=0.01: %+v, %v; want a StrangersAtZeroError of 1 of 2 strangers", r, err)
	}
	t.Log(err)
	// The share prints as the percent given: 100·0.07 is 7.000000000000001.
	if _, err := AtMost(z, 0.07); err == nil || !strings.Contains(err.Error(), "at most 7% of them") {
		t.Errorf("p=0.07: %v; want it to say at most 7%% of them", err)
	}
	// Half of them may come in: the one at 0, and both known sets.
	if r, err := AtMost(z, 0.5); err != nil || r.KnownRight != 1 || r.StrangersOut != 0.5 {
		t.Fatalf("a stranger at 0, p=0.5: %+v, %v; want every known set in and the stranger at 3 out", r, err)
	}
}

func TestStrangersIn(t *testing.T) {
	var s []Sample
	for i := 1; i <= 100; i++ {
		s = append(s, known(float64(i), true))
	}
	// Strangers at 95.5 and 99.5: the first is let in at 99% of known,
	// not at 95%.
	s = append(s, stranger(95.5), stranger(99.5), stranger(200), stranger(300))
	in, thr, err := StrangersIn(s, 0.95)
	if err != nil || in != 0 || thr != 95 {
		t.Fatalf("95%%: %v %v %v", in, thr, err)
	}
	in, thr, err = StrangersIn(s, 0.99)
	if err != nil || in != 0.25 || thr != 99 {
		t.Fatalf("99%%: %v %v %v", in, thr, err)
	}
	if in, _, _ := StrangersIn(s, 1); in != 0.5 {
		t.Fatalf("100%%: %v", in)
	}
	// Ten known sets: 95% of them is 9.5, so the threshold must let in
	// all ten (the score of the tenth); a stranger scoring exactly that
	// is let in, as the threshold lets in scores ≤ it.
	s = nil
	for i := 1; i <= 10; i++ {
		s = append(s, known(float64(i), true))
	}
	s = append(s, stranger(9.5), stranger(10), stranger(11))
	if in, thr, err := StrangersIn(s, 0.95); err != nil || in != 2.0/3 || thr != 10 {
		t.Fatalf("95%% of 10: %v %v %v, want 2/3 of the strangers (at 9.5 and 10) let in at threshold 10", in, thr, err)
	}
}

func TestErrors(t *testing.T) {
	if _, err := Balance([]Sample{known(1, true)}); !errors.Is(err, ErrOneSided) {
		t.Fatalf("one-sided: %v", err)
	}
	if _, err := Balance([]Sample{known(math.NaN(), true), stranger(1)}); err == nil {
		t.Fatal("NaN accepted")
	}
	if _, _, err := StrangersIn([]Sample{known(1, true), stranger(-1)}, 0.9); err == nil {
		t.Fatal("negative score accepted")
	}
	if _, _, err := StrangersIn([]Sample{known(1, true), stranger(1)}, 0); err == nil {
		t.Fatal("p=0 accepted")
	}
}

// TestBalanceZeroScores: no threshold ≥ 0 keeps out a score of 0, so
// the range of equal decisions that holds it is [0, next score), and the
// threshold lies halfway to the next score, not at 0.
func TestBalanceZeroScores(t *testing.T) {
	s := []Sample{known(0, true), known(0, true), stranger(1), stranger(1)}
	r, err := Balance(s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Threshold != 0.5 || r.Balanced != 1 {
		t.Fatalf("rates %+v, want threshold 0.5 (halfway to 1), balanced 1", r)
	}
	if thr, bal, err := Common([][]Sample{s, {known(0, true), stranger(2)}}); err != nil || thr != 0.5 || bal != 1 {
		t.Fatalf("common: threshold %v, balanced %v, %v; want 0.5 (halfway to the pooled next score), 1", thr, bal, err)
	}
	// Every score 0: one range, [0, +Inf).
	if r, err := Balance([]Sample{known(0, true), stranger(0)}); err != nil || r.Threshold != 1 || r.Balanced != 0.5 {
		t.Fatalf("all scores 0: %+v, %v; want threshold 1, balanced 0.5", r, err)
	}
}

// TestCalibrate: Calibrate is Balance, but where no threshold does better
// than chance and Balance's lets sets in, it is 0, the threshold that
// lets in the fewest.
func TestCalibrate(t *testing.T) {
	// Known 1, 1 (named right); strangers 0 (an exact copy of a known
	// set) and 0.5. No threshold keeps the 0 out, so no range lies below
	// every score, and the best balance, one half, is that of letting
	// every set in (threshold 2, every stranger let in).
	s := []Sample{known(1, true), known(1, true), stranger(0), stranger(0.5)}
	b, err := Balance(s)
	if err != nil || b.Threshold != 2 || b.StrangersOut != 0 || b.Balanced != 0.5 {
		t.Fatalf("Balance: %+v, %v; want threshold 2, every set in, balanced 0.5", b, err)
	}
	r, err := Calibrate(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := At(s, 0); r != want || r.KnownIn != 0 || r.StrangersOut != 0.5 {
		t.Fatalf("Calibrate: %+v; want %+v: threshold 0, only the stranger at 0 let in", r, want)
	}

	// Where a threshold beats chance, or none does and Balance's lets
	// no set in (below every score), it is Balance's.
	for _, s := range [][]Sample{
		{known(1, true), known(2, true), stranger(0), stranger(4)},
		{known(1, true), known(1, true), stranger(0.25), stranger(0.5)},
	} {
		b, err := Balance(s)
		if err != nil {
			t.Fatal(err)
		}
		if r, err := Calibrate(s); err != nil || r != b {
			t.Errorf("%v: Calibrate %+v, %v; want Balance's %+v", s, r, err, b)
		}
	}
	if _, err := Calibrate([]Sample{known(1, true)}); !errors.Is(err, ErrOneSided) {
		t.Errorf("known sets only: %v, want ErrOneSided", err)
	}
}
