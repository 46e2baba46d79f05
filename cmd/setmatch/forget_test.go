package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"setmatch/model"
	"setmatch/modelinfo"
)

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }

// TestForgetCommand: a class is removed from a kFDA model (its
// discriminant fitted again, the threshold recalibrated by the model's
// rule), the file names it no more, inspect shows the change in the
// history; one set by name; the usage errors and the last two classes.
func TestForgetCommand(t *testing.T) {
	data := evalData(t, 4, 3)
	mpath := filepath.Join(t.TempDir(), "m.smm")
	if code, _, stderr := run("train", "--method", "kfda-hg", "--data", data, "--out", mpath); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "forgot.smm")
	code, stdout, stderr := run("forget", "--model", mpath, "--label", "class2", "--out", out)
	if code != 0 {
		t.Fatalf("forget: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"forget: removed every set of class class2 (3) from the gallery",
		"kFDA fitted again on the new gallery",
		"threshold by auto:balanced (the rule the model was trained with)",
		"train the model again on data without them",
		// What setmatchd does with a pin of the class (device.Runner.Reload).
		"gives class class2 a pin (gpio.label_pins), the daemon takes this model at once and warns that the pin does not pulse",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "9 gallery sets, 3 classes") {
		t.Errorf("stdout %q", stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("class2")) {
		t.Error("the model file still names the forgotten class")
	}
	m, _, err := model.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Sets) != 9 || m.Discriminant.Solution.Alpha.RawMatrix().Rows != 9 {
		t.Fatalf("%d sets", len(m.Sets))
	}
	code, stdout, _ = run("inspect", "--json", out)
	var s modelinfo.Summary
	if code != 0 || json.Unmarshal([]byte(stdout), &s) != nil || len(s.History) != 1 || s.History[0].Op != "forget" || s.History[0].Sets != 3 || s.History[0].Classes != 3 {
		t.Errorf("inspect --json: %s", stdout)
	}

	// One set, in place.
	if code, _, stderr := run("forget", "--model", out, "--label", "class0", "--set", "s1"); code != 0 || !strings.Contains(stderr, "removed set s1 of class class0") {
		t.Fatalf("forget --set: exit %d\n%s", code, stderr)
	}
	if m, _, _ := model.ReadFile(out); len(m.Sets) != 8 || len(m.Meta.History) != 2 {
		t.Errorf("after forgetting one set: %d sets, history %+v", len(m.Sets), m.Meta.History)
	}
	if code, _, stderr := run("forget", "--model", out, "--label", "class0"); code != 0 {
		t.Fatalf("forget class0: exit %d\n%s", code, stderr)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"forget", "--label", "x"}, 2, "--model is required"},
		{[]string{"forget", "--model", out}, 2, "--label is required"},
		{[]string{"forget", "--model", out, "--label", "x", "extra"}, 2, "takes no arguments"},
		{[]string{"forget", "--model", out, "--label", "nobody"}, 1, `no set of class "nobody"`},
		{[]string{"forget", "--model", out, "--label", "class1", "--set", "s9"}, 1, `no set named "s9" (its sets: "s0", "s1", "s2")`},
		{[]string{"forget", "--model", out, "--label", "class1"}, 1, "a model needs at least 2 classes"},
	} {
		code, _, stderr := run(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d mentioning %q", c.args[1:], code, stderr, c.code, c.want)
		}
	}
	if m, _, _ := model.ReadFile(out); len(m.Classes()) != 2 {
		t.Errorf("%d classes left", len(m.Classes()))
	}
}
