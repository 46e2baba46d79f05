package modelinfo

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"setmatch/model"
)

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
	var b bytes.Buffer
	if err := Write(&b, Summarize(info, m)); err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`\b[0-9.]+e-(1[2-9]|[2-9][0-9])\b`).ReplaceAllString(b.String(), "0")
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
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"file             m.smm (10 bytes, format 3)\n",
		"created          (not recorded)\n",
		"tool             \"a\\tb\"\n",
		"method           nn-h (not cross-validated)\n",
		"features         (none recorded: the model takes feature vectors)\n",
		"threshold        +Inf (closed set: every batch gets a label)\n",
		"gallery          2 sets, 1 classes, 300 frames (9.4 KiB of samples)\n",

		"  \"x\\ny\"  2     300\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no line %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "learning W") {
		t.Errorf("a row of W's learning for a model without W:\n%s", b.String())
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
		var b bytes.Buffer
		if err := Write(&b, s); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"method           " + c.method, c.heading} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%q: no line %q in\n%s", c.op, want, b.String())
			}
		}
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
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	if want := "method           nn-h-dr (train --method learned: W learned at the given --dim, not cross-validated)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("no line %q in\n%s", want, b.String())
	}
}

// TestWriteParamsNotGiven: a flag train was not given reads as such in
// the parameters, not as an empty value.
func TestWriteParamsNotGiven(t *testing.T) {
	one := 1.0
	s := &Summary{File: "m.smm", InputDim: 4, Dim: 4, Identity: true, Method: "nn-h", Divergence: "hellinger", QueryBandwidth: "nn",
		Threshold: &one, Sets: 2, Frames: 4, Classes: []Class{{Label: "x", Sets: 2, Frames: 4}}, Params: map[string]string{"threshold": "", "dim": "2"}}
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  threshold  (not given: the default)\n", "  dim        2\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no line %q in\n%s", want, b.String())
		}
	}
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
		var b bytes.Buffer
		if err := Write(&b, s); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("centred %v: no %q in\n%s", c.centred, c.want, b.String())
		}
	}
}
