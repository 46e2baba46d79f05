package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/eval"
	"setmatch/setfile"
)

// evalData writes classes × sets feature files (.npy) whose classes differ
// in mean and spread, and returns the data set folder.
func evalData(t *testing.T, classes, sets int) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	for c := range classes {
		cd := filepath.Join(dir, fmt.Sprintf("class%d", c))
		if err := os.MkdirAll(cd, 0o755); err != nil {
			t.Fatal(err)
		}
		for s := range sets {
			x := mat.NewDense(10, 4, nil)
			for i := range 10 {
				for j := range 4 {
					v := 0.3 * rng.NormFloat64()
					if j == c {
						v = 4*v + 2
					}
					x.Set(i, j, v)
				}
			}
			if err := setfile.WriteFile(filepath.Join(cd, fmt.Sprintf("s%d.npy", s)), x); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func evalDispatch(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestEvalJSON(t *testing.T) {
	dir := evalData(t, 3, 4)
	code, stdout, stderr := evalDispatch("eval", "--data", dir, "--protocol", "gallery=2,probe=2,splits=2",
		"--methods", "nn-h,kfda-j,gda,cdl", "--bandwidths", "global*1,set*1", "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Methods map[string]struct {
			Mean, Std  float64
			Accuracies []float64
			Seconds    float64
		}
		Protocol, Features, Data string
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if got.Protocol != "gallery=2,probe=2,splits=2" || got.Data != dir || got.Features != "files" {
		t.Errorf("protocol %q, data %q, features %q", got.Protocol, got.Data, got.Features)
	}
	for _, m := range []string{"nn-h", "kfda-j", "gda", "cdl"} {
		r, ok := got.Methods[m]
		if !ok || len(r.Accuracies) != 2 {
			t.Errorf("%s: %+v", m, r)
			continue
		}
		// GDA and CDL only need to run here: with 4 features their
		// subspaces and covariances barely tell these classes apart.
		if (m == "nn-h" || m == "kfda-j") && r.Mean < 99.9 {
			t.Errorf("%s: mean %.1f%% on well separated classes", m, r.Mean)
		}
	}
}

func TestEvalTableAndProgress(t *testing.T) {
	dir := evalData(t, 2, 3)
	code, stdout, stderr := evalDispatch("eval", "--data", dir, "--protocol", "loo", "--methods", "nn-j", "--bandwidths", "global*1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "nn-j") || !strings.Contains(stdout, "100.0 ±") {
		t.Errorf("table:\n%s", stdout)
	}
	if !strings.Contains(stderr, "split 6/6 done") {
		t.Errorf("progress:\n%s", stderr)
	}
}

func TestEvalUsageErrors(t *testing.T) {
	dir := evalData(t, 2, 3)
	for _, args := range [][]string{
		{"eval"},
		{"eval", "--data", dir, "--methods", "nn-x"},
		{"eval", "--data", dir, "--protocol", "gallery=2"},
		{"eval", "--data", dir, "--bandwidths", "global*0"},
		{"eval", "--data", dir, "--width-scale", "log"},
		{"eval", "--data", dir, "--whiten"},
		{"eval", "--data", dir, "extra"},
		{"eval", "--nosuchflag"},
		{"eval", "--data", dir, "--dr-dim", "0"},
		{"eval", "--data", dir, "--dr-dim", "5,x"},
		{"eval", "--data", dir, "--dr-bandwidth", "nn,wide"},
		{"eval", "--data", dir, "--dr-folds", "1"},
		{"eval", "--data", dir, "--dr-fold-iter", "0"},
	} {
		if code, _, stderr := evalDispatch(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	// Not enough sets per class for the protocol: a plain error.
	if code, _, stderr := evalDispatch("eval", "--data", dir, "--protocol", "gallery=5,probe=5", "--quiet"); code != 1 || !strings.Contains(stderr, "needs 10") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestEvalDRCrossValidation runs nn-h-dr with model.Train on a tiny data
// set: d and the training bandwidth rule are chosen from the grid given on
// the command line, by cross-validation on the gallery.
func TestEvalDRCrossValidation(t *testing.T) {
	dir := evalData(t, 3, 5)
	code, stdout, stderr := evalDispatch("eval", "--data", dir, "--protocol", "gallery=3,probe=2,splits=1",
		"--methods", "nn-h-dr", "--bandwidths", "global*1,global*2", "--dr-dim", "2,3", "--dr-bandwidth", "nn,scott", "--dr-guard=false",
		"--dr-fold-iter", "3", "--dr-iter", "5", "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Methods map[string]struct{ Params []string }
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	ps := got.Methods["nn-h-dr"].Params
	if len(ps) != 1 {
		t.Fatalf("params %v", ps)
	}
	ok := false
	for _, c := range []string{"d=2 train-bw=nn ", "d=2 train-bw=scott ", "d=3 train-bw=nn ", "d=3 train-bw=scott "} {
		ok = ok || strings.HasPrefix(ps[0], c)
	}
	if !ok || !strings.Contains(ps[0], "drcv=") {
		t.Errorf("params %q: want d and rule from the grid, chosen by cross-validation", ps[0])
	}
}

// TestEvalStepsOnStderr: progress within a split goes to stderr, and the
// JSON on stdout stays one clean object.
func TestEvalStepsOnStderr(t *testing.T) {
	dir := evalData(t, 3, 4)
	code, stdout, stderr := evalDispatch("eval", "--data", dir, "--protocol", "gallery=2,probe=2,splits=1",
		"--methods", "nn-h,kfda-j", "--bandwidths", "global*1,set*1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
	}
	// The first step of a run is always reported.
	if !strings.Contains(stderr, "eval: split 1/1, shared work: 1/2 matrices, ") {
		t.Errorf("no progress within the split on stderr:\n%s", stderr)
	}
	if strings.Contains(stdout, "eval:") {
		t.Errorf("progress on stdout:\n%s", stdout)
	}
}

func TestEvalStepLines(t *testing.T) {
	steps := []eval.Step{
		{Split: 1, Splits: 1, Stage: eval.StageShared, Unit: "matrices", Done: 1, Total: 12, Elapsed: 2 * time.Second, Left: 22 * time.Second},
		{Split: 1, Splits: 1, Stage: eval.StageShared, Unit: "matrices", Done: 2, Total: 12, Elapsed: 4 * time.Second, Left: 20 * time.Second},
		{Split: 1, Splits: 1, Stage: "nn-h-dr", Unit: "projections", Done: 13, Total: 13, Elapsed: 65 * time.Second},
		{Split: 1, Splits: 1, Stage: "nn-h", Unit: "bandwidths", Done: 12, Total: 12, Elapsed: time.Millisecond},
	}
	var every bytes.Buffer
	f := evalStep(&every, 0)
	for _, s := range steps {
		f(s)
	}
	want := "eval: split 1/1, shared work: 1/12 matrices, 2s, about 22s left\n" +
		"eval: split 1/1, shared work: 2/12 matrices, 4s, about 20s left\n" +
		"eval: split 1/1, nn-h-dr: 13/13 projections, 1m5s\n" +
		"eval: split 1/1, nn-h: 12/12 bandwidths, 0s\n"
	if every.String() != want {
		t.Errorf("every step:\n%s\nwant\n%s", every.String(), want)
	}
	// Throttled: the first line, then only the end of a long stage.
	var some bytes.Buffer
	f = evalStep(&some, time.Hour)
	for _, s := range steps {
		s.Elapsed *= 3600
		f(s)
	}
	if got := some.String(); strings.Count(got, "\n") != 2 || !strings.Contains(got, "1/12 matrices") || !strings.Contains(got, "13/13 projections") {
		t.Errorf("throttled:\n%s", got)
	}
}

// TestEvalAutoMinus: with auto among the methods, the table and the JSON
// give every other method's paired difference to auto over the splits,
// equal to eval.PairedDiff of the accuracies; without auto, neither does.
func TestEvalAutoMinus(t *testing.T) {
	dir := evalData(t, 3, 5)
	args := []string{"eval", "--data", dir, "--protocol", "gallery=3,probe=2,splits=2", "--bandwidths", "global*1,set*1", "--quiet"}
	code, stdout, stderr := evalDispatch(append(args, "--methods", "nn-h,kfda-j,auto", "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Methods map[string]struct {
			Accuracies []float64
			AutoMinus  *eval.Paired `json:"auto_minus"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if got.Methods["auto"].AutoMinus != nil {
		t.Errorf("auto against itself: %+v", got.Methods["auto"].AutoMinus)
	}
	for _, m := range []string{"nn-h", "kfda-j"} {
		want, err := eval.PairedDiff(got.Methods["auto"].Accuracies, got.Methods[m].Accuracies)
		if err != nil {
			t.Fatal(err)
		}
		if d := got.Methods[m].AutoMinus; d == nil || *d != want {
			t.Errorf("%s: auto_minus %+v, want %+v", m, d, want)
		}
	}
	code, stdout, stderr = evalDispatch(append(args, "--methods", "nn-h,auto")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "auto − it (SE)") || !strings.Contains(stdout, "auto − it: auto's accuracy minus") {
		t.Errorf("table without the paired column:\n%s", stdout)
	}
	code, stdout, stderr = evalDispatch(append(args, "--methods", "nn-h,nn-j")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "auto − it") {
		t.Errorf("paired column without auto:\n%s", stdout)
	}
	// One split: no standard error, so no column.
	one := []string{"eval", "--data", dir, "--protocol", "gallery=3,probe=2,splits=1", "--bandwidths", "global*1,set*1", "--quiet", "--methods", "nn-h,auto"}
	code, stdout, stderr = evalDispatch(one...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "auto − it") {
		t.Errorf("paired column with one split:\n%s", stdout)
	}
}
