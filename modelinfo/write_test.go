package modelinfo

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"setmatch/method"
	"setmatch/model"
)

// checkTable returns the table Write gives of s, failing t, naming the
// case what (if not ""), for each of wants that is not in it.
func checkTable(t *testing.T, what string, s *Summary, wants ...string) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	if what != "" {
		what += ": "
	}
	for _, want := range wants {
		if !strings.Contains(b.String(), want) {
			t.Errorf("%sno line %q in\n%s", what, want, b.String())
		}
	}
	return b.String()
}

// TestWriteGolden: the table of the golden model of the current format
// is setmatch inspect's golden output, but for the first row, which names
// the file, and rounding noise below 1e-12, which the golden output
// writes as 0.
func TestWriteGolden(t *testing.T) {
	m, info, err := model.ReadFile(filepath.Join("..", "model", "testdata", "format-v7.smm"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "cmd", "setmatch", "testdata", "inspect.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`\b[0-9.]+e-(1[2-9]|[2-9][0-9])\b`).ReplaceAllString(checkTable(t, "", Summarize(info, m)), "0")
	_, gotRest, _ := strings.Cut(got, "\n")
	_, wantRest, _ := strings.Cut(string(want), "\n")
	if gotRest != wantRest {
		t.Errorf("table differs from setmatch inspect's golden output:\ngot\n%s\nwant\n%s", gotRest, wantRest)
	}
}

// TestWriteUnknownAndQuoted: fields not recorded say so, a closed-set
// threshold says it, a model without W has no row of W's learning, and
// text that would break the table is quoted.
func TestWriteUnknownAndQuoted(t *testing.T) {
	s := &Summary{File: "m.smm", FileBytes: 10, FormatVersion: 3, Tool: "a\tb", Identity: true, InputDim: 4,
		Method: "nn-h", Divergence: "hellinger", QueryBandwidth: "nn", Threshold: nil, Sets: 2, Frames: 300, Dim: 4,
		Classes: []Class{{Label: "x\ny", Sets: 2, Frames: 300}}}
	table := checkTable(t, "", s,
		"file             m.smm (10 bytes, format 3)\n",
		"created          (not recorded)\n",
		"tool             \"a\\tb\"\n",
		"method           nn-h (not cross-validated)\n",
		"features         (none recorded: the model takes feature vectors)\n",
		"threshold        +Inf (closed set: every batch gets a label)\n",
		"gallery          2 sets, 1 classes, 300 frames (9.38 KiB of samples)\n",

		"  \"x\\ny\"  2     300\n",
	)
	if strings.Contains(table, "learning W") {
		t.Errorf("a row of W's learning for a model without W:\n%s", table)
	}
}

// TestWriteChanged: the cross-validated figures are training's, and
// the table says so; after an enrolment or a forgetting (both keep them)
// it adds that the gallery has changed since. A file whose figures a
// forget of an earlier version cleared says that, not "not
// cross-validated".
func TestWriteChanged(t *testing.T) {
	one, acc := 1.0, 87.5
	for _, c := range []struct {
		op      string // "" no change; "cleared": a forget that cleared the figures
		method  string
		heading string
	}{
		{"", "nn-h (cross-validated accuracy 87.5% at training, on the training sets)\n",
			"candidates (cross-validated at training, on the training sets):\n"},
		{model.ChangeEnroll, "nn-h (cross-validated accuracy 87.5% at training, on the training sets, before the gallery changed: setmatch test measures the model as it is)\n",
			"candidates (cross-validated at training, on the training sets: what chose the method; the gallery has changed since, see the history):\n"},
		{model.ChangeForget, "nn-h (cross-validated accuracy 87.5% at training, on the training sets, before the gallery changed: setmatch test measures the model as it is)\n",
			"candidates (cross-validated at training, on the training sets: what chose the method; the gallery has changed since, see the history):\n"},
		{"cleared", "nn-h (its cross-validated accuracy is not in the file, a forget removed it: setmatch test measures the model as it is)\n",
			"candidates (cross-validated at training, on the training sets; the figures are not in the file, a forget removed them: setmatch test measures the model as it is):\n"},
	} {
		s := &Summary{File: "m.smm", Identity: true, InputDim: 4, Method: "nn-h", Divergence: "hellinger", QueryBandwidth: "nn",
			Threshold: &one, Sets: 2, Frames: 4, Dim: 4, Classes: []Class{{Label: "x", Sets: 2, Frames: 4}},
			CVAccuracy: &acc, Candidates: []Candidate{{Name: "nn-h", CVAccuracy: &acc, Seconds: 0.5}}}
		switch c.op {
		case "":
		case "cleared":
			s.CVAccuracy, s.Candidates = nil, []Candidate{{Name: "nn-h"}}
			s.History = []Change{{Time: "2027-01-02T03:04:05Z", Op: model.ChangeForget, Sets: 1, Classes: 1}}
		default:
			s.History = []Change{{Time: "2027-01-02T03:04:05Z", Op: c.op, Sets: 1, Classes: 1}}
		}
		checkTable(t, fmt.Sprintf("%q", c.op), s, "method           "+c.method, c.heading)
	}
}

// TestWriteLearned: a model of train --method learned says so on its
// method row, not only "not cross-validated", also after a forget (it had
// no cross-validated accuracy to clear).
func TestWriteLearned(t *testing.T) {
	one := 1.0
	s := &Summary{File: "m.smm", InputDim: 4, Dim: 2, Method: "nn-h-dr", Divergence: "hellinger", QueryBandwidth: "nn",
		Threshold: &one, Sets: 2, Frames: 4, Classes: []Class{{Label: "x", Sets: 2, Frames: 4}}, Params: map[string]string{"method": "learned", "dim": "2"},
		History: []Change{{Time: "2027-01-02T03:04:05Z", Op: model.ChangeForget, Sets: 1, Classes: 1}}}
	checkTable(t, "", s, "method           nn-h-dr (train --method learned: W learned at the given --dim, not cross-validated)\n")
}

// TestWriteParamsNotGiven: a flag train was not given reads as such in
// the parameters, not as an empty value.
func TestWriteParamsNotGiven(t *testing.T) {
	one := 1.0
	s := &Summary{File: "m.smm", InputDim: 4, Dim: 4, Identity: true, Method: "nn-h", Divergence: "hellinger", QueryBandwidth: "nn",
		Threshold: &one, Sets: 2, Frames: 4, Classes: []Class{{Label: "x", Sets: 2, Frames: 4}}, Params: map[string]string{"threshold": "", "dim": "2"}}
	checkTable(t, "", s, "  threshold  (not given: the default)\n", "  dim        2\n")
}

// TestProjectionSaysCentred: a model in the full space says whether its
// frames are centred (a centre other than 0: nn-h) or taken as given
// (kfda-mix, gda and cdl, whose centre is 0).
func TestProjectionSaysCentred(t *testing.T) {
	for _, c := range []struct {
		centred bool
		want    string
	}{
		{true, "none: the full space of D = 4 features (frames centred only)"},
		{false, "none: the full space of D = 4 features, frames as given"},
	} {
		s := &Summary{File: "m.smm", Identity: true, Centred: c.centred, InputDim: 4, Dim: 4, Method: "kfda-mix",
			Divergence: "hellinger", QueryBandwidth: "nn", Sets: 2, Frames: 4, Classes: []Class{{Label: "x", Sets: 2, Frames: 4}}}
		checkTable(t, fmt.Sprintf("centred %v", c.centred), s, c.want)
	}
}

// TestWriteThresholdInFull: the threshold row gives the model's
// threshold with every digit it has, so that a value copied from it (to
// setmatchd's decision.threshold, or setmatch test --threshold) decides
// as the model does; the class thresholds beside the classes are rounded.
func TestWriteThresholdInFull(t *testing.T) {
	th, a, b := 1.0/3, 0.1234567891, 2.0/3
	s := &Summary{File: "m.smm", Identity: true, InputDim: 4, Dim: 4, Method: "nn-h", Divergence: "hellinger", QueryBandwidth: "nn",
		Threshold: &th, SpreadExponent: new(float64), Sets: 2, Frames: 4,
		Classes: []Class{{Label: "x", Sets: 1, Frames: 2, Threshold: &a}, {Label: "y", Sets: 1, Frames: 2, Threshold: &b}}}
	checkTable(t, "", s,
		"threshold         0.3333333333333333 (open set: a best divergence above it is unknown)\n",
		"  x      1     2       0.123457\n",
		"  y      1     2       0.666667\n",
	)
}

// TestWriteThresholdSet: how the threshold was set (the method
// parameter "threshold") has a row of its own and is not repeated among
// the method's parameters.
func TestWriteThresholdSet(t *testing.T) {
	one := 1.0
	s := &Summary{File: "m.smm", Identity: true, InputDim: 4, Dim: 4, Method: "nn-h", Divergence: "hellinger", QueryBandwidth: "nn",
		Threshold: &one, Sets: 2, Frames: 4, Classes: []Class{{Label: "x", Sets: 2, Frames: 4}},
		MethodParams: map[string]string{"bandwidth": "global*1", "threshold": "auto:balanced"}}
	table := checkTable(t, "", s, "method parameters  bandwidth=global*1\n", "threshold set      auto:balanced\n")
	if strings.Contains(table, "threshold=") {
		t.Errorf("the threshold's rule among the method parameters:\n%s", table)
	}
}

// TestWriteCandidateTimes: a candidate's time is shown when it was scored
// (even in no measurable time) or timed, and "-" only when it was
// neither, as train prints it.
func TestWriteCandidateTimes(t *testing.T) {
	one, acc := 1.0, 75.0
	s := &Summary{File: "m.smm", Identity: true, InputDim: 4, Dim: 4, Method: "nn-h", Divergence: "hellinger", QueryBandwidth: "nn",
		Threshold: &one, Sets: 2, Frames: 4, Classes: []Class{{Label: "x", Sets: 2, Frames: 4}}, CVAccuracy: &acc,
		Candidates: []Candidate{
			{Name: "nn-h", CVAccuracy: &acc, Seconds: 0},     // scored in no measurable time
			{Name: "nn-j", Seconds: 2},                       // timed, not scored
			{Name: "kfda-hg"},                                // neither
			{Name: "kfda-j", CVAccuracy: &acc, Seconds: 1.5}, // both
		}}
	checkTable(t, "", s,
		"  nn-h *   75.0%     0.0s  \n",
		"  nn-j     -         2.0s  \n",
		"  kfda-hg  -         -     \n",
		"  kfda-j   75.0%     1.5s  \n",
	)
}

// TestWriteLearningW: W's learning is reported when it recorded a cost,
// even after no iteration (the start already met a stopping rule), and
// said not to be recorded for a projection without it.
func TestWriteLearningW(t *testing.T) {
	for _, c := range []struct {
		iterations int
		cost       float64
		want       string
	}{
		{12, -3.5, "learning W       final cost -3.5 after 12 iterations\n"},
		{0, -2, "learning W       final cost -2 after 0 iterations\n"},
		{0, 0, "learning W       (not recorded)\n"},
		// What train's choice of a -dr method records of W.
		{0, 0, "learning W         by conjugate gradient at training bandwidth global*0.25, as train's cross-validation chose (its cost and iterations are not recorded)\n"},
		{0, 0, "learning W         none: W is its start, which train's cross-validation kept over a learned W\n"},
		{0, 0, "learning W         none: W is the Fisher discriminant of the training frames\n"},
	} {
		one := 1.0
		s := &Summary{File: "m.smm", InputDim: 4, Dim: 2, Method: "nn-h-dr", Divergence: "hellinger", QueryBandwidth: "nn",
			Threshold: &one, Sets: 2, Frames: 4, Classes: []Class{{Label: "x", Sets: 2, Frames: 4}},
			Iterations: c.iterations, FinalCost: c.cost}
		switch {
		case strings.Contains(c.want, "global*0.25"):
			s.MethodParams = map[string]string{"train-bandwidth": "global*0.25"}
		case strings.Contains(c.want, "its start"):
			s.MethodParams = map[string]string{"train-bandwidth": "start"}
		case strings.Contains(c.want, "Fisher"):
			s.Method, s.MethodParams = "nn-h-lda", map[string]string{"train-bandwidth": "start"}
		}
		checkTable(t, fmt.Sprintf("%d iterations, cost %v", c.iterations, c.cost), s, c.want)
	}
}

// TestCleared: the figures count as cleared by a forget only when the
// history has a forget and the summary holds no figure at all: no
// accuracy of the method, and no candidate's accuracy or time (what
// model.Selection.Measured asks of the model).
func TestCleared(t *testing.T) {
	acc := 80.0
	forget := []Change{{Op: model.ChangeForget, Sets: 1, Classes: 2}}
	enroll := []Change{{Op: model.ChangeEnroll, Sets: 1, Classes: 3}}
	for _, c := range []struct {
		name string
		s    Summary
		want bool
	}{
		{"forget, no figure", Summary{History: forget, Candidates: []Candidate{{Name: "nn-h"}}}, true},
		{"enroll, no figure", Summary{History: enroll, Candidates: []Candidate{{Name: "nn-h"}}}, false},
		{"no change", Summary{Candidates: []Candidate{{Name: "nn-h"}}}, false},
		{"forget, the method's accuracy", Summary{History: forget, CVAccuracy: &acc, Candidates: []Candidate{{Name: "nn-h"}}}, false},
		{"forget, a candidate's accuracy", Summary{History: forget, Candidates: []Candidate{{Name: "nn-h"}, {Name: "nn-j", CVAccuracy: &acc}}}, false},
		{"forget, a candidate's time", Summary{History: forget, Candidates: []Candidate{{Name: "nn-h", Seconds: 0.5}}}, false},
		{"forget, no candidates", Summary{History: forget}, false},
	} {
		if got := c.s.cleared(); got != c.want {
			t.Errorf("%s: cleared %v, want %v", c.name, got, c.want)
		}
	}
}

// TestProjectionOfFreeW: a W that need not be orthonormal (nn-h-lda's,
// model.Model.OrthonormalW) is said to be of full column rank, not
// orthonormal by design, beside its max|WᵀW − I|, which for it is no
// error; any other W's is its orthonormality error.
func TestProjectionOfFreeW(t *testing.T) {
	m, info, err := model.ReadFile(filepath.Join("..", "model", "testdata", "format-v1.smm"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Identity {
		t.Fatal("the format-1 golden model has no W: the test needs one")
	}
	for _, c := range []struct {
		method string
		want   string
	}{
		{"nn-h-lda", "(nn-h-lda's W: of full column rank, not orthonormal by its method's design; max|WᵀW − I| = "},
		{"nn-h-dr", "(orthonormality error max|WᵀW − I| = "},
	} {
		m.Selection.Method = method.Name(c.method)
		s := Summarize(info, m)
		if s.FreeW != (c.method == "nn-h-lda") {
			t.Errorf("%s: FreeW %v", c.method, s.FreeW)
		}
		table := checkTable(t, c.method, s, c.want)
		if c.method == "nn-h-dr" && strings.Contains(table, "not orthonormal") {
			t.Errorf("%s: a W that must be orthonormal is said not to be:\n%s", c.method, table)
		}
	}
}
