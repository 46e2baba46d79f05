package deploy

import (
	"math"
	"strings"
	"testing"

	"setmatch/method"
)

// TestChangeWrite: a refit, a recentring, the margins of new sets (one
// with no other set of its class, one nearer another class) and the rule
// of the threshold, every line under the command's name; and what a
// model without a projection or pipeline keeps.
func TestChangeWrite(t *testing.T) {
	sets, ids := data(3)
	labels, names := make([]string, len(sets)), make([]string, len(sets))
	for i, c := range ids {
		labels[i], names[i] = []string{"a", "b", "c"}[c], "s"
	}
	res, err := Build(sets, labels, names, Options{Method: method.NNH, Grid: grid(), Seed: 1, Workers: 1, Threshold: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	c := &Change{Rule: "auto:balanced", RuleDefault: true, Threshold: "0.5", Members: []MemberChange{{Method: "nn-h", Refitted: true, Discriminant: "k", Recentred: true,
		Margins: []Margin{{Label: "d", Name: "x", Own: math.NaN(), Other: 0.25, OtherLabel: "a"}, {Label: "a", Name: "y", Own: 2, OwnName: "s", Other: 1, OtherLabel: "b"}}}}}
	var b strings.Builder
	if err := c.Write(&b, "enroll", res.Model); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"enroll: nn-h: kFDA fitted again on the new gallery (k)\n",
		"enroll: nn-h: the mean it centres frames by is now that of the frames its gallery keeps\n",
		"enroll:   d/x: own class none (no other set of its class), other class 0.25 (a)\n",
		"enroll:   a/y: own class 2 (s), other class 1 (b), margin -1: nearer another class than its own",
		"enroll: threshold by auto:balanced (the model records no rule, being older than that record: train's default): 0.5\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(line, "enroll: ") {
			t.Errorf("line %q without the command", line)
		}
	}
	if k := Kept(res.Model); len(k) != 1 || !strings.HasPrefix(k[0], "the method and its hyper-parameters") {
		t.Errorf("kept %q, want only the method", k)
	}
}
