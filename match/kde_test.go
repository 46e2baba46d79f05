package match

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
)

func TestLogDensityMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{1, 3, 20, 400} {
		x := testutil.RandSet(rng, 30, d, 0, 1)
		at := testutil.RandSet(rng, 7, d, 0.3, 1.2)
		h := 0.7
		k := mustKDE(t, x, h)
		got, err := k.LogDensity(at, nil)
		if err != nil {
			t.Fatal(err)
		}
		for j := range 7 {
			want := naiveLogDensity(x, h, at.RawRowView(j))
			if !close(got[j], want, 1e-10, 1e-10) {
				t.Errorf("d=%d point %d: log p = %.15g, want %.15g", d, j, got[j], want)
			}
			if math.IsInf(got[j], 0) || math.IsNaN(got[j]) {
				t.Errorf("d=%d: log p not finite: %v", d, got[j])
			}
		}
	}
}

func TestLogDensityIntegratesToOne(t *testing.T) {
	// In one dimension a Riemann sum of p over a wide grid is 1.
	x := mat.NewDense(3, 1, []float64{-1, 0.5, 2})
	k := mustKDE(t, x, 0.4)
	const lo, hi, steps = -8.0, 10.0, 18000
	at := mat.NewDense(steps, 1, nil)
	dx := (hi - lo) / steps
	for i := range steps {
		at.Set(i, 0, lo+(float64(i)+0.5)*dx)
	}
	lp, err := k.LogDensity(at, nil)
	if err != nil {
		t.Fatal(err)
	}
	var s float64
	for _, v := range lp {
		s += math.Exp(v) * dx
	}
	if math.Abs(s-1) > 1e-9 {
		t.Errorf("∫p = %.12f, want 1", s)
	}
}

func TestNewKDERejectsBadInput(t *testing.T) {
	ok := mat.NewDense(2, 2, []float64{0, 1, 2, 3})
	nan := mat.NewDense(2, 2, []float64{0, math.NaN(), 2, 3})
	inf := mat.NewDense(2, 2, []float64{0, 1, math.Inf(-1), 3})
	for _, c := range []struct {
		name string
		x    *mat.Dense
		h    float64
		want error
	}{
		{"nil set", nil, 1, ErrEmptySet},
		{"empty set", &mat.Dense{}, 1, ErrEmptySet},
		{"zero bandwidth", ok, 0, ErrBandwidth},
		{"negative bandwidth", ok, -1, ErrBandwidth},
		{"NaN bandwidth", ok, math.NaN(), ErrBandwidth},
		{"Inf bandwidth", ok, math.Inf(1), ErrBandwidth},
		{"NaN sample", nan, 1, ErrNotFinite},
		{"Inf sample", inf, 1, ErrNotFinite},
	} {
		_, err := NewKDE(c.x, c.h)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
}

// TestNewKDETooLarge: a set whose frames' squared norms pass MaxSqNorm
// (values around 1e154 and above: the norm overflows, or the expansion
// |a|² + |b|² − 2a·b of two such frames can) is refused with an error that
// says so and what to do; its squared distances were Inf − Inf, which the
// kernels took for 0, so that a burst of such values sat on a gallery set
// of them at score 0. Just below the bound every distance is a number.
func TestNewKDETooLarge(t *testing.T) {
	big := math.Sqrt(MaxSqNorm / 2) // two features: |x|² = MaxSqNorm
	for _, c := range []struct {
		name string
		x    *mat.Dense
		by   string // the factor that brings the largest value to 1…10
	}{
		{"squares overflow", mat.NewDense(2, 2, []float64{1, 2, 1e155, -3e155}), "1e+155"},
		{"norm past the bound", mat.NewDense(2, 2, []float64{1, 2, big, big * 1.001}), "1e+153"},
	} {
		_, err := NewKDE(c.x, 1)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "frame 1") || !strings.Contains(err.Error(), "scale the features down, e.g. divide them by "+c.by) {
			t.Errorf("%s: err = %v, want %v naming frame 1 and saying what to do (divide by %s)", c.name, err, ErrTooLarge, c.by)
		}
	}
	x := mat.NewDense(3, 2, []float64{big, big, -big, -big, big, -big})
	k, err := NewKDE(x, 1)
	if err != nil {
		t.Fatalf("norms at the bound: %v", err)
	}
	lp, err := k.LogDensity(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range lp {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("norms at the bound: log p at frame %d is %v, want a number", i, v)
		}
	}
}

func TestLogDensityDimensionMismatch(t *testing.T) {
	k := mustKDE(t, mat.NewDense(2, 3, nil), 1)
	if _, err := k.LogDensity(mat.NewDense(1, 4, nil), nil); !errors.Is(err, ErrDimMismatch) {
		t.Errorf("err = %v, want %v", err, ErrDimMismatch)
	}
}

// TestRootMeanVariance: the root of the mean over the features of their
// sample variances, with n−1 in the denominator: of the frames (0, 0) and
// (2, 4), variances 2 and 8, √5.
func TestRootMeanVariance(t *testing.T) {
	if got := RootMeanVariance(mat.NewDense(2, 2, []float64{0, 0, 2, 4})); !close(got, math.Sqrt(5), 1e-15, 0) {
		t.Errorf("RootMeanVariance = %v, want √5", got)
	}
}

// TestBandwidthRuleValidate: a rule's scale is a finite number > 0, or 0
// (which means 1), whatever way the rule was made.
func TestBandwidthRuleValidate(t *testing.T) {
	for _, c := range []struct {
		scale float64
		ok    bool
	}{{0, true}, {1, true}, {2.5, true}, {-1, false}, {math.NaN(), false}, {math.Inf(1), false}} {
		for _, kind := range []RuleKind{Scott, Silverman, NearestNeighbour} {
			r := BandwidthRule{Kind: kind, Scale: c.scale}
			if err := r.Validate(); (err == nil) != c.ok {
				t.Errorf("%v with scale %v: Validate = %v", ruleNames[kind], c.scale, err)
			}
		}
	}
}

// TestCheckBandwidth: a bandwidth from MinBandwidth to MaxBandwidth
// passes; a finite one > 0 outside them is a *BandwidthError naming it
// and the bound it passes, also through ParseBandwidthRule and a fixed
// rule's Validate; one not a finite number > 0 is refused otherwise.
func TestCheckBandwidth(t *testing.T) {
	above, below := math.Nextafter(MaxBandwidth, math.Inf(1)), math.Nextafter(MinBandwidth, 0)
	for _, c := range []struct {
		h       float64
		ok      bool
		outside bool // a *BandwidthError
		large   bool
	}{
		{1, true, false, false},
		{MaxBandwidth, true, false, false},
		{MinBandwidth, true, false, false},
		{above, false, true, true},
		{1e200, false, true, true},
		{math.MaxFloat64, false, true, true},
		{below, false, true, false},
		{5e-324, false, true, false},
		{0, false, false, false},
		{-1, false, false, false},
		{math.NaN(), false, false, false},
		{math.Inf(1), false, false, false},
	} {
		err := CheckBandwidth(c.h)
		if (err == nil) != c.ok {
			t.Errorf("CheckBandwidth(%v) = %v, want ok %v", c.h, err, c.ok)
			continue
		}
		fixed := BandwidthRule{Kind: Fixed, Fixed: c.h}
		parsed := func() error { _, err := ParseBandwidthRule(fmt.Sprint(c.h)); return err }
		for _, got := range []struct {
			name string
			err  error
		}{{"CheckBandwidth", err}, {"Validate", fixed.Validate()}, {"ParseBandwidthRule", parsed()}} {
			be := (*BandwidthError)(nil)
			if errors.As(got.err, &be) != c.outside {
				t.Errorf("%s(%v) = %v, want a *BandwidthError %v", got.name, c.h, got.err, c.outside)
				continue
			}
			if !c.outside {
				continue
			}
			bound := MinBandwidth
			if c.large {
				bound = MaxBandwidth
			}
			if be.H != c.h || be.Large != c.large || be.Bound() != bound {
				t.Errorf("%s(%v) = %+v (bound %v), want H %v, Large %v (bound %v)", got.name, c.h, *be, be.Bound(), c.h, c.large, bound)
			}
			if want := fmt.Sprintf("bandwidth is %v, outside 1e-150 to 1e+150", c.h); !strings.Contains(got.err.Error(), want) {
				t.Errorf("%s(%v) = %v, want it to say %q", got.name, c.h, got.err, want)
			}
		}
	}
}

func TestBandwidthRules(t *testing.T) {
	// A set with per-feature variance 4 (σ = 2): Scott's h = 2·n^(−1/(d+4)).
	rng := rand.New(rand.NewPCG(3, 4))
	x := testutil.RandSet(rng, 5000, 2, 1, 2)
	sigma := RootMeanVariance(x)
	if math.Abs(sigma-2) > 0.05 {
		t.Fatalf("σ = %v, want ≈ 2", sigma)
	}
	for _, c := range []struct {
		rule string
		want float64
	}{
		{"scott", sigma * math.Pow(5000, -1.0/6)},
		{"silverman", sigma * math.Pow(5000*4/4.0, -1.0/6)},
		{"0.25", 0.25},
	} {
		r, err := ParseBandwidthRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		h, err := r.Bandwidth(x)
		if err != nil {
			t.Fatal(err)
		}
		if !close(h, c.want, 1e-12, 0) {
			t.Errorf("%s: h = %v, want %v", c.rule, h, c.want)
		}
		if r.String() != c.rule {
			t.Errorf("String() = %q, want %q", r.String(), c.rule)
		}
	}
	for _, c := range []struct {
		rule string
		want float64
	}{
		{"scott*2", 2 * sigma * math.Pow(5000, -1.0/6)},
		{"silverman*0.5", 0.5 * sigma * math.Pow(5000*4/4.0, -1.0/6)},
	} {
		r, err := ParseBandwidthRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		if h, _ := r.Bandwidth(x); !close(h, c.want, 1e-12, 0) || r.String() != c.rule {
			t.Errorf("%s: h = %v (String %q), want %v", c.rule, h, r.String(), c.want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "nan", "inf", "scot", "scott*", "scott*0", "nn*-1", "2*scott", "1e-200", "1e200"} {
		if _, err := ParseBandwidthRule(bad); err == nil {
			t.Errorf("ParseBandwidthRule(%q) accepted", bad)
		}
	}
	scott := BandwidthRule{Kind: Scott}
	if _, err := scott.Bandwidth(mat.NewDense(1, 3, nil)); !errors.Is(err, ErrTooFewFrames) {
		t.Errorf("one frame: err = %v, want %v", err, ErrTooFewFrames)
	}
	if _, err := scott.Bandwidth(mat.NewDense(4, 3, nil)); err == nil {
		t.Error("identical frames: Scott's rule gave a bandwidth of 0 without error")
	}
}

func TestNearestNeighbourRule(t *testing.T) {
	// Frames on a line at 0, 1, 3, 7: nearest-neighbour distances 1, 1, 2, 4;
	// median (1 + 2)/2 = 1.5.
	x := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 3, 0, 7, 0})
	r, err := ParseBandwidthRule("nn")
	if err != nil {
		t.Fatal(err)
	}
	if h, err := r.Bandwidth(x); err != nil || h != 1.5 {
		t.Errorf("nn: h = %v, %v; want 1.5", h, err)
	}
	r, _ = ParseBandwidthRule("nn*2")
	if h, _ := r.Bandwidth(x); h != 3 {
		t.Errorf("nn*2: h = %v, want 3", h)
	}
	// Invariant under an orthogonal change of basis, like the divergences.
	rng := rand.New(rand.NewPCG(1, 1))
	y := testutil.RandSet(rng, 30, 5, 0, 1)
	var yr mat.Dense
	yr.Mul(y, randOrthogonal(rng, 5))
	if a, b := MedianNearestNeighbour(y), MedianNearestNeighbour(&yr); !close(a, b, 1e-12, 0) {
		t.Errorf("median NN distance %v before rotation, %v after", a, b)
	}
	// Three copies of one frame and one other: the median distance to any
	// other frame is 0, so the rule takes the distances to a frame that
	// differs: 4 for each copy and for the other, h = 2 × 4 (nn*2).
	dup := mat.NewDense(4, 1, []float64{1, 1, 1, 5})
	if h, err := r.Bandwidth(dup); err != nil || h != 8 {
		t.Errorf("nn*2 on mostly repeated frames: h = %v, %v; want 8", h, err)
	}
	// Every frame repeated (a frame-rate conversion that doubles them):
	// the bandwidth of the frames without their repeats.
	twice := mat.NewDense(8, 2, []float64{0, 0, 0, 0, 1, 0, 1, 0, 3, 0, 3, 0, 7, 0, 7, 0})
	if h, err := r.Bandwidth(twice); err != nil || h != 3 {
		t.Errorf("nn*2 on doubled frames: h = %v, %v; want 3, as without the repeats", h, err)
	}
	// Fewer than half repeated: the repeats count as distance 0, as before.
	few := mat.NewDense(5, 1, []float64{0, 0, 1, 3, 7})
	if h, err := ParseBandwidthRule("nn"); err != nil {
		t.Fatal(err)
	} else if v, err := h.Bandwidth(few); err != nil || v != 1 {
		t.Errorf("nn with two of five frames the same: h = %v, %v; want 1 (distances 0, 0, 1, 2, 4)", v, err)
	}
	// Every frame the same: no bandwidth, an error that says so.
	same := mat.NewDense(3, 2, []float64{1, 2, 1, 2, 1, 2})
	if _, err := r.Bandwidth(same); err == nil || !strings.Contains(err.Error(), "same image") {
		t.Errorf("nn rule on identical frames: err = %v, want one that says every frame is the same", err)
	}
	// Values so large the squared distances overflow: said, not taken for
	// a frozen camera.
	huge := mat.NewDense(3, 2, []float64{1e300, 0, -1e300, 0, 3e300, 0})
	if _, err := r.Bandwidth(huge); err == nil || strings.Contains(err.Error(), "same image") || !strings.Contains(err.Error(), "too large") {
		t.Errorf("nn rule on frames near 1e300: err = %v, want one that says the values are too large", err)
	}
}

func TestLogSumExp(t *testing.T) {
	if got := LogSumExp(nil); !math.IsInf(got, -1) {
		t.Errorf("LSE() = %v, want -Inf", got)
	}
	if got := LogSumExp([]float64{-1000, -1000}); !close(got, -1000+math.Ln2, 1e-15, 0) {
		t.Errorf("LSE(-1000,-1000) = %v", got)
	}
	if got := LogSumExp([]float64{800, 0}); !close(got, 800, 1e-15, 0) {
		t.Errorf("LSE(800, 0) = %v", got)
	}
	// Infinite terms: no term at all (every one −Inf), or one without bound.
	if got := LogSumExp([]float64{math.Inf(-1), math.Inf(-1)}); !math.IsInf(got, -1) {
		t.Errorf("LSE(-Inf, -Inf) = %v, want -Inf", got)
	}
	if got := LogSumExp([]float64{0, math.Inf(1), -3}); !math.IsInf(got, 1) {
		t.Errorf("LSE(0, +Inf, -3) = %v, want +Inf", got)
	}
	// Against the sum of math.Exp, for lengths below, at and above the
	// vector width, with terms down to and past the underflow of e^x, and
	// −Inf entries (a frame that a kernel does not reach).
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 3, 4, 7, 8, 9, 17, 64, 101} {
		a := make([]float64, n)
		for i := range a {
			a[i] = -800 * rng.Float64() * rng.Float64()
		}
		if n > 4 {
			a[3] = math.Inf(-1)
		}
		var s float64
		mx := math.Inf(-1)
		for _, v := range a {
			mx = max(mx, v)
		}
		for _, v := range a {
			s += math.Exp(v - mx)
		}
		want := mx + math.Log(s)
		if got := LogSumExp(a); !close(got, want, 1e-14, 1e-14) {
			t.Errorf("n=%d: LSE = %.17g, want %.17g", n, got, want)
		}
	}
}

// TestWhyNoSpreadAdvice: frames whose spread cannot be measured for the
// size of their values say which way to scale the features and by what
// power of ten, from the largest magnitude of their values about their
// set's mean frame (the differences whose squares are out of range), as a
// bandwidth out of range does; frames that are all one say so.
func TestWhyNoSpreadAdvice(t *testing.T) {
	frames := func(scale float64) *mat.Dense {
		x := mat.NewDense(2, 2, []float64{1, -2, 3, 4})
		x.Scale(scale, x)
		return x
	}
	for _, c := range []struct {
		name  string
		sets  []*mat.Dense
		large bool
		want  string
	}{
		{"×1e200", []*mat.Dense{frames(1e200)}, true, "too large to measure their spread (around 1e150 or more); scale the features down, e.g. divide them by 1e+200"},
		{"×1e-170 beside one frame repeated", []*mat.Dense{frames(1e-170), mat.NewDense(2, 2, nil)}, false, "too small to measure their spread (around 1e-150 or less); scale the features up, e.g. multiply them by 1e+170"},
		// A feature that is the same in every frame has no spread to
		// scale: the factor is that of the values that vary.
		{"×1e-170 beside a feature of 0.5 in every frame", []*mat.Dense{withConstant(frames(1e-170), 0.5)}, false, "too small to measure their spread (around 1e-150 or less); scale the features up, e.g. multiply them by 1e+170"},
		{"×1e-170 beside a feature of 2 in every frame", []*mat.Dense{withConstant(frames(1e-170), 2)}, false, "too small to measure their spread (around 1e-150 or less); scale the features up, e.g. multiply them by 1e+170"},
	} {
		err := WhyNoSpread(c.sets...)
		se := (*ScaleError)(nil)
		if !errors.As(err, &se) || se.Large != c.large || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s: %v, want a ScaleError (large %v) that ends %q", c.name, err, c.large, c.want)
		}
	}
	if err := WhyNoSpread(mat.NewDense(3, 2, []float64{1, 2, 1, 2, 1, 2})); !errors.Is(err, ErrNoSpread) {
		t.Errorf("one frame repeated: %v, want ErrNoSpread", err)
	}
}

// withConstant returns x with one more feature, first, of the value v in
// every frame.
func withConstant(x *mat.Dense, v float64) *mat.Dense {
	n, d := x.Dims()
	y := mat.NewDense(n, d+1, nil)
	for i := range n {
		y.Set(i, 0, v)
		copy(y.RawRowView(i)[1:], x.RawRowView(i))
	}
	return y
}

// TestBandwidthErrorAdvice: a bandwidth out of range says which way to
// scale the features and by what power of ten.
func TestBandwidthErrorAdvice(t *testing.T) {
	for _, c := range []struct {
		h    float64
		want string
	}{
		{3e151, "scale the features down, e.g. divide them by 1e+151"},
		{3e-161, "scale the features up, e.g. multiply them by 1e+161"},
	} {
		if err := CheckBandwidth(c.h); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckBandwidth(%g) = %v, want it to say %q", c.h, err, c.want)
		}
	}
}

// TestCheckScale: a rule's scale passes from MinScale to MaxScale, where
// some bandwidth a KDE takes stays one once scaled; beyond, Bandwidth
// fails for every set, and CheckScale says so without one. A fixed h and
// a rule without a scale pass.
func TestCheckScale(t *testing.T) {
	for _, c := range []struct {
		r  BandwidthRule
		ok bool
	}{
		{BandwidthRule{Kind: Fixed, Fixed: 1e300}, true},
		{BandwidthRule{Kind: NearestNeighbour}, true},
		{BandwidthRule{Kind: NearestNeighbour, Scale: MaxScale}, true},
		{BandwidthRule{Kind: Scott, Scale: MinScale}, true},
		{BandwidthRule{Kind: NearestNeighbour, Scale: 1e308}, false},
		{BandwidthRule{Kind: Silverman, Scale: 1e-301}, false},
	} {
		if err := c.r.CheckScale(); (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok %v", c.r, err, c.ok)
		}
	}
	// What CheckScale refuses, Bandwidth refuses for every set: here sets
	// whose nearest-neighbour bandwidth is near the narrowest, 1 and near
	// the widest a KDE takes, the rule's scale at fault; within the
	// limits, the set at the other end still gets a bandwidth.
	set := func(h0 float64) *mat.Dense { return mat.NewDense(2, 1, []float64{0, h0}) }
	for _, s := range []float64{MaxScale * 1.01, MinScale / 1.01} {
		r := BandwidthRule{Kind: NearestNeighbour, Scale: s}
		if r.CheckScale() == nil {
			t.Fatalf("%s passes CheckScale", r)
		}
		for _, h0 := range []float64{2 * MinBandwidth, 1, MaxBandwidth / 2} {
			h, err := r.Bandwidth(set(h0))
			var re *RuleBandwidthError
			if !errors.As(err, &re) || !re.Scaled() {
				t.Errorf("%s on a set of bandwidth %g: h %g, err %v; want the scale's RuleBandwidthError", r, h0, h, err)
			}
		}
	}
	for _, c := range []struct{ s, h0 float64 }{{MaxScale / 2, MinBandwidth * 1.5}, {MinScale * 2, MaxBandwidth / 1.5}} {
		r := BandwidthRule{Kind: NearestNeighbour, Scale: c.s}
		if h, err := r.Bandwidth(set(c.h0)); err != nil || !InRange(h) {
			t.Errorf("%s on a set of bandwidth %g: h %g, err %v; want a bandwidth in range", r, c.h0, h, err)
		}
	}
}

// TestRecordedOutOfFloat: a rule's scale that takes the bandwidth it
// records past the largest float64 is refused with the scales that keep
// it a number; one within them is recorded as it is, beyond what a KDE
// takes.
func TestRecordedOutOfFloat(t *testing.T) {
	x := mat.NewDense(2, 1, []float64{0, 10})
	r := BandwidthRule{Kind: NearestNeighbour, Scale: 1e308}
	if h, err := r.Recorded(x); err == nil || !strings.Contains(err.Error(), "makes +Inf, not a finite number > 0: give a scale from about") {
		t.Errorf("%s: h %v, err %v; want the scales that keep it a number", r, h, err)
	}
	r.Scale = 1e200
	if h, err := r.Recorded(x); err != nil || h != MedianNearestNeighbour(x)*1e200 {
		t.Errorf("%s: h %v, err %v; want %v", r, h, err, MedianNearestNeighbour(x)*1e200)
	}
	// A fixed bandwidth is recorded as it is, beyond a KDE's range too,
	// but not one that is no finite number > 0.
	if h, err := (BandwidthRule{Kind: Fixed, Fixed: 1e200}).Recorded(x); err != nil || h != 1e200 {
		t.Errorf("fixed 1e200: h %v, err %v; want 1e200", h, err)
	}
	for _, f := range []float64{0, -1, math.Inf(1), math.NaN()} {
		if _, err := (BandwidthRule{Kind: Fixed, Fixed: f}).Recorded(x); err == nil || !strings.Contains(err.Error(), "want a finite number > 0") {
			t.Errorf("fixed %v: err %v; want a finite number > 0", f, err)
		}
	}
}
