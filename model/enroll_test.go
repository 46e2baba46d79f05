package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/match"
)

// TestWithSets: new sets are projected and given a bandwidth as a batch
// is, and a batch near one is then recognised; bad sets are refused with
// the model unchanged.
func TestWithSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	// A model on 6 features projecting onto the first 2, gallery of class a.
	w := mat.NewDense(6, 2, []float64{1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})
	set := func(shift float64) *mat.Dense {
		x := mat.NewDense(30, 6, nil)
		for i := range 30 {
			for j := range 6 {
				x.Set(i, j, shift+rng.NormFloat64())
			}
		}
		return x
	}
	m := &Model{
		Divergence:     match.Hellinger,
		QueryBandwidth: match.BandwidthRule{Kind: match.Scott},
		W:              w,
		Mean:           make([]float64, 6),
		Threshold:      math.Inf(1),
	}
	m, err := m.WithSets([]NewSet{{"a", "a1", set(0)}})
	if err != nil {
		t.Fatal(err)
	}
	b, b2 := set(6), set(6)
	if m, err = m.WithSets([]NewSet{{"b", "b1", b}}); err != nil {
		t.Fatal(err)
	}
	if len(m.Sets) != 2 || m.Sets[1].Label != "b" || m.Sets[1].Name != "b1" {
		t.Fatalf("gallery after enrolling: %+v", m.Sets)
	}
	y, _ := m.Project(b)
	if !mat.Equal(m.Sets[1].Samples, y) {
		t.Error("enrolled samples are not the projection of the frames")
	}
	if h, _ := m.QueryBandwidth.Bandwidth(y); m.Sets[1].Bandwidth != h {
		t.Errorf("enrolled bandwidth %v, the model's rule gives %v", m.Sets[1].Bandwidth, h)
	}
	// A new batch near b is now recognised as b.
	mt := mustMatcher(t, m)
	res, err := mt.Match(set(6))
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Label != "b" {
		t.Errorf("batch near the enrolled set decided %+v", res.Decision)
	}

	for _, c := range []struct {
		sets []NewSet
		want string
	}{
		{nil, "no sets"},
		{[]NewSet{{"", "x", set(0)}}, "label is empty"},
		{[]NewSet{{"c", "", set(0)}}, `the set name "" is empty or only spaces: give the set another name`},
		{[]NewSet{{"c", "c\xff", set(0)}}, `the set name "c\xff" is not valid UTF-8, which a model's set names must be: give the set another name`},
		{[]NewSet{{"c", "a\nb", set(0)}}, `the set name "a\nb" holds a control character (a newline, a tab, …), which the lines that name the set would print as it is: give the set another name`},
		{[]NewSet{{"unknown", "u1", set(0)}}, `the label "unknown" is reserved`},
		{[]NewSet{{"failed", "f1", set(0)}}, `the label "failed" is reserved`},
		{[]NewSet{{"a ", "a9", set(0)}}, `the label "a " begins or ends with a space`},
		{[]NewSet{{"a\x1b[2J", "a9", set(0)}}, `holds a control character`},
		{[]NewSet{{"\xff", "a9", set(0)}}, `is not valid UTF-8`},
		{[]NewSet{{"a/b", "a9", set(0)}}, `the label "a/b" holds a slash, as a class folder's name cannot: name the class otherwise`},
		{[]NewSet{{".", "a9", set(0)}}, `the label "." is . or .., as a class folder's name cannot`},
		{[]NewSet{{"..", "a9", set(0)}}, `the label ".." is . or ..`},
		{[]NewSet{{"c", "x/y", set(0)}}, `the set name "x/y" holds a slash, as a set file or folder's name cannot: give the set another name`},
		{[]NewSet{{"c", "..", set(0)}}, `the set name ".." is . or ..`},
		{[]NewSet{{"b", "b1", set(0)}}, `the gallery already has a set "b1" of class "b": choose another name`},
		// The same burst under its own name again: enrolled already.
		{[]NewSet{{"b", "b1", b}}, "set b/b1 is enrolled already: the gallery's set b/b1 has the same frames (in this or another order): nothing to add"},
		{[]NewSet{{"b", "b1", reversedRows(b)}}, "set b/b1 is enrolled already"},
		{[]NewSet{{"b", "b2", b}}, "b/b2: the same frames (in this or another order) as the gallery's set b/b1: give each burst once"},
		{[]NewSet{{"b", "b3", reversedRows(b)}}, "b/b3: the same frames (in this or another order) as the gallery's set b/b1"},
		{[]NewSet{{"c", "c1", b2}, {"c", "c2", b2}}, "c/c2: the same frames (in this or another order) as the set given c/c1"},
		{[]NewSet{{"c", "c1", set(0)}, {"c", "c1", set(0)}}, "is given twice"},
		{[]NewSet{{"c", "c1", set(0)}, {"c", "c2", mat.NewDense(5, 4, nil)}}, "model expects 6"},
		{[]NewSet{{"c", "c1", mat.NewDense(1, 6, nil)}}, "c/c1: 1 frame: a set's density needs at least 2 frames"},
		{[]NewSet{{"c", "c1", nil}}, "0 frame"},
	} {
		before := len(m.Sets)
		_, err := m.WithSets(c.sets)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WithSets(%d sets): err = %v, want it to mention %q", len(c.sets), err, c.want)
		}
		if len(m.Sets) != before {
			t.Errorf("WithSets(%d sets) failed but changed the gallery", len(c.sets))
		}
	}
	// Frames a KDE cannot take, under a bandwidth they do not decide (a
	// fixed one): the set's fault, said of the set, before the model is
	// validated whole.
	fixed := *m
	fixed.QueryBandwidth = match.BandwidthRule{Kind: match.Fixed, Fixed: 1}
	huge := set(0)
	huge.Scale(1e200, huge)
	if _, err := fixed.WithSets([]NewSet{{"c", "c1", huge}}); err == nil || !strings.HasPrefix(err.Error(), "set c/c1: values too large for the squared distances of a KDE") {
		t.Errorf("WithSets of frames too large for a KDE: %v", err)
	}
	// A class a model file holds under a name no folder can have still
	// takes more sets; only a new class must be named as a folder can be.
	odd := *m
	odd.Sets = slices.Clone(m.Sets)
	odd.Sets[0].Label = "a/b"
	if _, err := odd.WithSets([]NewSet{{"a/b", "a9", set(0)}}); err != nil {
		t.Errorf("more sets of the class a/b the model holds: %v", err)
	}
}

// TestWithSetsVote: a vote's members all take the new sets (each
// projected by its own W) and all lose the forgotten ones; both keep
// every member's record of training's choice (its cross-validated
// accuracies and times); the model is left as it was; forgetting stops
// at two classes.
func TestWithSetsVote(t *testing.T) {
	m := goldenModel(t)
	rng := rand.New(rand.NewPCG(9, 10))
	x1, x2 := testutil.RandSet(rng, 7, 6, 5, 1), testutil.RandSet(rng, 8, 6, 5, 1)
	next, err := m.WithSets([]NewSet{{"d", "d1", x1}, {"d", "d2", x2}})
	if err != nil {
		t.Fatal(err)
	}
	for i, mem := range next.Members() {
		if len(mem.Sets) != 8 || mem.Sets[7].Name != "d2" {
			t.Fatalf("member %d: %d sets", i+1, len(mem.Sets))
		}
		y, _ := mem.Project(x2)
		if !mat.Equal(mem.Sets[7].Samples, y) {
			t.Errorf("member %d: the new set is not its own projection", i+1)
		}
	}
	for i, mem := range m.Members() {
		if len(mem.Sets) != 6 {
			t.Errorf("member %d of the model added to: %d sets", i+1, len(mem.Sets))
		}
	}
	enrolled := next
	next, n, err := next.WithoutSets(func(s Set) bool { return s.Label == "b" })
	if err != nil || n != 2 {
		t.Fatalf("forget b: %d sets, %v", n, err)
	}
	for i, mem := range next.Members() {
		if len(mem.Sets) != 6 {
			t.Fatalf("member %d after forgetting: %d sets", i+1, len(mem.Sets))
		}
		for _, s := range mem.Sets {
			if s.Label == "b" {
				t.Errorf("member %d still holds %s", i+1, s.Name)
			}
		}
	}
	for _, after := range []*Model{enrolled, next} {
		for i, mem := range after.Members() {
			if was := m.Members()[i].Selection; !mfSameSelection(mem.Selection, was) {
				t.Errorf("member %d: selection %+v after a change, %+v before", i+1, mem.Selection, was)
			}
		}
	}
	if math.IsNaN(m.Selection.CVAccuracy) || len(m.Selection.Candidates) == 0 {
		t.Fatalf("the model's selection %+v: no figures to keep, the test tests nothing", m.Selection)
	}

	// Down to two classes, and no further.
	if next, _, err = next.WithoutSets(func(s Set) bool { return s.Label == "a" }); err != nil {
		t.Fatal(err)
	}
	if _, _, err := next.WithoutSets(func(s Set) bool { return s.Label == "c" }); !errors.Is(err, ErrTooFewClasses) || !strings.Contains(err.Error(), "setmatch train") {
		t.Errorf("forgetting the second last class: %v", err)
	}
	if _, _, err := next.WithoutSets(func(s Set) bool { return s.Label == "zz" }); err == nil || !strings.Contains(err.Error(), "no gallery set") {
		t.Errorf("forgetting nothing: %v", err)
	}
}

// TestRecordHistory: the changes recorded in a model's history come back
// from its file.
func TestRecordHistory(t *testing.T) {
	m := goldenModel(t)
	m.Record(time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC), ChangeEnroll, 2)
	m.Record(time.Date(2027, 1, 3, 3, 4, 5, 0, time.UTC), ChangeForget, 1)
	back, _ := mfRoundTrip(t, m)
	if h := back.Meta.History; len(h) != 2 || h[0].Op != ChangeEnroll || h[0].Sets != 2 || h[0].Classes != 3 || h[1].Op != ChangeForget || h[1].Sets != 1 || !h[1].Time.Equal(time.Date(2027, 1, 3, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("history read back: %+v", h)
	}
}

// reversedRows returns x's rows in the reverse order.
func reversedRows(x *mat.Dense) *mat.Dense {
	r, c := x.Dims()
	y := mat.NewDense(r, c, nil)
	for i := range r {
		y.SetRow(r-1-i, x.RawRowView(i))
	}
	return y
}

// TestChangesOfOneModelAreIndependent: two changes made from the same
// model (a program may make several from the model it holds) hold
// galleries and histories of their own: adding a set to, or recording a
// change in, one copy does not change the other copy or the model, even
// where the model's slices have room to grow in place.
func TestChangesOfOneModelAreIndependent(t *testing.T) {
	m := mfModel(43, 6, 3, []int{5, 4, 6})
	m.Sets = append(make([]Set, 0, 8), m.Sets...)
	m.Meta.History = append(make([]Change, 0, 8), Change{Time: time.Unix(1, 0).UTC(), Op: ChangeEnroll, Sets: 1, Classes: 3})
	rng := rand.New(rand.NewPCG(43, 44))
	batch := func(shift float64) *mat.Dense { return mfBatch(rng, m, 7, shift) }
	one, err := m.WithSets([]NewSet{{"a", "one", batch(0)}})
	if err != nil {
		t.Fatal(err)
	}
	one.Record(time.Unix(2, 0), ChangeEnroll, 1)
	two, err := m.WithSets([]NewSet{{"b", "two", batch(3)}})
	if err != nil {
		t.Fatal(err)
	}
	two.Record(time.Unix(3, 0), ChangeEnroll, 1)
	if n := len(one.Sets); n != 4 || one.Sets[3].Name != "one" || len(two.Sets) != 4 || two.Sets[3].Name != "two" || len(m.Sets) != 3 {
		t.Errorf("galleries: %d sets, the last %q; %d sets, the last %q; the model's %d", n, one.Sets[n-1].Name, len(two.Sets), two.Sets[len(two.Sets)-1].Name, len(m.Sets))
	}
	if h := one.Meta.History; len(h) != 2 || !h[1].Time.Equal(time.Unix(2, 0)) {
		t.Errorf("the first copy's history %+v, want its own enrolment last", h)
	}
	if len(m.Meta.History) != 1 {
		t.Errorf("the model's history changed: %+v", m.Meta.History)
	}
	two.Sets[0].Bandwidth = 99
	if m.Sets[0].Bandwidth == 99 || one.Sets[0].Bandwidth == 99 {
		t.Error("changing a set of one copy changed the model's or the other copy's")
	}
}
