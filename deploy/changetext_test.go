package deploy

import (
	"math"
	"strings"
	"testing"

	"setmatch/model"
)

// TestChangeWrite: a refit, a recentring, the margins of new sets (one
// with no other set of its class, one nearer another class) and the rule
// of the threshold, every line under the command's name; and what a
// model without a projection or pipeline keeps.
func TestChangeWrite(t *testing.T) {
	res, _ := buildNNH(t, nil)
	c := &Change{Rule: "auto:balanced", RuleDefault: true, Threshold: "0.5", Members: []MemberChange{{Method: "nn-h", Refitted: true, Discriminant: "k", Recentred: true,
		Margins: []Margin{{Label: "d", Name: "x", Own: math.NaN(), Other: 0.25, OtherLabel: "a"}, {Label: "a", Name: "y", Own: 2, OwnName: "s", Other: 1, OtherLabel: "b"}}}}}
	var b strings.Builder
	if err := c.Write(&b, "enroll", res.Model); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := `enroll: nn-h: kFDA fitted again on the new gallery (k)
enroll: nn-h: the centre it subtracts from frames is now that of the sets its gallery keeps (the median of their mean frames)
enroll: nn-h: how far each new set is from its class and from the others (nearest-neighbour hellinger divergence in its space; margin = other − own, above 0 the set is nearer its own class)
enroll:   d/x: own class none (no other set of its class), other class 0.25 (a)
enroll:   a/y: own class 2 (s), other class 1 (b), margin -1: nearer another class than its own: check that the label is right; if it is, a model trained again with these sets may tell them apart better
enroll: threshold by auto:balanced (the model records no rule, being older than that record: train's default): 0.5
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if k := Kept(res.Model); len(k) != 1 || !strings.HasPrefix(k[0], "the method and its hyper-parameters") {
		t.Errorf("kept %q, want only the method", k)
	}
}

// TestChangeWriteWithinThreshold: a new class's only set that another
// class's threshold (times its factor) would take is flagged, as the
// same person enrolled again under another label may be; one beyond it,
// or under a closed set's threshold, is not.
func TestChangeWriteWithinThreshold(t *testing.T) {
	res, _ := buildNNH(t, nil)
	m := *res.Model
	m.Spread = &model.Spread{Factors: map[string]float64{"b": 2}}
	const warn = ": within the threshold of class "
	for _, tc := range []struct {
		threshold, other float64
		label            string
		want             string
	}{
		{0.5, 0.25, "a", "enroll:   d/x: own class none (no other set of its class), other class 0.25 (a): within the threshold of class a (0.5): a burst like it may be named a: check that this person or object is not enrolled already as a\n"},
		{0.5, 0.75, "a", ""},
		{0.5, 0.75, "b", "within the threshold of class b (1)"},
		{math.Inf(1), 0.25, "a", ""},
	} {
		m.Threshold = tc.threshold
		c := &Change{Rule: "none", Threshold: "t", Members: []MemberChange{{Method: "nn-h",
			Margins: []Margin{{Label: "d", Name: "x", Own: math.NaN(), Other: tc.other, OtherLabel: tc.label}}}}}
		var b strings.Builder
		if err := c.Write(&b, "enroll", &m); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); (tc.want == "") == strings.Contains(got, warn) || !strings.Contains(got, tc.want) {
			t.Errorf("threshold %v, other class %s at %v: got\n%s\nwant it to contain %q", tc.threshold, tc.label, tc.other, got, tc.want)
		}
	}
}

// TestChangeWriteMoved: how far the threshold moved, and what a move of a
// tenth or more does at the door; nothing for a threshold that stayed or
// a closed set.
func TestChangeWriteMoved(t *testing.T) {
	res, _ := buildNNH(t, nil)
	for _, tc := range []struct {
		before, after float64
		want          string
	}{
		{0.754, 0.864, "forget: threshold 0.754 → 0.864 (+15%): the door is looser"},
		{0.788, 0.690, "forget: threshold 0.788 → 0.69 (-12%): the door is stricter"},
		{0.8, 0.82, "forget: threshold 0.8 → 0.82 (+2%)\n"},
		// A move under 1% in tenths, with its sign: a fall never reads
		// as a rise; a rounding error is 0%.
		{0.7524993376660223, 0.7524993376660221, "forget: threshold 0.7525 → 0.7525 (0%)\n"},
		{0.8, 0.7977, "forget: threshold 0.8 → 0.7977 (-0.3%)\n"},
		{0.8, 0.8023, "forget: threshold 0.8 → 0.8023 (+0.3%)\n"},
		{0.8, 0.7959, "forget: threshold 0.8 → 0.7959 (-0.5%)\n"},
		{0.8, 0.7919, "forget: threshold 0.8 → 0.7919 (-1%)\n"},
		{0.8, 0.8, ""},
		{math.Inf(1), math.Inf(1), ""},
	} {
		c := &Change{Rule: "auto:balanced", Threshold: "t", Members: []MemberChange{{Method: "nn-h", Threshold: tc.after}}, Before: []float64{tc.before}}
		var b strings.Builder
		if err := c.Write(&b, "forget", res.Model); err != nil {
			t.Fatal(err)
		}
		_, moved, _ := strings.Cut(b.String(), "(the rule the model was trained with): t\n")
		if (tc.want == "" && moved != "") || !strings.HasPrefix(moved, tc.want) {
			t.Errorf("%v → %v: %q, want it to begin %q", tc.before, tc.after, moved, tc.want)
		}
	}
}

// TestKeptFigures: what forget keeps names the cross-validated figures
// exactly where the model records some (model.Selection.Measured): its
// accuracy, or a candidate's accuracy or time.
func TestKeptFigures(t *testing.T) {
	res, _ := buildNNH(t, nil)
	m := *res.Model
	for _, tc := range []struct {
		name string
		sel  func(*model.Selection)
		want bool
	}{
		{"none", func(s *model.Selection) { s.CVAccuracy, s.Candidates = math.NaN(), nil }, false},
		{"unscored candidate", func(s *model.Selection) {
			s.CVAccuracy, s.Candidates = math.NaN(), []model.Candidate{{Name: "nn-h", CVAccuracy: math.NaN()}}
		}, false},
		{"accuracy", func(s *model.Selection) { s.CVAccuracy, s.Candidates = 0.9, nil }, true},
		{"a candidate's time", func(s *model.Selection) {
			s.CVAccuracy, s.Candidates = math.NaN(), []model.Candidate{{Name: "nn-h", CVAccuracy: math.NaN(), Seconds: 0.5}}
		}, true},
	} {
		m.Selection = res.Model.Selection
		tc.sel(&m.Selection)
		k := Kept(&m)
		got := len(k) == 1 && strings.Contains(k[0], "the cross-validated accuracies and times of that choice")
		if len(k) != 1 || got != tc.want {
			t.Errorf("%s: kept %q, want the figures named: %v", tc.name, k, tc.want)
		}
	}
}

// TestChangeWriteBandwidth: a forget that computed the global bandwidth
// again says from what to what, as it says of the threshold.
func TestChangeWriteBandwidth(t *testing.T) {
	res, _ := buildNNH(t, nil)
	m := *res.Model
	m.QueryBandwidth.Fixed = 0.8786
	c := &Change{Rule: "auto:balanced", Threshold: "t", Members: []MemberChange{{Method: "nn-h", Bandwidth: true, BandwidthBefore: 0.8638}}}
	var b strings.Builder
	if err := c.Write(&b, "forget", &m); err != nil {
		t.Fatal(err)
	}
	if want := "forget: nn-h: its global bandwidth (one for every gallery set and batch) is computed again from the sets it keeps: 0.8638 → 0.8786\n"; !strings.Contains(b.String(), want) {
		t.Errorf("got\n%s\nwant a line %q", b.String(), want)
	}
}
