package deploy

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/method"
	"setmatch/model"
	"setmatch/synth"
)

// TestBuildLDA builds an nn-h-lda model from the training sets of faces
// under lighting in miniature (synth.Lighting: the class in 3 directions,
// a strong lighting nuisance in 6 others): its W is the whitened Fisher
// basis, whose columns are not orthonormal, the model is valid and
// survives its file format, and its matcher names every held-out set
// right, as eval's nn-h-lda row does.
func TestBuildLDA(t *testing.T) {
	const classes, train = 5, 3
	d, err := synth.Generate(synth.Options{Kind: synth.Lighting, Classes: classes, Sets: train + 2, Frames: 16, Dim: 24,
		InfoDim: 3, NuisanceDim: 6, NuisanceStd: 3, Seed: 21})
	if err != nil {
		t.Fatal(err)
	}
	var gsets, all []*mat.Dense
	var glabels, names []string
	var gidx, ids, probe []int
	for i, s := range d.Sets {
		all = append(all, s.Frames)
		if i%(train+2) < train {
			gsets, glabels, names = append(gsets, s.Frames), append(glabels, s.Class), append(names, s.Name)
			gidx, ids = append(gidx, i), append(ids, i/(train+2))
		} else {
			probe = append(probe, i)
		}
	}
	g := method.DefaultGrid()
	res, err := Build(gsets, glabels, names, Options{Method: method.NNHLDA, Grid: g, Seed: 4, Workers: 1, Threshold: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Model
	if m.MethodName() != string(method.NNHLDA) || m.Identity || m.W == nil || res.Fit.W != m.W {
		t.Fatalf("model method %q, identity %v: want nn-h-lda with the fit's W", m.MethodName(), m.Identity)
	}
	if e := m.OrthonormalityError(); !(e > model.OrthonormalTol) {
		t.Errorf("W's orthonormality error %v: the whitened Fisher basis was expected not to be orthonormal", e)
	}
	var buf bytes.Buffer
	if err := model.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	back, err := model.Decode(&buf)
	if err != nil {
		t.Fatalf("the model does not read back: %v", err)
	}
	mt, err := back.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	pool, err := method.NewPool(all, 1)
	if err != nil {
		t.Fatal(err)
	}
	want, err := method.Run(method.NNHLDA, &method.Task{Pool: pool, Train: gidx, Labels: ids, Test: probe, Classes: classes, Seed: 4}, g)
	if err != nil {
		t.Fatal(err)
	}
	for k, q := range probe {
		r, err := mt.Match(all[q])
		if err != nil {
			t.Fatal(err)
		}
		if truth := d.Sets[q].Class; r.Decision.Label != truth {
			t.Errorf("held-out set %s/%s named %s", truth, d.Sets[q].Name, r.Decision.Label)
		}
		if r.Decision.Label != d.Classes[want.Labels[k]] {
			t.Errorf("held-out set %d: model %s, eval %s", k, r.Decision.Label, d.Classes[want.Labels[k]])
		}
	}
	t.Logf("%s; eval %s", Describe(res.Fit), want.Params)
	if got := Describe(res.Fit); !strings.Contains(got, "(Fisher discriminant, not learned)") {
		t.Errorf("Describe says %q, want the Fisher discriminant named", got)
	}
	if _, ok := m.Selection.Params["dr-start"]; ok {
		t.Error("an nn-h-lda model records a start of learning")
	}

	// Only nn-h-lda may have such a W, and only of full column rank.
	other := *m
	other.Selection.Method = method.NNHDR
	if err := other.Validate(); err == nil {
		t.Error("an nn-h-dr model with a W that is not orthonormal is valid")
	}
	flat := *m
	flat.W = mat.DenseCopyOf(m.W)
	r, _ := flat.W.Dims()
	for i := range r {
		flat.W.Set(i, 1, 2*flat.W.At(i, 0))
	}
	if err := flat.Validate(); err == nil {
		t.Error("an nn-h-lda model with a W of rank d − 1 is valid")
	}
}
