package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"setmatch/dataset"
	"setmatch/deploy"
	"setmatch/features"
	"setmatch/kfda"
	"setmatch/match"
	"setmatch/method"
	"setmatch/model"
	"setmatch/openeval"
	"setmatch/openset"
	"setmatch/synth"
)

// testSplit writes a synthetic data set of 5 classes × 4 sets: sets 0 and 1
// of classes 0 to 3 to train/, sets 2 and 3 of them and every set of the
// fifth class (unknown to the model) to probe/.
func testSplit(t *testing.T) (train, probe string) {
	t.Helper()
	d, err := synth.Generate(synth.Options{Kind: synth.Subspace, Classes: 5, Sets: 4, Frames: 20, Dim: 8, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	tr := &dataset.Dataset{Classes: d.Classes[:4]}
	pr := &dataset.Dataset{Classes: d.Classes}
	for _, s := range d.Sets {
		if s.Class != d.Classes[4] && (s.Name == d.Sets[0].Name || s.Name == d.Sets[1].Name) {
			tr.Sets = append(tr.Sets, s)
		} else {
			pr.Sets = append(pr.Sets, s)
		}
	}
	if len(tr.Sets) != 8 || len(pr.Sets) != 12 {
		t.Fatalf("split %d/%d sets", len(tr.Sets), len(pr.Sets))
	}
	return writeSplit(t, tr, pr)
}

// writeSplit writes the training and probe sets to the folders train/
// and probe/ of a temporary directory.
func writeSplit(t *testing.T, tr, pr *dataset.Dataset) (train, probe string) {
	t.Helper()
	dir := t.TempDir()
	train, probe = filepath.Join(dir, "train"), filepath.Join(dir, "probe")
	for p, ds := range map[string]*dataset.Dataset{train: tr, probe: pr} {
		if err := dataset.Write(p, ds); err != nil {
			t.Fatal(err)
		}
	}
	return train, probe
}

func testJSON(t *testing.T, args ...string) openeval.Report {
	t.Helper()
	code, stdout, stderr := run(append([]string{"test", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("test %q: exit %d\n%s", args, code, stderr)
	}
	var s openeval.Report
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	return s
}

// checkTestAnswers checks a summary against the answers the matcher gives
// set by set, with the model's threshold replaced by threshold unless it
// is nil (for a vote, the deciding member's and every member's label).
func checkTestAnswers(t *testing.T, s openeval.Report, modelPath, probe string, threshold *float64) {
	t.Helper()
	m, _, err := model.ReadFile(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	mt, err := m.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	if threshold != nil {
		if mt, err = mt.WithThreshold(*threshold); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := dataset.Load(probe, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, c := range m.Classes() {
		known[c] = true
	}
	correct, unknown, kr, ua := 0, 0, 0, 0
	if len(s.PerSet) != len(ds.Sets) {
		t.Fatalf("%d per-set rows for %d sets", len(s.PerSet), len(ds.Sets))
	}
	for i, set := range ds.Sets {
		res, err := mt.Match(set.Frames)
		if err != nil {
			t.Fatal(err)
		}
		d := res.Decision
		one := s.PerSet[i]
		decided := "unknown"
		if d.Known {
			decided = d.Label
		}
		if one.Class != set.Class || one.Set != set.Name || one.Decision != decided || one.Best != m.Sets[d.Best].Label ||
			one.Score == nil || math.Abs(*one.Score-d.Score) > 1e-9*math.Abs(d.Score) || (one.RunnerUpScore == nil) != (d.RunnerUp < 0) {
			t.Errorf("set %s/%s: row %+v, matcher %+v", set.Class, set.Name, one, d)
		}
		if thr := mt.Thresholds()[res.Member]; d.Known != (*one.Score <= thr) {
			t.Errorf("set %s/%s: score %v, threshold %v, known %v", set.Class, set.Name, *one.Score, thr, d.Known)
		}
		if res.Votes != nil && (strings.Join(one.Votes, ",") != strings.Join(res.Votes, ",") || one.Member != s.Members[res.Member]) {
			t.Errorf("set %s/%s: votes %q by %q; matcher %q by member %d", set.Class, set.Name, one.Votes, one.Member, res.Votes, res.Member)
		}
		switch {
		case known[set.Class] && d.Known && d.Label == set.Class:
			correct++
		case known[set.Class] && !d.Known:
			kr++
		case !known[set.Class] && !d.Known:
			correct++
		case !known[set.Class]:
			ua++
		}
		if !known[set.Class] {
			unknown++
		}
	}
	if s.Sets != len(ds.Sets) || s.Correct != correct || s.Unknown != unknown || s.KnownRejected != kr || s.UnknownAccepted != ua {
		t.Errorf("summary sets %d correct %d unknown %d known-rejected %d unknown-accepted %d; matcher set by set: %d %d %d %d %d",
			s.Sets, s.Correct, s.Unknown, s.KnownRejected, s.UnknownAccepted, len(ds.Sets), correct, unknown, kr, ua)
	}
	if want := 100 * float64(correct) / float64(len(ds.Sets)); s.Accuracy != want {
		t.Errorf("accuracy %v, want %v", s.Accuracy, want)
	}
	n := 0
	for c, row := range s.PerClass {
		n += row.Sets
		if row.Known != known[c] {
			t.Errorf("class %s: in model %v", c, row.Known)
		}
	}
	if n != s.Sets || len(s.PerClass) != 5 {
		t.Errorf("per-class rows: %d classes, %d sets", len(s.PerClass), n)
	}
	if !(s.MsPerSet > 0) {
		t.Errorf("ms per set %v", s.MsPerSet)
	}
}

func TestTestCommandNN(t *testing.T) {
	train, probe := testSplit(t)
	mpath := filepath.Join(t.TempDir(), "m.smm")
	if code, _, stderr := run("train", "--method", "learned", "--data", train, "--dim", "3", "--max-iter", "20", "--out", mpath, "--threshold", "auto"); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	m, _, err := model.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}

	// Closed set: every known set right, every unknown one accepted.
	s := testJSON(t, "--model", mpath, "--data", probe, "--threshold", "inf")
	if s.Correct != 8 || s.Unknown != 4 || s.UnknownAccepted != 4 || s.KnownRejected != 0 || s.Accuracy != 100*8.0/12 {
		t.Errorf("closed set: %+v", s)
	}
	// Every known set right, no unknown one: the mean of 100 and 0.
	if b := s.BalancedAccuracy; b == nil || *b != 50 {
		t.Errorf("closed set: balanced accuracy %v, want 50", b)
	}
	checkTestAnswers(t, s, mpath, probe, &inf)
	// Threshold 0: everything rejected, the unknown class is right.
	s = testJSON(t, "--model", mpath, "--data", probe, "--threshold", "0")
	if s.Correct != 4 || s.KnownRejected != 8 || s.UnknownAccepted != 0 {
		t.Errorf("threshold 0: %+v", s)
	}
	if b := s.BalancedAccuracy; b == nil || *b != 50 {
		t.Errorf("threshold 0: balanced accuracy %v, want 50", b)
	}
	// The model's own threshold.
	s = testJSON(t, "--model", mpath, "--data", probe)
	if s.Threshold == nil || *s.Threshold != m.Threshold || s.Method != "nn-h-dr" {
		t.Errorf("model threshold %v (the model's %v), method %s", s.Threshold, m.Threshold, s.Method)
	}
	checkTestAnswers(t, s, mpath, probe, &m.Threshold)
	var right, sets [2]int // unknown, known classes
	for _, row := range s.PerClass {
		k := 0
		if row.Known {
			k = 1
		}
		right[k] += row.Correct
		sets[k] += row.Sets
	}
	want := 50 * (float64(right[1])/float64(sets[1]) + float64(right[0])/float64(sets[0]))
	if b := s.BalancedAccuracy; b == nil || math.Abs(*b-want) > 1e-9 {
		t.Errorf("model threshold: balanced accuracy %v, want %v from the classes %+v", b, want, s.PerClass)
	}
	checkTestOpenSet(t, s, m.Threshold)
	// Only known classes: no balanced accuracy.
	knownOnly := t.TempDir()
	for c, row := range s.PerClass {
		if row.Known {
			if err := os.Symlink(filepath.Join(probe, c), filepath.Join(knownOnly, c)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if k := testJSON(t, "--model", mpath, "--data", knownOnly); k.Unknown != 0 || k.BalancedAccuracy != nil || k.OpenSet != nil {
		t.Errorf("known classes only: %d unknown sets, balanced accuracy %v, open set %+v, want none", k.Unknown, k.BalancedAccuracy, k.OpenSet)
	}

	// The text report.
	code, stdout, stderr := run("test", "--model", mpath, "--data", probe)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"accuracy ", "unknown classes: 4 sets", "balanced accuracy ", "whatever the threshold: ", "the best single threshold", "ms per set", "decided as"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report misses %q:\n%s", want, stdout)
		}
	}
}

// checkTestOpenSet checks the open-set rates of a summary (of a single
// model with threshold thr, every set decided) against those package
// openset gives from the per-set rows, and the balanced accuracy against
// openset.At's.
func checkTestOpenSet(t *testing.T, s openeval.Report, thr float64) {
	t.Helper()
	o := s.OpenSet
	if o == nil {
		t.Fatal("no open-set rates for data with known and unknown classes")
	}
	var samples []openset.Sample
	for _, one := range s.PerSet {
		samples = append(samples, openset.Sample{Score: *one.Score, Stranger: !s.PerClass[one.Class].Known, Right: one.Best == one.Class})
	}
	best, err := openset.Balance(samples)
	if err != nil {
		t.Fatal(err)
	}
	in95, t95, _ := openset.StrangersIn(samples, 0.95)
	in99, t99, _ := openset.StrangersIn(samples, 0.99)
	if o.BestBalanced != best.Balanced || o.BestThreshold != best.Threshold || o.StrangersIn95 != in95 || o.Threshold95 != t95 ||
		o.StrangersIn99 != in99 || o.Threshold99 != t99 || o.Approximate {
		t.Errorf("open set %+v; from the rows: best %v at %v, in %v at %v (95%%), %v at %v (99%%)", *o, best.Balanced, best.Threshold, in95, t95, in99, t99)
	}
	for _, v := range []float64{o.BestBalanced, o.StrangersIn95, o.StrangersIn99} {
		if !(v >= 0 && v <= 1) {
			t.Errorf("open set %+v: %v is not a share", *o, v)
		}
	}
	// The decisions' balanced accuracy is openset.At's at the threshold,
	// and no single threshold does better than the best.
	at := openset.At(samples, thr)
	if b := s.BalancedAccuracy; b == nil || math.Abs(*b-100*at.Balanced) > 1e-9 || at.Balanced > o.BestBalanced+1e-12 {
		t.Errorf("balanced accuracy %v, openset.At %v, best %v", b, at.Balanced, o.BestBalanced)
	}
}

// A kFDA model decides in the test command as its matcher does, with the
// calibrated kFDA threshold.
func TestTestCommandKFDA(t *testing.T) {
	train, probe := testSplit(t)
	// The gallery projected by a learned W, decided by kFDA.
	npath := filepath.Join(t.TempDir(), "m.smm")
	if code, _, stderr := run("train", "--method", "learned", "--data", train, "--dim", "3", "--max-iter", "20", "--out", npath); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	m, _, err := model.ReadFile(npath)
	if err != nil {
		t.Fatal(err)
	}
	m.Divergence = match.Jeffrey
	k, err := deploy.FitKFDA(m, string(method.KernelJ), 1, "median", 1e-2, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The threshold of train's --threshold auto: a bound on the distances
	// the kernel induces between sets of one class.
	if m.Threshold, err = openset.AutoThreshold(kfda.KernelDistances(k), m.Labels(), openset.AutoThresholdPercentile); err != nil {
		t.Fatal(err)
	}
	mpath := filepath.Join(t.TempDir(), "k.smm")
	if err := model.WriteFile(mpath, m); err != nil {
		t.Fatal(err)
	}
	s := testJSON(t, "--model", mpath, "--data", probe)
	if s.Method != "kfda-j" {
		t.Errorf("method %q", s.Method)
	}
	checkTestAnswers(t, s, mpath, probe, &m.Threshold)
	checkTestOpenSet(t, s, m.Threshold)
	s = testJSON(t, "--model", mpath, "--data", probe, "--threshold", "inf")
	if s.Correct != 8 || s.UnknownAccepted != 4 {
		t.Errorf("closed set: %+v", s)
	}
}

func TestTestCommandErrors(t *testing.T) {
	train, probe := testSplit(t)
	mpath := filepath.Join(t.TempDir(), "m.smm")
	if code, _, stderr := run("train", "--method", "learned", "--data", train, "--dim", "3", "--max-iter", "3", "--out", mpath); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	images := imageData(t, 16, 12)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--data", probe}, 2, "--model MODEL is required"},
		{[]string{"--model", mpath}, 2, "--data DIR is required"},
		{[]string{"--model", mpath, "--data", probe, "--threshold", "high"}, 2, "--threshold"},
		{[]string{"--model", mpath, "--data", probe, "--threshold", "NaN"}, 2, "--threshold: want a number ≥ 0 or inf"},
		{[]string{"--model", mpath, "--data", probe, "--threshold", "-0.5"}, 2, "--threshold: want a number ≥ 0 or inf"},
		{[]string{"--model", mpath, "--data", probe, "--threshold", "-inf"}, 2, "--threshold: want a number ≥ 0 or inf"},
		{[]string{"--model", mpath, "--data", images}, 1, "are images but model " + mpath + " records no feature pipeline"},
		{[]string{"--model", "../../model/testdata/format-v2.smm", "--data", probe}, 1, "feature files of 8 features per frame"},
	} {
		code, _, stderr := run(append([]string{"test"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, want %d with %q:\n%s", tc.args, code, tc.code, tc.want, stderr)
		}
	}
	// Images for a model without a pipeline are said of the folder, not
	// as the failure of its first set.
	if _, _, stderr := run("test", "--model", mpath, "--data", images); !strings.HasPrefix(stderr, "setmatch test: the data in "+images+" are images") {
		t.Errorf("images for a model without a pipeline:\n%s", stderr)
	}
}

var inf = math.Inf(1)

// TestTestCommandClosedModel: a model trained with --threshold none names
// every set, strangers too; test says so on stderr, with what to do, as
// setmatchd -check warns of it. Not for a model with a threshold, nor when
// --threshold inf asks for a closed set.
func TestTestCommandClosedModel(t *testing.T) {
	probe := t.TempDir()
	rng := rand.New(rand.NewPCG(81, 82))
	for _, c := range []string{"alice", "zed"} {
		if err := os.Mkdir(filepath.Join(probe, c), 0o755); err != nil {
			t.Fatal(err)
		}
		writeSet(t, filepath.Join(probe, c), "s1.npy", synth.GaussianSet(rng, 10, 4, 0))
	}
	closed := inspectTestModel(t, inf) // D = 4, alice ×2, bob ×1
	note := "test: note: model " + closed + " has no threshold (a closed set): every set is named as its nearest known class, strangers too; for a door, train without --threshold none, or try a threshold here with --threshold X\n"
	for _, c := range []struct {
		args []string
		note bool
	}{
		{[]string{"--model", closed}, true},
		{[]string{"--model", closed, "--json"}, true},
		{[]string{"--model", closed, "--threshold", "inf"}, false},
		{[]string{"--model", closed, "--threshold", "0.5"}, false},
		{[]string{"--model", inspectTestModel(t, 0.5)}, false},
	} {
		code, _, stderr := run(append([]string{"test", "--data", probe}, c.args...)...)
		if code != 0 || strings.Contains(stderr, "note:") != c.note || c.note && stderr != note {
			t.Errorf("%q: exit %d, stderr %q; want exit 0 and the note %v:\n%s", c.args, code, stderr, c.note, note)
		}
	}
}

// TestTestCommandNoKnownClass: where no class of the data is one of the
// model's (folders named otherwise), test says that every set counted
// as a stranger's; with one class of the model among them, it does not.
func TestTestCommandNoKnownClass(t *testing.T) {
	m := inspectTestModel(t, 0.5) // D = 4, alice ×2, bob ×1
	rng := rand.New(rand.NewPCG(83, 84))
	for _, c := range []struct {
		classes []string
		note    bool
	}{{[]string{"Alice", "carol"}, true}, {[]string{"alice", "carol"}, false}} {
		probe := t.TempDir()
		for _, class := range c.classes {
			if err := os.Mkdir(filepath.Join(probe, class), 0o755); err != nil {
				t.Fatal(err)
			}
			writeSet(t, filepath.Join(probe, class), "s1.npy", synth.GaussianSet(rng, 10, 4, 0))
		}
		code, _, stderr := run("test", "--model", m, "--data", probe)
		said := strings.Contains(stderr, "test: note: no class of "+probe+" is a class of model "+m+": every set counts as a stranger's")
		if code != 0 || said != c.note {
			t.Errorf("classes %q: exit %d, the note %v, want %v:\n%s", c.classes, code, said, c.note, stderr)
		}
	}
}

// TestTestCommandBadSets checks that a set that cannot be read (a
// non-finite value), that has another width than the model's, or that
// setmatchd would refuse (one frame) is reported with its error, counted as failed and wrong, and that every
// other set is still tested as without it.
func TestTestCommandBadSets(t *testing.T) {
	train, probe := testSplit(t)
	mpath := filepath.Join(t.TempDir(), "m.smm")
	if code, _, stderr := run("train", "--method", "nn-h", "--data", train, "--out", mpath); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	good := testJSON(t, "--model", mpath, "--data", probe)
	ds, err := dataset.Load(probe, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	class := ds.Sets[0].Class
	for name, text := range map[string]string{"nan.csv": "1,2,3,4,5,6,7,8\n1,2,nan,4,5,6,7,8\n", "narrow.csv": "1,2,3\n4,5,6\n", "one.csv": "1,2,3,4,5,6,7,8\n"} {
		if err := os.WriteFile(filepath.Join(probe, class, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := run("test", "--json", "--model", mpath, "--data", probe)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var s openeval.Report
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if s.Sets != good.Sets+3 || s.Failed != 3 || s.Correct != good.Correct {
		t.Errorf("with three bad sets: %d sets, %d failed, %d correct; without them %d sets, %d correct", s.Sets, s.Failed, s.Correct, good.Sets, good.Correct)
	}
	if want := 100 * float64(good.Correct) / float64(good.Sets+3); math.Abs(s.Accuracy-want) > 1e-9 {
		t.Errorf("accuracy %v, want %v (the bad sets count as wrong)", s.Accuracy, want)
	}
	errs := map[string]string{}
	for _, one := range s.PerSet {
		if one.Decision == "failed" {
			errs[one.Set] = one.Error
		}
	}
	if !strings.Contains(errs["nan"], "must be finite") || !strings.Contains(errs["narrow"], "3 features per frame") || !strings.Contains(errs["narrow"], "expects 8") ||
		!strings.Contains(errs["narrow"], "same feature extractor as the model") ||
		!strings.Contains(errs["one"], "1 frame, fewer than setmatchd's decision.min_frames") {
		t.Errorf("errors of the bad sets: %q", errs)
	}
	for _, want := range []string{"nan", "narrow"} {
		if !strings.Contains(stderr, class+"/"+want) {
			t.Errorf("stderr does not name %s/%s:\n%s", class, want, stderr)
		}
	}
	// Nothing readable at all is an error, not an empty report.
	empty := t.TempDir()
	if err := os.MkdirAll(filepath.Join(empty, class), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty, class, "nan.csv"), []byte("nan,1\n2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run("test", "--model", mpath, "--data", empty); code != 1 || !strings.Contains(stderr, "no set of") {
		t.Errorf("a folder of unreadable sets: exit %d\n%s", code, stderr)
	}
	// Sets read but none decided (one frame each): the report, then exit 1.
	if err := os.WriteFile(filepath.Join(empty, class, "nan.csv"), []byte("1,2,3,4,5,6,7,8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := run("test", "--json", "--model", mpath, "--data", empty); code != 1 || !strings.Contains(stdout, `"failed": 1`) || !strings.Contains(stderr, "could be decided") {
		t.Errorf("a folder of sets none of which is decided: exit %d\n%s%s", code, stdout, stderr)
	}
	// A set of as many frames as setmatchd's decision.min_frames is
	// decided.
	var rows strings.Builder
	for i := range daemonMinFrames {
		fmt.Fprintf(&rows, "%d,2,3,4,5,6,7,%d\n", i, 9+2*i)
	}
	if err := os.WriteFile(filepath.Join(empty, class, "nan.csv"), []byte(rows.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := testJSON(t, "--model", mpath, "--data", empty); s.Sets != 1 || s.Failed != 0 {
		t.Errorf("a set of %d frames: %d sets, %d failed: %+v", daemonMinFrames, s.Sets, s.Failed, s.PerSet)
	}
}

// TestTestCommandVote: a model that decides by a vote (format 6, as
// train's auto deployed it before where every class has three training
// sets and the choice keeps kfda-mix: kfda-mix with nn-h-dr and kfda-hl
// as its voters, here each trained alone and joined): test decides every
// set as the model's matcher does, reports every member's threshold and,
// per set, the members' labels and the deciding member; a single
// threshold is refused with the reason; inspect lists the members. On
// the same data train's auto now deploys kfda-mix alone.
func TestTestCommandVote(t *testing.T) {
	d, err := synth.Generate(synth.Options{Kind: synth.Subspace, Classes: 5, Sets: 5, Frames: 20, Dim: 8, Seed: 13})
	if err != nil {
		t.Fatal(err)
	}
	tr := &dataset.Dataset{Classes: d.Classes[:4]}
	pr := &dataset.Dataset{Classes: d.Classes}
	first := map[string]int{}
	for _, s := range d.Sets {
		if s.Class != d.Classes[4] && first[s.Class] < 3 {
			first[s.Class]++
			tr.Sets = append(tr.Sets, s)
		} else {
			pr.Sets = append(pr.Sets, s)
		}
	}
	train, probe := writeSplit(t, tr, pr)
	dir := t.TempDir()
	auto := filepath.Join(dir, "auto.smm")
	if code, _, stderr := run("train", "--data", train, "--threshold", "auto", "--out", auto); code != 0 || !strings.Contains(stderr, "deployed kfda-mix: ") || strings.Contains(stderr, "vote") {
		t.Fatalf("train --method auto: exit %d, want kfda-mix deployed alone\n%s", code, stderr)
	}
	if m, _, err := model.ReadFile(auto); err != nil || len(m.Voters) != 0 || m.MethodName() != "kfda-mix" {
		t.Fatalf("auto's model: %v", err)
	}
	var m *model.Model
	for _, method := range []string{"kfda-mix", "nn-h-dr", "kfda-hl"} {
		path := filepath.Join(dir, method+".smm")
		if code, _, stderr := run("train", "--data", train, "--method", method, "--threshold", "auto", "--out", path); code != 0 {
			t.Fatalf("train --method %s: exit %d\n%s", method, code, stderr)
		}
		mm, _, err := model.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if m == nil {
			m = mm
		} else {
			m.Voters = append(m.Voters, mm)
		}
	}
	m.Selection.Params["vote"] = strings.Join(m.MemberMethods(), ", ")
	mpath := filepath.Join(dir, "m.smm")
	if err := model.WriteFile(mpath, m); err != nil {
		t.Fatal(err)
	}
	s := testJSON(t, "--model", mpath, "--data", probe)
	if s.Method != "vote(kfda-mix,nn-h-dr,kfda-hl)" || s.Threshold != nil || len(s.Thresholds) != 3 || strings.Join(s.Members, ",") != "kfda-mix,nn-h-dr,kfda-hl" {
		t.Fatalf("method %q, threshold %v, members %q with thresholds %v", s.Method, s.Threshold, s.Members, s.Thresholds)
	}
	checkTestAnswers(t, s, mpath, probe, nil)
	if o := s.OpenSet; o == nil || !o.Approximate {
		t.Errorf("a vote's open-set rates %+v, want them marked approximate", o)
	}
	if code, _, stderr := run("test", "--model", mpath, "--data", probe, "--threshold", "0.5"); code == 0 || !strings.Contains(stderr, "one number cannot replace them") {
		t.Errorf("--threshold 0.5 on a vote: exit %d\n%s", code, stderr)
	}
	if closed := testJSON(t, "--model", mpath, "--data", probe, "--threshold", "inf"); closed.UnknownAccepted != closed.Unknown || len(closed.Thresholds) != 3 || slices.ContainsFunc(closed.Thresholds, func(t *float64) bool { return t != nil }) {
		t.Errorf("closed set: %d of %d strangers accepted, thresholds %v (want 3 nulls)", closed.UnknownAccepted, closed.Unknown, closed.Thresholds)
	}
	code, stdout, stderr := run("inspect", mpath)
	if code != 0 || !strings.Contains(stdout, "a vote of kfda-mix, nn-h-dr, kfda-hl") || !strings.Contains(stdout, "member 3") {
		t.Errorf("inspect: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestTestCommandBurstLimits: test reads an image set under the limits
// setmatchd puts on a burst by default, so a frame the door would refuse
// (more than 12.6 Mpx) fails its set here too, naming the limit; and a
// set of more frames than --max-frames (setmatchd's spool.max_burst_frames
// by default) fails, naming the flag.
func TestTestCommandBurstLimits(t *testing.T) {
	data := imageData(t, 40, 30)
	mpath := filepath.Join(t.TempDir(), "m.smm")
	if code, _, stderr := run("train", "--method", "nn-h", "--data", data, "--features", "intensity:8x8", "--out", mpath); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	probe := filepath.Join(t.TempDir(), "probe")
	set := filepath.Join(probe, "class0", "big")
	if err := os.MkdirAll(set, 0o755); err != nil {
		t.Fatal(err)
	}
	for k, wh := range [][2]int{{40, 30}, {4096, 3080}} { // 12.6 Mpx, one row more than the limit
		var b bytes.Buffer
		if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, wh[0], wh[1]))); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(set, fmt.Sprintf("f%d.png", k)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The only set fails: the command says why.
	if code, _, stderr := run("test", "--model", mpath, "--data", probe); code != 1 || !strings.Contains(stderr, "f1.png: PNG image is 4096x3080, more than 12582912 pixels") {
		t.Errorf("a frame over the burst limit: exit %d\n%s", code, stderr)
	}
	// A set of as many frames as a burst may hold is decided; one frame
	// more fails (links to one small frame, quick to make).
	long := filepath.Join(t.TempDir(), "long")
	for _, c := range []struct {
		name   string
		frames int
	}{{"most", features.DefaultMaxFrames}, {"over", features.DefaultMaxFrames + 1}} {
		set := filepath.Join(long, "class0", c.name)
		if err := os.MkdirAll(set, 0o755); err != nil {
			t.Fatal(err)
		}
		for k := range c.frames {
			if err := os.Link(filepath.Join(probe, "class0", "big", "f0.png"), filepath.Join(set, fmt.Sprintf("f%03d.png", k))); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := testJSON(t, "--model", mpath, "--data", long)
	errs := map[string]string{}
	for _, one := range s.PerSet {
		errs[one.Set] = one.Error
	}
	if s.Sets != 2 || s.Failed != 1 || errs["most"] != "" || !strings.Contains(errs["over"], fmt.Sprintf("%s: set of %d frames, more than the limit of %d a set: split it into sets of at most %[3]d frames (test's limits: --max-frames %[3]d,", filepath.Join(long, "class0", "over"), features.DefaultMaxFrames+1, features.DefaultMaxFrames)) {
		t.Errorf("sets of %d and %d frames: %d sets, %d failed, errors %q", features.DefaultMaxFrames, features.DefaultMaxFrames+1, s.Sets, s.Failed, errs)
	}
	// --max-frames as a daemon's spool.max_burst_frames: with the limit one
	// frame higher both sets are decided; one frame lower, both fail, and
	// the error names the flag.
	if s := testJSON(t, "--model", mpath, "--data", long, "--max-frames", fmt.Sprint(features.DefaultMaxFrames+1)); s.Sets != 2 || s.Failed != 0 {
		t.Errorf("--max-frames %d: %d sets, %d failed", features.DefaultMaxFrames+1, s.Sets, s.Failed)
	}
	if code, _, stderr := run("test", "--model", mpath, "--data", long, "--max-frames", fmt.Sprint(features.DefaultMaxFrames-1)); code != 1 || !strings.Contains(stderr, "(2 failed)") || !strings.Contains(stderr, fmt.Sprintf("(test's limits: --max-frames %d,", features.DefaultMaxFrames-1)) {
		t.Errorf("--max-frames %d: exit %d\n%s", features.DefaultMaxFrames-1, code, stderr)
	}
	if code, _, stderr := run("test", "--model", mpath, "--data", long, "--max-frames", "0"); code != 2 || !strings.Contains(stderr, "--max-frames must be at least 1, got 0") {
		t.Errorf("--max-frames 0: exit %d\n%s", code, stderr)
	}
}

// TestTestCommandSetOfAnotherSize: where only some sets of the folder
// have another size than the training images of a model whose pipeline
// computes its features at each frame's own size (hog:8 without @WxH),
// an image set's failure says that the size is why and what to do, and a
// folder of feature
// files (a folder too, but not of images) does not: its width is no
// matter of image size.
func TestTestCommandSetOfAnotherSize(t *testing.T) {
	data := imageData(t, 40, 32)
	mpath := filepath.Join(t.TempDir(), "m.smm")
	if code, _, stderr := run("train", "--method", "nn-h", "--data", data, "--features", "hog:8", "--threshold", "none", "--out", mpath); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	// class0/small: 24x24 frames, 144 features where 40x32 gives 432.
	small := filepath.Join(data, "class0", "small")
	if err := os.Rename(filepath.Join(imageData(t, 24, 24), "class0", "set0"), small); err != nil {
		t.Fatal(err)
	}
	// class1/feats: a folder of three frames of 5 features each.
	feats := filepath.Join(data, "class1", "feats")
	if err := os.Mkdir(feats, 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(83, 84))
	for k := range 3 {
		writeSet(t, feats, fmt.Sprintf("f%d.npy", k), synth.GaussianSet(rng, 1, 5, 0))
	}
	note := ": hog:8 computes its features at each frame's own size"
	_, stdout, stderr := run("test", "--model", mpath, "--data", data)
	out := stdout + stderr
	if want := "frame is 24x24 but the model's training images were 40x32: hog:8 uses each image at its own size"; !strings.Contains(out, want) {
		t.Errorf("test: the image set of 24x24 frames: want %q in\n%s", want, out)
	}
	if want := feats + " has 5 features per frame, model " + mpath + " expects 432"; !strings.Contains(out, want) || strings.Contains(out, want+note) {
		t.Errorf("test: the folder of feature files: want %q without the note on image size in\n%s", want, out)
	}
}
