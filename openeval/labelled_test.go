package openeval

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"testing"

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
