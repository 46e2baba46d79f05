package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/internal/testutil"
	"setmatch/model"
	"setmatch/setfile"
	"setmatch/synth"
)

func trainRun(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = dispatch(args, &o, &e)
	return code, o.String(), e.String()
}

// trainData writes a small labelled data set (4 classes × 3 sets × 20 frames,
// 8 features) and returns its folder.
func trainData(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	d, err := synth.Generate(synth.Options{Kind: synth.Subspace, Classes: 4, Sets: 3, Frames: 20, Dim: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := dataset.Write(dir, d); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTrainCommand(t *testing.T) {
	data := trainData(t)
	tmp := t.TempDir()
	out := filepath.Join(tmp, "m.model")
	rep := filepath.Join(tmp, "report")
	code, stdout, stderr := trainRun("train", "--method", "learned", "--data", data, "--dim", "2", "--out", out, "--max-iter", "8",
		"--divergence", "jeffrey", "--log-json", "--report", rep, "--threshold", "auto", "--workers", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "iter    1/8") || !strings.Contains(stderr, "left") || !strings.Contains(stderr, "wrote "+out) {
		t.Errorf("progress on stderr missing:\n%s", stderr)
	}
	// One JSON object per line and iteration, starting at iteration 0.
	sc := bufio.NewScanner(strings.NewReader(stdout))
	lines := 0
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d: %v: %q", lines+1, err, sc.Text())
		}
		for _, k := range []string{"iteration", "cost", "grad_norm", "seconds", "step"} {
			if _, ok := l[k].(float64); !ok {
				t.Errorf("line %d: no number %q: %q", lines+1, k, sc.Text())
			}
		}
		if it := l["iteration"].(float64); it != float64(lines) {
			t.Errorf("line %d: iteration %v", lines+1, it)
		}
		lines++
	}
	if lines < 2 || lines > 9 {
		t.Errorf("%d JSON lines for at most 8 iterations", lines)
	}

	m, _, err := model.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.InputDim() != 8 || m.Dim() != 2 || len(m.Sets) != 12 {
		t.Errorf("model: D = %d, d = %d, %d sets", m.InputDim(), m.Dim(), len(m.Sets))
	}
	if m.Divergence.String() != "jeffrey" || m.QueryBandwidth.String() != "nn" {
		t.Errorf("model: divergence %v, query bandwidth %v", m.Divergence, m.QueryBandwidth)
	}
	if math.IsInf(m.Threshold, 0) || !(m.Threshold > 0) {
		t.Errorf("--threshold auto gave %v", m.Threshold)
	}
	if m.Meta.Tool != toolName("train") || m.Meta.Data != data || m.Meta.Params["dim"] != "2" || m.Meta.Iterations < 1 {
		t.Errorf("meta %+v", m.Meta)
	}
	// The parameters say what training used: ν_w = ν_b = smallest class − 1
	// = 2 for --nu-w 0 and --nu-b 0 (the defaults).
	if m.Meta.Params["nu-w"] != "2" || m.Meta.Params["nu-b"] != "2" {
		t.Errorf("recorded nu-w %q, nu-b %q; want the effective 2 and 2", m.Meta.Params["nu-w"], m.Meta.Params["nu-b"])
	}
	if m.Sets[0].Label != "c00" || m.Sets[11].Label != "c03" {
		t.Errorf("labels %q … %q", m.Sets[0].Label, m.Sets[11].Label)
	}
	for _, f := range []string{"cost.png", "divergence-before.png", "divergence-after.png"} {
		if st, err := os.Stat(filepath.Join(rep, f)); err != nil || st.Size() < 1000 {
			t.Errorf("report %s: %v", f, err)
		}
	}

	// The model recognises its own training sets, projected again.
	ds, res := matchOwnSets(t, m, data)
	for _, k := range []int{0, 5, 11} {
		if r := res[k]; r.Decision.Label != ds.Sets[k].Class || r.Decision.Score > 1e-9 {
			t.Errorf("training set %d (%s): matched %s with score %v", k, ds.Sets[k].Class, r.Decision.Label, r.Decision.Score)
		}
	}
}

// TestTrainCommandDefaultThreshold: without --threshold the model keeps
// strangers out (a finite threshold, the default calibration, said in the
// output); --threshold none gives a closed set.
func TestTrainCommandDefaultThreshold(t *testing.T) {
	data := trainData(t)
	for _, none := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "m.model")
		args := []string{"train", "--method", "learned", "--data", data, "--dim", "3", "--out", out, "--max-iter", "3", "--bandwidth", "1.5"}
		if none {
			args = append(args, "--threshold", "none")
		}
		code, stdout, stderr := trainRun(args...)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		if stdout != "" {
			t.Errorf("stdout without --log-json: %q", stdout)
		}
		m, _, err := model.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if m.Sets[0].Bandwidth != 1.5 || m.QueryBandwidth.String() != "1.5" {
			t.Errorf("bandwidth %v, query %v", m.Sets[0].Bandwidth, m.QueryBandwidth)
		}
		if none != math.IsInf(m.Threshold, 1) {
			t.Errorf("--threshold none %v: threshold %v", none, m.Threshold)
		}
		if !none && (!strings.Contains(stderr, "balanced") || !strings.Contains(stderr, "has no cross-validated fit to repeat without stand-in strangers")) {
			t.Errorf("the default threshold of learned, balanced on the training sets, is not explained:\n%s", stderr)
		}
	}
}

func TestTrainCommandErrors(t *testing.T) {
	data := trainData(t)
	out := filepath.Join(t.TempDir(), "m.model")
	usage := [][]string{
		{"train", "--dim", "2", "--out", out},
		{"train", "--out", out},
		{"train", "--data", data, "--dim", "2"},
		{"train", "--data", data, "--out", out, "--method", "learned"},
		{"train", "--data", data, "--out", out, "--method", "svm"},
		{"train", "--data", data, "--out", out, "--dim", "-1"},
		{"train", "--data", data, "--dim", "2", "--out", out, "--divergence", "kl"},
		{"train", "--data", data, "--dim", "2", "--out", out, "--bandwidth", "-1"},
		{"train", "--data", data, "--dim", "2", "--out", out, "--threshold", "high"},
		{"train", "--data", data, "--dim", "2", "--out", out, "--max-iter", "0"},
		// The bounds of the learning flags, where they apply.
		{"train", "--data", data, "--dim", "2", "--out", out, "--method", "learned", "--max-iter", "0"},
		{"train", "--data", data, "--dim", "2", "--out", out, "--method", "learned", "--rounds", "0"},
		{"train", "--data", data, "--dim", "2", "--out", out, "--method", "learned", "--nu-w", "-1"},
		{"train", "--data", data, "--dim", "2", "--out", out, "--method", "learned", "--nu-b", "-1"},
		{"train", "--data", data, "--dim", "2", "--out", out, "--method", "learned", "--grad-tol", "0"},
		{"train", "--data", data, "--dim", "2", "--out", out, "--method", "learned", "--cost-tol", "0"},
		{"train", "--data", data, "--dim", "2", "--out", out, "--method", "learned", "--min-step", "0"},
		{"train", "--data", data, "--dim", "2", "--out", out, "--method", "learned", "--min-step", "NaN"},
		{"train", "--data", data, "--dim", "2", "--out", out, "--method", "learned", "--grad-tol", "+Inf"},
		{"train", "--data", data, "--dim", "9", "--out", out},
		{"train", "--data", data, "--dim", "2", "--out", out, "extra"},
		{"train", "--data", data, "--dim", "2", "--out", out, "--features", "intensity:4x4+pca"},
	}
	for _, args := range usage {
		if code, _, stderr := trainRun(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2\n%s", args, code, stderr)
		}
	}
	// Of several bad tolerances, the first in -h's order is named, on
	// every run.
	for range 30 { // a map's order would name another in about a quarter of runs
		if code, _, stderr := trainRun("train", "--data", data, "--dim", "2", "--out", out, "--method", "learned", "--min-step", "0", "--cost-tol", "0", "--grad-tol", "0"); code != 2 || !strings.Contains(stderr, "--grad-tol must be") {
			t.Fatalf("three bad tolerances: exit %d, %q, want --grad-tol named", code, stderr)
		}
	}
	if code, _, stderr := trainRun("train", "--data", filepath.Join(data, "missing"), "--dim", "2", "--out", out); code != 1 || stderr == "" {
		t.Errorf("missing data folder: exit %d, %q", code, stderr)
	}
	// A feature pipeline for sets that are feature files would not be used.
	if code, _, stderr := trainRun("train", "--data", data, "--dim", "2", "--out", out, "--features", "intensity:4x4"); code != 1 || !strings.Contains(stderr, "feature files") || !strings.Contains(stderr, "leave --features out") {
		t.Errorf("--features on feature files: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed run wrote the model")
	}
}

// TestTrainAuto: the default method chooses by cross-validation, prints
// every candidate's accuracy, the choice and progress, and writes a model
// that recognises its own training sets; a given --dim fixes the d of the
// -dr candidates. (Three training sets per class: the -dr method is one
// candidate, cross-validated inside every fold.)
func TestTrainAuto(t *testing.T) {
	data := trainData(t)
	out := filepath.Join(t.TempDir(), "m.model")
	code, _, stderr := trainRun("train", "--data", data, "--out", out, "--dim", "2", "--threshold", "auto")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"cross-validation: 3 stratified folds", "12 training sets held out on each dealing (24 outcomes per candidate", "nn-h ", "kfda-hl", "kfda-mix", "nn-h-dr ",
		"chose ", "deployed ", "cross-validation 1/", "left", "accepts 95% of known sets, bound from ", "wrote " + out} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "d=5 ") || strings.Contains(stderr, "d=10 ") {
		t.Errorf("--dim 2 did not fix d:\n%s", stderr)
	}
	m, _, err := model.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	ds, res := matchOwnSets(t, m, data)
	for k, s := range ds.Sets {
		if r := res[k]; r.Decision.Label != s.Class {
			t.Errorf("training set %d (%s): matched %s", k, s.Class, r.Decision.Label)
		}
	}
}

// TestTrainPooled: with one set per class (the pooled layout), auto
// cross-validates on the frame halves of each set and says so; learning W
// alone is refused with a clear error.
func TestTrainPooled(t *testing.T) {
	src := imageData(t, 8, 8)
	dir := filepath.Join(t.TempDir(), "pooled")
	for c := range 2 {
		class := filepath.Join(dir, fmt.Sprintf("class%d", c))
		if err := os.MkdirAll(class, 0o755); err != nil {
			t.Fatal(err)
		}
		for s := range 2 {
			set := filepath.Join(src, fmt.Sprintf("class%d", c), fmt.Sprintf("set%d", s))
			fs, _ := os.ReadDir(set)
			for _, f := range fs {
				if err := os.Rename(filepath.Join(set, f.Name()), filepath.Join(class, fmt.Sprintf("s%d-%s", s, f.Name()))); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	out := filepath.Join(t.TempDir(), "m.smm")
	code, _, stderr := trainRun("train", "--data", dir, "--features", "intensity:4x4", "--out", out)
	if code != 0 || !strings.Contains(stderr, "2 folds by frame halves") {
		t.Errorf("pooled auto: exit %d\n%s", code, stderr)
	}
	code, _, stderr = trainRun("train", "--method", "learned", "--dim", "2", "--data", dir, "--features", "intensity:4x4", "--out", out)
	if code != 1 || !strings.Contains(stderr, "pooled layout") {
		t.Errorf("pooled learned: exit %d\n%s", code, stderr)
	}
}

// TestTrainSetKernels: train deploys gda and cdl as models on their set
// kernels, and kfda-mix on a sum of kernels; inspect names the kernel and
// its parameter; the model recognises its own training sets.
func TestTrainSetKernels(t *testing.T) {
	data := trainData(t)
	for _, c := range []struct{ method, kernel, desc string }{
		{"gda", "gda", "kernel gda (projection kernel of"},
		{"cdl", "cdl", "kernel cdl (log-Euclidean kernel of set covariances + λI, λ ="},
		{"kfda-mix", "", "kernel "}, // one kernel or a sum, as cross-validation chose
	} {
		out := filepath.Join(t.TempDir(), c.method+".smm")
		code, _, stderr := trainRun("train", "--method", c.method, "--data", data, "--out", out, "--threshold", "auto")
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", c.method, code, stderr)
		}
		m, _, err := model.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if m.MethodName() != c.method || m.Discriminant == nil || (c.kernel != "" && m.Discriminant.Kernel != c.kernel) || math.IsInf(m.Threshold, 1) {
			t.Errorf("%s: model decides by %s (kfda %+v), threshold %v", c.method, m.MethodName(), m.Discriminant, m.Threshold)
		}
		code, is, es := trainRun("inspect", out)
		if code != 0 {
			t.Fatalf("inspect: exit %d: %s", code, es)
		}
		unused := !m.Discriminant.UsesDivergences()
		marks := 0 // the divergence, the query bandwidth and the gallery bandwidths
		if unused {
			marks = 3
		}
		if strings.Contains(is, "%!") {
			t.Errorf("%s: inspect prints a formatting error:\n%s", c.method, is)
		}
		if unused && !strings.Contains(is, "(not used: the "+m.Discriminant.Kernel+" kernel compares the frames") {
			t.Errorf("%s: inspect does not name the %s kernel that leaves the divergence unused:\n%s", c.method, m.Discriminant.Kernel, is)
		}
		if s := is; !strings.Contains(s, c.desc) || strings.Count(s, "(not used") != marks {
			t.Errorf("%s: inspect lacks %q, or does not mark the divergence, query bandwidth and gallery bandwidths unused (%v):\n%s", c.method, c.desc, unused, s)
		}
		ds, res := matchOwnSets(t, m, data)
		right := 0
		for k, s := range ds.Sets {
			if res[k].Decision.Label == s.Class {
				right++
			}
		}
		if right < len(ds.Sets)*3/4 {
			t.Errorf("%s: %d of %d training sets recognised", c.method, right, len(ds.Sets))
		}
	}
}

// TestTrainThresholdAccept: --threshold auto:P calibrates for P percent of
// known sets (a lower P gives a lower threshold), auto:balanced balances
// known sets against stand-in strangers and says so, and bad P are
// refused.
func TestTrainThresholdAccept(t *testing.T) {
	data := trainData(t)
	thr := map[string]float64{}
	for _, spec := range []string{"auto", "auto:50", "auto:balanced", "auto:far=0"} {
		out := filepath.Join(t.TempDir(), "m.smm")
		code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--out", out, "--threshold", spec)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", spec, code, stderr)
		}
		want := "accepts 95% of known sets"
		switch spec {
		case "auto:50":
			want = "accepts 50% of known sets"
		case "auto:balanced":
			want = "(auto:balanced): calibrated on stand-in strangers, balanced"
		case "auto:far=0":
			want = "(auto:far=0): calibrated on stand-in strangers, at most 0% of them let in"
		}
		if !strings.Contains(stderr, want) {
			t.Errorf("%s: stderr lacks %q:\n%s", spec, want, stderr)
		}
		m, _, err := model.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		thr[spec] = m.Threshold
	}
	if !(thr["auto:50"] < thr["auto"]) {
		t.Errorf("thresholds for 50%% and 95%%: %v", thr)
	}
	if !(thr["auto:balanced"] > 0) || math.IsInf(thr["auto:balanced"], 0) {
		t.Errorf("balanced threshold %v", thr["auto:balanced"])
	}
	for _, bad := range []string{"auto:0", "auto:100", "auto:x", "auto:", "auto:Balanced"} {
		if code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--out", filepath.Join(t.TempDir(), "b.smm"), "--threshold", bad); code != 2 || !strings.Contains(stderr, "auto:P") {
			t.Errorf("%s: exit %d\n%s", bad, code, stderr)
		}
	}
}

// TestTrainNamesBadSets checks that a set train cannot use is named by
// its file, not by its position: a set of one frame, and with --method
// learned sets whose frames are all the same (no nn bandwidth) where every
// set is such a set; one such set among others takes their median
// bandwidth and trains.
func TestTrainNamesBadSets(t *testing.T) {
	d, err := synth.Generate(synth.Options{Kind: synth.Subspace, Classes: 2, Sets: 3, Frames: 6, Dim: 4, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	freeze := func(i int) {
		same := d.Sets[i].Frames
		for r := 1; r < 6; r++ {
			same.SetRow(r, same.RawRowView(0))
		}
	}
	freeze(4)
	dir := filepath.Join(t.TempDir(), "data")
	if err := dataset.Write(dir, d); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "m.smm")
	learned := []string{"train", "--data", dir, "--method", "learned", "--dim", "2", "--max-iter", "2", "--out", out}
	if code, _, stderr := trainRun(learned...); code != 0 {
		t.Errorf("one set of identical frames: exit %d, want 0:\n%s", code, stderr)
	}
	for i := range d.Sets {
		freeze(i)
	}
	frozen := filepath.Join(t.TempDir(), "frozen")
	if err := dataset.Write(frozen, d); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := trainRun("train", "--data", frozen, "--method", "learned", "--dim", "2", "--max-iter", "2", "--out", out)
	if want := "set " + d.Sets[0].Class + "/" + d.Sets[0].Name + ": bandwidth"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("every set of identical frames: exit %d, want 1 with %q:\n%s", code, want, stderr)
	}
	one := filepath.Join(dir, d.Sets[1].Class, "one.csv")
	if err := os.WriteFile(one, []byte("1,2,3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := trainRun("train", "--data", dir, "--out", out); code != 1 || !strings.Contains(stderr, one+" has 1 frame") {
		t.Errorf("a set of one frame: exit %d, want 1 naming %s:\n%s", code, one, stderr)
	}
}

// matchOwnSets loads the data set in folder data and decides every set
// with model m, in order.
func matchOwnSets(t *testing.T, m *model.Model, data string) (*dataset.Dataset, []model.Result) {
	t.Helper()
	mt, err := m.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Load(data, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := make([]model.Result, len(ds.Sets))
	for k, s := range ds.Sets {
		if res[k], err = mt.Match(s.Frames); err != nil {
			t.Fatal(err)
		}
	}
	return ds, res
}

// TestTrainStrangers: --strangers reads sets of classes the training data
// do not have and calibrates the threshold on them too (the threshold
// line and inspect say so); it refuses a class of the training data, sets
// of other features, and a threshold it cannot calibrate.
func TestTrainStrangers(t *testing.T) {
	data := trainData(t)
	dir := t.TempDir()
	strangers := strangersData(t, data, 6)
	out := filepath.Join(dir, "m.model")
	code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--strangers", strangers, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "4 strangers' sets from") || !strings.Contains(stderr, "the strangers include 4 sets of classes the model does not have (--strangers)") || strings.Contains(stderr, "note: the threshold saw only") {
		t.Errorf("train does not say it calibrated on the 4 strangers' sets, or still suggests giving some:\n%s", stderr)
	}
	// Without them, four classes give 12 stand-ins' sets: train suggests
	// giving strangers' sets.
	if code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--out", filepath.Join(dir, "alone.model")); code != 0 || !strings.Contains(stderr, "note: the threshold saw only 12 stand-in strangers' sets") {
		t.Errorf("exit %d; train does not suggest --strangers to four classes:\n%s", code, stderr)
	}
	m, _, err := model.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Meta.Params["strangers"] != strangers || !strings.Contains(m.Selection.Params["threshold"], "--strangers") {
		t.Errorf("the model records strangers %q and threshold %q", m.Meta.Params["strangers"], m.Selection.Params["threshold"])
	}

	wide := filepath.Join(dir, "wide")
	w, err := synth.Generate(synth.Options{Kind: synth.Subspace, Classes: 2, Sets: 2, Frames: 20, Dim: 9, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	for i := range w.Sets {
		w.Sets[i].Class = "x" + w.Sets[i].Class
	}
	if err := dataset.Write(wide, w); err != nil {
		t.Fatal(err)
	}
	// A stranger's set of one frame, beside sets that are fine.
	oneFrame := filepath.Join(dir, "one-frame")
	if err := os.CopyFS(oneFrame, os.DirFS(strangers)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(oneFrame, "x9"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSet(t, filepath.Join(oneFrame, "x9"), "s0.npy", mat.NewDense(1, 8, []float64{1, 2, 3, 4, 5, 6, 7, 8}))
	copied := copiedSet(t, data, "x9")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--strangers", data}, 1, "also a class of the training data"},
		{[]string{"--strangers", wide}, 1, "9 features per frame, the training data " + data + " has 8"},
		{[]string{"--strangers", filepath.Join(dir, "missing")}, 1, "--strangers"},
		{[]string{"--strangers", strangers, "--threshold", "none"}, 2, "auto:balanced"},
		{[]string{"--strangers", strangers, "--threshold", "auto"}, 2, "auto:balanced"},
		{[]string{"--strangers", oneFrame}, 1, "has 1 frame: a set's density needs two or more"},
		{[]string{"--strangers", copied}, 1, "hold the same frames (in this or another order): strangers' sets are of people or objects the model must not know; give each burst once"},
		{[]string{"--strangers", strangers, "--method", "learned", "--dim", "2"}, 2, "--strangers needs the stand-in calibration, which --method learned does not run"},
	} {
		bad := filepath.Join(dir, "bad.model")
		code, _, stderr := trainRun(append([]string{"train", "--method", "nn-h", "--data", data, "--out", bad}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, want %d with %q\n%s", tc.args, code, tc.code, tc.want, stderr)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Errorf("%q: a failed run wrote the model", tc.args)
		}
	}
}

func trainSets(t *testing.T, dir string) *dataset.Dataset {
	t.Helper()
	ds, err := dataset.Load(dir, dataset.Options{Limits: setfile.DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// copiedSet writes, in a new folder it returns, the class class holding
// a copy of the first set of data (a burst of a known class given again
// under another name) beside one set of other frames.
func copiedSet(t *testing.T, data, class string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "copied")
	x := trainSets(t, data).Sets[0].Frames
	writeSet(t, filepath.Join(dir, class), "a.npy", x)
	var y mat.Dense
	y.Scale(2, x)
	writeSet(t, filepath.Join(dir, class), "b.npy", &y)
	return dir
}

// strangersData writes the sets of a data set like trainData's, of
// classes data does not have (classes−4 classes × 2 sets), and returns
// its folder.
func strangersData(t *testing.T, data string, classes int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "strangers")
	d, err := synth.Generate(synth.Options{Kind: synth.Subspace, Classes: classes, Sets: 2, Frames: 20, Dim: 8, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, s := range trainSets(t, data).Sets {
		known[s.Class] = true
	}
	keep := &dataset.Dataset{}
	for _, s := range d.Sets {
		if !known[s.Class] {
			keep.Sets = append(keep.Sets, s)
		}
	}
	if err := dataset.Write(dir, keep); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTrainOutCheckedFirst: an --out that cannot be written is refused
// before any training, with what to do: a folder, a missing folder, a
// named pipe (which the model's rename would replace with a file), a
// --report path that cannot be a folder; and a link that leads to no
// file yet is written through, the link kept.
func TestTrainOutCheckedFirst(t *testing.T) {
	data := trainData(t)
	dir := t.TempDir()
	fifo := testutil.FIFO(t, dir, "fifo.smm")
	file := filepath.Join(dir, "plots.txt")
	if err := os.WriteFile(file, []byte("a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--out", dir}, "is a folder: give the model file's name", 2},
		{[]string{"--out", filepath.Join(dir, "nope", "m.smm")}, "does not exist: create it first", 1},
		{[]string{"--out", fifo}, "--out " + fifo + " is a named pipe, not a file: a model file is written whole and renamed into place, which would replace it", 2},
		{[]string{"--out", filepath.Join(dir, "m.smm"), "--report", file}, "--report " + file + " is a file, not a folder: give a folder for the plots (made if missing)", 2},
		{[]string{"--out", filepath.Join(dir, "m.smm"), "--report", filepath.Join(file, "plots")}, "--report " + filepath.Join(file, "plots") + ": mkdir " + file + ": not a directory: give a folder for the plots", 1},
	} {
		code, _, stderr := trainRun(append([]string{"train", "--data", data}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "cross-validation") {
			t.Errorf("%v: exit %d, want %d and %q before any training:\n%s", c.args, code, c.code, c.want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "m.smm")); err == nil {
		t.Error("a model was written where --report was refused")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe at --out: %v, %v", fi, err)
	}
	link := filepath.Join(dir, "current.smm")
	if err := os.Symlink("release.smm", link); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := trainRun("train", "--data", data, "--method", "nn-h", "--out", link); code != 0 {
		t.Fatalf("--out a link to no file yet: exit %d\n%s", code, stderr)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link at --out is no longer a link: %v, %v", fi, err)
	}
	if _, _, err := model.ReadFile(filepath.Join(dir, "release.smm")); err != nil {
		t.Errorf("the model where the link leads: %v", err)
	}
}

// TestTrainDimOnlyWhereUsed: --dim is refused with a method that learns
// no W, where it would do nothing, and taken where it does; --strangers
// and --others given empty are refused.
func TestTrainDimOnlyWhereUsed(t *testing.T) {
	data := trainData(t)
	out := filepath.Join(t.TempDir(), "m.smm")
	for _, m := range []string{"nn-h", "kfda-hg", "nn-h-lda"} {
		if code, _, stderr := trainRun("train", "--data", data, "--out", out, "--method", m, "--dim", "2"); code != 2 || !strings.Contains(stderr, "--dim fixes d of a learned W (--method learned, nn-h-dr, nn-j-dr, and auto's -dr candidates); with --method "+m+" it would do nothing") {
			t.Errorf("--method %s --dim 2: exit %d\n%s", m, code, stderr)
		}
	}
	if code, _, stderr := trainRun("train", "--data", data, "--out", out, "--method", "nn-h-dr", "--dim", "2"); code != 0 {
		t.Errorf("--method nn-h-dr --dim 2: exit %d\n%s", code, stderr)
	}
	// An unset variable's empty folder is not the flag left out.
	for _, f := range []string{"--strangers", "--others"} {
		if code, _, stderr := trainRun("train", "--data", data, "--out", out, "--method", "nn-h", f, ""); code != 2 || !strings.Contains(stderr, f+" is empty: give a value, or leave the flag out") {
			t.Errorf("%s \"\": exit %d\n%s", f, code, stderr)
		}
	}
}

// TestTrainSetNameFirst: a set whose name no model can hold (its file's
// name is not valid UTF-8) is refused, with the file and what to do,
// before any training, where the model's own check failed after it.
func TestTrainSetNameFirst(t *testing.T) {
	data := trainData(t)
	classes, err := os.ReadDir(data)
	if err != nil {
		t.Fatal(err)
	}
	class := filepath.Join(data, classes[0].Name())
	sets, err := os.ReadDir(class)
	if err != nil || len(sets) == 0 {
		t.Fatal(err, sets)
	}
	bad := filepath.Join(class, "s\xfe"+filepath.Ext(sets[0].Name()))
	if err := os.Rename(filepath.Join(class, sets[0].Name()), bad); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := trainRun("train", "--data", data, "--out", filepath.Join(t.TempDir(), "m.smm"))
	if code != 1 || !strings.Contains(stderr, "is not valid UTF-8, which a model's set names must be: rename the file or folder") || strings.Contains(stderr, "cross-validation") {
		t.Errorf("exit %d, want 1 and the set's name refused before any training:\n%s", code, stderr)
	}
}

// TestTrainPathsNotUTF8: the model records the data folder and the
// flags as text (a byte that is not UTF-8 as U+FFFD, as the JSON outputs
// write a name), so that a folder or file whose name is not valid UTF-8
// trains, where the model's own check refused it after the training.
func TestTrainPathsNotUTF8(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d\xff\xfe") // two bad bytes, each its own U+FFFD
	if err := os.Rename(trainData(t), data); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "m\xfe.smm")
	code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	m, _, err := model.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "d\uFFFD\uFFFD"); m.Meta.Data != want || m.Meta.Params["data"] != want {
		t.Errorf("data recorded as %q (params %q), want %q", m.Meta.Data, m.Meta.Params["data"], want)
	}
}

// TestTrainLearnedFlagsNeedLearned: a flag of --method learned alone
// (-h marks them "learned:") given with another method is a usage error
// that names it, rather than a setting that does nothing; the model is not
// written.
func TestTrainLearnedFlagsNeedLearned(t *testing.T) {
	data := trainData(t)
	out := filepath.Join(t.TempDir(), "m.model")
	given := [][]string{{"--max-iter", "5"}, {"--divergence", "jeffrey"}, {"--bandwidth", "scott"}, {"--nu-w", "1"}, {"--nu-b", "1"},
		{"--grad-tol", "1e-3"}, {"--cost-tol", "1e-3"}, {"--min-step", "1e-3"}, {"--rounds", "2"}, {"--log-json"}}
	tried := map[string]bool{}
	for _, f := range given {
		tried[strings.TrimPrefix(f[0], "--")] = true
		for _, m := range []string{"auto", "nn-h"} {
			args := append([]string{"train", "--data", data, "--out", out, "--method", m, "--threshold", "none"}, f...)
			code, _, stderr := trainRun(args...)
			if code != 2 || !strings.Contains(stderr, f[0]) || !strings.Contains(stderr, "--method learned") {
				t.Errorf("%q: exit %d, want 2 and that %s needs --method learned\n%s", args, code, f[0], stderr)
			}
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run wrote the model")
	}
	fl, _ := trainFlags(new(bytes.Buffer))
	fl.VisitAll(func(f *flag.Flag) {
		if learnedOnly(f) != tried[f.Name] {
			t.Errorf("--%s: -h marks it learned: %v, the test refuses it with another method: %v", f.Name, learnedOnly(f), tried[f.Name])
		}
	})
}

// TestTrainOthers: --others takes part in training and leaves the
// gallery, as the model and train's words say; a class of the training
// data or of --strangers among them, and --method learned, are refused.
func TestTrainOthers(t *testing.T) {
	data := trainData(t)
	dir := t.TempDir()
	others := strangersData(t, data, 8) // c04 … c07, 2 sets each
	out := filepath.Join(dir, "m.model")
	code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--others", others, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"train: 8 others' sets of 4 classes from", "train: removed the 8 sets of the 4 --others classes from the gallery", "the gallery holds 12 sets of 4 classes", "train: threshold by auto:balanced"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("train does not say %q:\n%s", want, stderr)
		}
	}
	// A kFDA model's threshold is set again without the others, and
	// moves (nn-h's, above, is kept and cannot).
	kout := filepath.Join(dir, "k.model")
	code, _, kstderr := trainRun("train", "--method", "kfda-hg", "--data", data, "--others", others, "--out", kout)
	if code != 0 {
		t.Fatalf("kfda-hg: exit %d\n%s", code, kstderr)
	}
	for _, e := range []string{stderr, kstderr} {
		if strings.Contains(e, "the door is") || regexp.MustCompile(`(?m)^train: threshold [0-9.e+-]+ → `).MatchString(e) {
			t.Errorf("train says how far a threshold moved that no door had:\n%s", e)
		}
	}
	m, _, err := model.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Classes(); !slices.Equal(got, []string{"c00", "c01", "c02", "c03"}) {
		t.Errorf("the model holds the classes %v, want the training data's", got)
	}
	if m.Selection.Params["others"] != "4" || m.Meta.Params["others"] != others || !strings.Contains(m.Selection.Params["threshold"], "train's calibration on every class, the --others' too, kept") || strings.Contains(m.Selection.Params["threshold"], "set again") || len(m.Meta.History) != 0 {
		t.Errorf("the model records others %q (%q), threshold %q, history %v", m.Selection.Params["others"], m.Meta.Params["others"], m.Selection.Params["threshold"], m.Meta.History)
	}

	// The frame cap counts the others' sets: 20 sets of 20 frames.
	if code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--others", others, "--max-frames", "10", "--out", filepath.Join(dir, "capped.model")); code != 0 || !strings.Contains(stderr, "(200 of 400 frames kept)") || !strings.Contains(stderr, "from "+others+", 80 frames:") {
		t.Errorf("exit %d; --max-frames with --others:\n%s", code, stderr)
	}
	if code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--others", data, "--out", filepath.Join(dir, "same.model")); code == 0 || !strings.Contains(stderr, `--others: class "c00" of`) || !strings.Contains(stderr, "is also a class of the training data") {
		t.Errorf("exit %d; the training data as --others:\n%s", code, stderr)
	}
	if code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--others", others, "--strangers", others, "--out", filepath.Join(dir, "both.model")); code == 0 || !strings.Contains(stderr, "or of --others") {
		t.Errorf("exit %d; the same sets as --others and --strangers:\n%s", code, stderr)
	}
	if code, _, stderr := trainRun("train", "--method", "learned", "--dim", "2", "--data", data, "--others", others, "--out", filepath.Join(dir, "l.model")); code != 2 || !strings.Contains(stderr, "--others takes part in the choice") {
		t.Errorf("exit %d; --method learned with --others:\n%s", code, stderr)
	}
	// Few others: train asks for more of them, not for --others.
	few := strangersData(t, data, 6) // c04, c05
	if code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--others", few, "--out", filepath.Join(dir, "few.model")); code != 0 || !strings.Contains(stderr, "note: the threshold saw only 16 stand-in strangers' sets (few classes), those of the 2 --others classes among them: give more others") {
		t.Errorf("exit %d; two others:\n%s", code, stderr)
	}
	// A class whose name is a decision.
	unknown := filepath.Join(dir, "unknown-others")
	writeSet(t, filepath.Join(unknown, "unknown"), "a.npy", mat.NewDense(3, 8, []float64{1, 2, 3, 4, 5, 6, 7, 8, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 0, 1, 0, 1, 0, 1}))
	if code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--others", unknown, "--out", filepath.Join(dir, "unknown.model")); code != 1 || !strings.Contains(stderr, "--others: class unknown of "+unknown+`: the label "unknown" is reserved`) {
		t.Errorf("exit %d; an others' class named unknown:\n%s", code, stderr)
	}
	// A training set given again as an other's, and one other's set
	// under two classes.
	copied := copiedSet(t, data, "x9")
	twice := filepath.Join(dir, "twice")
	var z mat.Dense
	z.Scale(3, trainSets(t, data).Sets[0].Frames)
	writeSet(t, filepath.Join(twice, "x8"), "b.npy", &z)
	writeSet(t, filepath.Join(twice, "x9"), "b.npy", &z)
	for _, c := range []struct{ dir, first, second string }{
		{copied, filepath.Join(data, "c00"), filepath.Join(copied, "x9", "a.npy")},
		{twice, filepath.Join(twice, "x8", "b.npy"), filepath.Join(twice, "x9", "b.npy")},
	} {
		code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--others", c.dir, "--out", filepath.Join(dir, "copied.model"))
		if code != 1 || !strings.Contains(stderr, "hold the same frames (in this or another order): others' sets are of people or objects the model does not enrol; give each burst once") || !strings.Contains(stderr, c.first) || !strings.Contains(stderr, c.second) {
			t.Errorf("exit %d; a burst given twice, %s and %s:\n%s", code, c.first, c.second, stderr)
		}
	}
}

// TestTrainBesideImages: where the training sets are images, read
// through the features this run fits, the sets of --others and
// --strangers must be images too: a feature file is refused.
func TestTrainBesideImages(t *testing.T) {
	data := imageData(t, 8, 8)
	dir := filepath.Join(t.TempDir(), "features")
	writeSet(t, filepath.Join(dir, "x0"), "s0.npy", mat.NewDense(2, 16, nil))
	for _, flag := range []string{"--others", "--strangers"} {
		out := filepath.Join(t.TempDir(), "m.smm")
		code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--features", "intensity:4x4", flag, dir, "--out", out)
		if code != 1 || !strings.Contains(stderr, flag+": "+filepath.Join(dir, "x0", "s0.npy")+" is a feature file: the training sets of "+data+" are images, read through --features intensity:4x4") {
			t.Errorf("%s: exit %d\n%s", flag, code, stderr)
		}
	}
}
