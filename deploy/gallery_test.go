package deploy

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/fisher"
	"setmatch/internal/stats"
	"setmatch/match"
	"setmatch/method"
	"setmatch/model"
)

// galleryModel returns a nearest-neighbour model of the first sets of
// raw (n_i×6 frames) under their labels and names: frames centred on a
// random mean and projected by a 6×3 W with orthonormal columns mixing
// the features (with identity, W = I and the model holds it as such),
// each set with the bandwidth of Scott's rule.
func galleryModel(t *testing.T, raw []*mat.Dense, labels, names []string, identity bool) *model.Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(31, 1))
	m := &model.Model{
		Divergence:     match.Hellinger,
		QueryBandwidth: match.BandwidthRule{Kind: match.Scott},
		Mean:           make([]float64, 6),
		Threshold:      math.Inf(1),
	}
	for j := range m.Mean {
		m.Mean[j] = rng.NormFloat64()
	}
	if identity {
		m.Identity = true
	} else {
		m.W = fisher.Orthonormal(mat.NewDense(6, 3, []float64{1, 0, 0.3, 0, 1, 0, 0, 0, 1, 0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5}))
	}
	for i, x := range raw {
		y, err := m.Project(x)
		if err != nil {
			t.Fatal(err)
		}
		h, err := m.QueryBandwidth.Bandwidth(y)
		if err != nil {
			t.Fatal(err)
		}
		m.Sets = append(m.Sets, model.Set{Label: labels[i], Name: names[i], Samples: y, Bandwidth: h})
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRecentre: after forgetting, a member is recentred on the sets it
// keeps (the new mean is the median of the mean frames of the raw sets
// left, stats.MedianOfMeans, the centre training gives a model; for a
// projection W, of their mean frames as W maps them, as far as W sees
// it), and batches are decided as before, by the same scores to
// rounding.
func TestRecentre(t *testing.T) {
	raw, labels, names := ringSets(3, 2, 3, 0.5, 3)
	for _, identity := range []bool{false, true} {
		m := galleryModel(t, raw, labels, names, identity)
		drop := func(s model.Set) bool { return s.Name == names[0] || s.Name == names[1] }
		plain, _, err := m.WithoutSets(drop)
		if err != nil {
			t.Fatal(err)
		}
		next, _, err := m.WithoutSets(drop)
		if err != nil {
			t.Fatal(err)
		}
		if moved, err := recentre(next); err != nil || !moved {
			t.Fatalf("identity %v: recentred %v, %v", identity, moved, err)
		}
		// The centre of the sets left in the space W maps them to: the
		// median of their mean frames there.
		got, wantP := mat.NewVecDense(next.Dim(), nil), mat.NewVecDense(next.Dim(), nil)
		if identity {
			got.CopyVec(mat.NewVecDense(6, next.Mean))
			wantP.CopyVec(mat.NewVecDense(6, stats.MedianOfMeans(raw[2:]...)))
		} else {
			got.MulVec(next.W.T(), mat.NewVecDense(6, next.Mean))
			var seen []*mat.Dense
			for _, x := range raw[2:] {
				var y mat.Dense
				y.Mul(x, next.W)
				seen = append(seen, &y)
			}
			wantP.CopyVec(mat.NewVecDense(next.Dim(), stats.MedianOfMeans(seen...)))
		}
		if !mat.EqualApprox(got, wantP, 1e-12) {
			t.Errorf("identity %v: mean as W sees it %v, the frames left give %v", identity, mat.Formatted(got.T()), mat.Formatted(wantP.T()))
		}
		a, _ := next.NewMatcherWorkers(1)
		b, _ := plain.NewMatcherWorkers(1)
		probes, _, _ := ringSets(3, 2, 3, 0.5, 4)
		for k, x := range probes {
			ra, err1 := a.Match(x)
			rb, err2 := b.Match(x)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if ra.Decision.Best != rb.Decision.Best || math.Abs(ra.Decision.Score-rb.Decision.Score) > 1e-9 {
				t.Errorf("identity %v, batch %d: recentred %+v, as before %+v", identity, k, ra.Decision, rb.Decision)
			}
		}
	}
}

func TestSeparation(t *testing.T) {
	raw, labels, names := ringSets(3, 2, 3, 0.5, 3)
	m := galleryModel(t, raw, labels, names, false)
	ms, err := separation(m, []int{0, 3}, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	for k, i := range []int{0, 3} {
		if g := ms[k]; g.Label != labels[i] || g.Name != names[i] || !(g.Other > g.Own) || g.OtherLabel == g.Label || g.OwnName == "" {
			t.Errorf("margin %+v", g)
		}
	}
}

// TestRefitKFDA: a kFDA model given the sets of a new class is fitted
// again on its new gallery, as FitTerms on that gallery fits it, with all
// latent dimensions where the model had all of them, and its record of
// them updated; a batch of the new class is then recognised.
func TestRefitKFDA(t *testing.T) {
	raw, labels, names := ringSets(4, 3, 3, 0.5, 5)
	const old = 9 // the first three classes
	m := galleryModel(t, raw[:old], labels[:old], names[:old], true)
	if _, err := FitKFDA(m, string(method.KernelHG), 1, "median", 1e-2, 0, 1); err != nil {
		t.Fatal(err)
	}
	m.Selection.Params = map[string]string{"latent-dim": "2"}
	var add []model.NewSet
	for i := old; i < len(raw); i++ {
		add = append(add, model.NewSet{Label: labels[i], Name: names[i], Frames: raw[i]})
	}
	next, err := m.WithSets(add)
	if err != nil {
		t.Fatal(err)
	}
	kernels, err := refitKFDA(next, len(m.Classes()), 1)
	if err != nil {
		t.Fatal(err)
	}
	// The kernel it returns is the new gallery's, as enrol's margins take it.
	if gk, err := GalleryKernel(next, next.Discriminant.Kernels(), 1); err != nil || len(kernels) != 1 || !mat.EqualApprox(kernels[0], gk, 1e-12) {
		t.Errorf("refitKFDA's kernel is not the gallery kernel of the fit (%v)", err)
	}
	if next.Discriminant.Dim() != 3 || next.Selection.Params["latent-dim"] != strconv.Itoa(3) || m.Discriminant.Dim() != 2 {
		t.Fatalf("latent dimension %d (recorded %q), the model's %d: want 3 (all, as the model had) and 2", next.Discriminant.Dim(), next.Selection.Params["latent-dim"], m.Discriminant.Dim())
	}
	ref := *next
	ref.Discriminant = nil
	if _, err := FitTerms(&ref, next.Discriminant.Kernels(), next.Discriminant.Reg, 3, 1); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(ref.Discriminant.Solution.Alpha, next.Discriminant.Solution.Alpha, 1e-12) || ref.Discriminant.Scale != next.Discriminant.Scale {
		t.Error("the refitted discriminant differs from FitTerms on the new gallery")
	}
	probes, probeLabels, _ := ringSets(4, 1, 3, 0.5, 6)
	if got := decideAt(t, next, probes[3:], true); got[0] != probeLabels[3] {
		t.Errorf("a batch of the enrolled class: %q, want %q", got[0], probeLabels[3])
	}
}

// TestEnrollMarginsEveryMethod: enrol reports how far each new set is
// from its class and the others for a kFDA model as for nearest
// neighbour, so a set enrolled under the wrong label is flagged (nearer
// another class than its own) whatever the method, and a right one is
// not.
func TestEnrollMarginsEveryMethod(t *testing.T) {
	all, labels, names := ringSets(4, 4, 3, 0.5, 7)
	// Three sets of each class train; the fourth is enrolled.
	train, trLab, trNames, extra, truth := splitTrainProbe(all, labels, names, 3, 1)
	for _, meth := range []method.Name{method.NNH, method.KFDAMix, method.KFDAHL} {
		m := buildFor(t, meth, train, trLab, trNames, "none")
		for _, wrong := range []bool{false, true} {
			label := truth[0]
			if wrong {
				label = truth[2] // a set of class 0 given class 2's label
			}
			next := *m
			c, err := Enroll(&next, []model.NewSet{{Label: label, Name: "new", Frames: extra[0]}}, nil, 2, time.Now())
			if err != nil {
				t.Fatalf("%s: %v", meth, err)
			}
			if len(c.Members) != 1 || len(c.Members[0].Margins) != 1 {
				t.Fatalf("%s: margins %+v", meth, c.Members)
			}
			g := c.Members[0].Margins[0]
			if flagged := g.Other <= g.Own; flagged != wrong || (wrong && g.OtherLabel != truth[0]) {
				t.Errorf("%s, wrong label %v: margin %+v", meth, wrong, g)
			}
		}
	}
}
