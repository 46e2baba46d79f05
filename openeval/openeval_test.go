package openeval

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/deploy"
	"setmatch/eval"
	"setmatch/method"
	"setmatch/openset"
	"setmatch/synth"
)

// separated returns classes × sets sets of 12 frames in 4 dimensions,
// each class a cloud around its own point far from the others'.
func separated(classes, sets int) *eval.Data {
	rng := rand.New(rand.NewPCG(5, 6))
	d := &eval.Data{}
	for c := range classes {
		name := synth.ClassName(c, classes)
		d.Classes = append(d.Classes, name)
		for s := range sets {
			x := mat.NewDense(12, 4, nil)
			for i := range 12 {
				for j := range 4 {
					v := 0.3 * rng.NormFloat64()
					if j == c%4 {
						v += 3 * float64(1+c/4)
					}
					x.Set(i, j, v)
				}
			}
			d.Sets = append(d.Sets, x)
			d.Labels = append(d.Labels, c)
			d.Names = append(d.Names, name+"/"+synth.SetName(s, sets))
		}
	}
	return d
}

func in01(x float64) bool { return x >= 0 && x <= 1 }

// checkRows checks what holds of every row whatever the data.
func checkRows(t *testing.T, d *eval.Data, splits []eval.Split, mr *MethodResult) {
	t.Helper()
	if len(mr.PerSplit) != len(splits) {
		t.Fatalf("%d rows for %d splits", len(mr.PerSplit), len(splits))
	}
	for s, r := range mr.PerSplit {
		var want, visitors, others []string
		for _, c := range splits[s].Strangers {
			switch {
			case splits[s].IsVisitor(c):
				visitors = append(visitors, d.Classes[c])
			case splits[s].IsOther(c):
				others = append(others, d.Classes[c])
			default:
				want = append(want, d.Classes[c])
			}
		}
		if r.Split != s+1 || !slices.Equal(r.StrangerClasses, want) || !slices.Equal(r.VisitorClasses, visitors) || !slices.Equal(r.OtherClasses, others) {
			t.Errorf("split %d: row %d, stranger classes %v, visitors %v and others %v, want %v, %v and %v", s, r.Split, r.StrangerClasses, r.VisitorClasses, r.OtherClasses, want, visitors, others)
		}
		for name, v := range map[string]float64{"closed": r.KnownRightClosed, "right@thr": r.KnownRightAtThreshold,
			"out@thr": r.StrangersOutAtThreshold, "balanced@thr": r.BalancedAtThreshold, "best": r.BestBalanced,
			"in95": r.StrangersIn95, "in99": r.StrangersIn99} {
			if !in01(v) {
				t.Errorf("split %d: %s = %v, not a share", s, name, v)
			}
		}
		// The model's own threshold is one threshold: the best can only
		// be as good or better (a single model, not a vote).
		if !r.Approximate && r.BestBalanced < r.BalancedAtThreshold-1e-12 {
			t.Errorf("split %d: best balanced %v below the balanced %v at the model's threshold %s", s, r.BestBalanced, r.BalancedAtThreshold, finiteText(r.Threshold))
		}
		// Named right at a threshold implies named right without one.
		if r.KnownRightAtThreshold > r.KnownRightClosed {
			t.Errorf("split %d: %v right at the threshold, %v closed", s, r.KnownRightAtThreshold, r.KnownRightClosed)
		}
		// Letting in more known sets lets in no fewer strangers.
		if r.StrangersIn99 < r.StrangersIn95 || r.Threshold99 < r.Threshold95 {
			t.Errorf("split %d: strangers in %v at 95%%, %v at 99%% (thresholds %v, %v)", s, r.StrangersIn95, r.StrangersIn99, r.Threshold95, r.Threshold99)
		}
		if r.Threshold == nil {
			t.Fatalf("split %d: no threshold, want one calibrated", s)
		}
		// The scaled probes are the probes on another scale: the same
		// best balanced accuracy, its threshold and the one of 95% known
		// divided by one number, the model's scale.
		b, err := openset.Balance(r.scaled)
		if err != nil {
			t.Fatalf("split %d: %v", s, err)
		}
		_, t95, err := openset.StrangersIn(r.scaled, openset.KnownIn95)
		if err != nil {
			t.Fatal(err)
		}
		scale := r.BestThreshold / b.Threshold
		if b.Balanced != r.BestBalanced || !(scale > 0) || math.Abs(r.Threshold95/t95-scale) > 1e-9*scale {
			t.Errorf("split %d: scaled probes' best %v at %v and 95%% at %v; the probes' %v at %v and %v", s, b.Balanced, b.Threshold, t95, r.BestBalanced, r.BestThreshold, r.Threshold95)
		}
		// The model's threshold in the same unit.
		if r.ThresholdFraction == nil {
			t.Fatalf("split %d: threshold %v and no threshold fraction", s, *r.Threshold)
		}
		if th, f := *r.Threshold, *r.ThresholdFraction; math.Abs(th/scale-f) > 1e-9*f {
			t.Errorf("split %d: threshold %v is %v of the scale %v, want %v", s, th, f, scale, th/scale)
		}
		// The rates at the model's threshold are those its fraction gives
		// the scaled probes: a known set counts as named right only if it
		// is let in, a stranger as kept out only if its score is above.
		at := openset.At(r.scaled, *r.ThresholdFraction)
		if at.KnownRight != r.KnownRightAtThreshold || at.StrangersOut != r.StrangersOutAtThreshold || at.Balanced != r.BalancedAtThreshold {
			t.Errorf("split %d: at the threshold %v known right, %v strangers out, %v balanced; its fraction %v on the scaled probes gives %v, %v, %v",
				s, r.KnownRightAtThreshold, r.StrangersOutAtThreshold, r.BalancedAtThreshold, *r.ThresholdFraction, at.KnownRight, at.StrangersOut, at.Balanced)
		}
	}
	c := mr.Common
	if len(splits) < 2 {
		if c != nil {
			t.Errorf("one split: common threshold %+v", c)
		}
		return
	}
	// One threshold for all splits does no better than each split's
	// best on average.
	if c == nil || !in01(c.Balanced) || !in01(c.Transfer.Mean) || c.Balanced > mr.BestBalanced.Mean+1e-12 {
		t.Fatalf("common threshold %+v, mean best balanced %v", c, mr.BestBalanced.Mean)
	}
	deployed := map[string]int{}
	for _, r := range mr.PerSplit {
		deployed[r.Deployed]++
	}
	twice := 0
	for m, n := range deployed {
		if !(c.Fractions[m] > 0) {
			t.Errorf("%s deployed: fraction %v", m, c.Fractions[m])
		}
		if n > 1 {
			twice += n
		}
	}
	if !in01(c.AtThreshold.Mean) || twice == len(mr.PerSplit) && math.Abs(c.AtThreshold.Mean-mr.BalancedAtThreshold.Mean) > 1e-12 {
		t.Errorf("balanced at the threshold %v over the transfer's splits, %v over all", c.AtThreshold, mr.BalancedAtThreshold)
	}
	if len(c.Fractions) != len(deployed) || c.TransferSplits != twice {
		t.Errorf("fractions %v for the methods deployed %v, transfer over %d splits", c.Fractions, deployed, c.TransferSplits)
	}
}

func TestRunSeparated(t *testing.T) {
	const classes = 4
	d := separated(classes, 4)
	p := eval.Protocol{Kind: eval.RandomSplits, Gallery: 2, Probe: 2, Splits: classes, Strangers: 1}
	splits := mustSplits(t, p, d)
	var calls int
	res, err := Run(d, splits, Options{Methods: []method.Name{method.NNH}, Grid: method.DefaultGrid(), Seed: 1, Workers: 2,
		Progress: func(pr Progress) {
			calls++
			if pr.Done != calls || pr.Total != classes || pr.Method != method.NNH {
				t.Errorf("progress %+v after %d calls", pr, calls)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != classes || res.Splits != classes {
		t.Errorf("%d progress calls, %d splits", calls, res.Splits)
	}
	mr := res.Methods[method.NNH]
	checkRows(t, d, splits, mr)
	for s, r := range mr.PerSplit {
		if r.Known != 6 || r.Strangers != 2 || r.Failed != 0 || r.Deployed != string(method.NNH) {
			t.Errorf("split %d: %d known, %d strangers, %d failed, deployed %s", s, r.Known, r.Strangers, r.Failed, r.Deployed)
		}
		// Two gallery sets a class: the stand-in folds see no class's
		// spread, and one threshold serves all.
		if r.SpreadExponent != 0 {
			t.Errorf("split %d: spread exponent %v with two sets a class", s, r.SpreadExponent)
		}
	}
	// Far apart classes: named right, and a threshold that keeps the
	// strangers out.
	if mr.KnownRightClosed.Mean != 1 || mr.BestBalanced.Mean < 0.9 || mr.StrangersIn95.Mean > 0.5 {
		t.Errorf("well separated data: closed %v, best balanced %v, strangers in at 95%% %v", mr.KnownRightClosed, mr.BestBalanced, mr.StrangersIn95)
	}
	var sum float64
	for _, r := range mr.PerSplit {
		sum += r.BestBalanced
	}
	if m := sum / classes; math.Abs(m-mr.BestBalanced.Mean) > 1e-12 {
		t.Errorf("mean best balanced %v, rows give %v", mr.BestBalanced.Mean, m)
	}
}

func TestRunPooled(t *testing.T) {
	const classes = 3
	src := separated(classes, 1)
	rng := rand.New(rand.NewPCG(7, 8))
	d := &eval.Data{Classes: src.Classes, Labels: src.Labels, Names: src.Names, Pooled: true}
	for c := range classes {
		x := mat.NewDense(30, 4, nil)
		for i := range 30 {
			for j := range 4 {
				v := 0.3 * rng.NormFloat64()
				if j == c {
					v += 3
				}
				x.Set(i, j, v)
			}
		}
		d.Sets = append(d.Sets, x)
	}
	p := eval.Protocol{Kind: eval.RandomSplits, Gallery: 12, Probe: 12, Splits: 2, Strangers: 1}
	splits, err := p.MakeSplits(d, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(d, splits, Options{Methods: []method.Name{method.NNH}, Grid: method.DefaultGrid(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, d, splits, res.Methods[method.NNH])
	for s, r := range res.Methods[method.NNH].PerSplit {
		if r.Known != 2 || r.Strangers != 1 {
			t.Errorf("split %d: %d known, %d strangers", s, r.Known, r.Strangers)
		}
	}
}

func TestRunNeedsStrangers(t *testing.T) {
	d := separated(3, 3)
	splits, err := eval.Protocol{Kind: eval.RandomSplits, Gallery: 2, Probe: 1, Splits: 1}.MakeSplits(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(d, splits, Options{Methods: []method.Name{method.NNH}, Grid: method.DefaultGrid()}); err == nil || !strings.Contains(err.Error(), "strangers=K") {
		t.Errorf("splits without strangers: %v", err)
	}
	if _, err := Run(d, nil, Options{Methods: []method.Name{method.NNH}}); err == nil {
		t.Error("no splits accepted")
	}
}

// runNNH runs nn-h on the splits of p over d, checks its rows
// (checkRows) and returns the splits and its result.
func runNNH(t *testing.T, d *eval.Data, p eval.Protocol) ([]eval.Split, *MethodResult) {
	t.Helper()
	splits := mustSplits(t, p, d)
	res, err := Run(d, splits, nnhOptions())
	if err != nil {
		t.Fatal(err)
	}
	mr := res.Methods[method.NNH]
	checkRows(t, d, splits, mr)
	return splits, mr
}

// TestRunVisitors: with visitors=V, the visitor classes' probe sets go to
// training as strangers' sets (deploy counts them: TestBuildStrangers)
// and are not decided.
func TestRunVisitors(t *testing.T) {
	d := separated(6, 4)
	_, mr := runNNH(t, d, eval.Protocol{Kind: eval.RandomSplits, Gallery: 2, Probe: 2, Splits: 2, Strangers: 3, Visitors: 2})
	for s, r := range mr.PerSplit {
		// 3 known classes × 2 probes; 1 stranger class × 2 probes decided,
		// the 2 visitor classes' 4 probe sets given to training.
		if r.Known != 6 || r.Strangers != 2 || len(r.VisitorClasses) != 2 {
			t.Errorf("split %d: %d known, %d strangers decided, visitors %v", s, r.Known, r.Strangers, r.VisitorClasses)
		}
	}
}

// TestCommonByMethod: one fraction per method deployed, on its own
// scale; a split whose method no other split deployed has no transfer.
func TestCommonByMethod(t *testing.T) {
	k := func(s float64) openset.Sample { return openset.Sample{Score: s, Right: true} }
	st := func(s float64) openset.Sample { return openset.Sample{Score: s, Stranger: true} }
	// nn-h's scores lie near 0.1, kfda-mix's near 1: one fraction for
	// both would be wrong on one of them.
	row := func(m string, scale, at float64) Row {
		r := Row{Deployed: m, scaled: []openset.Sample{k(scale), k(2 * scale), st(3 * scale), st(4 * scale)}}
		r.BalancedAtThreshold = at
		return r
	}
	rows := []Row{row("nn-h", 0.1, 1), row("kfda-mix", 1, 0.5), row("nn-h", 0.1, 1), row("kfda-hl", 5, 0.75)}
	c := common(rows)
	if c == nil {
		t.Fatal("no common threshold")
	}
	if c.Balanced != 1 || math.Abs(c.Fractions["nn-h"]-math.Sqrt(0.06)) > 1e-12 || math.Abs(c.Fractions["kfda-mix"]-math.Sqrt(6)) > 1e-12 || len(c.Fractions) != 3 {
		t.Errorf("balanced %v, fractions %v", c.Balanced, c.Fractions)
	}
	if c.TransferSplits != 2 || c.Transfer.Mean != 1 || c.AtThreshold.Mean != 1 {
		t.Errorf("transfer %v over %d splits, at the threshold %v", c.Transfer, c.TransferSplits, c.AtThreshold)
	}
	// Balanced is the mean over the splits, not over the methods: two
	// splits of nn-h at 1 and one of kfda-mix at 1/2 (no threshold
	// separates its probes) give 5/6.
	mixed := row("kfda-mix", 1, 0.5)
	mixed.scaled = []openset.Sample{st(1), k(2), st(3), k(4)}
	if c := common([]Row{rows[0], rows[2], mixed}); c == nil || math.Abs(c.Balanced-5.0/6) > 1e-12 {
		t.Errorf("two splits at 1 and one at 1/2: common threshold %+v, want balanced 5/6", c)
	}
	if common(rows[:1]) != nil || common([]Row{row("nn-h", 1, 1), row("kfda-mix", 1, 1)}) != nil {
		t.Error("one split, or no method deployed twice: a common threshold")
	}
	vote := rows[0]
	vote.Approximate = true
	if common(append([]Row{vote}, rows...)) != nil {
		t.Error("a vote among the splits: a common threshold")
	}
}

// TestRunOpenSetChoice checks that a split of auto records how the open
// set chose among the candidates the closed set held equal, with each
// one's figure on the stand-in strangers.
func TestRunOpenSetChoice(t *testing.T) {
	d := separated(4, 4)
	p := eval.Protocol{Kind: eval.RandomSplits, Gallery: 2, Probe: 2, Splits: 1, Strangers: 1}
	splits := mustSplits(t, p, d)
	res, err := Run(d, splits, Options{Methods: []method.Name{method.Auto}, Grid: method.DefaultGrid(), Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Methods[method.Auto].PerSplit[0]
	if !strings.Contains(r.OpenSetChoice, "stand-in strangers") || !strings.Contains(r.OpenSetChoice, r.Deployed+" (balanced ") {
		t.Errorf("deployed %s, open-set choice %q", r.Deployed, r.OpenSetChoice)
	}
}

// TestThresholdFractionZero: a threshold of 0 is a fraction 0 of the
// model's scale, and the JSON writes it (threshold_fraction 0), where the
// field was left out as if there were no threshold; a closed set writes
// null. At 0 every probe is kept out, named right or not; with none every
// probe is let in.
func TestThresholdFractionZero(t *testing.T) {
	d := separated(4, 4)
	p := eval.Protocol{Kind: eval.RandomSplits, Gallery: 2, Probe: 2, Splits: 1, Strangers: 1}
	splits := mustSplits(t, p, d)
	for rule, want := range map[string]string{"0": `"threshold_fraction":0,`, "none": `"threshold_fraction":null,`} {
		res, err := Run(d, splits, Options{Methods: []method.Name{method.NNH}, Grid: method.DefaultGrid(), Seed: 1, Workers: 2, Threshold: rule})
		if err != nil {
			t.Fatal(err)
		}
		rows := res.Methods[method.NNH].PerSplit
		if len(rows) != 1 {
			t.Fatalf("--threshold %s: %d rows", rule, len(rows))
		}
		b, err := json.Marshal(rows[0])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("--threshold %s: row %s; want %s", rule, b, want)
		}
		// At 0 every set is kept out, known ones too: none named right
		// at the threshold, though named right without it; with none,
		// every set is let in.
		r := rows[0]
		wantRight, wantOut := 0.0, 1.0
		if rule == "none" {
			wantRight, wantOut = r.KnownRightClosed, 0
		}
		if r.KnownRightClosed != 1 || r.KnownRightAtThreshold != wantRight || r.StrangersOutAtThreshold != wantOut {
			t.Errorf("--threshold %s: %v named right closed, %v at the threshold, %v of strangers out; want 1, %v, %v", rule, r.KnownRightClosed, r.KnownRightAtThreshold, r.StrangersOutAtThreshold, wantRight, wantOut)
		}
	}
}

// TestRunGivesVisitorsToTraining checks that each split's model is
// trained as setmatch train --strangers trains it, the visitors' probe
// sets given as strangers' sets: its threshold is train's with them. Each
// class c ≥ 3 is drawn as class c − 3 is, so that visitors score like
// known sets and move the threshold (in split 1 of this seed).
func TestRunGivesVisitorsToTraining(t *testing.T) {
	const classes = 6
	rng := rand.New(rand.NewPCG(9, 10))
	d := &eval.Data{}
	for c := range classes {
		name := synth.ClassName(c, classes)
		d.Classes = append(d.Classes, name)
		for s := range 4 {
			x := mat.NewDense(12, 4, nil)
			for i := range 12 {
				for j := range 4 {
					v := 0.3 * rng.NormFloat64()
					if j == c%3 {
						v += 3
					}
					x.Set(i, j, v)
				}
			}
			d.Sets, d.Labels, d.Names = append(d.Sets, x), append(d.Labels, c), append(d.Names, name+"/"+synth.SetName(s, 4))
		}
	}
	p := eval.Protocol{Kind: eval.RandomSplits, Gallery: 2, Probe: 2, Splits: 2, Strangers: 3, Visitors: 2}
	splits := mustSplits(t, p, d)
	res, err := Run(d, splits, nnhOptions())
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Methods[method.NNH].PerSplit
	if len(rows) != len(splits) {
		t.Fatalf("%d rows for %d splits: %v", len(rows), len(splits), res.Methods[method.NNH].Errors)
	}
	for s, r := range rows {
		// The model's threshold is the one train sets with the visitors'
		// probe sets given as strangers' sets (--strangers).
		sp := splits[s]
		var sets, visitors []*mat.Dense
		var labels, names []string
		for _, i := range sp.Gallery {
			sets, labels, names = append(sets, d.Sets[i]), append(labels, d.Classes[d.Labels[i]]), append(names, setName(d, sp, i))
		}
		for _, i := range sp.Probe {
			if sp.IsVisitor(d.Labels[i]) {
				visitors = append(visitors, d.Sets[i])
			}
		}
		built, err := deploy.Build(sets, labels, names, deploy.Options{Method: method.NNH, Grid: method.DefaultGrid(), Seed: 1, Workers: 2,
			Threshold: math.Inf(1), AutoThreshold: true, AutoBalanced: true, Strangers: visitors})
		if err != nil {
			t.Fatal(err)
		}
		if r.Threshold == nil {
			t.Fatalf("split %d: no threshold", s)
		}
		if *r.Threshold != built.Model.Threshold {
			t.Errorf("split %d: threshold %v, want %v, train's with the %d visitors' sets", s, *r.Threshold, built.Model.Threshold, len(visitors))
		}
	}
}

// TestRunGivesOthersToTraining: the others' probe sets are trained on
// as train --others takes them and never decided: the split's model is
// the one deploy.Build fits on the gallery and the others' sets, with
// the others' classes then removed (with the visitors' sets as
// strangers'), and its gallery holds none of theirs.
func TestRunGivesOthersToTraining(t *testing.T) {
	d := separated(8, 4)
	splits, mr := runNNH(t, d, eval.Protocol{Kind: eval.RandomSplits, Gallery: 2, Probe: 2, Splits: 2, Strangers: 4, Visitors: 1, Others: 2})
	for s, r := range mr.PerSplit {
		// 4 known classes × 2 probes; 1 stranger class × 2 probes decided.
		if r.Known != 8 || r.Strangers != 2 || len(r.OtherClasses) != 2 {
			t.Errorf("split %d: %d known, %d strangers decided, others %v", s, r.Known, r.Strangers, r.OtherClasses)
		}
		sp := splits[s]
		var sets, visitors []*mat.Dense
		var labels, names, others []string
		for _, i := range sp.Gallery {
			sets, labels, names = append(sets, d.Sets[i]), append(labels, d.Classes[d.Labels[i]]), append(names, setName(d, sp, i))
		}
		for _, i := range sp.Probe {
			switch c := d.Labels[i]; {
			case sp.IsVisitor(c):
				visitors = append(visitors, d.Sets[i])
			case sp.IsOther(c):
				sets, labels, names = append(sets, d.Sets[i]), append(labels, d.Classes[c]), append(names, setName(d, sp, i))
				if !slices.Contains(others, d.Classes[c]) {
					others = append(others, d.Classes[c])
				}
			}
		}
		built, err := deploy.Build(sets, labels, names, deploy.Options{Method: method.NNH, Grid: method.DefaultGrid(), Seed: 1, Workers: 2,
			Threshold: math.Inf(1), AutoThreshold: true, AutoBalanced: true, Strangers: visitors})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := built.WithoutOthers(others, visitors, 2); err != nil {
			t.Fatal(err)
		}
		// The row names the others' classes the split gave, none of
		// which was decided as a stranger's.
		if !slices.Equal(slices.Sorted(slices.Values(r.OtherClasses)), slices.Sorted(slices.Values(others))) {
			t.Errorf("split %d: others %v, the split gave %v", s, r.OtherClasses, others)
		}
		for _, o := range others {
			if slices.Contains(r.StrangerClasses, o) || slices.Contains(r.VisitorClasses, o) {
				t.Errorf("split %d: the others' class %s decided as a stranger's or given as a visitor's", s, o)
			}
		}
		if r.Threshold == nil || *r.Threshold != built.Model.Threshold {
			t.Errorf("split %d: threshold %s, want %v, train's with the others' sets", s, finiteText(r.Threshold), built.Model.Threshold)
		}
	}
}

// TestRunTransformSeesGalleryOnly checks that Options.Transform is told,
// for each split, its gallery sets alone: features fitted on them (a
// PCA) learn nothing from the probes, the strangers' least of all.
func TestRunTransformSeesGalleryOnly(t *testing.T) {
	d := separated(4, 4)
	p := eval.Protocol{Kind: eval.RandomSplits, Gallery: 2, Probe: 2, Splits: 2, Strangers: 1}
	splits := mustSplits(t, p, d)
	var seen [][]int
	transform := func(sets []*mat.Dense, gallery []int) ([]*mat.Dense, error) {
		seen = append(seen, slices.Clone(gallery))
		return sets, nil
	}
	if _, err := Run(d, splits, Options{Methods: []method.Name{method.NNH}, Grid: method.DefaultGrid(), Seed: 1, Workers: 2, Transform: transform}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(splits) {
		t.Fatalf("Transform called %d times, want once per split (%d)", len(seen), len(splits))
	}
	for s, sp := range splits {
		if !slices.Equal(seen[s], sp.Gallery) {
			t.Errorf("split %d: Transform fitted on sets %v, want the gallery %v alone", s+1, seen[s], sp.Gallery)
		}
	}
}

// mustSplits returns p's splits of d, seed 1.
func mustSplits(t *testing.T, p eval.Protocol, d *eval.Data) []eval.Split {
	t.Helper()
	splits, err := p.MakeSplits(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	return splits
}

// nnhOptions are the options most tests run with: nn-h alone, the default
// grid, seed 1, two workers.
func nnhOptions() Options {
	return Options{Methods: []method.Name{method.NNH}, Grid: method.DefaultGrid(), Seed: 1, Workers: 2}
}

// finiteText is a threshold of a row as a failure says it: its value, or
// null where it has none.
func finiteText(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}
