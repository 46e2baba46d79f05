package openset

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"setmatch/internal/stats"
)

func TestAutoThreshold(t *testing.T) {
	// Sets 0, 1, 2 of class a, 3 of class b (no same-class neighbour).
	div := mat.NewSymDense(4, []float64{
		0, 1, 4, 0.1,
		1, 0, 3, 0.1,
		4, 3, 0, 0.1,
		0.1, 0.1, 0.1, 0,
	})
	labels := []string{"a", "a", "a", "b"}
	// Nearest same-class divergences: 1, 1, 3 (set 3 has none). Their
	// logarithms have mean ln(3)/3 and standard deviation ln(3)/√3;
	// t_2(0.95) = 2.919986 (Student's t table).
	l3 := math.Log(3)
	want := math.Exp(l3/3 + 2.919986*l3/math.Sqrt(3)*math.Sqrt(1+1.0/3))
	got, err := AutoThreshold(div, labels, 95)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 1e-5*want {
		t.Errorf("95%%: %v, want %v", got, want)
	}
	if _, err := AutoThreshold(div, []string{"a", "b", "c", "d"}, 95); err == nil {
		t.Error("no class with two sets: no error")
	}
	if _, err := AutoThreshold(div, labels[:3], 95); err == nil {
		t.Error("3 labels for 4 sets: no error")
	}
	for _, p := range []float64{math.NaN(), 0, 100, -1} {
		if _, err := AutoThreshold(div, labels, p); err == nil {
			t.Errorf("percentile %v: no error", p)
		}
	}
}

// TestBoundCoverage checks what Bound is for: a new sample from the
// distribution of the samples stays below it with probability p, also
// with few samples, where the sample percentile falls short.
func TestBoundCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 4000
	for _, n := range []int{4, 16, 200} {
		var inBound, inPct int
		for range trials {
			x := make([]float64, n)
			for i := range x {
				x[i] = math.Exp(1.5*rng.NormFloat64() - 3)
			}
			b := Bound(x, 95)
			q := percentile(x, 95)
			if b < q {
				t.Fatalf("n = %d: bound %v below the sample percentile %v", n, b, q)
			}
			y := math.Exp(1.5*rng.NormFloat64() - 3)
			if y <= b {
				inBound++
			}
			if y <= q {
				inPct++
			}
		}
		cb, cp := float64(inBound)/trials, float64(inPct)/trials
		t.Logf("n = %3d: a new sample below the bound %.3f, below the sample 95th percentile %.3f", n, cb, cp)
		// 4000 trials: the standard error of a coverage near 0.95 is 0.0034.
		if cb < 0.94 || cb > 0.965 {
			t.Errorf("n = %d: coverage of the bound %.3f, want 0.95", n, cb)
		}
		if n == 4 && cp > 0.85 {
			t.Errorf("n = 4: the sample percentile covers %.3f; expected it to fall short", cp)
		}
	}
}

// TestBoundHeavyTail: with many samples from a tail heavier than the
// log-normal's, the sample percentile is the larger and is kept.
func TestBoundHeavyTail(t *testing.T) {
	x := make([]float64, 1000)
	for i := range x {
		x[i] = 1
	}
	for i := 900; i < 1000; i++ {
		x[i] = 1e6
	}
	q := percentile(append([]float64(nil), x...), 95)
	if b := Bound(x, 95); b != q {
		t.Errorf("bound %v, want the sample percentile %v", b, q)
	}
	// Zeros and one positive value: nothing to fit, the percentile.
	if b := Bound([]float64{0, 0, 2}, 50); b != 0 {
		t.Errorf("median of 0, 0, 2: %v", b)
	}
}

// TestBoundMeanStdInOrder: the mean and standard deviation of the
// logarithms are stats.MeanStd's, summed in order, the one mean and
// standard deviation of the project (the logarithm and the exponential
// still differ in their last bits between amd64 and arm64). On these
// samples gonum's stat.MeanStdDev (partial sums on amd64 only) gives the
// bound other last bits.
func TestBoundMeanStdInOrder(t *testing.T) {
	for _, x := range [][]float64{
		{9.87, 1.38, 0.51, 1.59, 2.04, 0.41, 0.34},
		{0.52, 1.48, 1.91, 0.13},
		{0.38, 0.88, 0.92, 1.39, 1.37, 1.22, 0.62, 0.22, 2.33, 2.97, 0.2},
	} {
		y := make([]float64, len(x))
		for i, v := range slices.Sorted(slices.Values(x)) { // Bound sorts x first
			y[i] = math.Log(v)
		}
		mean, sd := stats.MeanStd(y)
		n := float64(len(y))
		tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.95)
		want := math.Max(percentile(slices.Clone(x), 95), math.Exp(mean+tq*sd*math.Sqrt(1+1/n)))
		if got := Bound(slices.Clone(x), 95); got != want {
			t.Errorf("%d samples: bound %v, want %v (in-order mean and standard deviation)", len(x), got, want)
		}
	}
}

// TestBoundInfiniteSample: a sample of +Inf (a set infinitely far from
// the others of its class, as a Jeffrey divergence can be) counts in the
// sample percentile but is left out of the log-normal fit, which the
// finite samples still give: here the fit is above every finite sample
// and the percentile, so the bound is what it is without the +Inf.
func TestBoundInfiniteSample(t *testing.T) {
	x := make([]float64, 29)
	for i := range x {
		x[i] = math.Exp(-1 + 2*float64(i)/28) // logarithms evenly in [−1, 1]
	}
	want := Bound(append([]float64(nil), x...), 95)
	if !(want > x[len(x)-1]) {
		t.Fatalf("bound %v of the finite samples is not above the largest %v: the test data are wrong", want, x[len(x)-1])
	}
	if got := Bound(append(x, math.Inf(1)), 95); got != want {
		t.Errorf("with a sample of +Inf: bound %v, want %v as without it", got, want)
	}
}

func TestBalancedThreshold(t *testing.T) {
	// Sets 0, 1 of class a, 2, 3 of class b, 4 of class c (no set of
	// its class to be a known batch of, but a stranger to the others).
	div := mat.NewSymDense(5, []float64{
		0, 0.1, 0.8, 0.9, 0.05,
		0.1, 0, 0.9, 0.8, 0.3,
		0.8, 0.9, 0, 0.2, 0.9,
		0.9, 0.8, 0.2, 0, 0.9,
		0.05, 0.3, 0.9, 0.9, 0,
	})
	labels := []string{"a", "a", "b", "b", "c"}
	b, err := BalancedThreshold(div, labels)
	if err != nil {
		t.Fatal(err)
	}
	// Known 0.1 0.1 0.2 0.2; strangers 0.05 (0 and 4 are each other's
	// nearest of another class), 0.05, 0.3 (1), 0.8 (2, 3). Every known
	// in and 3 of 5 strangers out is the best balance, 0.8, between 0.2
	// and 0.3: the threshold is their geometric middle.
	if want := math.Sqrt(0.2 * 0.3); math.Abs(b.Threshold-want) > 1e-12 {
		t.Errorf("threshold %v, want %v", b.Threshold, want)
	}
	if b.Known != 4 || b.Strangers != 5 || b.KnownIn != 1 || b.KnownRight != 1 || math.Abs(b.StrangersOut-0.6) > 1e-12 || math.Abs(b.Balanced-0.8) > 1e-12 {
		t.Errorf("rates %+v, want 4 known all let in, 5 strangers 60%% kept out, balanced 0.8", b)
	}

	// Separable: known 1, 1 (a), 2, 2 (b); strangers 4 (a0, b0), 8 (a1),
	// 9 (b1). The threshold sits in the gap [2, 4), at its geometric
	// middle.
	sep := mat.NewSymDense(4, []float64{
		0, 1, 4, 9,
		1, 0, 8, 9,
		4, 8, 0, 2,
		9, 9, 2, 0,
	})
	b, err = BalancedThreshold(sep, []string{"a", "a", "b", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(b.Threshold-math.Sqrt(8)) > 1e-12 || b.KnownIn != 1 || b.StrangersOut != 1 || b.Balanced != 1 {
		t.Errorf("separable: %+v, want threshold √8 (the middle of the gap [2, 4)), every known set in, every stranger out", b)
	}

	// No threshold tells the classes apart: every stranger nearer than
	// every known batch, or the scores all alike. Nothing beats chance,
	// and the threshold keeps every set out, below every score.
	for _, tc := range []struct {
		name   string
		div    *mat.SymDense
		labels []string
		want   float64
	}{
		{"strangers nearer", mat.NewSymDense(3, []float64{0, 1, 0.5, 1, 0, 0.5, 0.5, 0.5, 0}), []string{"a", "a", "b"}, 0.25},
		{"scores alike", mat.NewSymDense(4, []float64{0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0}), []string{"a", "a", "b", "b"}, 0.5},
	} {
		b, err := BalancedThreshold(tc.div, tc.labels)
		if err != nil {
			t.Fatal(err)
		}
		if b.Threshold != tc.want || b.KnownIn != 0 || b.StrangersOut != 1 || b.Balanced != 0.5 {
			t.Errorf("%s: %+v, want threshold %v (half the smallest score), no known set in, every stranger out", tc.name, b, tc.want)
		}
	}

	// A stranger at 0 (set 2 of class b is a copy of set 0 of class a),
	// and nothing separates: known 1, 1; strangers 0 (0 and 2), 0.5 (1).
	// No threshold keeps a score of 0 out, so no range lies below every
	// score; every range is at most a balance of one half, and the
	// threshold is the one that lets in the fewest, 0, not one above
	// every score that lets every set in.
	copied := mat.NewSymDense(3, []float64{0, 1, 0, 1, 0, 0.5, 0, 0.5, 0})
	if b, err = BalancedThreshold(copied, []string{"a", "a", "b"}); err != nil || b.Threshold != 0 || b.KnownIn != 0 || math.Abs(b.StrangersOut-1.0/3) > 1e-12 || b.Balanced > 0.5 {
		t.Errorf("a stranger at 0: %+v, %v; want threshold 0, no known set in, only the strangers at 0 let in", b, err)
	}

	// Scores of 0: the threshold lies halfway to the next.
	zero := mat.NewSymDense(4, []float64{0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0})
	if b, err = BalancedThreshold(zero, []string{"a", "a", "b", "b"}); err != nil || b.Threshold != 0.5 || b.KnownIn != 1 || b.StrangersOut != 1 {
		t.Errorf("zero within-class scores: %+v, %v; want threshold 0.5, every known set in, every stranger out", b, err)
	}

	for _, bad := range []struct {
		name   string
		labels []string
	}{
		{"one set per class", []string{"a", "b", "c", "d", "e"}},
		{"one class", []string{"a", "a", "a", "a", "a"}},
		{"too few labels", labels[:4]},
	} {
		if _, err := BalancedThreshold(div, bad.labels); err == nil {
			t.Errorf("%s: no error", bad.name)
		}
	}
	nan := mat.NewSymDense(3, []float64{0, math.NaN(), 1, math.NaN(), 0, 1, 1, 1, 0})
	if _, err := BalancedThreshold(nan, []string{"a", "a", "b"}); err == nil {
		t.Error("NaN score: no error")
	}
}

// TestClassSpread: each class's radius is the median of its sets'
// nearest same-class scores, and its spread the log of that over the
// median radius; a class with one set, or whose sets coincide, has none.
func TestClassSpread(t *testing.T) {
	// Class a: sets 0, 1, 2 with nearest same-class scores 1, 1, 3
	// (radius 1); b: sets 3, 4 at 4 (radius 4); c: sets 5, 6 at 2
	// (radius 2); d: set 7 alone; e: sets 8, 9 at 0. Median radius 2.
	labels := []string{"a", "a", "a", "b", "b", "c", "c", "d", "e", "e"}
	m := len(labels)
	div := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i + 1; j < m; j++ {
			div.SetSym(i, j, 100) // other classes: far
		}
	}
	div.SetSym(0, 1, 1)
	div.SetSym(0, 2, 4)
	div.SetSym(1, 2, 3)
	div.SetSym(3, 4, 4)
	div.SetSym(5, 6, 2)
	div.SetSym(8, 9, 0)
	got := ClassSpread(div, labels)
	want := map[string]float64{"a": math.Log(0.5), "b": math.Log(2), "c": 0}
	if len(got) != len(want) {
		t.Fatalf("spread %v, want %v", got, want)
	}
	for l, w := range want {
		if g, ok := got[l]; !ok || math.Abs(g-w) > 1e-12 {
			t.Errorf("class %s: spread %v, want %v", l, g, w)
		}
	}
	if s := ClassSpread(mat.NewSymDense(2, []float64{0, 1, 1, 0}), []string{"a", "b"}); len(s) != 0 {
		t.Errorf("one set a class: spread %v, want none", s)
	}
}

// TestFoldByClass: each set's scores to the other sets of its class fold
// into same, those to other classes into other, in the order of the sets
// (a fold that records the order tells), each from start, which stays
// where there is no such set.
func TestFoldByClass(t *testing.T) {
	div := mat.NewSymDense(4, []float64{
		0, 1, 2, 3,
		1, 0, 4, 5,
		2, 4, 0, 6,
		3, 5, 6, 0,
	})
	// The scores as decimal digits after start's 9, first to last: 9,
	// then 1 and 2, is 912.
	digits := func(acc, v float64) float64 { return 10*acc + v }
	same, other := FoldByClass(div, []string{"a", "b", "a", "c"}, 9, digits)
	if want := []float64{92, 9, 92, 9}; !slices.Equal(same, want) {
		t.Errorf("same = %v, want %v", same, want)
	}
	if want := []float64{913, 9145, 946, 9356}; !slices.Equal(other, want) {
		t.Errorf("other = %v, want %v", other, want)
	}
}
