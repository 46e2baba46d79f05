package main

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"setmatch/model"
)

func TestEnrollCommand(t *testing.T) {
	src := inspectTestModel(t, math.Inf(1)) // D = 4, gallery alice ×2, bob ×1
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(51, 52))
	carol1 := writeSet(t, dir, "carol-1.npy", gaussianSet(rng, 12, 4, 3))
	carol2 := writeSet(t, dir, "carol-2.npy", gaussianSet(rng, 9, 4, 3))
	out := filepath.Join(dir, "more.smm")

	code, stdout, stderr := run("enroll", "--model", src, "--label", "carol", "--out", out, carol1, carol2)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "5 gallery sets, 3 classes") {
		t.Errorf("stdout %q", stdout)
	}
	m, _, err := model.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Sets[3].Label + "/" + m.Sets[3].Name + " " + m.Sets[4].Name; got != "carol/carol-1 carol-2" {
		t.Errorf("enrolled sets: %s", got)
	}
	orig, _, _ := model.ReadFile(src)
	if len(orig.Sets) != 3 {
		t.Errorf("--out given, but the source model changed: %d sets", len(orig.Sets))
	}

	// In place, with a name; then the same name again is refused and the
	// model file is left as it was.
	if code, _, stderr := run("enroll", "--model", out, "--label", "bob", "--name", "b2", carol1); code != 0 {
		t.Fatalf("in place: exit %d: %s", code, stderr)
	}
	code, _, stderr = run("enroll", "--model", out, "--label", "bob", "--name", "b2", carol1)
	if code != 1 || !strings.Contains(stderr, "already has a set") {
		t.Errorf("duplicate name: exit %d, %s", code, stderr)
	}
	if m, _, _ := model.ReadFile(out); len(m.Sets) != 6 {
		t.Errorf("model after a refused enrol has %d sets, want 6", len(m.Sets))
	}

	wrongDim := writeSet(t, dir, "wide.npy", gaussianSet(rng, 5, 7, 0))
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"enroll", "--label", "x", carol1}, 2, "--model is required"},
		{[]string{"enroll", "--model", out, carol1}, 2, "--label is required"},
		{[]string{"enroll", "--model", out, "--label", "x"}, 2, "at least one set file"},
		{[]string{"enroll", "--model", out, "--label", "x", "--name", "n", carol1, carol2}, 2, "names one set"},
		{[]string{"enroll", "--model", out, "--label", "x", wrongDim}, 1, "model expects 4"},
		{[]string{"enroll", "--model", filepath.Join(dir, "none.smm"), "--label", "x", carol1}, 1, "none.smm"},
	} {
		code, _, stderr := run(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d mentioning %q", c.args[1:], code, stderr, c.code, c.want)
		}
	}
}
