package eval

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/features"
	"setmatch/learn"
	"setmatch/match"
)

// The auto study: how auto's choice would fare under other rules. For
// every split of a data set it records, per candidate of Choose, the
// outcome on every held-out training set of each dealing to the outer
// folds, and the candidate's outcome on every probe set when fitted on the
// whole gallery (the -dr method also as Selection.Deploy fits it).
// scripts/autostudy.py compares selection rules on these records. It is
// an experiment, run on request only:
//
//	STUDY='NAME;DIR;FEATURES;PROTOCOL' STUDY_OUT=FILE.jsonl go test -run TestAutoStudy -timeout 0 ./eval
//
// (FEATURES empty for feature-vector data; the splits and inner seeds are
// those of setmatch eval --seed 1, or --seed N with STUDY_SEED=N.) STUDY_METHODS=a,b,... restricts the
// candidates to those methods; the outer folds do not depend on them, so
// records of different methods on the same split can be merged.
// STUDY_REPEATS=N deals the training sets N times instead of 2 (the
// first dealings are the same whatever N). STUDY_PROBE_ONLY=1 skips the
// outer folds: every method of STUDY_METHODS is only fitted on the
// gallery (the -dr method as Selection.Deploy fits it where every class
// has two sets or more) and its probe outcomes and per-class distances
// recorded, for rules that combine methods rather than choose one.

// studyCand is one candidate's record in a split.
type studyCand struct {
	Name    string   `json:"name"`
	Method  string   `json:"method"`
	CV      [][]bool `json:"cv"` // per repetition
	Probe   []bool   `json:"probe"`
	Params  string   `json:"params"`
	Seconds float64  `json:"seconds"`
	// Dist is each probe set's distance to the nearest gallery set of
	// every class (−1 for none), where the method gives it
	// (Prediction.classDist).
	Dist [][]float64 `json:"dist,omitempty"`
}

// studySplit is one JSON line of the study's output.
type studySplit struct {
	Data   string      `json:"data"`
	Split  int         `json:"split"`
	Fold   string      `json:"folding"`
	Truth  []int       `json:"truth"`
	Cands  []studyCand `json:"cands"`
	DRMeth []bool      `json:"dr_method_probe"`
	DRPar  string      `json:"dr_method_params"`
}

// TestAutoStudy runs the auto study when STUDY is set (see above).
func TestAutoStudy(t *testing.T) {
	spec := os.Getenv("STUDY")
	if spec == "" {
		t.Skip("an experiment: set STUDY to run it")
	}
	f := strings.Split(spec, ";")
	if len(f) != 4 {
		t.Fatalf("STUDY=%q, want NAME;DIR;FEATURES;PROTOCOL", spec)
	}
	name, dir, feat, proto := f[0], f[1], f[2], f[3]
	opt := dataset.Options{}
	if feat != "" {
		pipe, err := features.Parse(feat)
		if err != nil {
			t.Fatal(err)
		}
		opt.Frames = pipe.FrameDecoder()
	}
	ds, err := dataset.Load(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseProtocol(proto)
	if err != nil {
		t.Fatal(err)
	}
	d := &Data{Classes: ds.Classes, Sets: ds.Matrices(), Labels: ds.Labels(), Names: ds.Names(), Pooled: ds.Pooled}
	seed := uint64(1)
	if v := os.Getenv("STUDY_SEED"); v != "" {
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil || seed == 0 {
			t.Fatalf("STUDY_SEED=%q: want a whole number ≥ 1", v)
		}
	}
	splits, err := p.MakeSplits(d, seed)
	if err != nil {
		t.Fatal(err)
	}
	g := DefaultGrid()
	g.Folds, g.DRFolds, g.DRIter, g.DRFoldIter, g.AutoRepeats = 5, 3, 25, 10, 2
	g.AutoScoreAll = true
	if r := os.Getenv("STUDY_REPEATS"); r != "" {
		if g.AutoRepeats, err = strconv.Atoi(r); err != nil || g.AutoRepeats < 1 {
			t.Fatalf("STUDY_REPEATS=%q: want a whole number ≥ 1", r)
		}
	}
	// Every candidate, in the order of AutoMethods, whatever the training
	// sets: the rules of scripts/autostudy.py choose on the records.
	g.AutoMethods = AutoMethods
	if m := os.Getenv("STUDY_METHODS"); m != "" {
		g.AutoMethods = strings.Split(m, ",")
	}
	pca := new(learn.PCACache)
	g.Learn = func(sets []*mat.Dense, labels []int, m match.Measure, lp LearnParams, seed int64) (*mat.Dense, []float64, error) {
		_, dd := sets[0].Dims()
		if lp.Start {
			return pca.Basis(sets, min(lp.Dim, dd), seed)
		}
		res, err := learn.Train(sets, labels, learn.TrainOptions{Dim: min(lp.Dim, dd), Divergence: m, Bandwidth: lp.Rule, MaxIter: lp.MaxIter, Seed: seed, GlobalScale: lp.Scale, PCA: pca})
		if err != nil {
			return nil, nil, err
		}
		return res.W, res.Mean, nil
	}
	out, err := os.OpenFile(os.Getenv("STUDY_OUT"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	probeOnly := os.Getenv("STUDY_PROBE_ONLY") != ""
	var pool *Pool
	for si, sp := range splits {
		if pool == nil || d.Pooled {
			// Pooled data draws new sets for every split.
			pool, err = NewPool(sp.Sets, 0)
			if err != nil {
				t.Fatal(err)
			}
		}
		labels := make([]int, len(sp.Gallery))
		for k, j := range sp.Gallery {
			labels[k] = sp.Labels[j]
		}
		task := &Task{Pool: pool, Train: sp.Gallery, Labels: labels, Test: sp.Probe, Classes: len(ds.Classes), Seed: seed*1000003 + uint64(si)}
		rec := studySplit{Data: name, Split: si}
		for _, q := range sp.Probe {
			rec.Truth = append(rec.Truth, sp.Labels[q])
		}
		if probeOnly {
			err = studyProbes(task, g, &rec)
		} else {
			err = studyChoice(task, g, &rec)
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(rec)
		fmt.Fprintln(out, string(b))
		t.Logf("%s split %d done", name, si)
	}
}

// outcomes says, for every test set, whether its predicted label is its
// true one.
func outcomes(pred, truth []int) []bool {
	out := make([]bool, len(truth))
	for k, c := range truth {
		out[k] = pred[k] == c
	}
	return out
}

// studyProbes fills rec with every method of g.AutoMethods fitted on the
// task's training sets (STUDY_PROBE_ONLY): its outcome on every probe
// set and the set's distance to every class (−1 for none: JSON has no
// +Inf).
func studyProbes(task *Task, g Grid, rec *studySplit) error {
	for _, m := range g.AutoMethods {
		start := time.Now()
		pr, err := run(m, task, Candidate{Method: m}.grid(g, task.Pool.Dim(), g.DRIter))
		if err != nil {
			return err
		}
		sc := studyCand{Name: m, Method: m, Params: pr.Params, Seconds: time.Since(start).Seconds(), Probe: outcomes(pr.Labels, rec.Truth)}
		for _, row := range pr.classDist {
			r := make([]float64, len(row))
			for c, v := range row {
				r[c] = v
				if math.IsInf(v, 1) {
					r[c] = -1
				}
			}
			sc.Dist = append(sc.Dist, r)
		}
		rec.Cands = append(rec.Cands, sc)
	}
	return nil
}

// studyChoice fills rec with Choose's outer folds on the task's training
// sets: every candidate's held-out outcomes, per dealing, and its
// outcome on every probe set when fitted on all training sets (the -dr
// method also as Selection.Deploy fits it).
func studyChoice(task *Task, g Grid, rec *studySplit) error {
	sel, err := Choose(task, g, nil)
	if err != nil {
		return err
	}
	rec.Fold = sel.Folding
	per := sel.Held / max(g.AutoRepeats, 1)
	if strings.Contains(sel.Folding, "frame halves") {
		per = sel.Held
	}
	dim := task.Pool.Dim()
	for _, c := range sel.Scores {
		sc := studyCand{Name: c.String(), Method: c.Method, Seconds: c.Seconds}
		if c.Err == nil {
			for k := 0; k+per <= len(c.Correct); k += per {
				sc.CV = append(sc.CV, c.Correct[k:k+per])
			}
		}
		pr, err := run(c.Method, task, c.Candidate.grid(g, dim, g.DRIter))
		if err != nil {
			return err
		}
		sc.Probe, sc.Params = outcomes(pr.Labels, rec.Truth), pr.Params
		rec.Cands = append(rec.Cands, sc)
	}
	for i, c := range sel.Scores {
		if c.Method == NNHDR {
			pr, err := run(NNHDR, task, sel.deployGrid(sel.Scores[i].Candidate, g, dim, task.Labels))
			if err != nil {
				return err
			}
			rec.DRMeth, rec.DRPar = outcomes(pr.Labels, rec.Truth), pr.Params
			break
		}
	}
	return nil
}
