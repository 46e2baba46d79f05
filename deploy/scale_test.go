package deploy

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
	"setmatch/method"
	"setmatch/model"
)

// scaled returns copies of xs times s.
func scaled(xs []*mat.Dense, s float64) []*mat.Dense {
	out := make([]*mat.Dense, len(xs))
	for i, x := range xs {
		out[i] = mat.DenseCopyOf(x)
		out[i].Scale(s, out[i])
	}
	return out
}

// TestSetKernelsAtLargeScale: GDA and CDL build no KDE, so features around
// 1e151, where a KDE's bandwidth is beyond what a float64 kernel takes,
// are theirs to model: train (the threshold on stand-in strangers, on the
// training sets, and on the frame halves of one set per class), the model file, the matcher and enroll work, and decide
// as on the same features unscaled. Features beyond what a covariance
// holds (1e160: their squares overflow) are refused with a message that
// says so and what to do.
func TestSetKernelsAtLargeScale(t *testing.T) {
	all, labels, names := separated(5, 4, 1)
	train, lab, nam, held, heldLab := splitTrainProbe(all, labels, names, 3, 1)
	const s = 1e151
	for _, m := range []method.Name{method.GDA, method.CDL} {
		for _, rule := range []string{"", "auto"} {
			opt := Options{Method: m, Grid: grid(), Seed: 3, Workers: 1}
			base := buildRule(t, &opt, rule, train, lab, nam)
			opt = withThreshold(t, Options{Method: m, Grid: grid(), Seed: 3, Workers: 1}, rule)
			big, err := Build(scaled(train, s), lab, nam, opt)
			if err != nil {
				t.Errorf("%s, --threshold %q, features ×%g: %v", m, rule, s, err)
				continue
			}
			if b, g := base.Model.Threshold, big.Model.Threshold; !(math.Abs(b-g) <= 1e-6*b) {
				t.Errorf("%s, --threshold %q: threshold %v at ×%g, %v unscaled", m, rule, g, s, b)
			}
			var buf bytes.Buffer
			if err := model.Encode(&buf, big.Model); err != nil {
				t.Fatalf("%s: writing the model: %v", m, err)
			}
			read, err := model.Decode(&buf)
			if err != nil {
				t.Fatalf("%s: reading the model back: %v", m, err)
			}
			bm, gm := matchers(t, base.Model, read)
			for i, x := range held {
				want, err := bm.Match(x)
				if err != nil {
					t.Fatal(err)
				}
				y := scaled([]*mat.Dense{x}, s)[0]
				got, err := gm.Match(y)
				if err != nil {
					t.Fatalf("%s: matching a held-out set ×%g: %v", m, s, err)
				}
				if wl, gl := bm.Labels()[want.Decision.Best], gm.Labels()[got.Decision.Best]; wl != gl || want.Decision.Known != got.Decision.Known {
					t.Errorf("%s: held-out set %d (%s): %s known %v at ×%g, %s known %v unscaled", m, i, heldLab[i], gl, got.Decision.Known, s, wl, want.Decision.Known)
				}
			}
			if rule != "" {
				continue
			}
			if _, err := Enroll(read, []model.NewSet{{Label: "new", Name: "n0", Frames: scaled(held[:1], s)[0]}, {Label: "new", Name: "n1", Frames: scaled(held[1:2], s)[0]}}, nil, 1, time.Unix(0, 0)); err != nil {
				t.Errorf("%s: enroll ×%g: %v", m, s, err)
			}
		}
		// One set per class: the threshold from their frame halves.
		var one []*mat.Dense
		var oneLab, oneNam []string
		for i := 0; i < len(train); i += 3 {
			one, oneLab, oneNam = append(one, train[i]), append(oneLab, lab[i]), append(oneNam, nam[i])
		}
		opt := Options{Method: m, Grid: grid(), Seed: 3, Workers: 1}
		base := buildRule(t, &opt, "auto", one, oneLab, oneNam)
		if big, err := Build(scaled(one, s), oneLab, oneNam, opt); err != nil {
			t.Errorf("%s, one set per class, features ×%g: %v", m, s, err)
		} else if b, g := base.Model.Threshold, big.Model.Threshold; !(math.Abs(b-g) <= 1e-6*b) || !strings.Contains(big.ThresholdSource, "frame halves") {
			t.Errorf("%s, one set per class: threshold %v at ×%g (%s), %v unscaled", m, g, s, big.ThresholdSource, b)
		}
		opt = withThreshold(t, Options{Method: m, Grid: grid(), Seed: 3, Workers: 1}, "")
		_, err := Build(scaled(train, 1e160), lab, nam, opt)
		if err == nil || !strings.Contains(err.Error(), "too large") || !strings.Contains(err.Error(), "scale the features") {
			t.Errorf("%s, features ×1e160: error %v, want one that says the values are too large and to scale the features", m, err)
		}
	}
}

// TestSetKernelErrorsNameTheSet: where one training set's values are too
// large for GDA's or CDL's set kernel (×1e160), train's error names it as
// class/set, as its other errors of one set do, and so does enroll's for a
// new set, where they named an index ("set 6", "gallery set 20").
func TestSetKernelErrorsNameTheSet(t *testing.T) {
	all, labels, names := separated(5, 4, 1)
	const bad = 6
	sets := append([]*mat.Dense(nil), all...)
	sets[bad] = scaled(all[bad:bad+1], 1e160)[0]
	want := "set " + labels[bad] + "/" + names[bad] + ": "
	for _, m := range []method.Name{method.GDA, method.CDL, method.KFDAMix} {
		opt := withThreshold(t, Options{Method: m, Grid: grid(), Seed: 3, Workers: 1}, "")
		_, err := Build(sets, labels, names, opt)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "too large") {
			t.Errorf("%s, set %d ×1e160: error %v, want it to name the set (%q)", m, bad, err, want)
		}
	}
	for _, m := range []method.Name{method.GDA, method.CDL} {
		opt := withThreshold(t, Options{Method: m, Grid: grid(), Seed: 3, Workers: 1}, "")
		r, err := Build(all, labels, names, opt)
		if err != nil {
			t.Fatal(err)
		}
		add := []model.NewSet{{Label: "new", Name: "n0", Frames: scaled(all[:1], 1e160)[0]}, {Label: "new", Name: "n1", Frames: scaled(all[1:2], 1.5)[0]}}
		_, err = Enroll(r.Model, add, nil, 1, time.Unix(0, 0))
		if err == nil || !strings.Contains(err.Error(), "gallery set new/n0: ") || !strings.Contains(err.Error(), "too large") {
			t.Errorf("%s: enrolling a set ×1e160: error %v, want it to name the set (gallery set new/n0)", m, err)
		}
	}
}

// TestDivergenceMatrixErrorsNameTheSet: train's error from the gallery's
// divergence matrix names a set as class/set, where it said "set 2".
func TestDivergenceMatrixErrorsNameTheSet(t *testing.T) {
	all, labels, names := separated(2, 3, 1)
	sets := append([]*mat.Dense(nil), all...)
	sets[2] = mat.DenseCopyOf(all[2])
	sets[2].Set(1, 0, math.NaN())
	h := make([]float64, len(sets))
	for i := range h {
		h[i] = 1
	}
	_, err := divergenceMatrix(sets, h, match.Hellinger, 1, func(i int) string { return labels[i] + "/" + names[i] })
	if want := "set " + labels[2] + "/" + names[2] + ": "; err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "NaN or Inf") {
		t.Errorf("a set holding NaN: error %v, want it to name the set (%q)", err, want)
	}
}

// TestMeanOverflowNamesTheSet: one set ×1.6e307 makes the sum of the
// training sets' frames overflow, and so their mean frame, which the
// PCA and Fisher steps of the projections take, and kFDA's and the set
// kernels' paths run into too. Train refuses it before any method runs,
// naming that set, with what to do, for every method; the projections
// said "eigenvalues … did not converge" and kfda-hg that its scatter was
// not positive definite, naming no set. A NaN is not taken for an
// overflow.
func TestMeanOverflowNamesTheSet(t *testing.T) {
	all, labels, names := separated(5, 4, 1)
	const bad = 6
	sets := append([]*mat.Dense(nil), all...)
	sets[bad] = scaled(all[bad:bad+1], 1.6e307)[0]
	want := "set " + labels[bad] + "/" + names[bad] + ": "
	for _, m := range []method.Name{method.NNH, method.NNJ, method.NNHDR, method.NNJDR, method.NNHLDA, Learned, method.KFDAHG, method.GDA, method.KFDAMix, method.Auto} {
		g := grid()
		g.Bandwidths = []method.Bandwidth{{Mode: method.Global, Scale: 1}}
		opt := withThreshold(t, Options{Method: m, Grid: g, Seed: 3, Workers: 1, Dim: 2}, "auto")
		_, err := Build(sets, labels, names, opt)
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "too large for the mean frame") ||
			!strings.Contains(err.Error(), "scale the features down") {
			t.Errorf("%s, set %d ×1.6e307: error %v, want it to name the set (%q) and say what to do", m, bad, err, want)
		}
	}
	// A NaN is no overflow: the check of the values names it.
	sets[bad] = mat.DenseCopyOf(all[bad])
	sets[bad].Set(0, 0, math.NaN())
	opt := withThreshold(t, Options{Method: method.NNHLDA, Grid: grid(), Seed: 3, Workers: 1}, "auto")
	if _, err := Build(sets, labels, names, opt); err == nil || strings.Contains(err.Error(), "too large") || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("set %d holding a NaN: error %v, want one that says it holds a NaN", bad, err)
	}
}

// TestKDEBandwidthOutOfRangeSaysWhatToDo: on features whose KDE bandwidth
// is beyond what a KDE takes (×1e151: about 3e150; ×1e-160: about
// 3e-161), every method that compares KDEs, auto's choice among them
// included, is refused with what to do: scale the features, or a set
// kernel, which builds no KDE and takes them (gda and cdl the large ones,
// as TestSetKernelsAtLargeScale shows; gda the small, cdl not below
// about 1e-153, TestCDLCovarianceUnderflow). The error holds match's
// *BandwidthError of the side passed. The stand-in folds' advice (give
// --threshold auto or a number, which need no folds) is not given: a
// model of them is refused whatever its threshold.
func TestKDEBandwidthOutOfRangeSaysWhatToDo(t *testing.T) {
	all, labels, names := separated(5, 4, 1)
	for _, c := range []struct {
		scale float64
		want  []string
	}{
		{1e151, []string{"beyond the largest a KDE takes (1e+150)", "too large for the KDE bandwidth rules", "scale the features down", "--method gda or --method cdl"}},
		{1e-160, []string{"below the smallest a KDE takes (1e-150)", "too small for the KDE bandwidth rules", "scale the features up", "--method gda,"}},
	} {
		for _, m := range []method.Name{method.Auto, method.NNH, method.KFDAHG} {
			for _, rule := range []string{"", "auto"} {
				if c.scale < 1 && m != method.NNH {
					continue
				}
				opt := Options{Method: m, Grid: grid(), Seed: 3, Workers: 1}
				if err := ParseThreshold(rule, &opt); err != nil {
					t.Fatal(err)
				}
				_, err := Build(scaled(all, c.scale), labels, names, opt)
				if err == nil {
					t.Errorf("%s, --threshold %q, features ×%g: no error", m, rule, c.scale)
					continue
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s, --threshold %q, features ×%g: error %v, want it to say %q", m, rule, c.scale, err, w)
					}
				}
				if be := (*match.BandwidthError)(nil); !errors.As(err, &be) || be.Large != (c.scale > 1) {
					t.Errorf("%s, --threshold %q, features ×%g: error %v, want match's *BandwidthError of a bandwidth too large %v in its chain", m, rule, c.scale, err, c.scale > 1)
				}
				if strings.Contains(err.Error(), "need no folds") {
					t.Errorf("%s, --threshold %q, features ×%g: error %v advises a threshold that needs no folds, which fails alike", m, rule, c.scale, err)
				}
			}
		}
	}
}

// TestKDERangeErrorAdvice: the factor kdeRangeError advises brings the
// bandwidth to between 1 and 10, too large or too small (3e-161 times
// 1e161 is 3, not 0.3), and at the ends of the float64 range: the
// largest float64 and a subnormal bandwidth, whose 1/h overflows, take
// 1e308.
func TestKDERangeErrorAdvice(t *testing.T) {
	for _, c := range []struct {
		h    float64
		want string
	}{
		{3e151, "; scale the features down, e.g. divide them by 1e+151, or give --method gda or --method cdl,"},
		{math.MaxFloat64, "; scale the features down, e.g. divide them by 1e+308, or give --method gda or --method cdl,"},
		{3e-161, "; scale the features up, e.g. multiply them by 1e+161, or give --method gda,"},
		{5e-324, "; scale the features up, e.g. multiply them by 1e+308, or give --method gda,"},
	} {
		if got := (&kdeRangeError{Methods: []string{"nn-h", "kfda-hg"}, BandwidthError: match.BandwidthError{H: c.h, Large: c.h > 1}}).Error(); !strings.Contains(got, c.want) {
			t.Errorf("bandwidth %g: %q, want it to say %q", c.h, got, c.want)
		}
	}
}

// TestCDLCovarianceUnderflow: CDL on features so small that the squares
// of their covariances underflow (the training sets' median variance per
// feature below the smallest normal float64, 2.2e-308: here ×1e-155 and
// less, where one set's variance per feature is about 0.1·scale²) is
// refused with the cause and what to do, whatever the threshold rule. It
// said the classes "lie 0 apart" (the stand-in folds), trained a model
// with λ = 7e-323 by chance-level cross-validation and a threshold of 0
// (--threshold auto), or said the sets had no spread (×1e-170, where
// every square is 0). ×1e-150 decides as the features unscaled.
func TestCDLCovarianceUnderflow(t *testing.T) {
	all, labels, names := separated(5, 4, 1)
	opt := Options{Method: method.CDL, Grid: grid(), Seed: 3, Workers: 1}
	base := buildRule(t, &opt, "", all, labels, names)
	for _, s := range []float64{1e-155, 1e-160, 1e-170} {
		for _, rule := range []string{"", "auto"} {
			opt := Options{Method: method.CDL, Grid: grid(), Seed: 3, Workers: 1}
			if err := ParseThreshold(rule, &opt); err != nil {
				t.Fatal(err)
			}
			_, err := Build(scaled(all, s), labels, names, opt)
			if err == nil || !strings.Contains(err.Error(), "covariances underflow") || !strings.Contains(err.Error(), "scale the features up") {
				t.Errorf("features ×%g, --threshold %q: error %v, want one that names the underflow and says to scale the features up", s, rule, err)
			}
		}
	}
	opt = Options{Method: method.CDL, Grid: grid(), Seed: 3, Workers: 1}
	if err := ParseThreshold("", &opt); err != nil {
		t.Fatal(err)
	}
	small, err := Build(scaled(all, 1e-150), labels, names, opt)
	if err != nil {
		t.Fatalf("features ×1e-150: %v", err)
	}
	if b, g := base.Model.Threshold, small.Model.Threshold; !(math.Abs(b-g) <= 1e-6*b) {
		t.Errorf("features ×1e-150: threshold %v, %v unscaled", g, b)
	}
}

// TestAutoAtScaleNoBandwidthSaysOnlyToScale: where no bandwidth rule
// measures the features' spread (×1e155: their squares overflow) every
// candidate of auto fails in cross-validation, and the error says to
// scale the features, not to check the sets per class or to give
// --method nn-h, which fails alike.
func TestAutoAtScaleNoBandwidthSaysOnlyToScale(t *testing.T) {
	all, labels, names := separated(5, 4, 1)
	opt := Options{Method: method.Auto, Grid: grid(), Seed: 3, Workers: 1}
	if err := ParseThreshold("", &opt); err != nil {
		t.Fatal(err)
	}
	_, err := Build(scaled(all, 1e155), labels, names, opt)
	if err == nil || !strings.Contains(err.Error(), "too large to measure their spread") || !strings.Contains(err.Error(), "scale the features down") ||
		strings.Contains(err.Error(), "--method nn-h") || strings.Contains(err.Error(), "at least 2 sets") {
		t.Errorf("features ×1e155: error %v, want one that says only to scale the features down", err)
	}
}

// TestJoinRangesNamesEachMethodOnce: candidates of one method (a -dr
// method at several dimensions) name it once in the joined error.
func TestJoinRangesNamesEachMethodOnce(t *testing.T) {
	be := match.BandwidthError{H: 3e151, Large: true}
	got := joinRanges([]*kdeRangeError{
		{Methods: []string{"nn-h-dr"}, BandwidthError: be},
		{Methods: []string{"nn-h-dr"}, BandwidthError: be},
		{Methods: []string{"kfda-hg"}, BandwidthError: be},
	})
	if want := []string{"nn-h-dr", "kfda-hg"}; !slices.Equal(got.Methods, want) {
		t.Errorf("methods %q, want %q", got.Methods, want)
	}
}
