package modelinfo

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"setmatch/model"
)

// TestSummarizeVote: the golden model of the current format (a kFDA
// model on a sum of kernels with two voters, a pipeline and a selection)
// is summarised with its file facts, its gallery by class, its kFDA terms
// and every voter as a model of its own.
func TestSummarizeVote(t *testing.T) {
	path := filepath.Join("..", "model", "testdata", "format-v7.smm")
	m, info, err := model.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(info, m)
	if s.File != path || s.FormatVersion != 7 || s.FileBytes <= 0 || s.SHA256 != info.SHA256 || len(s.SHA256) != 64 {
		t.Errorf("file facts %q, format %d, %d bytes, sha256 %q", s.File, s.FormatVersion, s.FileBytes, s.SHA256)
	}
	if s.Threshold == nil || *s.Threshold != m.Threshold || s.Sets != len(m.Sets) || s.InputDim != m.InputDim() {
		t.Errorf("threshold %v, %d sets, D = %d", s.Threshold, s.Sets, s.InputDim)
	}
	sets, frames := 0, 0
	labels := []string{}
	for _, c := range s.Classes {
		sets, frames, labels = sets+c.Sets, frames+c.Frames, append(labels, c.Label)
		var want []string
		for _, set := range m.Sets {
			if set.Label == c.Label {
				want = append(want, set.Name)
			}
		}
		if !slices.Equal(c.SetNames, want) || len(want) != c.Sets {
			t.Errorf("class %s: set names %q, want %q (gallery order)", c.Label, c.SetNames, want)
		}
	}
	if sets != len(m.Sets) || frames != s.Frames || !slices.IsSorted(labels) || len(labels) != len(m.Classes()) {
		t.Errorf("classes %+v: %d sets, %d frames (summary %d)", s.Classes, sets, frames, s.Frames)
	}
	// The model gives each class a threshold of its own (model.Spread).
	if s.SpreadExponent == nil || *s.SpreadExponent != m.Spread.Exponent {
		t.Errorf("spread exponent %v, the model's %v", s.SpreadExponent, m.Spread.Exponent)
	}
	for _, c := range s.Classes {
		if want := m.ClassThreshold(c.Label); c.Threshold == nil || *c.Threshold != want {
			t.Errorf("class %s: threshold %v, want %v", c.Label, c.Threshold, want)
		}
	}
	if s.KFDA == nil || len(s.KFDA.Terms) != len(m.Discriminant.Terms) || s.KFDA.Description == "" {
		t.Errorf("kfda %+v", s.KFDA)
	}
	if len(s.Members) != len(m.Voters)+1 || len(s.Voters) != len(m.Voters) || s.OwnMethod() != s.Members[0] {
		t.Fatalf("members %v, %d voters", s.Members, len(s.Voters))
	}
	for i, v := range s.Voters {
		if v.File != "" || v.Method != s.Members[i+1] {
			t.Errorf("voter %d: file %q, method %q, want %q", i, v.File, v.Method, s.Members[i+1])
		}
	}
	if s.Features == nil || s.Features.PCADim == 0 {
		t.Errorf("features %+v", s.Features)
	}
}

// TestSummarizeCentred: Centred says whether the model subtracts a centre
// other than 0 from every frame, whatever the sign of its coordinates.
func TestSummarizeCentred(t *testing.T) {
	m, info, err := model.ReadFile(filepath.Join("..", "model", "testdata", "format-v7.smm"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(m.Mean, func(v float64) bool { return v != 0 }) {
		t.Fatal("the golden model's centre is 0: the test needs one that is not")
	}
	if s := Summarize(info, m); !s.Centred {
		t.Error("a model with a centre other than 0: Centred false")
	}
	clear(m.Mean)
	if s := Summarize(info, m); s.Centred {
		t.Error("a model whose centre is 0: Centred true")
	}
	m.Mean[len(m.Mean)-1] = -0.5
	if s := Summarize(info, m); !s.Centred {
		t.Error("a model whose centre's only coordinate other than 0 is negative: Centred false")
	}
}

// TestSummarizeCreated: the creation time is the model's, in RFC 3339;
// a model that records none has none, which the table writes as not
// recorded, not as the year 1.
func TestSummarizeCreated(t *testing.T) {
	m, info, err := model.ReadFile(filepath.Join("..", "model", "testdata", "format-v7.smm"))
	if err != nil {
		t.Fatal(err)
	}
	m.Meta.Created = time.Date(2027, 3, 4, 5, 6, 7, 0, time.UTC)
	if s := Summarize(info, m); s.Created != "2027-03-04T05:06:07Z" {
		t.Errorf("created %q, want 2027-03-04T05:06:07Z", s.Created)
	}
	m.Meta.Created = time.Time{}
	if s := Summarize(info, m); s.Created != "" {
		t.Errorf("a model that records no creation time: created %q, want none", s.Created)
	}
}

// TestSummarizeVoteOfTwo: a vote of two members (one voter) is a vote
// too: its members are listed and the table says how it decides.
func TestSummarizeVoteOfTwo(t *testing.T) {
	m, info, err := model.ReadFile(filepath.Join("..", "model", "testdata", "format-v7.smm"))
	if err != nil {
		t.Fatal(err)
	}
	m.Voters = m.Voters[:1]
	s := Summarize(info, m)
	if want := m.MemberMethods(); len(want) != 2 || !slices.Equal(s.Members, want) || len(s.Voters) != 1 {
		t.Fatalf("members %q, %d voters; want %q, 1 voter", s.Members, len(s.Voters), want)
	}
	var b strings.Builder
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	if want := "decides by           a vote of " + strings.Join(s.Members, ", ") + ":"; !strings.Contains(b.String(), want) {
		t.Errorf("no %q in\n%s", want, b.String())
	}
}
