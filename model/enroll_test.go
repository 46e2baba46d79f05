package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

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
	if err := m.Enroll("a", "a1", set(0)); err != nil {
		t.Fatal(err)
	}
	b := set(6)
	if err := m.Enroll("b", "b1", b); err != nil {
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
		label, name string
		x           *mat.Dense
		want        string
	}{
		{"", "x", set(0), "label is empty"},
		{"c", "", set(0), "name is empty"},
		{"b", "b1", set(0), "already has a set"},
		{"c", "c1", mat.NewDense(5, 4, nil), "model expects 6"},
		{"c", "c1", mat.NewDense(1, 6, nil), "bandwidth"},
	} {
		before := len(m.Sets)
		err := m.Enroll(c.label, c.name, c.x)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Enroll(%q, %q): err = %v, want it to mention %q", c.label, c.name, err, c.want)
		}
		if len(m.Sets) != before {
			t.Errorf("Enroll(%q, %q) failed but changed the gallery", c.label, c.name)
		}
	}
}

func TestEnrollKFDARefused(t *testing.T) {
	m := hgModel(t)
	n := len(m.Sets)
	err := m.Enroll("a", "new", mat.NewDense(3, m.InputDim(), []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9}))
	if !errors.Is(err, ErrNeedsRetraining) || !strings.Contains(err.Error(), "decides by kFDA (kernel hg") || !strings.Contains(err.Error(), "setmatch train") {
		t.Fatalf("error %v", err)
	}
	if len(m.Sets) != n {
		t.Errorf("%d sets after a refused enrolment, had %d", len(m.Sets), n)
	}
}
