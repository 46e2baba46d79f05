package main

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"setmatch/model"
	"setmatch/modelinfo"
	"setmatch/synth"
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
		{[]string{"forget", "--model", out, "--label", "x", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"forget", "--model", out, "--label", "nobody"}, 1, `no set of class "nobody"`},
		{[]string{"forget", "--model", out, "--label", "class1", "--set", "s9"}, 1, `no set named "s9" (its sets: "s0", "s1", "s2")`},
		{[]string{"forget", "--model", out, "--label", "class1"}, 1, "a model needs at least 2 classes"},
		// An empty value from an unset variable is not the flag left out:
		// not every set of the class, not the model replaced in place.
		{[]string{"forget", "--model", out, "--label", "class1", "--set", ""}, 2, "--set is empty: give a value, or leave the flag out"},
		{[]string{"forget", "--model", out, "--label", "class1", "--set", "s0", "--out", ""}, 2, "--out is empty"},
		{[]string{"forget", "--model", filepath.Dir(out), "--label", "class1"}, 2, "--model " + filepath.Dir(out) + " is a folder"},
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

// TestForgetStrangers: forget reads --strangers against the classes the
// model keeps: a forgotten class's sets may stand for strangers, a class
// that keeps sets (--set) may not. A model calibrated with even one
// strangers' set is refused without --strangers, and forgetting one set
// keeps the class, so nothing is said of its pin.
func TestForgetStrangers(t *testing.T) {
	data := trainData(t)
	dir := t.TempDir()
	one := filepath.Join(dir, "one", "x0")
	if err := os.MkdirAll(one, 0o755); err != nil {
		t.Fatal(err)
	}
	writeSet(t, one, "s0.npy", synth.GaussianSet(rand.New(rand.NewPCG(5, 6)), 20, 8, 3))
	known := filepath.Join(dir, "known", "c00")
	if err := os.CopyFS(known, os.DirFS(filepath.Join(data, "c00"))); err != nil {
		t.Fatal(err)
	}
	mpath := filepath.Join(dir, "m.smm")
	if code, _, stderr := run("train", "--method", "nn-h", "--data", data, "--strangers", filepath.Dir(one), "--out", mpath); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	for _, c := range []struct {
		args   []string
		code   int
		want   string
		notPin bool // stderr must not speak of the class's pin
	}{
		{[]string{"--set", "s000"}, 2, "was calibrated with 1 strangers' sets (--strangers)", true},
		{[]string{"--set", "s000", "--strangers", filepath.Dir(known)}, 1, `class "c00" of ` + filepath.Dir(known) + " is also a class of the model", true},
		{[]string{"--set", "s000", "--strangers", "none"}, 0, "forget: removed set s000 of class c00 from the gallery", true},
		{[]string{"--strangers", filepath.Dir(known)}, 0, "gives class c00 a pin (gpio.label_pins)", false},
	} {
		args := append([]string{"forget", "--model", mpath, "--label", "c00"}, c.args...)
		code, _, stderr := run(args...)
		if code != c.code || !strings.Contains(stderr, c.want) || c.notPin && strings.Contains(stderr, "gpio.label_pins") {
			t.Errorf("%q: exit %d, want %d with %q (and of the pin: %v)\n%s", args[5:], code, c.code, c.want, !c.notPin, stderr)
		}
	}
}

// TestForgetSaysWhatStays checks what forget says of a model's members
// and of what training shaped: a model with a W (nn-h-lda) names it as
// still shaped by every training set and speaks of no vote; a vote of
// that model and an nn-h one says the sets left each of its 2 members
// and names the W of the member that has one.
func TestForgetSaysWhatStays(t *testing.T) {
	data := trainData(t)
	dir := t.TempDir()
	lda, nnh := filepath.Join(dir, "lda.smm"), filepath.Join(dir, "nnh.smm")
	for _, c := range [][2]string{{"nn-h-lda", lda}, {"nn-h", nnh}} {
		if code, _, stderr := run("train", "--method", c[0], "--data", data, "--out", c[1]); code != 0 {
			t.Fatalf("train --method %s: exit %d\n%s", c[0], code, stderr)
		}
	}
	m, _, err := model.ReadFile(lda)
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := model.ReadFile(nnh)
	if err != nil {
		t.Fatal(err)
	}
	m.Voters = append(m.Voters, v)
	m.Selection.Params["vote"] = strings.Join(m.MemberMethods(), ", ")
	vote := filepath.Join(dir, "vote.smm")
	if err := model.WriteFile(vote, m); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		model       string
		want, never string
	}{
		{lda, "forget: removed every set of class c00 (3) from the gallery\n", "members of the vote"},
		{lda, "forget: still shaped by every training set: the projection W (8 → 6) of nn-h-lda\n", ""},
		{vote, "forget: removed every set of class c00 (3) from the gallery, from each of the 2 members of the vote\n", ""},
		{vote, "forget: still shaped by every training set: the projection W (8 → 6) of vote member 1 (nn-h-lda)\n", ""},
	} {
		code, _, stderr := run("forget", "--model", c.model, "--label", "c00", "--out", filepath.Join(t.TempDir(), "f.smm"))
		if code != 0 || !strings.Contains(stderr, c.want) || c.never != "" && strings.Contains(stderr, c.never) {
			t.Errorf("forget %s: exit %d; want %q (and not %q):\n%s", filepath.Base(c.model), code, c.want, c.never, stderr)
		}
	}
}

// TestErrorsSayTheCommandOnce: an error of a command begins "setmatch
// CMD: ", and says the command there only, not again where the error
// was made ("setmatch forget: m.smm: forget: the gallery holds no set",
// "setmatch bench: bench takes no arguments"); its last line, after the
// lines of its progress.
func TestErrorsSayTheCommandOnce(t *testing.T) {
	dir := t.TempDir()
	m := inspectTestModel(t, math.Inf(1)) // alice a1 a2, bob b1 (2 features)
	rng := rand.New(rand.NewPCG(71, 72))
	a1 := writeSet(t, dir, "a1.npy", synth.GaussianSet(rng, 12, 2, 0))
	if err := os.Mkdir(filepath.Join(dir, "again"), 0o755); err != nil {
		t.Fatal(err)
	}
	again := writeSet(t, filepath.Join(dir, "again"), "a1.npy", synth.GaussianSet(rng, 12, 2, 1))
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"forget", "--model", m, "--label", "nobody"}, 1, `no set of class "nobody"`},
		{[]string{"forget", "--model", m, "--label", "bob", "--set", "b9"}, 1, `no set named "b9"`},
		{[]string{"forget", "--model", m, "--label", "bob"}, 1, "a model needs at least 2 classes"},
		{[]string{"forget", "--model", m, "--label", "bob", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"enroll", "--model", m, "--label", "alice", a1}, 1, `already has a set "a1" of class "alice"`},
		{[]string{"enroll", "--model", m, "--label", "carol", a1, again}, 1, `the set "a1" of class "carol" is given twice`},
		{[]string{"bench", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"bench", "train", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"version", "extra"}, 2, `unexpected argument "extra"`},
	} {
		code, _, stderr := run(c.args...)
		cmd := c.args[0]
		if cmd == "bench" && c.args[1] == "train" {
			cmd = "bench train" // a subcommand's errors name it
		}
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		rest, ok := strings.CutPrefix(lines[len(lines)-1], "setmatch "+cmd+": ")
		if code != c.code || !ok || !strings.Contains(rest, c.want) || strings.Contains(rest, cmd+":") || strings.HasPrefix(rest, cmd+" ") {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, %q said once, and %q", c.args, code, stderr, c.code, "setmatch "+cmd, c.want)
		}
	}
}
