package model

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
)

func TestEnroll(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	// A model on 6 features projecting onto the first 2, gallery of class a.
	w := mat.NewDense(6, 2, []float64{1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})
	set := func(shift float64) *mat.Dense {
		x := mat.NewDense(30, 6, nil)
		for i := range 30 {
			for j := range 6 {
				x.Set(i, j, shift+rng.NormFloat64())
			}
		}
		return x
	}
	m := &Model{
		Divergence:     match.Hellinger,
		QueryBandwidth: match.BandwidthRule{Kind: match.Scott},
		W:              w,
		Mean:           make([]float64, 6),
		Threshold:      math.Inf(1),
	}
	if err := m.Enroll([]NewSet{{"a", "a1", set(0)}}, 1); err != nil {
		t.Fatal(err)
	}
	b := set(6)
	if err := m.Enroll([]NewSet{{"b", "b1", b}}, 1); err != nil {
		t.Fatal(err)
	}
	if len(m.Sets) != 2 || m.Sets[1].Label != "b" || m.Sets[1].Name != "b1" {
		t.Fatalf("gallery after enrolling: %+v", m.Sets)
	}
	y, _ := m.Project(b)
	if !mat.Equal(m.Sets[1].Samples, y) {
		t.Error("enrolled samples are not the projection of the frames")
	}
	if h, _ := m.QueryBandwidth.Bandwidth(y); m.Sets[1].Bandwidth != h {
		t.Errorf("enrolled bandwidth %v, the model's rule gives %v", m.Sets[1].Bandwidth, h)
	}
	// A new batch near b is now recognised as b.
	mt, err := m.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	res, err := mt.Match(set(6))
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Label != "b" {
		t.Errorf("batch near the enrolled set decided %+v", res.Decision)
	}

	for _, c := range []struct {
		sets []NewSet
		want string
	}{
		{nil, "no sets"},
		{[]NewSet{{"", "x", set(0)}}, "label is empty"},
		{[]NewSet{{"c", "", set(0)}}, "name is empty"},
		{[]NewSet{{"b", "b1", set(0)}}, "already has a set"},
		{[]NewSet{{"c", "c1", set(0)}, {"c", "c1", set(0)}}, "already has a set"},
		{[]NewSet{{"c", "c1", set(0)}, {"c", "c2", mat.NewDense(5, 4, nil)}}, "model expects 6"},
		{[]NewSet{{"c", "c1", mat.NewDense(1, 6, nil)}}, "bandwidth"},
	} {
		before := len(m.Sets)
		err := m.Enroll(c.sets, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Enroll(%d sets): err = %v, want it to mention %q", len(c.sets), err, c.want)
		}
		if len(m.Sets) != before {
			t.Errorf("Enroll(%d sets) failed but changed the gallery", len(c.sets))
		}
	}
}

// TestEnrollKFDA: enrolling into a kFDA model fits the discriminant
// again on the new gallery, as FitTerms on that gallery does, with all
// latent dimensions where the model had all of them; a batch of the new
// class is then recognised.
func TestEnrollKFDA(t *testing.T) {
	m := hgModel(t) // 6 sets, classes a, b, c, r = 2 = C − 1
	rng := rand.New(rand.NewPCG(5, 6))
	// Class d: frames whose projection sits away from a, b and c (at 3
	// per axis in the first direction of W).
	newSet := func() *mat.Dense {
		y := mfRandom(rng, 6, 3, 0)
		for i := range 6 {
			y.Set(i, 0, y.At(i, 0)+12)
		}
		var x mat.Dense
		x.Mul(y, m.W.T())
		r, c := x.Dims()
		for i := range r {
			for j := range c {
				x.Set(i, j, x.At(i, j)+m.Mean[j])
			}
		}
		return &x
	}
	if err := m.Enroll([]NewSet{{"d", "d1", newSet()}, {"d", "d2", newSet()}}, 1); err != nil {
		t.Fatal(err)
	}
	if len(m.Sets) != 8 || m.KFDA.Dim() != 3 {
		t.Fatalf("%d sets, latent dimension %d: want 8 and 3 (all, as the model had)", len(m.Sets), m.KFDA.Dim())
	}
	ref := *m
	ref.KFDA = nil
	if _, err := ref.FitTerms(m.KFDA.Kernels(), m.KFDA.Reg, 3, 1); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(ref.KFDA.Alpha, m.KFDA.Alpha, 1e-12) || ref.KFDA.Scale != m.KFDA.Scale {
		t.Error("the refitted discriminant differs from FitTerms on the new gallery")
	}
	mt, err := closedMatcher(m)
	if err != nil {
		t.Fatal(err)
	}
	res, err := mt.Match(newSet())
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Label != "d" {
		t.Errorf("a batch of the enrolled class: %+v", res.Decision)
	}
}

// closedMatcher is a closed-set matcher of m.
func closedMatcher(m *Model) (*Matcher, error) {
	mt, err := m.NewMatcherWorkers(1)
	if err != nil {
		return nil, err
	}
	return mt.WithThreshold(math.Inf(1))
}

// TestEnrollForgetVote: a vote's members all take the new sets (each
// projected by its own W) and all lose the forgotten ones; the kFDA
// members are fitted again each time; the model stays valid through a
// file.
func TestEnrollForgetVote(t *testing.T) {
	m := goldenModel(t)
	rng := rand.New(rand.NewPCG(9, 10))
	x1, x2 := mfRandom(rng, 7, 6, 5), mfRandom(rng, 8, 6, 5)
	if err := m.Enroll([]NewSet{{"d", "d1", x1}, {"d", "d2", x2}}, 1); err != nil {
		t.Fatal(err)
	}
	for i, mem := range m.Members() {
		if len(mem.Sets) != 8 || mem.Sets[7].Name != "d2" {
			t.Fatalf("member %d: %d sets", i+1, len(mem.Sets))
		}
		y, _ := mem.Project(x2)
		if !mat.Equal(mem.Sets[7].Samples, y) {
			t.Errorf("member %d: the new set is not its own projection", i+1)
		}
		if mem.KFDA != nil && mem.KFDA.Alpha.RawMatrix().Rows != 8 {
			t.Errorf("member %d: discriminant not fitted again", i+1)
		}
	}
	m.Record(time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC), ChangeEnroll, 2)
	n, err := m.Forget(func(s Set) bool { return s.Label == "b" }, nil, 1)
	if err != nil || n != 2 {
		t.Fatalf("forget b: %d sets, %v", n, err)
	}
	m.Record(time.Date(2027, 1, 3, 3, 4, 5, 0, time.UTC), ChangeForget, n)
	for i, mem := range m.Members() {
		if len(mem.Sets) != 6 || mem.KFDA != nil && mem.KFDA.Alpha.RawMatrix().Rows != 6 {
			t.Fatalf("member %d after forgetting: %d sets", i+1, len(mem.Sets))
		}
		for _, s := range mem.Sets {
			if s.Label == "b" {
				t.Errorf("member %d still holds %s", i+1, s.Name)
			}
		}
		if !math.IsNaN(mem.Selection.CVAccuracy) {
			t.Errorf("member %d: cv accuracy %v kept", i+1, mem.Selection.CVAccuracy)
		}
	}
	var b bytes.Buffer
	if err := Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeBytes(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if h := back.Meta.History; len(h) != 2 || h[0].Op != ChangeEnroll || h[0].Sets != 2 || h[0].Classes != 4 || h[1].Op != ChangeForget || h[1].Classes != 3 || !h[1].Time.Equal(time.Date(2027, 1, 3, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("history read back: %+v", h)
	}

	// Down to two classes, and no further.
	if _, err := m.Forget(func(s Set) bool { return s.Label == "a" }, nil, 1); err != nil {
		t.Fatal(err)
	}
	before := len(m.Sets)
	if _, err := m.Forget(func(s Set) bool { return s.Label == "c" }, nil, 1); !errors.Is(err, ErrTooFewClasses) || !strings.Contains(err.Error(), "setmatch train") {
		t.Errorf("forgetting the second last class: %v", err)
	}
	if _, err := m.Forget(func(s Set) bool { return s.Label == "zz" }, nil, 1); err == nil || !strings.Contains(err.Error(), "no gallery set") {
		t.Errorf("forgetting nothing: %v", err)
	}
	if len(m.Sets) != before {
		t.Error("a refused forget changed the model")
	}
}

// TestRecentre: forgetting recentres a member on the frames it keeps
// (the new mean is the mean of the raw frames left, as far as W sees
// them), and batches are decided as before, by the same scores to
// rounding.
func TestRecentre(t *testing.T) {
	for _, identity := range []bool{false, true} {
		d := 3
		if identity {
			d = 6
		}
		m := mfModel(31, 6, d, []int{9, 8, 9, 7, 8, 9})
		if identity {
			m.W, m.Identity = nil, true
		}
		rng := rand.New(rand.NewPCG(3, 4))
		// The gallery as raw frames: a random raw frame for each sample.
		raw := make([]*mat.Dense, len(m.Sets))
		for i := range m.Sets {
			x := mfRandom(rng, m.Sets[i].Samples.RawMatrix().Rows, 6, float64(i%3))
			raw[i] = x
			m.Sets[i].Samples, _ = m.Project(x)
		}
		plain := m.clone()
		plain.Sets = plain.Sets[2:]
		if _, err := m.Forget(func(s Set) bool { return s.Name == "set0" || s.Name == "set1" }, nil, 1); err != nil {
			t.Fatal(err)
		}
		// The mean of the frames left, as W sees it.
		want := make([]float64, 6)
		n := 0
		for _, x := range raw[2:] {
			r, _ := x.Dims()
			for i := range r {
				for j, v := range x.RawRowView(i) {
					want[j] += v
				}
			}
			n += r
		}
		for j := range want {
			want[j] /= float64(n)
		}
		got, wantP := mat.NewVecDense(d, nil), mat.NewVecDense(d, nil)
		if identity {
			got.CopyVec(mat.NewVecDense(6, m.Mean))
			wantP.CopyVec(mat.NewVecDense(6, want))
		} else {
			got.MulVec(m.W.T(), mat.NewVecDense(6, m.Mean))
			wantP.MulVec(m.W.T(), mat.NewVecDense(6, want))
		}
		if !mat.EqualApprox(got, wantP, 1e-12) {
			t.Errorf("identity %v: mean as W sees it %v, the frames left give %v", identity, mat.Formatted(got.T()), mat.Formatted(wantP.T()))
		}
		a, _ := m.NewMatcherWorkers(1)
		b, _ := plain.NewMatcherWorkers(1)
		for k := range 6 {
			x := mfRandom(rng, 7, 6, float64(k%3))
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
	m := mfModel(1, 6, 3, []int{8, 8, 8, 8, 8, 8})
	ms, err := m.Separation([]int{0, 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range ms {
		if g.Label != "a" || !(g.Other > g.Own) || g.OtherLabel == "a" || g.OwnName == "" {
			t.Errorf("margin %+v", g)
		}
	}
}
