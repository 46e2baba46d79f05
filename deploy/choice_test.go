package deploy

import (
	"bytes"
	"strings"
	"testing"

	"setmatch/method"
)

// TestBuildChoosesOnASample: with more training sets than the choice
// scores (Grid.ChoiceSets), auto scores its candidates on a sample of
// whole classes and deploys what it chose fitted on every set: the
// model's gallery holds every training set, the probes of the classes
// the choice never saw are named right, and train's output and the
// model's record say so. The threshold's stand-in strangers come from
// every class: they must face a gallery of the size the model's has. The nn-h-dr candidate alone exercises a W
// learned again on every set.
func TestBuildChoosesOnASample(t *testing.T) {
	all, labels, names := ringSets(8, 3, 4, 0.3, 5)
	tr, trLabels, trNames, probes, truth := splitTrainProbe(all, labels, names, 2, 1)
	for _, cands := range [][]method.Name{nil, {method.NNHDR}} {
		opt := Options{Method: method.Auto, Grid: grid(), Seed: 2, Workers: 2}
		opt.Grid.ChoiceSets = 6
		opt.Grid.AutoMethods = cands
		var stages []string
		opt.Stage = func(what string) { stages = append(stages, what) }
		if err := ParseThreshold("", &opt); err != nil {
			t.Fatal(err)
		}
		res, err := Build(tr, trLabels, trNames, opt)
		if err != nil {
			t.Fatalf("candidates %v: %v", cands, err)
		}
		if res.ChoiceSample == "" || !strings.Contains(res.ChoiceSample, "3 of the 8 classes (6 of the 16 training sets") {
			t.Errorf("candidates %v: ChoiceSample %q, want the choice on 3 of the 8 classes", cands, res.ChoiceSample)
		}
		if got := len(res.Model.Sets); got != len(tr) {
			t.Errorf("candidates %v: the gallery holds %d sets, want every one of the %d training sets", cands, got, len(tr))
		}
		if s := res.Selection; s.Sets > 6 || s.Held > 2*6 {
			t.Errorf("candidates %v: %d sets held out on each dealing (%d outcomes), want at most the sample's 6 sets", cands, s.Sets, s.Held)
		}
		if cands != nil && res.Fit.W == nil {
			t.Errorf("candidates %v: deployed %s without a projection", cands, res.Fit.Method)
		}
		got := decideAt(t, res.Model, probes, true)
		if acc, n := accuracy(got, truth, func(int) bool { return true }); acc < 0.99 {
			t.Errorf("candidates %v (deployed %s): %.0f%% of %d probes named right closed-set, want all (classes far apart)", cands, res.Fit.Method, 100*acc, n)
		}
		got = decideAt(t, res.Model, probes, false)
		if acc, n := accuracy(got, truth, func(int) bool { return true }); acc < 0.9 {
			t.Errorf("candidates %v (deployed %s): %.0f%% of %d probes named right at the threshold (%s), want 90%% or more", cands, res.Fit.Method, 100*acc, n, res.ThresholdSource)
		}
		if all := strings.Join(stages, "\n"); !strings.Contains(all, "on every training set (16)") || !strings.Contains(all, "stand-in fold 5 of 5") {
			t.Errorf("candidates %v: stages\n%s\nwant the fit on every set and five stand-in folds (of every class)", cands, all)
		}
		var out bytes.Buffer
		res.WriteSummary(&out)
		if !strings.Contains(out.String(), "a seeded sample of whole classes") {
			t.Errorf("candidates %v: the summary does not say the choice ran on a sample:\n%s", cands, out.String())
		}
		if res.Model.Selection.Params["chosen-on"] != res.ChoiceSample {
			t.Errorf("candidates %v: the model records %q, want %q", cands, res.Model.Selection.Params["chosen-on"], res.ChoiceSample)
		}
	}
}

// TestBuildSeesEverySetUpToTheCap: at most Grid.ChoiceSets sets, the
// choice sees every one, and says nothing of a sample.
func TestBuildSeesEverySetUpToTheCap(t *testing.T) {
	all, labels, names := ringSets(4, 2, 4, 0.3, 6)
	opt := Options{Method: method.Auto, Grid: grid(), Seed: 2, Workers: 2}
	opt.Grid.ChoiceSets = len(all)
	if err := ParseThreshold("none", &opt); err != nil {
		t.Fatal(err)
	}
	res, err := Build(all, labels, names, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.ChoiceSample != "" {
		t.Errorf("ChoiceSample %q with %d sets and a cap of %d", res.ChoiceSample, len(all), opt.Grid.ChoiceSets)
	}
	if _, ok := res.Model.Selection.Params["chosen-on"]; ok {
		t.Error("the model records a sample the choice did not take")
	}
}
