package deploy

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
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
		opt = withThreshold(t, opt, "")
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
	res := buildRule(t, &opt, "none", all, labels, names)
	if res.ChoiceSample != "" {
		t.Errorf("ChoiceSample %q with %d sets and a cap of %d", res.ChoiceSample, len(all), opt.Grid.ChoiceSets)
	}
	if _, ok := res.Model.Selection.Params["chosen-on"]; ok {
		t.Error("the model records a sample the choice did not take")
	}
}

// TestOpenSetChoiceNeedsStandIns: with two classes no candidate can be
// calibrated on stand-in strangers, so nothing chooses for the open set:
// the first candidate within one standard error is deployed, the only
// one fitted on every training set, and train says so as the closed
// set's choice, with no line "open set:".
func TestOpenSetChoiceNeedsStandIns(t *testing.T) {
	// Two classes of one distribution: the candidates score near chance,
	// within one standard error of each other.
	rng := rand.New(rand.NewPCG(11, 12))
	var train []*mat.Dense
	var labels, names []string
	for i := range 8 {
		train = append(train, testutil.RandSet(rng, 10, 4, 0, 1))
		labels, names = append(labels, fmt.Sprint("c", i%2)), append(names, fmt.Sprint("s", i))
	}
	fits := 0
	opt := Options{Method: method.Auto, Grid: grid(), Seed: 2, Workers: 2, Stage: func(what string) {
		if strings.HasPrefix(what, "fitting ") {
			fits++
		}
	}}
	res := buildRule(t, &opt, "", train, labels, names)
	s := res.Selection
	held := 0
	for _, c := range s.Scores {
		if c.Err == nil && c.Accuracy >= s.Scores[s.Top].Accuracy-s.SE {
			held++
		}
	}
	if held < 2 {
		t.Fatalf("%d candidates within one standard error: the test needs two or more", held)
	}
	var out bytes.Buffer
	res.WriteSummary(&out)
	if res.OpenSetChoice != "" || strings.Contains(out.String(), "open set:") || strings.Contains(out.String(), "for the open set") {
		t.Errorf("an open-set choice without stand-ins (%q):\n%s", res.OpenSetChoice, out.String())
	}
	// Nothing to choose by: only the closed set's choice is fitted on
	// every training set, not each of the candidates held equal.
	if fits != 1 {
		t.Errorf("%d candidates fitted on every training set, want the one chosen", fits)
	}
}

// TestOpenSetChoiceReportsFitTime: where the open set chooses among the
// candidates the closed set holds equal, the summary gives the time the
// deployed one took to fit on every training set, not 0.
func TestOpenSetChoiceReportsFitTime(t *testing.T) {
	all, labels, names := ringSets(4, 3, 4, 0.3, 7)
	res := buildRule(t, &Options{Method: method.Auto, Grid: grid(), Seed: 2, Workers: 2}, "", all, labels, names)
	if res.OpenSetChoice == "" {
		t.Fatalf("no open-set choice (%d candidates held equal): the test needs one", len(res.Selection.Eligible()))
	}
	if !(res.FitSeconds > 0) {
		t.Errorf("FitSeconds %v after fitting %s on every training set, want its time", res.FitSeconds, res.Fit.Method)
	}
}

// TestOpenSetChoiceTiesKeepTheEarlier: where the candidates the closed
// set holds equal do alike on the stand-in strangers (classes far apart:
// every one keeps them all out and names every known set), the open set
// keeps the closed set's choice, the first of them, and says of no other.
func TestOpenSetChoiceTiesKeepTheEarlier(t *testing.T) {
	sets, labels, names := separated(5, 3, 8)
	res := buildRule(t, &Options{Method: method.Auto, Grid: grid(), Seed: 2, Workers: 2}, "", sets, labels, names)
	s := res.Selection
	e := s.Eligible()
	if len(e) < 2 || res.OpenSetChoice == "" {
		t.Fatalf("%d candidates held equal, open-set choice %q: the test needs the open set to choose among two or more", len(e), res.OpenSetChoice)
	}
	if n := strings.Count(res.OpenSetChoice, "(balanced 100.0%)"); n != len(e) {
		t.Fatalf("open-set choice %q: %d of the %d candidates at a balanced 100%%, the test needs them all", res.OpenSetChoice, n, len(e))
	}
	if s.Chosen != e[0] || res.ClosedChoice != "" {
		t.Errorf("deployed %s (closed set's choice %q), want the first held equal, %s", s.Best().Candidate, res.ClosedChoice, s.Scores[e[0]].Candidate)
	}
}

// TestBuildOnASampleScalesTheLatentDim: a kFDA method chosen on a sample
// of whole classes keeps its latent dimension's share of C − 1 on every
// class: chosen on 3 of 8 classes (at most 2 dimensions there), the model
// deployed on the 8 has more than 2, where the sample's count would
// squeeze 8 classes into the room of 3.
func TestBuildOnASampleScalesTheLatentDim(t *testing.T) {
	all, labels, names := ringSets(8, 3, 4, 0.3, 5)
	opt := Options{Method: method.Auto, Grid: grid(), Seed: 2, Workers: 2}
	opt.Grid.ChoiceSets = 9
	opt.Grid.AutoMethods = []method.Name{method.KFDAHG}
	res := buildRule(t, &opt, "none", all, labels, names)
	if res.ChoiceSample == "" || !strings.Contains(res.ChoiceSample, "3 of the 8 classes") {
		t.Fatalf("ChoiceSample %q, want the choice on 3 of the 8 classes", res.ChoiceSample)
	}
	k := res.Model.Discriminant
	if k == nil {
		t.Fatalf("deployed %s, without a kFDA discriminant", res.Model.MethodName())
	}
	if k.Dim() <= 2 || res.Fit.LatentDim != k.Dim() {
		t.Errorf("latent dimension %d (fit %d) on 8 classes, want more than the 2 of the sample's 3 classes", k.Dim(), res.Fit.LatentDim)
	}
}

// TestBuildDimFixesTheDRGrid: Options.Dim (train --dim) fixes d of the
// -dr grid, which auto's nn-h-dr candidate and --method nn-h-dr share:
// either deploys a W of that many columns, not the grid's d.
func TestBuildDimFixesTheDRGrid(t *testing.T) {
	all, labels, names := ringSets(4, 3, 4, 0.3, 7)
	for _, m := range []method.Name{method.Auto, method.NNHDR} {
		opt := Options{Method: m, Grid: grid(), Seed: 2, Workers: 2, Dim: 3}
		opt.Grid.AutoMethods = []method.Name{method.NNHDR}
		res := buildRule(t, &opt, "none", all, labels, names)
		if res.Fit.W == nil {
			t.Fatalf("%s: deployed %s without a projection", m, res.Fit.Method)
		}
		if _, c := res.Fit.W.Dims(); c != 3 {
			t.Errorf("%s --dim 3: W has %d columns, want 3 (the grid's DRDims are %v)", m, c, opt.Grid.DRDims)
		}
	}
}
