package method

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"setmatch/synth"
)

// TestChooseCutsOnlyLosers compares Choose with Grid.AutoScoreAll (every
// candidate scored in full) and without (candidates cut short and left
// out) on synthetic data of several kinds, with two and three sets per
// class: the same choice, the same score for every candidate scored in
// full, and every candidate cut short more than one standard error below
// the highest score in full, so that it could not have been chosen nor
// held equal. Over the data, some candidate must be cut short and the
// runs made must be fewer, or the test tests nothing.
func TestChooseCutsOnlyLosers(t *testing.T) {
	cut, fewer := 0, 0
	for _, c := range []struct {
		kind              synth.Kind
		classes, sets, fr int
		seed              int64
	}{
		{synth.Lighting, 12, 2, 10, 1},
		{synth.Lighting, 12, 3, 8, 2},
		{synth.Subspace, 10, 2, 10, 3},
	} {
		ds, err := synth.Generate(synth.Options{Kind: c.kind, Classes: c.classes, Sets: c.sets, Frames: c.fr, Dim: 8, Seed: c.seed})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%v %d×%d", c.kind, c.classes, c.sets)
		var sels [2]*Selection
		var runs [2]int
		for i, all := range []bool{true, false} {
			l := &coordLearner{}
			g := autoGrid(l.learn)
			g.AutoMethods = nil // the default candidates
			g.AutoScoreAll = all
			train := make([]int, len(ds.Sets))
			for k := range train {
				train[k] = k
			}
			task := &Task{Pool: mustPool(t, ds.Matrices()), Train: train, Labels: ds.Labels(), Classes: c.classes, Seed: 7}
			var last AutoProgress
			sel, err := Choose(task, g, func(p AutoProgress) { runs[i]++; last = p })
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sels[i] = sel
			// The progress counts apart the runs not made of candidates
			// cut short, as the selection tells them.
			notMade := 0
			for _, sc := range sel.Scores {
				if c := (*CutShort)(nil); errors.As(sc.Err, &c) {
					notMade += c.Of - c.Runs
				}
			}
			if last.CutShort != notMade {
				t.Errorf("%s: the last progress counts %d runs of candidates cut short, the selection %d", name, last.CutShort, notMade)
			}
		}
		full, early := sels[0], sels[1]
		if early.Chosen != full.Chosen {
			t.Errorf("%s: chose %v, in full %v", name, early.Best().Candidate, full.Best().Candidate)
		}
		bar := full.Scores[full.Top].Accuracy - full.SE - 1e-12
		for i, e := range early.Scores {
			f := full.Scores[i]
			switch {
			case errors.Is(e.Err, ErrCutShort):
				cut++
				if f.Err == nil && f.Accuracy >= bar {
					t.Errorf("%s: %v cut short (%v), in full %.3f, within one standard error of %.3f", name, e.Candidate, e.Err, f.Accuracy, full.Scores[full.Top].Accuracy)
				}
			case NotScored(e.Err):
			case e.Accuracy != f.Accuracy || !slices.Equal(e.Correct, f.Correct) || (e.Err == nil) != (f.Err == nil):
				t.Errorf("%s: %v scored %.3f (%v), in full %.3f (%v)", name, e.Candidate, e.Accuracy, e.Err, f.Accuracy, f.Err)
			}
			t.Logf("%s: %-28v full %.3f  early %.3f %v", name, e.Candidate, f.Accuracy, e.Accuracy, e.Err)
		}
		for _, i := range early.Eligible() {
			if !slices.Contains(full.Eligible(), i) {
				t.Errorf("%s: %v held equal, not in full", name, early.Scores[i].Candidate)
			}
		}
		if runs[1] < runs[0] {
			fewer++
		}
		t.Logf("%s: %d runs in full, %d", name, runs[0], runs[1])
	}
	if cut == 0 || fewer == 0 {
		t.Errorf("%d candidates cut short, fewer runs on %d data sets: the data do not test the cut", cut, fewer)
	}
}

// TestAutoProgressAccountsTotal: Total changes only by the runs the
// reports account for (cut short, left out, failed), so that a reader
// never sees the count of runs change without the reason; Done counts one
// more run in each report and never passes Total. A choice settled early
// leaves the later candidates' runs out; a candidate that fails leaves
// its own.
func TestAutoProgressAccountsTotal(t *testing.T) {
	check := func(name string, reps []AutoProgress) AutoProgress {
		t.Helper()
		if len(reps) == 0 {
			t.Fatalf("%s: no reports", name)
		}
		f := reps[0]
		planned := f.Total + f.CutShort + f.LeftOut + f.Failed
		for k, p := range reps {
			if got := p.Total + p.CutShort + p.LeftOut + p.Failed; got != planned {
				t.Errorf("%s: report %d: %d/%d, %d cut short, %d left out, %d failed: accounts for %d runs, the first for %d",
					name, k+1, p.Done, p.Total, p.CutShort, p.LeftOut, p.Failed, got, planned)
			}
			if p.Done != k+1 || p.Done > p.Total {
				t.Errorf("%s: report %d: %d/%d", name, k+1, p.Done, p.Total)
			}
		}
		return reps[len(reps)-1]
	}

	sp, labels := drSplit(t, sixSetData(4), 3)
	g := autoGrid((&coordLearner{}).learn)
	g.AutoMethods, g.AutoScoreAll = nil, false
	task := &Task{Pool: mustPool(t, sp.Sets), Train: sp.Gallery, Labels: labels, Classes: 3, Seed: 7}
	var reps []AutoProgress
	sel, err := Choose(task, g, func(p AutoProgress) { reps = append(reps, p) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(sel.Scores, func(c CandidateScore) bool { return errors.Is(c.Err, ErrNotScored) }) {
		t.Fatalf("no candidate left out: the data do not test the runs left out")
	}
	if last := check("settled", reps); last.LeftOut == 0 || last.Done != last.Total || last.Total >= reps[0].Total {
		t.Errorf("settled: last report %d/%d, %d left out (first %d/%d)", last.Done, last.Total, last.LeftOut, reps[0].Done, reps[0].Total)
	}

	// nn-h-dr fails (no W is learned): its runs not made are accounted
	// for as failed.
	g = autoGrid(failLearner)
	g.AutoMethods, g.AutoScoreAll = []Name{NNHDR, NNH}, false
	reps = nil
	sel, err = Choose(task, g, func(p AutoProgress) { reps = append(reps, p) })
	if err != nil {
		t.Fatal(err)
	}
	if sel.Scores[0].Err == nil || NotScored(sel.Scores[0].Err) {
		t.Fatalf("nn-h-dr: %v, want failed", sel.Scores[0].Err)
	}
	if last := check("failed", reps); last.Failed == 0 || last.Done != last.Total {
		t.Errorf("failed: last report %d/%d, %d left out, %d failed", last.Done, last.Total, last.LeftOut, last.Failed)
	}
}

// TestCheckCutsOnlyAgainstCandidatesScoredInFull: a candidate is cut short
// only against a leader whose runs are all made. One that leads part way
// may yet fail on a fold it has not run, and then counts for nothing:
// a candidate cut against it might have been held equal to the top.
func TestCheckCutsOnlyAgainstCandidatesScoredInFull(t *testing.T) {
	ch := &chooser{sel: &Selection{Held: 40}, cands: make([]Candidate, 3), perCand: 4, runs: []candRun{
		{runs: 3, right: 30, seen: 30}, // every set right so far, one run to make
		{runs: 4, right: 20, seen: 40}, // scored in full: 50%
		{runs: 2, right: 5, seen: 20},  // at most 62.5%, within one error of 50%
	}}
	ch.check()
	for i, r := range ch.runs {
		if r.stop != nil {
			t.Errorf("candidate %d stopped (%v): the only candidate scored in full is at 50%%, and it can reach 62.5%%", i, r.stop)
		}
	}
}

// TestCheckLeavesOutAfterASettledChoice: once the candidates in order up
// to one are resolved, whether cut short or scored in full, and no later
// score could change the choice among them (here one recognised every
// held-out set), the later candidates are left out (ErrNotScored): a
// candidate cut short at the front does not hold the shortcut back.
func TestCheckLeavesOutAfterASettledChoice(t *testing.T) {
	ch := &chooser{sel: &Selection{Held: 40}, cands: make([]Candidate, 3), perCand: 4, runs: []candRun{
		{runs: 1, right: 2, seen: 10, stop: ErrCutShort}, // cut short before
		{runs: 4, right: 40, seen: 40},                   // every set right
		{},                                               // not run yet
	}}
	ch.check()
	if !errors.Is(ch.runs[2].stop, ErrNotScored) {
		t.Errorf("the candidate after a settled choice: stop %v, want %v", ch.runs[2].stop, ErrNotScored)
	}
}
