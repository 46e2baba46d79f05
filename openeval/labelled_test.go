package openeval

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/model"
	"setmatch/openset"
)

// TestTest: every set is decided in the order of class and name, a set
// that could not be read counts as failed (wrong), a set of a class the
// model lacks is right when rejected, and the counts, the confusion
// table and the threshold-free rates follow the matcher's decisions; a
// set's threshold is its nearest class's, by the deciding member.
func TestTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m, mt := goldenMatcher(t)
	sets := []Labelled{
		{Class: "zz", Name: "s0", Frames: testutil.RandSet(rng, 6, m.InputDim(), 0, 1)},
		{Class: "a", Name: "s1", Frames: testutil.RandSet(rng, 6, m.InputDim(), 0, 1)},
		{Class: "b", Name: "s2", Frames: testutil.RandSet(rng, 6, m.InputDim(), 1, 1)},
		{Class: "a", Name: "s0", Err: errors.New("unreadable")},
	}
	r, err := Test(mt, sets)
	if err != nil {
		t.Fatal(err)
	}
	order := []string{"a/s0", "a/s1", "b/s2", "zz/s0"}
	if len(r.PerSet) != len(order) {
		t.Fatalf("%d sets decided, want %d", len(r.PerSet), len(order))
	}
	correct, rejected := 0, 0
	var samples []openset.Sample
	for i, one := range r.PerSet {
		if got := one.Class + "/" + one.Set; got != order[i] {
			t.Errorf("set %d is %s, want %s", i, got, order[i])
		}
		if i == 0 {
			if one.Decision != "failed" || one.Error != "unreadable" {
				t.Errorf("the unreadable set: decided %q, error %q", one.Decision, one.Error)
			}
			continue
		}
		res, err := mt.Match(sets[map[string]int{"a/s1": 1, "b/s2": 2, "zz/s0": 0}[order[i]]].Frames)
		if err != nil {
			t.Fatal(err)
		}
		want := model.Unknown
		if res.Decision.Known {
			want = res.Decision.Label
		}
		if one.Decision != want || one.Votes == nil {
			t.Errorf("%s: decided %q (votes %v), matcher %q", order[i], one.Decision, one.Votes, want)
		}
		member := m.Members()[res.Member]
		if th := member.ClassThreshold(res.Votes[res.Member]); one.Threshold == nil || *one.Threshold != th {
			t.Errorf("%s: threshold %v, want %v (member %d's, class %s)", order[i], one.Threshold, th, res.Member, res.Votes[res.Member])
		}
		samples = append(samples, Sample(mt, res, one.Class, one.Class == "zz"))
		if (one.Class == "zz" && want == model.Unknown) || want == one.Class {
			correct++
		}
		if one.Class == "zz" && want == model.Unknown {
			rejected++
		}
	}
	if r.Sets != 4 || r.Failed != 1 || r.Unknown != 1 || r.Correct != correct || r.PerClass["zz"].Known || !r.PerClass["a"].Known || r.PerClass["a"].Sets != 2 {
		t.Errorf("report %+v", r)
	}
	if r.BalancedAccuracy == nil || *r.BalancedAccuracy != 50*(float64(correct-rejected)/3+float64(rejected)) {
		t.Errorf("balanced accuracy %v, %d right of which %d rejected strangers", r.BalancedAccuracy, correct, rejected)
	}
	if r.OpenSet == nil || !r.OpenSet.Approximate || r.Threshold != nil || len(r.Thresholds) != len(r.Members) || !r.ClassThresholds {
		t.Errorf("open set %+v, threshold %v, thresholds %v", r.OpenSet, r.Threshold, r.Thresholds)
	}
	// The threshold-free rates are those of the decided sets, the set of
	// the class the model lacks (zz) the stranger's.
	if f, err := openset.Free(samples); err != nil || r.OpenSet == nil || r.OpenSet.ThresholdFree != f {
		t.Errorf("threshold-free rates %+v, want %+v (%v)", r.OpenSet, f, err)
	}
}

// TestReportCounts: each outcome counts once, by what went wrong: a known
// set kept out (known_rejected), one named as another class
// (misclassified), a stranger's let in (unknown_accepted), a set that
// failed as none of these; a stranger's set kept out is right; and the
// balanced accuracy weighs the known sets named right against the
// strangers' kept out.
func TestReportCounts(t *testing.T) {
	s := &Report{PerClass: map[string]ClassOutcome{}}
	for _, c := range []struct {
		class, decision string
		known, failed   bool
	}{
		{"a", "a", true, false},
		{"a", model.Unknown, true, false},
		{"b", "a", true, false},
		{"a", model.Failed, true, true},
		{"zz", model.Unknown, false, false},
		{"zz", "b", false, false},
	} {
		s.count(SetOutcome{Class: c.class, Decision: c.decision}, c.known, c.failed)
	}
	s.finish()
	if s.Sets != 6 || s.Unknown != 2 || s.Correct != 2 || s.KnownRejected != 1 || s.Misclassified != 1 || s.UnknownAccepted != 1 {
		t.Errorf("%d sets, %d of strangers, %d right, %d known kept out, %d misclassified, %d strangers let in; want 6, 2, 2, 1, 1, 1",
			s.Sets, s.Unknown, s.Correct, s.KnownRejected, s.Misclassified, s.UnknownAccepted)
	}
	// 1 of 4 known sets named right, 1 of 2 strangers' kept out.
	if b := s.BalancedAccuracy; b == nil || *b != 50*(1.0/4+1.0/2) {
		t.Errorf("balanced accuracy %v, want %v", b, 50*(1.0/4+1.0/2))
	}
	if a := s.PerClass["zz"]; a.Known || a.Sets != 2 || a.Correct != 1 || a.Accuracy != 50 {
		t.Errorf("the strangers' class: %+v", a)
	}
}

// goldenMatcher returns the golden model of format 7 (model/testdata) and
// its matcher.
func goldenMatcher(t *testing.T) (*model.Model, *model.Matcher) {
	t.Helper()
	m, _, err := model.ReadFile(filepath.Join("..", "model", "testdata", "format-v7.smm"))
	if err != nil {
		t.Fatal(err)
	}
	mt, err := m.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	return m, mt
}

// TestWriteJSONNames: every name is written as JSON writes it (U+FFFD
// for a bad byte), and a name that is not valid UTF-8 has its exact bytes
// in base64 beside it (class_b64, set_b64), a valid one none; so names
// that read alike, a valid name holding a backslash (`x\xff`) and the
// name x followed by the byte 0xff, or two names whose bad bytes differ,
// or a valid name holding U+FFFD itself, are told apart, in per_set and
// in per_class, whose keys (a valid name's own, else text/base64) never
// put one class's row in place of another's. The text table names every
// class apart, Go-quoted where it is not valid UTF-8 or holds a backslash.
func TestWriteJSONNames(t *testing.T) {
	m, mt := goldenMatcher(t)
	rng := rand.New(rand.NewPCG(9, 10))
	set := func() *mat.Dense { return testutil.RandSet(rng, 6, m.InputDim(), 0, 1) }
	classes := []string{`x\xff`, "x\xff", "x\xfe", "x\ufffd", "a"}
	var sets []Labelled
	for _, c := range classes {
		sets = append(sets, Labelled{Class: c, Name: "s", Frames: set()})
	}
	for _, n := range []string{`p\xff`, "p\xff", "p\xfe", "p\ufffd"} {
		sets = append(sets, Labelled{Class: "a", Name: n, Frames: set()})
	}
	r, err := Test(mt, sets)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		PerClass map[string]map[string]any `json:"per_class"`
		PerSet   []map[string]any          `json:"per_set"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// name reads the name a record gives in field (or text, a key): the
	// bytes of field_b64 where there is one, else the text. The text is
	// the name as JSON writes it, and field_b64 is there for exactly the
	// names that are not valid UTF-8.
	name := func(where string, rec map[string]any, field, text string) string {
		t.Helper()
		v, ok := rec[field+"_b64"]
		if !ok {
			return text // valid UTF-8, or the name is lost: below
		}
		s, _ := v.(string)
		d, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("%s: %s_b64 %q: %v", where, field, s, err)
		}
		if utf8.Valid(d) {
			t.Errorf("%s: %s_b64 %q for the valid name %q", where, field, s, d)
		}
		return string(d)
	}
	seen := map[[2]string]bool{}
	for i, rec := range got.PerSet {
		where := fmt.Sprint("per_set ", i)
		class, _ := rec["class"].(string)
		setName, _ := rec["set"].(string)
		id := [2]string{name(where, rec, "class", class), name(where, rec, "set", setName)}
		if class != string([]rune(id[0])) || setName != string([]rune(id[1])) {
			t.Errorf("%s: class %q and set %q, want the names %q as JSON writes them (U+FFFD for a bad byte)", where, class, setName, id)
		}
		if seen[id] {
			t.Errorf("%s: %q twice", where, id)
		}
		seen[id] = true
	}
	for _, l := range sets {
		if !seen[[2]string{l.Class, l.Name}] {
			t.Errorf("per_set has no %q/%q", l.Class, l.Name)
		}
	}
	wantSets := map[string]int{}
	for _, l := range sets {
		wantSets[l.Class]++
	}
	gotSets := map[string]int{}
	for key, row := range got.PerClass {
		c := name("per_class "+key, row, "class", key)
		n, _ := row["sets"].(float64)
		gotSets[c] += int(n)
		if _, ok := row["class_b64"]; ok && key != string([]rune(c))+"/"+row["class_b64"].(string) {
			t.Errorf("per_class key %q, want its text, a slash and its class_b64", key)
		}
	}
	if len(got.PerClass) != len(classes) || fmt.Sprint(gotSets) != fmt.Sprint(wantSets) {
		t.Errorf("per_class: the classes' sets %v, want %v (keys %q)", gotSets, wantSets, slices.Collect(maps.Keys(got.PerClass)))
	}
	var tb bytes.Buffer
	if err := r.WriteTable(&tb); err != nil {
		t.Fatal(err)
	}
	// Every class on a line of its own, as it reads: quoted where it is
	// not valid UTF-8 or holds a backslash, so the valid `x\xff` and the
	// bytes x, 0xff read apart.
	for _, c := range []string{`x\\xff `, `x\xff `, `x\xfe `, "x\ufffd ", "a "} {
		if strings.Count(tb.String(), "\n"+c) != 1 {
			t.Errorf("the table has not one class %q:\n%s", c, tb.String())
		}
	}
}

// TestWriteJSONSharedKey: two classes on one per_class key, which folder
// names cannot give (the key of an invalid name holds a slash), are an
// error, not one row in place of the other.
func TestWriteJSONSharedKey(t *testing.T) {
	r := &Report{PerClass: map[string]ClassOutcome{"x\xff": {Sets: 1}, "x\ufffd/eP8=": {Sets: 2}}}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err == nil || !strings.Contains(err.Error(), "x\ufffd/eP8=") {
		t.Errorf("WriteJSON: %v, want an error naming the key\n%s", err, b.String())
	}
}

// TestWriteTableDecidedAs: the labels a class was decided as read as the
// class column reads a name, a backslash quoted, so that a class and
// the label it was decided as read alike.
func TestWriteTableDecidedAs(t *testing.T) {
	r := &Report{PerClass: map[string]ClassOutcome{
		`back\slash`: {Known: true, Sets: 2, Correct: 2, Accuracy: 100, Predicted: map[string]int{`back\slash`: 2}},
	}}
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `back\\slash×2`) {
		t.Errorf("the table does not quote the label decided as the class column does:\n%s", b.String())
	}
}

// TestTestNoSets: with no sets there is no accuracy (0 of 0 would be
// NaN, which encoding/json cannot write): Test refuses with ErrNoSets,
// where it returned a report whose JSON failed to encode.
func TestTestNoSets(t *testing.T) {
	_, mt := goldenMatcher(t)
	for _, sets := range [][]Labelled{nil, {}} {
		r, err := Test(mt, sets)
		if !errors.Is(err, ErrNoSets) || r != nil {
			t.Errorf("%d sets: report %v, error %v; want none, and ErrNoSets", len(sets), r, err)
		}
	}
}

// TestSample: a probe's sample is its score divided by the factor of its
// nearest class's threshold (the score as it is where there is none), a
// stranger's as asked, and right where its nearest label (a vote's:
// the deciding member's) is its class.
func TestSample(t *testing.T) {
	_, mt := goldenMatcher(t)
	first := mt.Labels()[0]
	for _, c := range []struct {
		name     string
		res      model.Result
		class    string
		stranger bool
		want     openset.Sample
	}{
		{"a factor", model.Result{Decision: model.Decision{Best: 0, Score: 3}, Factor: 2}, first, false, openset.Sample{Score: 1.5, Right: true}},
		{"no factor", model.Result{Decision: model.Decision{Best: 0, Score: 3}}, "elsewhere", true, openset.Sample{Score: 3, Stranger: true}},
		{"a vote", model.Result{Decision: model.Decision{Best: 0, Score: 4}, Factor: 4, Votes: []string{first, "other"}, Member: 1}, "other", false, openset.Sample{Score: 1, Right: true}},
	} {
		if got := Sample(mt, c.res, c.class, c.stranger); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestNameText: a name is written as it is unless it is not UTF-8, holds
// a backslash or a character that does not print; then Go quotes it,
// so that no name breaks the table or reads as another.
func TestNameText(t *testing.T) {
	for in, want := range map[string]string{
		"alice":        "alice",
		"Ana María":    "Ana María",
		"a\nb":         `a\nb`,
		"a\tb":         `a\tb`,
		"a\\nb":        `a\\nb`,
		"caf\xff":      `caf\xff`,
		"zero\u200bsp": `zero\u200bsp`,
	} {
		if got := NameText(in); got != want {
			t.Errorf("NameText(%q) = %q, want %q", in, got, want)
		}
	}
}
