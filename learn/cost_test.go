package learn

import (
	"math"
	"math/rand/v2"
	"setmatch/internal/testutil"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
	"setmatch/grassmann/grassmanntest"
	"setmatch/match"
	"setmatch/model"
)

// randomSets returns m sets of between nMin and nMax frames in D dimensions,
// each with its own offset and scale so that bandwidths and divergences vary.
func randomSets(rng *rand.Rand, m, nMin, nMax, D int) []*mat.Dense {
	sets := make([]*mat.Dense, m)
	for i := range sets {
		n := nMin + rng.IntN(nMax-nMin+1)
		scale := 0.5 + rng.Float64()
		shift := rng.NormFloat64()
		x := mat.NewDense(n, D, nil)
		for r := range n {
			for c := range D {
				x.Set(r, c, shift+scale*rng.NormFloat64())
			}
		}
		sets[i] = x
	}
	return sets
}

// randomCost returns the cost under meas, for a d-dimensional W, of m
// random sets of nMin to nMax frames in D features (randomSets) with
// random pairs and bandwidths, evaluated by 2 workers.
func randomCost(t *testing.T, rng *rand.Rand, meas match.Measure, m, nMin, nMax, D, d int) *Cost {
	t.Helper()
	sets := randomSets(rng, m, nMin, nMax, D)
	c, err := NewCost(sets, randomPairs(rng, m), randomBandwidths(rng, m), meas, d, 2)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func randomPairs(rng *rand.Rand, m int) []PairWeight {
	var p []PairWeight
	for i := range m {
		for j := i + 1; j < m; j++ {
			switch rng.IntN(3) {
			case 0:
				p = append(p, PairWeight{i, j, 1})
			case 1:
				p = append(p, PairWeight{i, j, -0.7})
			}
		}
	}
	if len(p) == 0 {
		p = append(p, PairWeight{0, 1, 1})
	}
	return p
}

func randomBandwidths(rng *rand.Rand, m int) []float64 {
	h := make([]float64, m)
	for i := range h {
		h[i] = 0.6 + 1.4*rng.Float64() // different per set
	}
	return h
}

func TestCostGradientFiniteDifferences(t *testing.T) {
	for _, meas := range []match.Measure{match.Hellinger, match.Jeffrey} {
		for seed := range uint64(4) {
			rng := rand.New(rand.NewPCG(seed, 1))
			const m, D, d = 5, 7, 3
			sets := randomSets(rng, m, 4, 9, D)
			h := randomBandwidths(rng, m)
			c, err := NewCost(sets, randomPairs(rng, m), h, meas, d, 2)
			if err != nil {
				t.Fatal(err)
			}
			// The Euclidean gradient holds for any W, not only orthonormal ones.
			w := grassmanntest.RandomPoint(rng, D, d)
			for i := range D {
				for j := range d {
					w.Set(i, j, w.At(i, j)+0.1*rng.NormFloat64())
				}
			}
			grad := mat.NewDense(D, d, nil)
			if _, err := c.Eval(w, grad); err != nil {
				t.Fatal(err)
			}
			fd := finiteDiff(c, w, 1e-5)
			var diff mat.Dense
			diff.Sub(grad, fd)
			rel := mat.Norm(&diff, 2) / mat.Norm(fd, 2)
			t.Logf("%v seed %d: relative error %.2g", meas, seed, rel)
			if !(rel < 1e-5) {
				t.Errorf("%v seed %d: relative gradient error %.3g (|G| = %.3g)", meas, seed, rel, mat.Norm(fd, 2))
			}
		}
	}
}

// The pair terms agree with the reference estimator of package match.
func TestCostMatchesCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const m, D, d = 4, 6, 2
	sets := randomSets(rng, m, 5, 12, D)
	h := randomBandwidths(rng, m)
	w := grassmanntest.RandomPoint(rng, D, d)
	y := make([]*mat.Dense, m)
	kdes := make([]*match.KDE, m)
	for i, s := range sets {
		y[i] = new(mat.Dense)
		y[i].Mul(s, w)
		var err error
		if kdes[i], err = match.NewKDE(y[i], h[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, meas := range []match.Measure{match.Hellinger, match.Jeffrey} {
		div, err := match.DivergenceMatrix(y, h, meas, 3)
		if err != nil {
			t.Fatal(err)
		}
		var pairs []PairWeight
		var want float64
		for i := range m {
			for j := i + 1; j < m; j++ {
				ref, err := match.Compare(kdes[i], kdes[j])
				if err != nil {
					t.Fatal(err)
				}
				r := ref.Of(meas)
				if got := div.At(i, j); math.Abs(got-r) > 1e-10*math.Max(1, r) {
					t.Errorf("%v (%d,%d): DivergenceMatrix %v, match.Compare %v", meas, i, j, got, r)
				}
				a := float64(i - j)
				pairs = append(pairs, PairWeight{i, j, a})
				want += a * r
			}
		}
		c, err := NewCost(sets, pairs, h, meas, d, 2)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Eval(w, nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Errorf("%v: cost %v, want %v from match.Compare", meas, got, want)
		}
	}
}

func TestCostInvariantToRotation(t *testing.T) {
	for _, meas := range []match.Measure{match.Hellinger, match.Jeffrey} {
		rng := rand.New(rand.NewPCG(3, uint64(meas)))
		const m, D, d = 6, 9, 4
		c := randomCost(t, rng, meas, m, 6, 10, D, d)
		w := grassmanntest.RandomPoint(rng, D, d)
		r := grassmanntest.RandomPoint(rng, d, d)
		var wr mat.Dense
		wr.Mul(w, r)
		a, _ := c.Eval(w, nil)
		b, _ := c.Eval(&wr, nil)
		if math.Abs(a-b) > 1e-10*math.Abs(a) {
			t.Errorf("%v: L(W) = %.17g, L(WR) = %.17g", meas, a, b)
		}
	}
}

// evalGrad returns c's cost at w and its gradient (a new matrix).
func evalGrad(t *testing.T, c *Cost, w *mat.Dense) (float64, *mat.Dense) {
	t.Helper()
	D, d := w.Dims()
	g := mat.NewDense(D, d, nil)
	v, err := c.Eval(w, g)
	if err != nil {
		t.Fatal(err)
	}
	return v, g
}

// The result must not depend on the number of goroutines.
func TestCostDeterministicAcrossWorkers(t *testing.T) {
	testutil.CPUs(t, 8) // several workers on any machine
	rng := rand.New(rand.NewPCG(11, 2))
	const m, D, d = 8, 10, 3
	sets := randomSets(rng, m, 5, 15, D)
	pairs := randomPairs(rng, m)
	h := randomBandwidths(rng, m)
	w := grassmanntest.RandomPoint(rng, D, d)
	var ref *mat.Dense
	var refCost float64
	for _, workers := range []int{1, 2, 5} {
		c, err := NewCost(sets, pairs, h, match.Jeffrey, d, workers)
		if err != nil {
			t.Fatal(err)
		}
		v, g := evalGrad(t, c, w)
		if ref == nil {
			ref, refCost = g, v
			continue
		}
		if v != refCost || !mat.Equal(g, ref) {
			t.Errorf("%d workers: cost %v and gradient differ from 1 worker (%v)", workers, v, refCost)
		}
	}
}

func TestNewCostRejectsBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	sets := randomSets(rng, 3, 4, 4, 5)
	h := []float64{1, 1, 1}
	cases := map[string]func() error{
		"bandwidth count": func() error { _, err := NewCost(sets, nil, h[:2], match.Hellinger, 2, 1); return err },
		"zero bandwidth":  func() error { _, err := NewCost(sets, nil, []float64{1, 0, 1}, match.Hellinger, 2, 1); return err },
		"infinite bandwidth": func() error {
			_, err := NewCost(sets, nil, []float64{1, math.Inf(1), 1}, match.Hellinger, 2, 1)
			return err
		},
		"self pair":  func() error { _, err := NewCost(sets, []PairWeight{{1, 1, 1}}, h, match.Hellinger, 2, 1); return err },
		"pair range": func() error { _, err := NewCost(sets, []PairWeight{{0, 3, 1}}, h, match.Hellinger, 2, 1); return err },
		"NaN affinity": func() error {
			_, err := NewCost(sets, []PairWeight{{0, 1, math.NaN()}}, h, match.Hellinger, 2, 1)
			return err
		},
		"dimension":   func() error { _, err := NewCost(sets, nil, h, match.Hellinger, 6, 1); return err },
		"dimension 0": func() error { _, err := NewCost(sets, nil, h, match.Hellinger, 0, 1); return err },
		"W shape": func() error {
			c, err := NewCost(sets, nil, h, match.Hellinger, 2, 1)
			if err != nil {
				return nil
			}
			_, err = c.Eval(mat.NewDense(5, 3, nil), nil)
			return err
		},
		// SetBandwidths holds the bandwidths of later rounds to the rule
		// of NewCost's.
		"new bandwidth count": func() error { return setBandwidths(sets, h, []float64{1, 1}) },
		"new zero bandwidth":  func() error { return setBandwidths(sets, h, []float64{1, 0, 1}) },
		"new infinite bandwidth": func() error {
			return setBandwidths(sets, h, []float64{1, 1, math.Inf(1)})
		},
	}
	for name, f := range cases {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// setBandwidths returns the error of SetBandwidths(next) on a new cost
// of the sets with the bandwidths h.
func setBandwidths(sets []*mat.Dense, h, next []float64) error {
	c, err := NewCost(sets, nil, h, match.Hellinger, 2, 1)
	if err != nil {
		return nil
	}
	return c.SetBandwidths(next)
}

// CG on the training cost: every accepted step decreases it.
func TestMinimizeCGMonotoneOnCost(t *testing.T) {
	for _, meas := range []match.Measure{match.Hellinger, match.Jeffrey} {
		rng := rand.New(rand.NewPCG(21, uint64(meas)))
		const m, D, d = 8, 12, 3
		c := randomCost(t, rng, meas, m, 10, 20, D, d)
		res, err := grassmann.MinimizeCG(c.Eval, grassmanntest.RandomPoint(rng, D, d), grassmann.CGOptions{MaxIter: 40})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.History) < 3 {
			t.Fatalf("%v: only %d iterations (%s)", meas, len(res.History)-1, res.Stop)
		}
		grassmanntest.CheckMonotone(t, res.History)
		if !(res.Cost < res.History[0].Cost) {
			t.Errorf("%v: cost did not decrease: %v -> %v", meas, res.History[0].Cost, res.Cost)
		}
		if e := orthoError(res.W); e > 1e-12 {
			t.Errorf("|WᵀW − I| = %g", e)
		}
	}
}

// orthoError returns max |WᵀW − I|, by the model's own check.
func orthoError(w *mat.Dense) float64 { return (&model.Model{W: w}).OrthonormalityError() }

// TestCostKeepsProjection: the cost keeps Y = XW of the W it was last
// evaluated at (Eval). Every evaluation gives, bit for bit, what a new
// cost gives at the same W: after an evaluation at another W, at the
// same W without and then with the gradient (a conjugate-gradient
// iteration), after W was changed in place, and after new bandwidths.
// D and the frames are large enough for gonum to split the products
// into blocks, and a feature that is 0 in every frame, and a zero row of
// W, give products of 0.
func TestCostKeepsProjection(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	const m, D, d = 6, 300, 4
	sets := randomSets(rng, m, 20, 40, D)
	zeroFeature(sets, 7)
	pairs := randomPairs(rng, m)
	h := randomBandwidths(rng, m)
	w1 := grassmanntest.RandomPoint(rng, D, d)
	w1.SetRow(11, make([]float64, d))
	w2 := grassmanntest.RandomPoint(rng, D, d)
	fresh := func(w *mat.Dense, h []float64) (float64, *mat.Dense) {
		t.Helper()
		c, err := NewCost(sets, pairs, h, match.Hellinger, d, 2)
		if err != nil {
			t.Fatal(err)
		}
		return evalGrad(t, c, w)
	}
	c, err := NewCost(sets, pairs, h, match.Hellinger, d, 2)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, w *mat.Dense, h []float64) {
		t.Helper()
		want, wantG := fresh(w, h)
		v, g := evalGrad(t, c, w)
		if math.Float64bits(v) != math.Float64bits(want) || !sameBits(g, wantG) {
			t.Errorf("%s: cost %v and gradient differ from a new cost's %v", what, v, want)
		}
	}
	if _, err := c.Eval(w2, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Eval(w1, nil); err != nil {
		t.Fatal(err)
	}
	check("at the W of the evaluation before", w1, h)
	check("at the W of the evaluation before, again", w1, h)
	w1.Set(0, 0, w1.At(0, 0)+1e-12)
	check("after W changed in place", w1, h)
	h2 := randomBandwidths(rng, m)
	if err := c.SetBandwidths(h2); err != nil {
		t.Fatal(err)
	}
	check("after new bandwidths", w1, h2)
	check("at another W", w2, h2)
}

// zeroFeature sets feature j of every frame of the sets to 0: a column
// of X that the products skip.
func zeroFeature(sets []*mat.Dense, j int) {
	for _, s := range sets {
		n, _ := s.Dims()
		for r := range n {
			s.Set(r, j, 0)
		}
	}
}

// TestCostGradientIsXtB: the gradient, made as BᵀX and transposed
// (Eval), is XᵀB to the bit (gonum's product, as the gradient was made),
// with D and the frames large enough for gonum to split both products
// into blocks, a feature that is 0 in every frame (a product XᵀB skips)
// and a set that is in no pair (zero rows of B, which BᵀX skips).
func TestCostGradientIsXtB(t *testing.T) {
	testutil.CPUs(t, 8) // several workers on any machine
	rng := rand.New(rand.NewPCG(43, 44))
	const m, D, d = 7, 300, 5
	sets := randomSets(rng, m, 20, 70, D)
	zeroFeature(sets, 3)
	var pairs []PairWeight
	for _, p := range randomPairs(rng, m) {
		if p.I != m-1 && p.J != m-1 {
			pairs = append(pairs, p)
		}
	}
	for _, workers := range []int{1, 2} {
		c, err := NewCost(sets, pairs, randomBandwidths(rng, m), match.Jeffrey, d, workers)
		if err != nil {
			t.Fatal(err)
		}
		g := mat.NewDense(D, d, nil)
		if _, err := c.Eval(grassmanntest.RandomPoint(rng, D, d), g); err != nil {
			t.Fatal(err)
		}
		var xtb mat.Dense
		xtb.Mul(c.x.T(), c.b)
		if !sameBits(g, &xtb) {
			t.Errorf("%d workers: the gradient differs from XᵀB", workers)
		}
	}
}

// TestCostFarApartSets: sets so far apart that every kernel of one at the
// other's samples is below the smallest float (squared distances of
// thousands of bandwidths²): the log densities are summed in the log
// domain, shifted by the nearest sample, so the cost is finite and is
// match.Compare's, and the gradient is finite and agrees with finite
// differences.
func TestCostFarApartSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	const D, d = 4, 2
	sets := randomSets(rng, 3, 6, 9, D)
	for i, shift := range []float64{0, -60, 60} {
		n, _ := sets[i].Dims()
		for r := range n {
			for c := range D {
				sets[i].Set(r, c, sets[i].At(r, c)+shift)
			}
		}
	}
	h := []float64{0.8, 1, 1.2}
	pairs := []PairWeight{{0, 1, 1}, {0, 2, -0.7}, {1, 2, 1}}
	w := grassmanntest.RandomPoint(rng, D, d)
	y := make([]*mat.Dense, len(sets))
	for i, s := range sets {
		y[i] = new(mat.Dense)
		y[i].Mul(s, w)
	}
	for _, p := range pairs {
		if e := nearestSq(y[p.I], y[p.J]) / (2 * max(h[p.I], h[p.J]) * max(h[p.I], h[p.J])); !(e > 800) {
			t.Fatalf("sets %d and %d: nearest kernel exponent −%.0f, not below the smallest float's: the test data are wrong", p.I, p.J, e)
		}
	}
	for _, meas := range []match.Measure{match.Hellinger, match.Jeffrey} {
		c, err := NewCost(sets, pairs, h, meas, d, 2)
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		for _, p := range pairs {
			ki, err := match.NewKDE(y[p.I], h[p.I])
			if err != nil {
				t.Fatal(err)
			}
			kj, err := match.NewKDE(y[p.J], h[p.J])
			if err != nil {
				t.Fatal(err)
			}
			ref, err := match.Compare(ki, kj)
			if err != nil {
				t.Fatal(err)
			}
			want += p.A * ref.Of(meas)
		}
		grad := mat.NewDense(D, d, nil)
		got, err := c.Eval(w, grad)
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(got-want) <= 1e-10*math.Max(1, math.Abs(want))) {
			t.Errorf("%v: cost %v, want %v from match.Compare", meas, got, want)
		}
		if meas != match.Jeffrey {
			continue // Hellinger's term is flat this far apart: no gradient to compare
		}
		fd := finiteDiff(c, w, 1e-6)
		var diff mat.Dense
		diff.Sub(grad, fd)
		if rel := mat.Norm(&diff, 2) / mat.Norm(fd, 2); !(rel < 1e-5) {
			t.Errorf("%v: relative gradient error %.3g (|G| = %.3g)", meas, rel, mat.Norm(fd, 2))
		}
	}
}

// nearestSq returns the smallest squared distance between a row of a and
// a row of b.
func nearestSq(a, b *mat.Dense) float64 {
	m := math.Inf(1)
	na, _ := a.Dims()
	nb, _ := b.Dims()
	for i := range na {
		for j := range nb {
			var s float64
			for k, v := range a.RawRowView(i) {
				e := v - b.At(j, k)
				s += e * e
			}
			m = min(m, s)
		}
	}
	return m
}

// finiteDiff returns the central finite differences, step eps, of c's cost
// in every entry of the D×d point w (left as it was).
func finiteDiff(c *Cost, w *mat.Dense, eps float64) *mat.Dense {
	D, d := w.Dims()
	fd := mat.NewDense(D, d, nil)
	for i := range D {
		for j := range d {
			orig := w.At(i, j)
			w.Set(i, j, orig+eps)
			fp, _ := c.Eval(w, nil)
			w.Set(i, j, orig-eps)
			fm, _ := c.Eval(w, nil)
			w.Set(i, j, orig)
			fd.Set(i, j, (fp-fm)/(2*eps))
		}
	}
	return fd
}
