package deploy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/learn"
	"setmatch/match"
	"setmatch/method"
	"setmatch/model"
	"setmatch/setkernel"
)

// data returns 3 classes × 6 sets of 12 frames in 6 features: the class
// is in feature 0 (means 0, 1, 2 with spread 0.4), the other features are
// noise of spread 1.
func data(seed uint64) ([]*mat.Dense, []int) { return dataSpread(seed, 0.4) }

// dataSpread is data with the class feature's spread sd.
func dataSpread(seed uint64, sd float64) ([]*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var sets []*mat.Dense
	var labels []int
	for c := range 3 {
		for range 6 {
			x := mat.NewDense(12, 6, nil)
			for i := range 12 {
				for j := range 6 {
					x.Set(i, j, rng.NormFloat64())
				}
				x.Set(i, 0, float64(c)+sd*rng.NormFloat64())
			}
			sets, labels = append(sets, x), append(labels, c)
		}
	}
	return sets, labels
}

func grid() method.Grid {
	g := method.DefaultGrid()
	g.Bandwidths = []method.Bandwidth{{Mode: method.Global, Scale: 1}, {Mode: method.Global, Scale: 2}, {Mode: method.PerSet, Scale: 1}}
	g.Widths, g.Regs = []float64{0.1, 1}, []float64{1e-2, 1}
	g.DRDims, g.DRScales = []int{2}, []float64{1}
	g.DRIter, g.DRFoldIter = 8, 4
	g.Learn = DRLearner(1)
	return g
}

// TestBuildRefusesReservedLabels: a class may not be named as a decision
// that is not a label, and Build says so before it trains.
func TestBuildRefusesReservedLabels(t *testing.T) {
	sets, ids := data(1)
	for _, reserved := range []string{model.Unknown, model.Failed} {
		labels, names := make([]string, len(sets)), make([]string, len(sets))
		for i, c := range ids {
			labels[i], names[i] = []string{"a", "b", reserved}[c], fmt.Sprint("s", i)
		}
		_, err := Build(sets, labels, names, Options{Method: "nn-h", Grid: grid()})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("the label %q is reserved", reserved)) {
			t.Errorf("class %q: err = %v, want it refused as reserved", reserved, err)
		}
	}
}

// TestModelDecidesAsEval: for every deployable method and for auto, the
// model Build makes from the gallery of a split decides the probe sets
// exactly as setmatch eval's row of that method does on the same split,
// through the model's own matcher (model.Matcher, as setmatch test and
// the appliance use it).
func TestModelDecidesAsEval(t *testing.T) {
	sets, labels := data(3)
	modelDecidesAsEval(t, sets, labels, []method.Name{method.NNH, method.NNJ, method.KFDAHG, method.KFDAHL, method.KFDAJ, method.GDA, method.CDL, method.KFDAMix, method.NNHDR, method.Auto})
}

// TestAutoDeploysKFDAMixAlone: where every class has three training
// sets, whose classes overlap, and the choice is kfda-mix, auto deploys
// kfda-mix alone: a model without voters that decides every probe as
// eval's auto row, and a summary that names it.
func TestAutoDeploysKFDAMixAlone(t *testing.T) {
	sets, labels := dataSpread(1, 2)
	res := modelDecidesAsEval(t, sets, labels, []method.Name{method.Auto})[0]
	if s := res.Selection; s.Best().Method != method.KFDAMix {
		t.Fatalf("chose %s: the data do not test auto deploying kfda-mix", s.Best().Candidate)
	}
	m := res.Model
	if len(m.Voters) != 0 || m.MethodName() != string(method.KFDAMix) || len(m.MemberMethods()) != 1 || m.Selection.Params["vote"] != "" {
		t.Errorf("auto deployed %s with %d voters (params %v), want kfda-mix alone", m.MethodName(), len(m.Voters), m.Selection.Params)
	}
	if res.Fit == nil || res.Fit.Method != method.KFDAMix {
		t.Errorf("fitted %+v, want kfda-mix", res.Fit)
	}
	var b strings.Builder
	res.WriteSummary(&b)
	if out := b.String(); !strings.Contains(out, "deployed kfda-mix: ") || strings.Contains(out, "vote") {
		t.Errorf("summary:\n%s", out)
	}
}

// modelDecidesAsEval builds, for every method of methods, the model of the
// gallery (sets 0-2 of every 6) and checks that it decides every probe
// (sets 3-5) as eval's row of the method on the same split.
func modelDecidesAsEval(t *testing.T, sets []*mat.Dense, labels []int, methods []method.Name) []*Result {
	t.Helper()
	var results []*Result
	var gallery, probe []int
	for i := range sets {
		if i%6 < 3 {
			gallery = append(gallery, i)
		} else {
			probe = append(probe, i)
		}
	}
	pool, err := method.NewPool(sets, 1)
	if err != nil {
		t.Fatal(err)
	}
	glabels := make([]int, len(gallery))
	gsets := make([]*mat.Dense, len(gallery))
	names := make([]string, len(gallery))
	slabels := make([]string, len(gallery))
	for k, j := range gallery {
		glabels[k], gsets[k] = labels[j], sets[j]
		slabels[k], names[k] = []string{"a", "b", "c"}[labels[j]], "s"
	}
	for _, name := range methods {
		task := &method.Task{Pool: pool, Train: gallery, Labels: glabels, Test: probe, Classes: 3, Seed: 9}
		g := grid()
		if name != method.Auto {
			// eval's rows use the whole grid; a model deploys only
			// global and per-set bandwidths, which grid() already is.
			g.DRDims, g.DRScales = []int{2}, []float64{1}
		}
		want, err := method.Run(name, task, g)
		if err != nil {
			t.Fatalf("%s: eval: %v", name, err)
		}
		res, err := Build(gsets, slabels, names, Options{Method: name, Grid: g, Seed: 9, Workers: 1, Threshold: math.Inf(1)})
		if err != nil {
			t.Fatalf("%s: build: %v", name, err)
		}
		mt, err := res.Model.NewMatcher()
		if err != nil {
			t.Fatal(err)
		}
		agree := 0
		for k, q := range probe {
			r, err := mt.Match(sets[q])
			if err != nil {
				t.Fatal(err)
			}
			if r.Decision.Label == []string{"a", "b", "c"}[want.Labels[k]] {
				agree++
			}
		}
		t.Logf("%-8s %s | model %s: %d of %d probes decided alike", name, want.Params, res.Model.MethodName(), agree, len(probe))
		if agree != len(probe) {
			t.Errorf("%s: the model decided %d of %d probes as eval", name, agree, len(probe))
		}
		if name == method.Auto {
			if res.Selection == nil || len(res.Model.Selection.Candidates) != len(res.Selection.Scores) ||
				!strings.HasPrefix(want.Params, "chose "+res.Selection.Best().Candidate.String()) {
				t.Errorf("auto: selection %+v, eval %q", res.Model.Selection, want.Params)
			}
		} else if res.Model.MethodName() != string(name) {
			t.Errorf("model method %q, want %q", res.Model.MethodName(), name)
		}
		checkGallery(t, res)
		results = append(results, res)
	}
	return results
}

// checkGallery checks the gallery matrix a report draws: the model's
// divergences between its sets, or for a set kernel the distances the
// kernel induces, from the kernel of every pair.
func checkGallery(t *testing.T, res *Result) {
	t.Helper()
	m := res.Model
	if res.Gallery == nil || res.Gallery.SymmetricDim() != len(m.Sets) {
		t.Fatalf("%s: gallery matrix %v for %d sets", m.MethodName(), res.Gallery, len(m.Sets))
	}
	i, j := 0, len(m.Sets)-1
	divergence := func() match.Divergences {
		p, err := match.NewKDE(m.Sets[i].Samples, m.Sets[i].Bandwidth)
		if err != nil {
			t.Fatal(err)
		}
		q, err := match.NewKDE(m.Sets[j].Samples, m.Sets[j].Bandwidth)
		if err != nil {
			t.Fatal(err)
		}
		d, err := match.Compare(p, q)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	var want float64
	switch k := m.Discriminant; {
	case k == nil:
		if res.GalleryMeasure != m.Divergence.String() {
			t.Errorf("%s: gallery measure %q", m.MethodName(), res.GalleryMeasure)
		}
		want = divergence().Of(m.Divergence)
	case k.Kernel == string(method.KernelSum):
		// The sums' kernel is checked pair by pair in model's tests.
		if res.GalleryMeasure != m.MemberMethods()[0]+" kernel distance" {
			t.Errorf("sum: gallery measure %q", res.GalleryMeasure)
		}
		return
	default:
		if res.GalleryMeasure != m.MemberMethods()[0]+" kernel distance" {
			t.Errorf("%s: gallery measure %q", k.Kernel, res.GalleryMeasure)
		}
		kk := func(a, b int) float64 {
			switch k.Kernel {
			case string(method.KernelGDA):
				ba, _ := setkernel.Basis(m.Sets[a].Samples, k.P)
				bb, _ := setkernel.Basis(m.Sets[b].Samples, k.P)
				return setkernel.Projection(ba, bb)
			case string(method.KernelCDL):
				sa, _ := setkernel.NewSpectrum(m.Sets[a].Samples)
				sb, _ := setkernel.NewSpectrum(m.Sets[b].Samples)
				return setkernel.LogEuclidean(sa, sb, k.Lambda)
			}
			if a == b {
				return 1 // exp(−s·0)
			}
			δ := divergence().Of(k.Measure())
			if k.Kernel == string(method.KernelHL) {
				δ = math.Sqrt(δ)
			}
			return math.Exp(-k.Width / k.Scale * δ)
		}
		want = math.Sqrt(kk(i, i) + kk(j, j) - 2*kk(i, j))
	}
	if got := res.Gallery.At(i, j); math.Abs(got-want) > 1e-8*math.Max(1, math.Abs(want)) {
		t.Errorf("%s: gallery[%d,%d] = %v, want %v", m.MethodName(), i, j, got, want)
	}
}

// TestWriteSummaryNotScored: the candidates a settled choice left out
// are listed as not scored, not as failed.
func TestWriteSummaryNotScored(t *testing.T) {
	score := func(m method.Name, acc float64, err error) method.CandidateScore {
		return method.CandidateScore{Candidate: method.Candidate{Method: m}, Accuracy: acc, Err: err}
	}
	r := &Result{Selection: &method.Selection{
		Folding: "3 stratified folds by training sets", Held: 30, Sets: 30, Chosen: 0, Top: 0, SE: 0.02,
		Scores: []method.CandidateScore{
			score(method.KFDAMix, 1, nil),
			score(method.NNH, -1, method.ErrNotScored),
			score(method.NNJ, -1, method.ErrNotScored),
		},
	}}
	var b strings.Builder
	r.WriteSummary(&b)
	out := b.String()
	if strings.Contains(out, "failed") || strings.Count(out, "not scored") != 2 {
		t.Errorf("want nn-h and nn-j listed as not scored:\n%s", out)
	}
}

// TestLearnedRecordsNoCVAccuracy: --method learned cross-validates
// nothing, so its model records no cross-validated accuracy (NaN, null in
// the file, as FORMATS.md says), not 0.
func TestLearnedRecordsNoCVAccuracy(t *testing.T) {
	sets, ids := data(3)
	labels, names := make([]string, len(sets)), make([]string, len(sets))
	for i, c := range ids {
		labels[i], names[i] = fmt.Sprintf("c%d", c), fmt.Sprintf("s%d", i)
	}
	res, err := Build(sets, labels, names, Options{Method: Learned, Dim: 2, Threshold: math.Inf(1), Workers: 1,
		Train: learn.TrainOptions{Divergence: match.Hellinger, MaxIter: 2, Seed: 1, Workers: 1, GlobalScale: 1, NuW: 2, NuB: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Model.Selection; !math.IsNaN(s.CVAccuracy) || s.Measured() {
		t.Errorf("learned model's selection: cv accuracy %v (measured %v), want NaN: nothing was cross-validated", s.CVAccuracy, s.Measured())
	}
}
