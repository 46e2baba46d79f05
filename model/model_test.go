package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/match"
	"setmatch/method"
)

// mustMatcher returns m's matcher, failing t if m has none.
func mustMatcher(t testing.TB, m *Model) *Matcher {
	t.Helper()
	mt, err := m.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	return mt
}

// mfOrtho returns a random D×d matrix with orthonormal columns (QR of a
// Gaussian matrix).
func mfOrtho(rng *rand.Rand, bigD, d int) *mat.Dense {
	var qr mat.QR
	qr.Factorize(testutil.RandSet(rng, bigD, d, 0, 1))
	var q mat.Dense
	qr.QTo(&q)
	return mat.DenseCopyOf(q.Slice(0, bigD, 0, d))
}

// mfModel returns a valid model with D features, d dimensions and the given
// number of frames per gallery set; classes "a", "b", "c", … have their
// sets shifted apart.
func mfModel(seed uint64, bigD, d int, frames []int) *Model {
	rng := rand.New(rand.NewPCG(seed, 1))
	m := &Model{
		Divergence:     match.Hellinger,
		QueryBandwidth: match.BandwidthRule{Kind: match.Scott},
		W:              mfOrtho(rng, bigD, d),
		Mean:           make([]float64, bigD),
		Threshold:      math.Inf(1),
		Meta: Meta{
			Created:    time.Date(2026, 11, 22, 13, 0, 0, 123456789, time.FixedZone("CET", 3600)),
			Tool:       "setmatch test",
			Data:       "synthetic",
			Params:     map[string]string{"dim": "3", "divergence": "hellinger", "note": "é ✓"},
			FinalCost:  -1.25e-3,
			Iterations: 17,
		},
	}
	for j := range m.Mean {
		m.Mean[j] = rng.NormFloat64()
	}
	for i, n := range frames {
		label := string(rune('a' + i%3))
		x := testutil.RandSet(rng, n, d, 3*float64(i%3), 1)
		h := 0.5
		if n >= 2 {
			h, _ = match.BandwidthRule{Kind: match.Scott}.Bandwidth(x)
		}
		m.Sets = append(m.Sets, Set{Label: label, Name: "set" + string(rune('0'+i)), Samples: x, Bandwidth: h})
	}
	return m
}

func TestValidateOK(t *testing.T) {
	m := mfModel(1, 8, 3, []int{5, 1, 7})
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.InputDim() != 8 || m.Dim() != 3 {
		t.Errorf("dims %d→%d", m.InputDim(), m.Dim())
	}
	if e := m.OrthonormalityError(); !(e < 1e-12) {
		t.Errorf("orthonormality error %g", e)
	}
	if got := strings.Join(m.Classes(), ","); got != "a,b,c" {
		t.Errorf("classes %s", got)
	}
	// d = D is allowed.
	sq := mfModel(2, 4, 4, []int{3})
	if err := sq.Validate(); err != nil {
		t.Errorf("square W: %v", err)
	}
}

func TestValidateErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(m *Model)
		want   string
	}{
		{"nil W", func(m *Model) { m.W = nil }, "W is missing"},
		{"wide W", func(m *Model) { m.W = mat.NewDense(2, 3, []float64{1, 0, 0, 0, 1, 0}) }, "must not have more columns than rows"},
		{"non-orthonormal", func(m *Model) { m.W.Set(0, 0, m.W.At(0, 0)+1e-3) }, "does not have orthonormal columns: max |WᵀW − I| = "},
		{"scaled W", func(m *Model) { m.W.Scale(2, m.W) }, "= 3, tolerance 1e-06"},
		{"NaN in W", func(m *Model) { m.W.Set(4, 1, math.NaN()) }, "W[4, 1] is NaN"},
		{"mean length", func(m *Model) { m.Mean = m.Mean[:5] }, "mean has 5 entries, W has 8 rows"},
		{"Inf in mean", func(m *Model) { m.Mean[2] = math.Inf(-1) }, "mean[2] is -Inf"},
		{"no sets", func(m *Model) { m.Sets = nil }, "gallery has no sets"},
		{"empty label", func(m *Model) { m.Sets[1].Label = "" }, "gallery set 1 (\"\"/\"set1\"): empty label"},
		{"reserved label", func(m *Model) { m.Sets[1].Label = Failed }, `gallery set 1 ("failed"/"set1"): the label "failed" is reserved`},
		{"bad utf8", func(m *Model) { m.Sets[0].Name = "\xff" }, "not valid UTF-8"},
		{"no samples", func(m *Model) { m.Sets[0].Samples = nil }, "no samples"},
		{"wrong cols", func(m *Model) { m.Sets[2].Samples = mat.NewDense(2, 4, nil) }, "samples have 4 columns, the model's dimension is 3"},
		{"zero bandwidth", func(m *Model) { m.Sets[0].Bandwidth = 0 }, "bandwidth is 0"},
		{"Inf bandwidth", func(m *Model) { m.Sets[0].Bandwidth = math.Inf(1) }, "bandwidth is +Inf"},
		{"tiny bandwidth", func(m *Model) { m.Sets[0].Bandwidth = 5e-324 }, "bandwidth is 5e-324, outside 1e-150 to 1e+150"},
		{"tiny fixed rule", func(m *Model) { m.QueryBandwidth = match.BandwidthRule{Kind: match.Fixed, Fixed: 1e-320} }, "fixed bandwidth is 1e-320, outside"},
		{"NaN sample", func(m *Model) { m.Sets[2].Samples.Set(6, 2, math.NaN()) }, "samples[6, 2] is NaN"},
		{"NaN threshold", func(m *Model) { m.Threshold = math.NaN() }, "threshold is NaN"},
		{"negative threshold", func(m *Model) { m.Threshold = -1 }, "threshold is -1: scores are never below 0"},
		{"divergence", func(m *Model) { m.Divergence = 7 }, "unknown divergence 7"},
		{"rule kind", func(m *Model) { m.QueryBandwidth = match.BandwidthRule{Kind: 9} }, "unknown bandwidth rule 9"},
		{"fixed rule", func(m *Model) { m.QueryBandwidth = match.BandwidthRule{Kind: match.Fixed, Fixed: -1} }, "fixed bandwidth is -1"},
		{"final cost", func(m *Model) { m.Meta.FinalCost = math.NaN() }, "final cost is NaN"},
		{"iterations", func(m *Model) { m.Meta.Iterations = -1 }, "iterations is -1"},
		{"identity and W", func(m *Model) { m.Identity = true }, "both the identity and a matrix W"},
		{"fewer cols", func(m *Model) { m.Sets[2].Samples = mat.NewDense(2, 2, []float64{1, 2, 3, 4}) }, "samples have 2 columns, the model's dimension is 3"},
		{"history without operation", func(m *Model) { m.Meta.History = []Change{{Time: m.Meta.Created, Op: "", Sets: 1, Classes: 1}} }, `history entry 0: operation ""`},
		{"history of negative sets", func(m *Model) { m.Meta.History = []Change{{Time: m.Meta.Created, Op: "enroll", Sets: -1}} }, "history entry 0"},
	} {
		m := mfModel(3, 8, 3, []int{5, 2, 7})
		tc.break_(m)
		err := m.Validate()
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !errors.Is(err, ErrInvalidModel) {
			t.Errorf("%s: %v does not wrap ErrInvalidModel", tc.name, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q does not contain %q", tc.name, err, tc.want)
		}
	}
	var nilModel *Model
	if err := nilModel.Validate(); err == nil {
		t.Error("nil model: no error")
	}
	// A label no class folder can have, which enroll refuses to give
	// (CheckNewLabel): a file that holds one still loads, for forget.
	m := mfModel(3, 8, 3, []int{5, 2, 7})
	m.Sets[1].Label = "a/b"
	if err := m.Validate(); err != nil {
		t.Errorf("a label with a slash: %v", err)
	}
}

// TestFreeProjection: the W of nn-h-lda need not have orthonormal
// columns, only full column rank: a scaled W is valid for it (not for
// nn-h-dr), one whose columns are dependent, or nearly (a smallest
// singular value below 1e-12 of the largest), is not.
func TestFreeProjection(t *testing.T) {
	dependent := func(eps float64) func(w *mat.Dense) {
		return func(w *mat.Dense) {
			for i := range 8 {
				w.Set(i, 2, 3*w.At(i, 0))
			}
			w.Set(0, 2, w.At(0, 2)+eps)
		}
	}
	for _, c := range []struct {
		name   string
		method string
		edit   func(w *mat.Dense)
		want   string // "" for valid
	}{
		{"orthonormal", "nn-h-lda", func(*mat.Dense) {}, ""},
		{"scaled", "nn-h-lda", func(w *mat.Dense) { w.Scale(2, w) }, ""},
		{"scaled, nn-h-dr", "nn-h-dr", func(w *mat.Dense) { w.Scale(2, w) }, "does not have orthonormal columns"},
		{"dependent columns", "nn-h-lda", dependent(0), "does not have full column rank"},
		{"nearly dependent", "nn-h-lda", dependent(1e-13), "does not have full column rank"},
		{"independent enough", "nn-h-lda", dependent(1e-6), ""},
	} {
		m := mfModel(3, 8, 3, []int{5, 2, 7})
		m.Selection = Selection{Method: method.Name(c.method), CVAccuracy: math.NaN()}
		c.edit(m.W)
		err := m.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an invalid model: %s", c.name, err, c.want)
		}
	}
}

func TestThresholdMayBeInfinite(t *testing.T) {
	m := mfModel(4, 6, 2, []int{3})
	for _, th := range []float64{math.Inf(1), 0, 0.3} {
		m.Threshold = th
		if err := m.Validate(); err != nil {
			t.Errorf("threshold %v: %v", th, err)
		}
	}
}

func TestProject(t *testing.T) {
	m := mfModel(5, 6, 2, []int{3})
	rng := rand.New(rand.NewPCG(9, 9))
	x := testutil.RandSet(rng, 4, 6, 0, 1)
	p, err := m.Project(x)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := p.Dims(); r != 4 || c != 2 {
		t.Fatalf("projection is %d×%d, want 4×2", r, c)
	}
	// By hand: p_ik = Σ_j (x_ij − mean_j) W_jk.
	for i := range 4 {
		for k := range 2 {
			var s float64
			for j := range 6 {
				s += (x.At(i, j) - m.Mean[j]) * m.W.At(j, k)
			}
			if math.Abs(s-p.At(i, k)) > 1e-12 {
				t.Errorf("p[%d,%d] = %v, want %v", i, k, p.At(i, k), s)
			}
		}
	}
	if x.At(0, 0) == 0 {
		t.Fatal("test data")
	}
	if _, err := m.Project(mat.NewDense(2, 5, nil)); err == nil || err.Error() != "batch has 5 features, model expects 6" {
		t.Errorf("wrong width: %v", err)
	}
	x.Set(3, 4, math.NaN())
	if _, err := m.Project(x); err == nil || !strings.Contains(err.Error(), "frame 3 feature 4 is NaN") {
		t.Errorf("NaN: %v", err)
	}
	if _, err := m.Project(nil); err == nil {
		t.Error("nil batch: no error")
	}
}
