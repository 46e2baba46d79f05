package deploy

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/kfda"
	"setmatch/method"
	"setmatch/model"
)

// TestWithoutOthers checks WithoutOthers against Forget: removing the
// others' classes leaves the gallery and the centre that forgetting each
// of them in turn leaves. A member that decides by nearest neighbour, in
// the full space or after a W the classes shaped, keeps the threshold,
// the class factors and the bandwidth trained on every class; a kFDA
// member's threshold is set again on the stand-ins of the gallery left.
// The history records no change, the model records how many classes
// left, and the words say train set the threshold.
func TestWithoutOthers(t *testing.T) {
	all, labels, names := ringSets(7, 3, 6, 0.3, 9)
	others := []string{"class-02", "class-05"}
	for _, mname := range []method.Name{method.NNH, method.KFDAHG, method.NNHDR} {
		t.Run(string(mname), func(t *testing.T) {
			a := buildFor(t, mname, all, labels, names, "auto:balanced")
			b := buildFor(t, mname, all, labels, names, "auto:balanced")
			trained, bandwidth := a.Threshold, a.QueryBandwidth
			c, err := WithoutOthers(a, others, nil, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range others {
				if _, err := Forget(b, o, "", nil, 2, time.Time{}); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := a.Classes(), b.Classes(); !slices.Equal(got, want) || slices.Contains(got, others[0]) || len(got) != 5 {
				t.Errorf("classes %v, want %v", got, want)
			}
			if !slices.EqualFunc(a.Mean, b.Mean, func(x, y float64) bool { return math.Abs(x-y) <= 1e-12*math.Max(1, math.Abs(y)) }) {
				t.Errorf("centre %v, forget of each %v", a.Mean, b.Mean)
			}
			words := a.Selection.Params["threshold"]
			if mname == method.KFDAHG {
				if a.Threshold == trained || !strings.Contains(words, "stand-in") {
					t.Errorf("kFDA threshold %v (trained %v): %q, want it set again on the stand-ins", a.Threshold, trained, words)
				}
				// The threshold moved, but no door had the one before:
				// the change's words do not say how far.
				var out strings.Builder
				if err := c.Write(&out, "train", a); err != nil || strings.Contains(out.String(), "→") || !strings.Contains(out.String(), "train: threshold by") {
					t.Errorf("the change's words (%v):\n%s\nwant the threshold's rule and no move", err, out.String())
				}
			} else if a.Threshold != trained || !strings.Contains(words, "train's calibration on every class, the --others' too, kept") || c.Rates != nil {
				t.Errorf("threshold %v, want %v as trained: %q", a.Threshold, trained, words)
			}
			if a.QueryBandwidth != bandwidth {
				t.Errorf("query bandwidth %+v, want %+v as trained", a.QueryBandwidth, bandwidth)
			}
			if c.Sets != 6 || c.Classes != 5 || c.GallerySets != 15 || c.Op != ChangeOthers {
				t.Errorf("change %+v", c)
			}
			if len(a.Meta.History) != 0 {
				t.Errorf("history %v: training records no change", a.Meta.History)
			}
			if a.Selection.Params[OthersParam] != "2" {
				t.Errorf("params %v: want %s=2", a.Selection.Params, OthersParam)
			}
			// Words of a threshold set again say so; a kept one's do not.
			if again := strings.Contains(words, "set again by setmatch train on the gallery without the --others classes"); again != (mname == method.KFDAHG) {
				t.Errorf("threshold words %q", words)
			}
		})
	}
}

// TestWithoutOthersRefuses: a class the gallery does not hold, and one
// removal too many, fail and leave the model as it was.
func TestWithoutOthersRefuses(t *testing.T) {
	all, labels, names := ringSets(3, 3, 6, 0.3, 9)
	m := buildFor(t, method.NNH, all, labels, names, "auto:balanced")
	was := m.Threshold
	for _, c := range []struct {
		others []string
		want   string
	}{
		{[]string{"class-09"}, `no set of the others' class "class-09"`},
		{[]string{"class-00", "class-01"}, "without the 2 others' classes the gallery would hold 1: a model keeps at least two"},
		{nil, "no others' classes"},
	} {
		_, err := WithoutOthers(m, c.others, nil, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.others, err, c.want)
		}
		if len(m.Classes()) != 3 || m.Threshold != was {
			t.Errorf("%v: the model changed on an error", c.others)
		}
	}
}

// TestKeptGlobalBandwidth: forget's list of what stays names the global
// bandwidth train computed from the others' frames only where the model
// has one: a model of per-set bandwidths has none to keep.
func TestKeptGlobalBandwidth(t *testing.T) {
	all, labels, names := ringSets(7, 3, 6, 0.3, 9)
	for _, c := range []struct {
		bw     method.Bandwidth
		listed bool
	}{{method.Bandwidth{Mode: method.Global, Scale: 1}, true}, {method.Bandwidth{Mode: method.PerSet, Scale: 1}, false}} {
		opt := Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 2}
		opt.Grid.Bandwidths = []method.Bandwidth{c.bw}
		m := buildRule(t, &opt, "auto:balanced", all, labels, names).Model
		if _, err := WithoutOthers(m, []string{"class-05", "class-06"}, nil, 2); err != nil {
			t.Fatal(err)
		}
		listed := slices.ContainsFunc(Kept(m), func(k string) bool { return strings.Contains(k, "the global bandwidth") })
		if listed != c.listed {
			t.Errorf("bandwidth %+v: Kept %q lists the global bandwidth %v, want %v", c.bw, Kept(m), listed, c.listed)
		}
	}
}

// TestResultWithoutOthers: the Result's gallery matrix is the changed
// gallery's, so that its scale is the model's as computed anew.
func TestResultWithoutOthers(t *testing.T) {
	all, labels, names := ringSets(6, 3, 6, 0.3, 9)
	opt := Options{Method: method.KFDAHG, Grid: grid(), Seed: 3, Workers: 2}
	opt.Grid.Widths, opt.Grid.Regs = []float64{1}, []float64{1e-2, 1}
	res := buildRule(t, &opt, "auto:balanced", all, labels, names)
	if _, err := res.WithoutOthers([]string{"class-04"}, nil, 2); err != nil {
		t.Fatal(err)
	}
	if r, _ := res.Gallery.Dims(); r != len(res.Model.Sets) {
		t.Fatalf("gallery matrix of %d sets, the model holds %d", r, len(res.Model.Sets))
	}
	got, err := res.Scale()
	if err != nil {
		t.Fatal(err)
	}
	// The scale of the model left, from its gallery's kernel computed
	// anew (GalleryKernel), not from the Result's matrix.
	k, err := galleryScores(res.Model, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	v, err := modelView(res.Model, k, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-v.scale) > 1e-12*v.scale || res.ThresholdSource == "" || !strings.Contains(res.ThresholdSource, "stand-in") {
		t.Errorf("scale %v, want %v; threshold source %q", got, v.scale, res.ThresholdSource)
	}
	if res.Calibration == nil {
		t.Error("the kFDA model's threshold was set again on stand-ins, but the Result has no rates")
	}

	// A nearest-neighbour model keeps Build's threshold, and the Result
	// the rates Build calibrated it with.
	opt = Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 2}
	res = buildRule(t, &opt, "auto:balanced", all, labels, names)
	built := res.Calibration
	if built == nil {
		t.Fatal("Build calibrated no rates")
	}
	if _, err := res.WithoutOthers([]string{"class-04"}, nil, 2); err != nil {
		t.Fatal(err)
	}
	if res.Calibration != built || !strings.Contains(res.ThresholdSource, "train's calibration on every class") {
		t.Errorf("nn-h: rates %+v after WithoutOthers, Build's %+v; threshold source %q", res.Calibration, built, res.ThresholdSource)
	}

	// Train's strangers' sets, which its calibration used, are not said
	// to be unused when the others leave.
	stranger := []*mat.Dense{all[len(all)-1]}
	opt = Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 2, Strangers: stranger}
	res = buildRule(t, &opt, "auto:balanced", all[:len(all)-3], labels[:len(all)-3], names[:len(all)-3])
	if _, err := res.WithoutOthers([]string{"class-04"}, stranger, 2); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.ThresholdSource, "not used") {
		t.Errorf("nn-h trained with strangers' sets: %q", res.ThresholdSource)
	}
}

// TestResultWithoutOthersReusesScores: Result.WithoutOthers takes the
// kept gallery's scores the change computed (a kFDA member's kernel
// refitted, a threshold's divergences set again on the gallery) instead
// of computing them again, and they are exactly those computed anew; a
// change that computed none (a threshold kept, of a nearest-neighbour
// member) leaves them to the Result, once.
func TestResultWithoutOthersReusesScores(t *testing.T) {
	all, labels, names := ringSets(6, 3, 6, 0.3, 9)
	kept := len(all) - 3 // class-04's 3 sets leave
	for _, c := range []struct {
		method method.Name
		rule   string
		again  int // pairs of the kept gallery the Result compares itself
	}{
		{method.KFDAHG, "auto:balanced", 0},
		{method.KFDAHG, "0.5", 0},
		{method.NNH, "auto", 0},
		{method.NNH, "auto:balanced", kept * (kept - 1) / 2},
	} {
		pairsOf := func(without func(*Result) error) (*Result, int) {
			opt := Options{Method: c.method, Grid: grid(), Seed: 3, Workers: 2}
			opt.Grid.Widths, opt.Grid.Regs = []float64{1}, []float64{1e-2, 1}
			res := buildRule(t, &opt, c.rule, all, labels, names)
			pairs := 0
			pairsHook = func(s, p int) {
				if s == kept {
					pairs += p
				}
			}
			defer func() { pairsHook = nil }()
			if err := without(res); err != nil {
				t.Fatalf("%s, threshold %q: %v", c.method, c.rule, err)
			}
			return res, pairs
		}
		_, change := pairsOf(func(res *Result) error {
			_, err := WithoutOthers(res.Model, []string{"class-04"}, nil, 2)
			return err
		})
		res, pairs := pairsOf(func(res *Result) error {
			_, err := res.WithoutOthers([]string{"class-04"}, nil, 2)
			return err
		})
		if pairs-change != c.again {
			t.Errorf("%s, threshold %q: the Result compared %d pairs of the kept gallery's sets after the change's %d, want %d", c.method, c.rule, pairs-change, change, c.again)
		}
		anew, err := galleryScores(res.Model, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		gallery := anew
		if res.Model.Discriminant != nil {
			gallery = kfda.KernelDistances(anew)
			if res.kernel == nil || !mat.Equal(res.kernel, anew) {
				t.Errorf("%s, threshold %q: the Result's kernel is not the kept gallery's computed anew", c.method, c.rule)
			}
		}
		if !mat.Equal(res.Gallery, gallery) {
			t.Errorf("%s, threshold %q: the Result's gallery matrix is not the kept gallery's computed anew", c.method, c.rule)
		}
	}
}

// TestChangeAfterOthers: enroll and forget keep the threshold that a
// nearest-neighbour model trained with others' classes was calibrated
// at, and ask for no strangers' sets; a kFDA model's is set again.
func TestChangeAfterOthers(t *testing.T) {
	all, labels, names := ringSets(7, 3, 6, 0.3, 9)
	extra, _, _ := ringSets(7, 4, 6, 0.3, 40)
	for _, mname := range []method.Name{method.NNH, method.NNHDR, method.KFDAHG} {
		m := buildFor(t, mname, all, labels, names, "auto:balanced")
		if _, err := WithoutOthers(m, []string{"class-05", "class-06"}, nil, 2); err != nil {
			t.Fatal(err)
		}
		trained, bandwidth, setBandwidth := m.Threshold, m.QueryBandwidth, m.Sets[0].Bandwidth
		if NeedsStrangers(m) != (mname == method.KFDAHG) {
			t.Errorf("%s: NeedsStrangers %v", mname, NeedsStrangers(m))
		}
		// Strangers' sets given to a change that keeps train's
		// calibration are not used, and the change says so.
		c, err := Enroll(m, []model.NewSet{{Label: "class-00", Name: "extra", Frames: extra[3]}}, []*mat.Dense{extra[len(extra)-1]}, 2, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if said := strings.Contains(c.Threshold, "the 1 strangers' sets given (--strangers) are not used"); said != (mname != method.KFDAHG) {
			t.Errorf("%s: enroll with a stranger's set: %q", mname, c.Threshold)
		}
		if _, err := Forget(m, "class-01", "", nil, 2, time.Time{}); err != nil {
			t.Fatal(err)
		}
		// train computed the bandwidth from the others' frames too, and
		// calibrated the threshold at it: a change keeps it, and forget
		// says so.
		if !slices.ContainsFunc(Kept(m), func(k string) bool {
			return strings.Contains(k, "the global bandwidth, which train computed from the --others' frames too")
		}) {
			t.Errorf("%s: Kept %q does not list the bandwidth", mname, Kept(m))
		}
		if m.QueryBandwidth != bandwidth || m.Sets[0].Bandwidth != setBandwidth {
			t.Errorf("%s: bandwidth %+v (set %v) after enroll and forget, trained %+v (%v)", mname, m.QueryBandwidth, m.Sets[0].Bandwidth, bandwidth, setBandwidth)
		}
		kept := m.Threshold == trained && strings.Contains(m.Selection.Params["threshold"], "train's calibration on every class, the --others' too, kept")
		if kept != (mname != method.KFDAHG) {
			t.Errorf("%s: threshold %v after enroll and forget, trained %v: %q", mname, m.Threshold, trained, m.Selection.Params["threshold"])
		}
	}
}
