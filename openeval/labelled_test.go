package openeval

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/model"
)

// TestTest: every set is decided in the order of class and name, a set
// that could not be read counts as failed (wrong), a set of a class the
// model lacks is right when rejected, and the counts, the confusion
// table and the threshold-free rates follow the matcher's decisions; a
// set's threshold is its nearest class's, by the deciding member.
func TestTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m, _, err := model.ReadFile(filepath.Join("..", "model", "testdata", "format-v7.smm"))
	if err != nil {
		t.Fatal(err)
	}
	mt, err := m.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	sets := []Labelled{
		{Class: "zz", Name: "s0", Frames: testutil.RandSet(rng, 6, m.InputDim(), 0, 1)},
		{Class: "a", Name: "s1", Frames: testutil.RandSet(rng, 6, m.InputDim(), 0, 1)},
		{Class: "b", Name: "s2", Frames: testutil.RandSet(rng, 6, m.InputDim(), 1, 1)},
		{Class: "a", Name: "s0", Err: errors.New("unreadable")},
	}
	r := Test(mt, sets)
	order := []string{"a/s0", "a/s1", "b/s2", "zz/s0"}
	if len(r.PerSet) != len(order) {
		t.Fatalf("%d sets decided, want %d", len(r.PerSet), len(order))
	}
	correct, rejected := 0, 0
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
}

// TestWriteJSONNames: names that are not valid UTF-8 and would read
// alike with U+FFFD in place of their bad bytes are written apart, in
// per_set and as per_class's keys, each with its exact bytes in base64;
// a valid name is written as it is, without them. The text table names
// the classes as the JSON does.
func TestWriteJSONNames(t *testing.T) {
	m, _, err := model.ReadFile(filepath.Join("..", "model", "testdata", "format-v7.smm"))
	if err != nil {
		t.Fatal(err)
	}
	mt, err := m.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	set := func() *mat.Dense { return testutil.RandSet(rng, 6, m.InputDim(), 0, 1) }
	sets := []Labelled{
		{Class: "x\xff", Name: "s", Frames: set()},
		{Class: "x\xfe", Name: "s", Frames: set()},
		{Class: "a", Name: "p\xff", Frames: set()},
		{Class: "a", Name: "p\xfe", Frames: set()},
		{Class: "a", Name: `q\r`, Frames: set()},
	}
	r := Test(mt, sets)
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		PerClass map[string]struct {
			Sets     int    `json:"sets"`
			ClassB64 string `json:"class_b64"`
		} `json:"per_class"`
		PerSet []struct {
			Class string `json:"class"`
			Set   string `json:"set"`
		} `json:"per_set"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		PerSet []map[string]any `json:"per_set"`
	}
	if err := json.Unmarshal(b.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	bytesOf := func(rec map[string]any, field, text string) string {
		t.Helper()
		v, ok := rec[field+"_b64"]
		if !ok {
			return text // valid UTF-8: the text is the name
		}
		s, _ := v.(string)
		d, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("%s_b64 %q: %v", field, s, err)
		}
		return string(d)
	}
	seen := map[string]bool{}
	want := map[string]string{"x\xff/s": `x\xff/s`, "x\xfe/s": `x\xfe/s`, "a/p\xff": `a/p\xff`, "a/p\xfe": `a/p\xfe`, `a/q\r`: `a/q\r`}
	for i, rec := range raw.PerSet {
		class, set := got.PerSet[i].Class, got.PerSet[i].Set
		name := bytesOf(rec, "class", class) + "/" + bytesOf(rec, "set", set)
		if w, ok := want[name]; !ok || class+"/"+set != w {
			t.Errorf("per_set %d: %s/%s (bytes %q), want one of %q", i, class, set, name, want)
		}
		if seen[name] {
			t.Errorf("per_set %d: %q twice", i, name)
		}
		seen[name] = true
		for _, f := range []string{"class", "set"} {
			_, b64 := rec[f+"_b64"]
			if named := bytesOf(rec, f, rec[f].(string)); b64 == utf8.ValidString(named) {
				t.Errorf("per_set %d: %s %q, %s_b64 given: %v", i, f, named, f, b64)
			}
		}
	}
	if len(seen) != len(sets) {
		t.Errorf("%d sets written apart, want %d", len(seen), len(sets))
	}
	for key, w := range map[string]string{`x\xff`: "x\xff", `x\xfe`: "x\xfe", "a": ""} {
		row, ok := got.PerClass[key]
		if !ok {
			t.Errorf("per_class has no %q: %v", key, got.PerClass)
			continue
		}
		if d, _ := base64.StdEncoding.DecodeString(row.ClassB64); string(d) != w {
			t.Errorf("per_class %q: class_b64 %q, want the bytes %q", key, row.ClassB64, w)
		}
	}
	if len(got.PerClass) != 3 {
		t.Errorf("per_class: %d classes, want 3", len(got.PerClass))
	}
	var tb bytes.Buffer
	if err := r.WriteTable(&tb); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{`x\xff `, `x\xfe `} {
		if !strings.Contains(tb.String(), "\n"+c) {
			t.Errorf("the table has no class %q:\n%s", c, tb.String())
		}
	}
}
