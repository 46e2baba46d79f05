package match

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/stats"
	"setmatch/internal/testutil"
)

func TestComparePair(t *testing.T) {
	p := mustKDE(t, mat.NewDense(3, 2, []float64{0, 0, 1, 0, 0, 1}), 0.5)
	q := mustKDE(t, mat.NewDense(3, 2, []float64{5, 5, 6, 5, 5, 6}), 0.5)
	rule := BandwidthRule{Kind: Fixed, Fixed: 0.5}
	r, err := ComparePair("a.npy", "b.npy", p, q, rule, true)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Compare(p, q)
	if r.Div != want || r.OneSided == nil {
		t.Fatalf("got %+v, want divergences %+v and the one-sided ones", r, want)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "A  a.npy: 3 frames × 2 features, bandwidth 0.5") ||
		!strings.HasPrefix(lines[5], "one-sided hellinger2 over A ") {
		t.Errorf("text:\n%s", text.String())
	}
	r.OneSided.JeffreyP = math.Inf(1)
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	one := got["one_sided"].(map[string]any)
	if v, ok := one["jeffrey_over_a"]; !ok || v != nil {
		t.Errorf("jeffrey_over_a = %v, want null for +Inf", v)
	}
	if got["dim"] != 2.0 || got["bandwidth_rule"] != rule.String() {
		t.Errorf("json: %s", js.String())
	}

	q3 := mustKDE(t, mat.NewDense(2, 3, []float64{0, 0, 0, 1, 1, 1}), 0.5)
	if _, err := ComparePair("a.npy", "c.npy", p, q3, rule, false); err == nil ||
		err.Error() != "a.npy has 2 features per frame but c.npy has 3: both sets must come from the same feature extractor" {
		t.Errorf("different dimensions: %v", err)
	}
}

// TestComparePairNotANumber: bandwidths whose densities under- or
// overflow give an error that says so, not divergences of NaN.
func TestComparePairNotANumber(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{0, 0, 1, 0, 0, 1})
	y := mat.NewDense(3, 2, []float64{0.5, 0, 1, 0.5, 0, 1})
	for _, h := range []float64{1e-320, 1e308} {
		_, err := ComparePair("a.npy", "b.npy", mustKDE(t, x, h), mustKDE(t, y, h), BandwidthRule{Kind: Fixed, Fixed: h}, false)
		if err == nil || !strings.Contains(err.Error(), "under- or overflow") || !strings.HasSuffix(err.Error(), "give a bandwidth nearer the spread of the frames (the nn rule measures it)") {
			t.Errorf("bandwidth %g: err = %v, want one that says the densities under- or overflow", h, err)
		}
	}
	// With a rule's bandwidths the advice is not another bandwidth: the
	// rule measured the spread, and the features' values are at fault,
	// or the rule's scale.
	for _, c := range []struct {
		h    float64
		rule BandwidthRule
		want string
	}{
		{1e-320, BandwidthRule{Kind: NearestNeighbour}, "; the features' values are too small for the nn rule; scale the features up, e.g. multiply them by 1e+308"},
		{1e308, BandwidthRule{Kind: Scott}, "; the features' values are too large for the scott rule; scale the features down, e.g. divide them by 1e+308"},
		{1e-320, BandwidthRule{Kind: NearestNeighbour, Scale: 1e-300}, "; give the nn rule a scale nearer 1"},
	} {
		_, err := ComparePair("a.npy", "b.npy", mustKDE(t, x, c.h), mustKDE(t, y, c.h), c.rule, false)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) || strings.Contains(err.Error(), "give a bandwidth") {
			t.Errorf("%v, bandwidth %g: err = %v, want one ending %q", c.rule, c.h, err, c.want)
		}
	}
}

// TestPairKDEsBandwidthRange: PairKDEs refuses a bandwidth a KDE does not
// take, before any divergence is NaN: a fixed one naming no set, a
// rule's naming the set and what is at fault, the features' values (with
// scaleadvice's factor from the rule's bandwidth) or the rule's scale
// (with the scales that keep it in range).
func TestPairKDEsBandwidthRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	x, y := testutil.RandSet(rng, 10, 20, 0, 1), testutil.RandSet(rng, 12, 20, 0.5, 1)
	scaled := func(s *mat.Dense, f float64) *mat.Dense {
		c := mat.DenseCopyOf(s)
		c.Scale(f, c)
		return c
	}
	nn := BandwidthRule{Kind: NearestNeighbour}
	h0 := MedianNearestNeighbour(scaled(x, 1e-160))
	if !(h0 > 0 && h0 < MinBandwidth) {
		t.Fatalf("the nn rule's median on values around 1e-160: %v; want a number below %g", h0, MinBandwidth)
	}
	hx, _ := nn.Bandwidth(x)
	for _, c := range []struct {
		name   string
		x, y   *mat.Dense
		rule   BandwidthRule
		want   string
		scaled bool
	}{
		{"fixed too small", x, y, BandwidthRule{Kind: Fixed, Fixed: 1e-300}, "a: fixed bandwidth is 1e-300, outside 1e-150 to 1e+150, where the kernel nears the limits of a float64: scale the features up", false},
		{"tiny values", scaled(x, 1e-160), scaled(y, 1e-160), nn,
			fmt.Sprintf("a: the nn rule: bandwidth is %v, outside 1e-150 to 1e+150, where the kernel nears the limits of a float64: scale the features up, e.g. multiply them by 1e+%d", h0, -int(math.Floor(math.Log10(h0)))), false},
		{"huge values in b", x, scaled(y, 1e152), BandwidthRule{Kind: Scott},
			"b: the scott rule: bandwidth is ", false},
		{"scale overflows", x, y, BandwidthRule{Kind: NearestNeighbour, Scale: 1e308},
			fmt.Sprintf("a: the nn rule gives a bandwidth of %.3g, which its scale, 1e+308, makes +Inf, beyond 1e+150, where the kernel nears the limits of a float64: give a scale from about %.3g to %.3g", hx, 1e-150/hx, 1e150/hx), true},
		{"scale too small", x, y, BandwidthRule{Kind: NearestNeighbour, Scale: 1e-200},
			"which its scale, 1e-200, makes ", true},
	} {
		_, _, err := PairKDEs("a", "b", mat.DenseCopyOf(c.x), mat.DenseCopyOf(c.y), c.rule)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
			continue
		}
		re := (*RuleBandwidthError)(nil)
		if errors.As(err, &re) != (c.rule.Kind != Fixed) || re != nil && re.Scaled() != c.scaled {
			t.Errorf("%s: %#v, want a RuleBandwidthError (scaled %v) for a rule", c.name, re, c.scaled)
		}
	}
}

// TestPairKDEsOffset: a large constant added to one feature of every
// frame of both sets (1e8) moves no frame nearer another, so the
// divergences of the KDEs PairKDEs makes are those without it, but for
// rounding, with a rule's bandwidths as with a fixed one. Computed as
// |x|² + |y|² − 2x·y on the frames as given, distances of frames of unit
// spread lose their digits beside norms of 1e16.
func TestPairKDEsOffset(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := testutil.RandSet(rng, 40, 20, 0, 1), testutil.RandSet(rng, 50, 20, 0.5, 1)
	shift := func(s *mat.Dense) *mat.Dense {
		c := mat.DenseCopyOf(s)
		n, _ := c.Dims()
		for i := range n {
			c.Set(i, 0, c.At(i, 0)+1e8)
		}
		return c
	}
	compare := func(x, y *mat.Dense, rule BandwidthRule) Divergences {
		t.Helper()
		p, q, err := PairKDEs("a", "b", x, y, rule)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Compare(p, q)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, rule := range []BandwidthRule{{Kind: Fixed, Fixed: 2}, {Kind: NearestNeighbour}} {
		want := compare(mat.DenseCopyOf(x), mat.DenseCopyOf(y), rule)
		got := compare(shift(x), shift(y), rule)
		// A value of 1e8 holds its frame's feature to 1.5e-8.
		if math.Abs(got.Hellinger2-want.Hellinger2) > 1e-6*want.Hellinger2 ||
			math.Abs(got.Jeffrey-want.Jeffrey) > 1e-6*want.Jeffrey {
			t.Errorf("%v: H² %v, J %v with the offset; %v, %v without", rule, got.Hellinger2, got.Jeffrey, want.Hellinger2, want.Jeffrey)
		}
	}
	// The same set given twice is centred once.
	z := mat.DenseCopyOf(x)
	if p, q, err := PairKDEs("a", "a", z, z, BandwidthRule{Kind: Fixed, Fixed: 2}); err != nil || p.Samples() != q.Samples() || !mat.EqualApprox(z, stats.Centred(x), 1e-12) {
		t.Errorf("a set given twice: err %v, or not centred once", err)
	}
}

// TestPairKDEsDirect: PairKDEs gives, to the bit, each set's KDE as
// NewKDE builds it, with the bandwidth the rule gives from the set's
// frames as given, on a copy of its frames less the mean frame of both
// sets (summed here row by row, x's rows then y's); and its errors word
// for word: a set's own error, or that of its centred frames, after the
// set's name, and the two dimensions.
func TestPairKDEsDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x, y := testutil.RandSet(rng, 40, 20, 3, 1), testutil.RandSet(rng, 50, 20, 3.5, 2)
	withNaN := mat.DenseCopyOf(y)
	withNaN.Set(7, 3, math.NaN())
	huge := mat.NewDense(2, 2, []float64{1.5e308, 0, 1.6e308, 1})   // its squared norms overflow
	tiny := mat.NewDense(2, 2, []float64{-1.5e308, 0, -1.7e308, 2}) // the mean with huge
	_, hugeErr := NewKDE(huge, 1)
	// Each of far's frames is within MaxSqNorm, but less the mean with
	// near (-2.99e153) its first frame is not.
	far := mat.NewDense(2, 1, []float64{6e153, 6.1e153})
	near := mat.NewDense(6, 1, []float64{-6e153, -6e153, -6e153, -6e153, -6e153, -6e153})
	_, farErr := NewKDE(mat.NewDense(1, 1, []float64{6e153 + 2.9875e153}), 1)
	flat := mat.NewDense(3, 20, nil)
	nn := BandwidthRule{Kind: NearestNeighbour}
	_, flatErr := NewKDERule(flat, nn)
	if flatErr == nil {
		t.Fatal("a set of equal frames has a bandwidth by the nearest-neighbour rule")
	}
	notFinite := func(name string, frame int) string {
		return fmt.Sprintf("%s: %v: frame %d", name, ErrNotFinite, frame)
	}
	cases := []struct {
		name    string
		x, y    *mat.Dense
		rule    BandwidthRule
		wantErr string // "": no error
	}{
		{"fixed", x, y, BandwidthRule{Kind: Fixed, Fixed: 1.3}, ""},
		{"nn", x, y, nn, ""},
		{"scott*2", x, y, BandwidthRule{Kind: Scott, Scale: 2}, ""},
		{"NaN in b", x, withNaN, BandwidthRule{Kind: Fixed, Fixed: 1}, notFinite("b", 7)},
		{"NaN in a", withNaN, x, BandwidthRule{Kind: Fixed, Fixed: 1}, notFinite("a", 7)},
		{"dimensions", x, mat.NewDense(3, 2, []float64{0, 1, 2, 3, 4, 6}), BandwidthRule{Kind: Fixed, Fixed: 1},
			"a has 20 features per frame but b has 2: both sets must come from the same feature extractor"},
		{"no spread", x, flat, nn, "b: " + flatErr.Error()},
		{"too large", huge, tiny, BandwidthRule{Kind: Fixed, Fixed: 1}, "a: " + fmt.Sprint(hugeErr)},
		{"too large once centred", far, near, BandwidthRule{Kind: Fixed, Fixed: 1}, "a: " + fmt.Sprint(farErr)},
	}
	for _, c := range cases {
		gp, gq, err := PairKDEs("a", "b", mat.DenseCopyOf(c.x), mat.DenseCopyOf(c.y), c.rule)
		if c.wantErr != "" || err != nil {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%s: error %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		_, d := c.x.Dims()
		mean := make([]float64, d)
		for _, s := range []*mat.Dense{c.x, c.y} {
			n, _ := s.Dims()
			for i := range n {
				for j := range d {
					mean[j] += s.At(i, j)
				}
			}
		}
		nx, _ := c.x.Dims()
		ny, _ := c.y.Dims()
		for j := range mean {
			mean[j] /= float64(nx + ny)
		}
		for i, k := range []struct {
			got *KDE
			set *mat.Dense
		}{{gp, c.x}, {gq, c.y}} {
			h, err := c.rule.Bandwidth(k.set)
			if err != nil {
				t.Fatal(err)
			}
			centred := mat.DenseCopyOf(k.set)
			n, _ := centred.Dims()
			for r := range n {
				for j := range d {
					centred.Set(r, j, centred.At(r, j)-mean[j])
				}
			}
			want, err := NewKDE(centred, h)
			if err != nil {
				t.Fatal(err)
			}
			got := k.got
			if got.h != want.h || got.logNorm != want.logNorm || !mat.Equal(got.x, want.x) || !slices.Equal(got.sqNorm, want.sqNorm) {
				t.Errorf("%s: KDE %d differs from NewKDE of its centred frames", c.name, i)
			}
		}
	}
}

// TestPairKDEsBuildsOnce: with a fixed bandwidth PairKDEs allocates one
// KDE and its norms for each set, and the mean frame: five allocations,
// where building each KDE again on the centred frames took nine.
func TestPairKDEsBuildsOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x, y := testutil.RandSet(rng, 30, 8, 0, 1), testutil.RandSet(rng, 20, 8, 1, 1)
	rule := BandwidthRule{Kind: Fixed, Fixed: 1}
	allocs := testing.AllocsPerRun(20, func() {
		if _, _, err := PairKDEs("a", "b", x, y, rule); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 5 {
		t.Errorf("PairKDEs allocates %v times, want 5: a KDE and its norms per set, and the mean frame", allocs)
	}
}
