package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/eval"
	"setmatch/internal/testutil"
	"setmatch/openeval"
	"setmatch/setfile"
	"setmatch/synth"
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

// TestEvalSplitsOut checks that --splits-out writes the splits eval
// measures: evaluating from the file gives the same accuracy in every
// split.
func TestEvalSplitsOut(t *testing.T) {
	dir := evalData(t, 4, 4)
	out := filepath.Join(t.TempDir(), "splits.txt")
	accuracies := func(args ...string) []float64 {
		t.Helper()
		code, stdout, stderr := evalDispatch(append([]string{"eval", "--data", dir, "--methods", "nn-h", "--json", "--quiet"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var got struct {
			Methods map[string]struct{ Accuracies []float64 }
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, stdout)
		}
		return got.Methods["nn-h"].Accuracies
	}
	want := accuracies("--protocol", "gallery=1,probe=2,splits=3", "--splits-out", out)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(raw), "\n"); lines != 3*4*3 {
		t.Errorf("%d lines, want one per set of each split (36):\n%s", lines, raw)
	}
	if got := accuracies("--protocol", "file="+out); len(want) != 3 || !slices.Equal(got, want) {
		t.Errorf("from the file: accuracies %v, want those of the splits written %v", got, want)
	}

	// A symbolic link and a pipe are written through, not replaced.
	other := t.TempDir()
	link := filepath.Join(other, "link.txt")
	if err := os.Symlink(out+".target", link); err != nil {
		t.Fatal(err)
	}
	accuracies("--protocol", "gallery=1,probe=2,splits=3", "--splits-out", link)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--splits-out a link: the link replaced (%v)", err)
	}
	if through, err := os.ReadFile(out + ".target"); err != nil || string(through) != string(raw) {
		t.Errorf("--splits-out a link: its target %q (%v), want the splits", through, err)
	}
	// A link to a file there already: the file is replaced where the
	// link leads, and the link stays.
	old := filepath.Join(other, "old.txt")
	if err := os.WriteFile(old, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	toOld := filepath.Join(other, "to-old.txt")
	if err := os.Symlink(old, toOld); err != nil {
		t.Fatal(err)
	}
	accuracies("--protocol", "gallery=1,probe=2,splits=3", "--splits-out", toOld)
	if fi, err := os.Lstat(toOld); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--splits-out a link to a file: the link replaced (%v)", err)
	}
	if through, err := os.ReadFile(old); err != nil || string(through) != string(raw) {
		t.Errorf("--splits-out a link to a file: the file holds %q (%v), want the splits", through, err)
	}
	fifo := testutil.FIFO(t, other, "splits.fifo")
	read := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // blocks until eval opens it
		read <- b
	}()
	accuracies("--protocol", "gallery=1,probe=2,splits=3", "--splits-out", fifo)
	select {
	case b := <-read:
		if string(b) != string(raw) {
			t.Errorf("--splits-out a pipe: read %q, want the splits", b)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("--splits-out a pipe: nothing read in 60 s")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("--splits-out a pipe: the pipe replaced (%v)", err)
	}
}

// openPerSplit runs eval of nn-h on dir with args as an open set and
// returns the rows of its splits from the JSON, failing t where eval
// fails or measures a closed set.
func openPerSplit(t *testing.T, dir string, args ...string) []openeval.Row {
	t.Helper()
	code, stdout, stderr := run(append([]string{"eval", "--data", dir, "--methods", "nn-h", "--json", "--quiet"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	var got struct {
		OpenSet bool `json:"open_set"`
		Methods map[string]openeval.MethodResult
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if !got.OpenSet {
		t.Fatalf("%v: not measured as an open set", args)
	}
	return got.Methods["nn-h"].PerSplit
}

// TestEvalSplitsOutGiven: the split file of a protocol with visitors and
// others holds their sets (roles visitor and other), and read back with
// --protocol file= it measures the same open set: the same classes at
// the door, given to training as visitors and as others, the same
// threshold and rates in every split, and the table says how many of
// each it gave.
func TestEvalSplitsOutGiven(t *testing.T) {
	dir := evalData(t, 6, 4) // 3 known, a visitor, an other and a stranger at the door
	out := filepath.Join(t.TempDir(), "splits.txt")
	want := openPerSplit(t, dir, "--protocol", "gallery=2,probe=2,splits=2,strangers=3,visitors=1,others=1", "--splits-out", out)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), " visitor class") || !strings.Contains(string(raw), " other class") {
		t.Errorf("no visitor or other lines in the split file:\n%s", raw)
	}
	got := openPerSplit(t, dir, "--protocol", "file="+out)
	if len(got) != len(want) || len(want) != 2 {
		t.Fatalf("%d splits from the file, %d written", len(got), len(want))
	}
	for k := range want {
		g, w := got[k], want[k]
		if len(w.VisitorClasses) != 1 || len(w.OtherClasses) != 1 || !slices.Equal(g.StrangerClasses, w.StrangerClasses) ||
			!slices.Equal(g.VisitorClasses, w.VisitorClasses) || !slices.Equal(g.OtherClasses, w.OtherClasses) ||
			*g.Threshold != *w.Threshold || g.KnownRightAtThreshold != w.KnownRightAtThreshold || g.StrangersOutAtThreshold != w.StrangersOutAtThreshold || g.BestBalanced != w.BestBalanced {
			t.Errorf("split %d from the file %+v, written %+v", k, g, w)
		}
	}
	code, stdout, stderr := run("eval", "--data", dir, "--methods", "nn-h", "--quiet", "--protocol", "file="+out)
	if code != 0 || !strings.Contains(stdout, "1 of them visitors") || !strings.Contains(stdout, "1 of them others") {
		t.Errorf("the table from the file: exit %d, %s\n%s", code, stderr, stdout)
	}
	// A rule that cannot take strangers' sets: the error names the
	// file's visitor lines, which the user gave, not visitors=V.
	if code, _, stderr := run("eval", "--data", dir, "--methods", "nn-h", "--quiet", "--protocol", "file="+out, "--threshold", "auto"); code != 2 || !strings.Contains(stderr, "the visitor sets of the split file "+out+" go to training as strangers' sets") || strings.Contains(stderr, "visitors=") {
		t.Errorf("--threshold auto with a split file's visitors: exit %d, %s", code, stderr)
	}
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

// TestEvalSpectrum runs --spectrum on a split's gallery (a part of the
// sets): one line per kernel and width, under the gallery's size.
func TestEvalSpectrum(t *testing.T) {
	dir := evalData(t, 2, 4)
	code, stdout, stderr := evalDispatch("eval", "--data", dir, "--protocol", "gallery=2,probe=2,splits=1", "--spectrum", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "4 gallery sets, bandwidth global*1\n") {
		t.Errorf("spectrum:\n%s", stdout)
	}
	for _, k := range []string{"hg", "hl", "j"} {
		if n := strings.Count(stdout, "\n"+k+" "); n == 0 {
			t.Errorf("no line of kernel %s:\n%s", k, stdout)
		}
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
		{"eval", "--data", dir, "--dr-start", "lda"},
		{"eval", "--data", dir, "--dr-fold-iter", "0"},
		{"eval", "--data", dir, "--protocol", "loo,strangers=1"},
		{"eval", "--data", dir, "--protocol", "gallery=1,probe=1,strangers=x"},
		{"eval", "--data", dir, "--protocol", "gallery=1,probe=1,strangers=1,visitors=1"},
		{"eval", "--data", dir, "--protocol", "gallery=1,probe=1,strangers=2,visitors=1", "--threshold", "none"},
		{"eval", "--data", dir, "--spectrum", "--json"},
	} {
		if code, _, stderr := evalDispatch(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	// Not enough sets per class for the protocol: a plain error, with a
	// protocol that fits.
	if code, _, stderr := evalDispatch("eval", "--data", dir, "--protocol", "gallery=5,probe=5", "--quiet"); code != 1 || !strings.Contains(stderr, "needs 10: the smallest class has 3 sets; give --protocol gallery=2,probe=1,splits=10, for example") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	// A set of one frame, named, as train names it.
	one := filepath.Join(dir, "class1", "s9.csv")
	if err := os.WriteFile(one, []byte("1,2,3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := evalDispatch("eval", "--data", dir, "--protocol", "gallery=2,probe=1,splits=1", "--methods", "nn-h", "--quiet"); code != 1 || !strings.Contains(stderr, "set "+one+" has 1 frame: a set's density needs at least 2 frames") {
		t.Errorf("a set of one frame: exit %d: %s", code, stderr)
	}
	os.Remove(one)
	// Two classes leave no room for a stranger.
	if code, _, stderr := evalDispatch("eval", "--data", dir, "--protocol", "gallery=1,probe=1,strangers=1", "--quiet"); code != 1 || !strings.Contains(stderr, "at least 2 known classes") {
		t.Errorf("strangers=1 of 2 classes: exit %d: %s", code, stderr)
	}
	// Feature files take no --features: said, not ignored.
	if code, _, stderr := evalDispatch("eval", "--data", dir, "--features", "intensity:4x4", "--protocol", "gallery=1,probe=1", "--quiet"); code != 1 || !strings.Contains(stderr, "leave --features out") {
		t.Errorf("--features on feature files: exit %d: %s", code, stderr)
	}
}

// TestEvalDRCrossValidation runs nn-h-dr with learn.Train on a tiny data
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
	if !ok || !strings.Contains(ps[0], "drcv=") || strings.Contains(ps[0], "fisher") {
		t.Errorf("params %q: want d and rule from the grid, chosen by cross-validation", ps[0])
	}

	// --dr-start fisher: every candidate learns from the Fisher start.
	code, stdout, stderr = evalDispatch("eval", "--data", dir, "--protocol", "gallery=3,probe=2,splits=1",
		"--methods", "nn-h-dr", "--dr-dim", "2", "--dr-bandwidth", "global*1", "--dr-start", "fisher",
		"--dr-fold-iter", "3", "--dr-iter", "5", "--json", "--quiet")
	if code != 0 {
		t.Fatalf("--dr-start fisher: exit %d: %s", code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if ps := got.Methods["nn-h-dr"].Params; len(ps) != 1 || !strings.Contains(ps[0], "from=fisher") {
		t.Errorf("--dr-start fisher: params %q, want the Fisher start named", ps)
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

// TestEvalOpenSet runs eval with strangers on well separated synthetic
// sets and checks its figures for the first split against a direct run:
// setmatch train on the split's gallery sets, setmatch test on its
// probes; and the same on classes close together, where the rates are
// neither 0 nor 1.
func TestEvalOpenSet(t *testing.T) {
	r := checkOpenEval(t, 3)
	if r.BestBalanced.Mean < 0.9 {
		t.Errorf("best balanced accuracy %v on well separated classes", r.BestBalanced)
	}
	r = checkOpenEval(t, 0.3)
	if r.StrangersIn95.Mean == 0 || r.BestBalanced.Mean == 1 {
		t.Errorf("classes close together: strangers in %v, best balanced %v; want the test to see harder data", r.StrangersIn95, r.BestBalanced)
	}
}

// With --threshold none the models name every set: at their threshold
// the known sets are named as closed-set and no stranger is kept out.
func TestEvalOpenSetThresholdFlag(t *testing.T) {
	dir := evalData(t, 3, 4)
	code, stdout, stderr := run("eval", "--data", dir, "--protocol", "gallery=2,probe=2,splits=2,strangers=1", "--methods", "nn-h",
		"--threshold", "none", "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Threshold string `json:"threshold_rule"`
		Methods   map[string]openeval.MethodResult
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	r := got.Methods["nn-h"]
	if got.Threshold != "none" || len(r.PerSplit) != 2 || r.StrangersOutAtThreshold.Mean != 0 || r.KnownRightAtThreshold != r.KnownRightClosed {
		t.Errorf("threshold %q: %+v", got.Threshold, r)
	}
	for _, row := range r.PerSplit {
		if row.Threshold != nil {
			t.Errorf("split %d: threshold %v, want none (null)", row.Split, *row.Threshold)
		}
	}
	for _, args := range [][]string{
		{"eval", "--data", dir, "--protocol", "gallery=2,probe=2,splits=2", "--threshold", "none"},
		{"eval", "--data", dir, "--protocol", "gallery=2,probe=2,splits=2,strangers=1", "--threshold", "auto:x"},
	} {
		if code, _, stderr := run(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2\n%s", args, code, stderr)
		}
	}
}

// TestEvalSpreadExponentsFlag: --spread-exponents reaches every split's
// calibration and the record. With three sets of each known class in the
// gallery the folds see the classes' spread; exponent 1 alone makes every
// split's model follow it, 0 alone gives each split one threshold; the
// table says which were given. Without strangers, or with exponents out
// of order, eval stops with a usage error.
func TestEvalSpreadExponentsFlag(t *testing.T) {
	dir := openEvalData(t, 1)
	for _, e := range []string{"1", "0"} {
		args := []string{"eval", "--data", dir, "--protocol", "gallery=3,probe=1,splits=2,strangers=1", "--methods", "nn-h", "--spread-exponents", e, "--quiet"}
		code, stdout, stderr := run(append(args, "--json")...)
		if code != 0 {
			t.Fatalf("--spread-exponents %s: exit %d: %s", e, code, stderr)
		}
		var got struct {
			SpreadExponents []float64 `json:"spread_exponents"`
			Methods         map[string]openeval.MethodResult
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatal(err)
		}
		want, _ := strconv.ParseFloat(e, 64)
		if !slices.Equal(got.SpreadExponents, []float64{want}) {
			t.Errorf("--spread-exponents %s: recorded %v", e, got.SpreadExponents)
		}
		rows := got.Methods["nn-h"].PerSplit
		if len(rows) != 2 {
			t.Fatalf("--spread-exponents %s: %d splits", e, len(rows))
		}
		for _, row := range rows {
			if row.SpreadExponent != want {
				t.Errorf("--spread-exponents %s, split %d: exponent %v", e, row.Split, row.SpreadExponent)
			}
		}
		if code, stdout, stderr = run(args...); code != 0 || !strings.Contains(stdout, "--spread-exponents "+e+")") {
			t.Errorf("--spread-exponents %s: exit %d, the table does not say so:\n%s%s", e, code, stdout, stderr)
		}
	}
	for _, args := range [][]string{
		{"eval", "--data", dir, "--protocol", "gallery=2,probe=2,splits=2", "--spread-exponents", "0"},
		{"eval", "--data", dir, "--protocol", "gallery=2,probe=2,splits=2,strangers=1", "--spread-exponents", "1,0"},
	} {
		if code, _, stderr := run(args...); code != 2 || !strings.Contains(stderr, "--spread-exponents") {
			t.Errorf("%q: exit %d, want 2 naming the flag\n%s", args, code, stderr)
		}
	}
	both := []string{"eval", "--data", dir, "--protocol", "gallery=2,probe=2,splits=2", "--threshold", "auto", "--spread-exponents", "0"}
	if code, _, stderr := run(both...); code != 2 || !strings.Contains(stderr, "--threshold and --spread-exponents need a protocol with strangers") {
		t.Errorf("%q: exit %d, want 2 naming both flags\n%s", both, code, stderr)
	}
}

// checkOpenEval runs eval with strangers on synthetic classes of radius
// radius and checks it against a direct run on split 0.
func checkOpenEval(t *testing.T, radius float64) openeval.MethodResult {
	t.Helper()
	dir := openEvalData(t, radius)
	r := runOpenEvalJSON(t, dir)
	row := r.PerSplit[0]
	compareOpenEvalDirect(t, row, openEvalDirect(t, dir, row))
	checkOpenEvalTable(t, dir)
	return r
}

// openEvalProtocol is the protocol of checkOpenEval.
const openEvalProtocol = "gallery=2,probe=2,splits=2,strangers=1"

// openEvalData writes 4 synthetic classes of radius radius, 4 sets each,
// to a folder and returns it.
func openEvalData(t *testing.T, radius float64) string {
	t.Helper()
	ds, err := synth.Generate(synth.Options{Kind: synth.Subspace, Classes: 4, Sets: 4, Frames: 15, Dim: 4, InfoDim: 2,
		ClassRadius: radius, NoiseStd: 0.3, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := dataset.Write(dir, ds); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runOpenEvalJSON runs eval with strangers on dir with --json, checks the
// shape of its output and returns nn-h's result.
func runOpenEvalJSON(t *testing.T, dir string) openeval.MethodResult {
	t.Helper()
	const proto = openEvalProtocol
	code, stdout, stderr := run("eval", "--data", dir, "--protocol", proto, "--methods", "nn-h", "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		OpenSet  bool `json:"open_set"`
		Protocol string
		Order    []string
		Methods  map[string]openeval.MethodResult
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	r, ok := got.Methods["nn-h"]
	if !got.OpenSet || got.Protocol != proto || !ok || len(r.PerSplit) != 2 {
		t.Fatalf("open set %v, protocol %q, methods %+v", got.OpenSet, got.Protocol, got.Methods)
	}
	for name, st := range map[string]openeval.Stat{"strangers out": r.StrangersOutAtThreshold, "strangers in 95": r.StrangersIn95,
		"strangers in 99": r.StrangersIn99, "balanced": r.BalancedAtThreshold, "best": r.BestBalanced, "closed": r.KnownRightClosed} {
		if !(st.Mean >= 0 && st.Mean <= 1 && st.Std >= 0) {
			t.Errorf("%s: %+v, not a share", name, st)
		}
	}
	for _, w := range []string{`"known_right_closed"`, `"known_right_at_threshold"`, `"strangers_out_at_threshold"`, `"balanced_at_threshold"`,
		`"best_balanced"`, `"strangers_in_at_95_known"`, `"strangers_in_at_99_known"`, `"per_split"`, `"deployed"`, `"params"`, `"spread_exponent"`, `"stranger_classes"`} {
		if !strings.Contains(stdout, w) {
			t.Errorf("JSON misses %s", w)
		}
	}

	return r
}

// openEvalDirect trains nn-h with setmatch train on the gallery of split
// 0 of dir (row is eval's row of that split) and decides its probes with
// setmatch test.
func openEvalDirect(t *testing.T, dir string, row openeval.Row) openeval.Report {
	t.Helper()
	loaded, err := dataset.Load(dir, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := eval.ParseProtocol(openEvalProtocol)
	if err != nil {
		t.Fatal(err)
	}
	d := &eval.Data{Classes: loaded.Classes, Sets: loaded.Matrices(), Labels: loaded.Labels(), Names: loaded.Names()}
	splits, err := p.MakeSplits(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	sp := splits[0]
	if len(sp.Strangers) != 1 || len(row.StrangerClasses) != 1 || row.StrangerClasses[0] != d.Classes[sp.Strangers[0]] {
		t.Fatalf("split 0: strangers %v, eval's %v", sp.Strangers, row.StrangerClasses)
	}
	tr, pr := &dataset.Dataset{}, &dataset.Dataset{Classes: loaded.Classes}
	for _, c := range loaded.Classes {
		if c != row.StrangerClasses[0] {
			tr.Classes = append(tr.Classes, c)
		}
	}
	for _, i := range sp.Gallery {
		tr.Sets = append(tr.Sets, loaded.Sets[i])
	}
	for _, i := range sp.Probe {
		pr.Sets = append(pr.Sets, loaded.Sets[i])
	}
	train, probe := writeSplit(t, tr, pr)
	mpath := filepath.Join(t.TempDir(), "m.smm")
	if code, _, stderr := run("train", "--data", train, "--method", "nn-h", "--out", mpath); code != 0 { // train's default threshold, as eval's
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	return testJSON(t, "--model", mpath, "--data", probe)
}

// compareOpenEvalDirect compares eval's row of a split with what train
// and test say of the same split (ts).
func compareOpenEvalDirect(t *testing.T, row openeval.Row, ts openeval.Report) {
	t.Helper()
	closed, known, knownRight := 0, 0, 0
	for _, one := range ts.PerSet {
		if ts.PerClass[one.Class].Known {
			known++
			if one.Best == one.Class {
				closed++
			}
			if one.Decision == one.Class {
				knownRight++
			}
		}
	}
	unknown := ts.Unknown
	direct := map[string][2]float64{
		"known right closed":   {row.KnownRightClosed, float64(closed) / float64(known)},
		"known right @thr":     {row.KnownRightAtThreshold, float64(knownRight) / float64(known)},
		"strangers out @thr":   {row.StrangersOutAtThreshold, float64(unknown-ts.UnknownAccepted) / float64(unknown)},
		"best balanced":        {row.BestBalanced, ts.OpenSet.BestBalanced},
		"strangers in @95%":    {row.StrangersIn95, ts.OpenSet.StrangersIn95},
		"strangers in @99%":    {row.StrangersIn99, ts.OpenSet.StrangersIn99},
		"known probes":         {float64(row.Known), float64(known)},
		"strangers' probes":    {float64(row.Strangers), float64(unknown)},
		"threshold at 95%":     {row.Threshold95, ts.OpenSet.Threshold95},
		"balanced @thr (in %)": {100 * row.BalancedAtThreshold, *ts.BalancedAccuracy},
	}
	for name, v := range direct {
		if math.Abs(v[0]-v[1]) > 1e-9*max(1, math.Abs(v[1])) {
			t.Errorf("split 0, %s: eval %v, train and test %v", name, v[0], v[1])
		}
	}
	// The calibrated threshold.
	if row.Threshold == nil || ts.Threshold == nil || math.Abs(*row.Threshold-*ts.Threshold) > 1e-12**ts.Threshold {
		t.Errorf("split 0: eval's threshold %v, the trained model's %v", row.Threshold, ts.Threshold)
	}

}

// checkOpenEvalTable checks eval's table and progress with strangers.
func checkOpenEvalTable(t *testing.T, dir string) {
	t.Helper()
	code, stdout, stderr := run("eval", "--data", dir, "--protocol", openEvalProtocol, "--methods", "nn-h")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"known right (closed)", "strangers out @thr", "best balanced", "@99% known", "deployed per split", "nn-h"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("table misses %q:\n%s", w, stdout)
		}
	}
	if !strings.Contains(stderr, "split 2/2, nn-h (deployed nn-h)") {
		t.Errorf("progress:\n%s", stderr)
	}
}

// TestEvalSplitsOutOpenSet: the split file of a protocol with strangers,
// read back with --protocol file=, measures the same open set: its
// probes of classes with no gallery set are strangers', not errors, and
// every rate of every split comes out the same. --threshold is taken
// with such a file and refused with a file of a closed set.
func TestEvalSplitsOutOpenSet(t *testing.T) {
	dir := openEvalData(t, 3)
	out := filepath.Join(t.TempDir(), "splits.txt")
	want := openPerSplit(t, dir, "--threshold", "auto:balanced", "--protocol", openEvalProtocol, "--splits-out", out)
	got := openPerSplit(t, dir, "--threshold", "auto:balanced", "--protocol", "file="+out)
	if len(got) != len(want) || len(want) != 2 {
		t.Fatalf("%d splits from the file, %d written", len(got), len(want))
	}
	for k := range want {
		g, w := got[k], want[k]
		if !slices.Equal(g.StrangerClasses, w.StrangerClasses) || g.Known != w.Known || g.Strangers != w.Strangers ||
			g.KnownRightAtThreshold != w.KnownRightAtThreshold || g.StrangersOutAtThreshold != w.StrangersOutAtThreshold || g.BestBalanced != w.BestBalanced {
			t.Errorf("split %d from the file %+v, written %+v", k, g, w)
		}
	}
	closed := filepath.Join(t.TempDir(), "closed.txt")
	if code, _, stderr := run("eval", "--data", dir, "--methods", "nn-h", "--quiet", "--protocol", "gallery=2,probe=2,splits=1", "--splits-out", closed); code != 0 {
		t.Fatalf("closed split file: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run("eval", "--data", dir, "--methods", "nn-h", "--quiet", "--protocol", "file="+closed, "--threshold", "auto"); code != 2 || !strings.Contains(stderr, "the split file is a closed set (it lacks the line \""+eval.OpenSetMark+"\"") {
		t.Errorf("--threshold with a closed split file: exit %d, %s", code, stderr)
	}
	// The same file without one class's gallery sets: its probes can only
	// be named wrong, and eval says how to make them strangers.
	b, err := os.ReadFile(closed)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[1] == "gallery" && strings.HasPrefix(f[2], "c00/") {
			continue
		}
		kept = append(kept, l)
	}
	if err := os.WriteFile(closed, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run("eval", "--data", dir, "--methods", "nn-h", "--quiet", "--protocol", "file="+closed); code != 0 || !strings.Contains(stderr, "eval: note: 2 probe sets, in 1 of the 1 splits, are of a class with no gallery set in their split: a closed set can only name them wrong, and counts them as errors; to measure them as strangers, begin the split file with the line") {
		t.Errorf("a closed split file with a probe class without gallery sets: exit %d, %s", code, stderr)
	}
}

// TestEvalCentreSets: --centre-sets subtracts each set's own mean from
// its frames for every method: classes told apart by their means alone
// (frames of one distribution, shifted by ±3) are named right without it
// and no longer told apart with it; the run's features record it.
func TestEvalCentreSets(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	for c, shift := range []float64{3, -3} {
		for s := range 4 {
			x := mat.NewDense(10, 3, nil)
			for i := range 10 {
				for j := range 3 {
					x.Set(i, j, rng.NormFloat64()+shift)
				}
			}
			cd := filepath.Join(dir, fmt.Sprintf("class%d", c))
			if err := os.MkdirAll(cd, 0o755); err != nil {
				t.Fatal(err)
			}
			writeSet(t, cd, fmt.Sprintf("s%d.npy", s), x)
		}
	}
	mean := func(args ...string) (float64, string) {
		t.Helper()
		code, stdout, stderr := evalDispatch(append([]string{"eval", "--data", dir, "--protocol", "loo", "--methods", "nn-h", "--bandwidths", "global*1", "--json", "--quiet"}, args...)...)
		var got struct {
			Methods  map[string]struct{ Mean float64 }
			Features string
		}
		if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil {
			t.Fatalf("%q: exit %d, %v\n%s%s", args, code, err, stdout, stderr)
		}
		return got.Methods["nn-h"].Mean, got.Features
	}
	if acc, feat := mean(); acc != 100 || feat != "files" {
		t.Errorf("without --centre-sets: accuracy %v%%, features %q; want 100, files", acc, feat)
	}
	if acc, feat := mean("--centre-sets"); acc > 75 || feat != "files --centre-sets" {
		t.Errorf("--centre-sets: accuracy %v%%, features %q; want the means ignored (at most 75%%) and files --centre-sets", acc, feat)
	}
}

// TestEvalJSONOut: --json-out writes the JSON object to its file while
// the table goes to stdout, as without it; with --json as well, stdout
// is that object too.
func TestEvalJSONOut(t *testing.T) {
	dir := evalData(t, 2, 3)
	file := filepath.Join(t.TempDir(), "run.json")
	args := []string{"eval", "--data", dir, "--protocol", "loo", "--methods", "nn-h", "--bandwidths", "global*1", "--quiet"}
	code, table, stderr := evalDispatch(append(slices.Clone(args), "--json-out", file)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	written, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Methods map[string]struct{ Mean float64 }
	}
	if err := json.Unmarshal(written, &got); err != nil || got.Methods["nn-h"].Mean != 100 {
		t.Errorf("--json-out file: %v, %+v\n%s", err, got, written)
	}
	if json.Valid([]byte(table)) || !strings.Contains(table, "nn-h") {
		t.Errorf("stdout is not the table:\n%s", table)
	}
	code, stdout, stderr := evalDispatch(append(slices.Clone(args), "--json-out", file, "--json")...)
	if again, _ := os.ReadFile(file); code != 0 || stdout != string(again) {
		t.Errorf("--json with --json-out: exit %d, stdout and the file differ:\n%s\n%s%s", code, stdout, again, stderr)
	}
	// A file that could not be written is refused before the evaluation
	// (which would print its table first), saying what to do.
	tmp := t.TempDir()
	dangling := filepath.Join(tmp, "dl.json")
	if err := os.Symlink(filepath.Join("nodir", "r.json"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flag, path, want string
		code             int
	}{
		{"--json-out", filepath.Join(tmp, "nodir", "r.json"), "the folder " + filepath.Join(tmp, "nodir") + " does not exist: create it first", 1},
		{"--json-out", dangling, "--json-out " + dangling + ": the folder " + filepath.Join(tmp, "nodir") + " does not exist", 1},
		{"--json-out", tmp, "--json-out " + tmp + " is a folder: give a file's name", 2},
		{"--splits-out", tmp, "--splits-out " + tmp + " is a folder", 2},
	} {
		code, stdout, stderr := evalDispatch(append(slices.Clone(args), c.flag, c.path)...)
		if code != c.code || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%s %s: exit %d, want %d and %q, nothing evaluated:\n%s%s", c.flag, c.path, code, c.code, c.want, stdout, stderr)
		}
	}
	// A file that fails at the end (a device that is always full, which
	// is written to as it is): the table is printed all the same.
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here, to make the last write fail:", err)
	}
	code, stdout, stderr = evalDispatch(append(slices.Clone(args), "--json-out", "/dev/full")...)
	if code != 1 || !strings.Contains(stderr, "--json-out: write /dev/full: no space left on device") || !strings.Contains(stdout, "nn-h") {
		t.Errorf("--json-out /dev/full: exit %d, want 1, the error and the table:\n%s%s", code, stdout, stderr)
	}
}
