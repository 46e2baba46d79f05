package match

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
)

func TestTermsClosedForms(t *testing.T) {
	// Compare the stable forms with the definitions in T = p/(p+q), where the
	// definitions are still accurate (moderate r).
	for _, r := range []float64{-30, -7.5, -2, -0.3, -1e-3, 1e-3, 0.3, 1, 2, 7.5, 30} {
		T := 1 / (1 + math.Exp(-r))
		U := 1 / (1 + math.Exp(r)) // 1 − T without cancellation
		h := math.Pow(math.Sqrt(T)-math.Sqrt(U), 2)
		j := (T - U) * math.Log(T/U)
		if !close(HellingerTerm(r), h, 1e-9, 1e-15) {
			t.Errorf("HellingerTerm(%v) = %v, want %v", r, HellingerTerm(r), h)
		}
		if !close(JeffreyTerm(r), j, 1e-9, 1e-15) {
			t.Errorf("JeffreyTerm(%v) = %v, want %v", r, JeffreyTerm(r), j)
		}
		// Derivatives against central differences.
		const e = 1e-6
		for _, m := range []Measure{Hellinger, Jeffrey} {
			fd := (m.Term(r+e) - m.Term(r-e)) / (2 * e)
			if !close(m.TermDeriv(r), fd, 1e-6, 1e-9) {
				t.Errorf("%v term derivative at %v = %v, finite difference %v", m, r, m.TermDeriv(r), fd)
			}
		}
	}
	// Small r: series 1 − sech(r/2) ≈ r²/8 − 5r⁴/384, r·tanh(r/2) ≈ r²/2.
	for _, r := range []float64{1e-8, 1e-5, -1e-4} {
		if !close(HellingerTerm(r), r*r/8, 1e-6, 0) {
			t.Errorf("HellingerTerm(%v) = %v, want ≈ %v", r, HellingerTerm(r), r*r/8)
		}
		if !close(JeffreyTerm(r), r*r/2, 1e-6, 0) {
			t.Errorf("JeffreyTerm(%v) = %v, want ≈ %v", r, JeffreyTerm(r), r*r/2)
		}
	}
	// Huge r: no overflow, no NaN.
	for _, r := range []float64{1e4, -1e6, 1e300, math.Inf(1)} {
		if h := HellingerTerm(r); h != 1 {
			t.Errorf("HellingerTerm(%v) = %v, want 1", r, h)
		}
		if j := JeffreyTerm(r); j != math.Abs(r) {
			t.Errorf("JeffreyTerm(%v) = %v, want %v", r, j, math.Abs(r))
		}
		for _, m := range []Measure{Hellinger, Jeffrey} {
			if d := m.TermDeriv(r); math.IsNaN(d) {
				t.Errorf("%v derivative at %v is NaN", m, r)
			}
		}
	}
}

func TestSymmetricMatchesTerms(t *testing.T) {
	// Symmetric inlines the terms; it must agree with HellingerTerm and
	// JeffreyTerm point by point: for log ratios from 1e-4 to 100, and
	// for nearly equal densities (ratios of 1e-9 to 1e-6, as of a batch
	// against a gallery set of the same frames), where the terms are
	// r²/8 and r²/2 and must keep their full relative precision.
	rng := rand.New(rand.NewPCG(9, 9))
	for _, c := range []struct{ lo, hi float64 }{{-4, 2}, {-9, -6}} {
		lp := make([]float64, 50)
		lq := make([]float64, 50)
		var h, j float64
		for i := range lp {
			lp[i] = 10 * rng.NormFloat64()
			lq[i] = lp[i] + math.Pow(10, c.lo+rng.Float64()*(c.hi-c.lo))*rng.NormFloat64()
			h += HellingerTerm(lp[i] - lq[i])
			j += JeffreyTerm(lp[i] - lq[i])
		}
		d := Symmetric(lp, lq, lq, lp)
		if !close(d.Hellinger2, 2*h/50, 1e-13, 1e-300) || !close(d.Jeffrey, 2*j/50, 1e-13, 0) {
			t.Errorf("ratios 1e%v to 1e%v: Symmetric = %+v, want H2 %v J %v", c.lo, c.hi, d, 2*h/50, 2*j/50)
		}
	}
}

// TestBhattacharyyaFarApart checks the Bhattacharyya estimate of sets
// far apart, where H2 rounds to its bound 2: two sets of two equal frames
// each, Δ apart with bandwidth 1, where every log ratio is r = Δ²/2 and
// the estimate is sech(r/2), known in closed form to full precision.
func TestBhattacharyyaFarApart(t *testing.T) {
	for _, delta := range []float64{0.5, 3, 10, 30} {
		p := mustKDE(t, mat.NewDense(2, 2, []float64{0, 0, 0, 0}), 1)
		q := mustKDE(t, mat.NewDense(2, 2, []float64{delta, 0, delta, 0}), 1)
		d, err := Compare(p, q)
		if err != nil {
			t.Fatal(err)
		}
		x := delta * delta / 4
		want := 2 * math.Exp(-x) / (1 + math.Exp(-2*x))
		if !close(d.Bhattacharyya, want, 1e-12, 0) {
			t.Errorf("Δ = %v: Bhattacharyya %v, want sech(%v) = %v (H2 %v)", delta, d.Bhattacharyya, x, want, d.Hellinger2)
		}
	}
}

func TestDivergenceProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 20 {
		d := 1 + rng.IntN(30)
		np, nq := 2+rng.IntN(40), 2+rng.IntN(40)
		p := mustKDE(t, testutil.RandSet(rng, np, d, 0, 1), 0.2+rng.Float64())
		q := mustKDE(t, testutil.RandSet(rng, nq, d, rng.Float64()*3, 0.5+rng.Float64()), 0.2+rng.Float64())
		pq, err := Compare(p, q)
		if err != nil {
			t.Fatal(err)
		}
		qp, err := Compare(q, p)
		if err != nil {
			t.Fatal(err)
		}
		if !close(pq.Hellinger2, qp.Hellinger2, 1e-12, 1e-15) || !close(pq.Jeffrey, qp.Jeffrey, 1e-12, 1e-15) {
			t.Errorf("trial %d: not symmetric: %+v vs %+v", trial, pq, qp)
		}
		if pq.Hellinger2 < 0 || pq.Hellinger2 > 2 || pq.Jeffrey < 0 {
			t.Errorf("trial %d: out of bounds: %+v", trial, pq)
		}
		if !close(pq.Hellinger2, 2-2*pq.Bhattacharyya, 0, 1e-13) {
			t.Errorf("trial %d: H2 = %v but 2 − 2B = %v", trial, pq.Hellinger2, 2-2*pq.Bhattacharyya)
		}
		// Identical sets (distinct copies) give exactly zero.
		c := mat.DenseCopyOf(p.Samples())
		same, err := Compare(p, mustKDE(t, c, p.Bandwidth()))
		if err != nil {
			t.Fatal(err)
		}
		if same.Hellinger2 != 0 || same.Jeffrey != 0 || same.Bhattacharyya != 1 {
			t.Errorf("trial %d: identical sets give %+v, want exactly 0, 0, B = 1", trial, same)
		}
	}
}

// randOrthogonal returns a d×d orthogonal matrix from the QR factorisation of
// a Gaussian matrix.
func randOrthogonal(rng *rand.Rand, d int) *mat.Dense {
	g := testutil.RandSet(rng, d, d, 0, 1)
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	return &q
}

func TestOrthogonalInvariance(t *testing.T) {
	// Theorem 1: f-divergences are invariant under diffeomorphisms; with an
	// isotropic bandwidth the KDE estimators are exactly invariant under an
	// orthogonal change of basis (and a translation).
	rng := rand.New(rand.NewPCG(7, 8))
	for _, d := range []int{2, 10, 60} {
		x := testutil.RandSet(rng, 40, d, 0, 1)
		y := testutil.RandSet(rng, 25, d, 0.4, 1.3)
		r := randOrthogonal(rng, d)
		shift := testutil.RandSet(rng, 1, d, 0, 5).RawRowView(0)
		var xr, yr mat.Dense
		xr.Mul(x, r)
		yr.Mul(y, r)
		for _, m := range []*mat.Dense{&xr, &yr} {
			n, _ := m.Dims()
			for i := range n {
				row := m.RawRowView(i)
				for j := range row {
					row[j] += shift[j]
				}
			}
		}
		before, err := Compare(mustKDE(t, x, 0.9), mustKDE(t, y, 1.1))
		if err != nil {
			t.Fatal(err)
		}
		after, err := Compare(mustKDE(t, &xr, 0.9), mustKDE(t, &yr, 1.1))
		if err != nil {
			t.Fatal(err)
		}
		if !close(after.Hellinger2, before.Hellinger2, 1e-9, 1e-12) || !close(after.Jeffrey, before.Jeffrey, 1e-9, 1e-12) {
			t.Errorf("d=%d: rotated %+v, original %+v", d, after, before)
		}
	}
}

// gaussHellinger2 returns the closed-form squared Hellinger distance
// 2 − 2·BC between N(m1, s1²I) and N(m2, s2²I) in d dimensions.
func gaussHellinger2(m1, m2 []float64, s1, s2 float64) float64 {
	d := float64(len(m1))
	var dm2 float64
	for i := range m1 {
		dm2 += (m1[i] - m2[i]) * (m1[i] - m2[i])
	}
	v := (s1*s1 + s2*s2) / 2
	db := dm2/(8*v) + d/2*math.Log(v/(s1*s2))
	return 2 - 2*math.Exp(-db)
}

func TestConvergesToGaussianHellinger(t *testing.T) {
	// With h → 0 as n grows (Scott's rule), H2 of samples of two Gaussians
	// tends to the closed form. The error must shrink and end up small.
	m1, m2 := []float64{0}, []float64{1}
	s1, s2 := 1.0, 1.5
	want := gaussHellinger2(m1, m2, s1, s2)
	sizes := []int{30, 300, 3000}
	if testing.Short() {
		sizes = []int{30, 1000}
	}
	var errs []float64
	for _, n := range sizes {
		var sum float64
		const reps = 4
		for rep := range reps {
			rng := rand.New(rand.NewPCG(uint64(n), uint64(rep)))
			x := testutil.RandSet(rng, n, 1, m1[0], s1)
			y := testutil.RandSet(rng, n, 1, m2[0], s2)
			p, _ := NewKDERule(x, BandwidthRule{Kind: Scott})
			q, _ := NewKDERule(y, BandwidthRule{Kind: Scott})
			d, err := Compare(p, q)
			if err != nil {
				t.Fatal(err)
			}
			sum += d.Hellinger2
		}
		errs = append(errs, math.Abs(sum/reps-want))
	}
	t.Logf("closed form %.4f; |error| by n %v: %v", want, sizes, errs)
	if errs[len(errs)-1] >= errs[0] {
		t.Errorf("error did not shrink with n: %v", errs)
	}
	limit := 0.01
	if testing.Short() {
		limit = 0.02
	}
	if last := errs[len(errs)-1]; last > limit {
		t.Errorf("error at n=%d is %.4f, want < %v", sizes[len(sizes)-1], last, limit)
	}
}

func TestOneSided(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	p := mustKDE(t, testutil.RandSet(rng, 30, 3, 0, 1), 0.6)
	q := mustKDE(t, testutil.RandSet(rng, 35, 3, 0.5, 1), 0.6)
	o, err := CompareOneSided(p, q)
	if err != nil {
		t.Fatal(err)
	}
	lpp, _ := p.LogDensity(p.Samples(), nil)
	lqp, _ := q.LogDensity(p.Samples(), nil)
	var hp, jp float64
	for i := range lpp {
		ratio := math.Exp(lqp[i] - lpp[i]) // q/p
		hp += math.Pow(1-math.Sqrt(ratio), 2)
		jp += (1 - ratio) * math.Log(1/ratio)
	}
	if !close(o.HellingerP, hp/30, 1e-12, 0) || !close(o.JeffreyP, jp/30, 1e-12, 0) {
		t.Errorf("one-sided over P = %v, %v, want %v, %v", o.HellingerP, o.JeffreyP, hp/30, jp/30)
	}
	swapped, _ := CompareOneSided(q, p)
	if !close(swapped.HellingerP, o.HellingerQ, 1e-12, 0) || !close(swapped.JeffreyQ, o.JeffreyP, 1e-12, 0) {
		t.Errorf("one-sided estimators do not swap with the arguments: %+v vs %+v", o, swapped)
	}
}

func TestKernels(t *testing.T) {
	if got := KernelHG(0.5, 2); !close(got, math.Exp(-1), 1e-15, 0) {
		t.Errorf("KernelHG = %v", got)
	}
	if got := KernelHL(0.25, 2); !close(got, math.Exp(-1), 1e-15, 0) {
		t.Errorf("KernelHL = %v", got)
	}
	if got := KernelJ(3, 0.1); !close(got, math.Exp(-0.3), 1e-15, 0) {
		t.Errorf("KernelJ = %v", got)
	}
	if KernelHG(0, 1) != 1 || KernelHL(0, 1) != 1 || KernelJ(0, 1) != 1 {
		t.Error("kernels of identical sets are not 1")
	}
}
