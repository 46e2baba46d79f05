package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNegativeWorkersRefused: --workers below 0 is a usage error in every
// command that takes it, as train and test had it; eval, enroll, forget,
// bench and bench train took it as 0 (one per CPU) without a word. The
// message names the flag and the value once: the flag package already
// says 'invalid value "-2" for flag -workers' before the bound.
func TestNegativeWorkersRefused(t *testing.T) {
	t.Setenv("SETMATCH_TEST_AS_MAIN", "1") // a child run of bench train is this binary as setmatch
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if code, _, errOut := runCmd("synth", "--classes", "3", "--sets", "2", "--frames", "4", "--dim", "3", "--out", data); code != 0 {
		t.Fatal(errOut)
	}
	mpath := filepath.Join(dir, "m.smm")
	if code, _, errOut := runCmd("train", "--data", data, "--method", "nn-h", "--out", mpath); code != 0 {
		t.Fatal(errOut)
	}
	set := filepath.Join(data, "c00", "s000.npy")
	for _, c := range []struct{ cmd, rest []string }{
		{[]string{"train"}, []string{"--data", data, "--method", "nn-h", "--out", filepath.Join(dir, "t.smm")}},
		{[]string{"test"}, []string{"--model", mpath, "--data", data}},
		{[]string{"eval"}, []string{"--data", data, "--protocol", "gallery=1,probe=1,splits=1", "--methods", "nn-h", "--quiet"}},
		{[]string{"enroll"}, []string{"--model", mpath, "--out", filepath.Join(dir, "e.smm"), "--label", "new", set}},
		{[]string{"forget"}, []string{"--model", mpath, "--out", filepath.Join(dir, "f.smm"), "--label", "c00"}},
		{[]string{"bench"}, []string{"--gallery", "2", "--frames", "2", "--query-frames", "2", "--queries", "1", "--dim", "1"}},
		{[]string{"bench", "train"}, []string{"--sizes", "3x1x4x4"}},
	} {
		for _, v := range []struct{ value, want string }{
			{"-1", `invalid value "-1" for flag -workers: must be ≥ 0 (0: one per CPU)`},
			{"-2", `invalid value "-2" for flag -workers: must be ≥ 0 (0: one per CPU)`},
			{"two", `invalid value "two" for flag -workers: not a whole number of goroutines (0: one per CPU)`},
			{"-99999999999999999999", `invalid value "-99999999999999999999" for flag -workers: must be ≥ 0 (0: one per CPU)`},
			{"99999999999999999999", `invalid value "99999999999999999999" for flag -workers: out of range: give a number of goroutines such as the CPUs (0: one per CPU)`},
		} {
			args := append(append(slices.Clone(c.cmd), "--workers", v.value), c.rest...)
			benchRefused(t, v.want, args...)
			_, _, errOut := runCmd(args...)
			if strings.Count(errOut, v.value) != 1 || strings.Count(errOut, "workers") != 1 {
				t.Errorf("%v: %q names the flag or the value more than once", args, errOut)
			}
		}
	}
}

// TestFlagAfterArguments: a flag written after the arguments, where the
// flag package takes it for one, is refused as such: div said "want two
// set files, got 3 arguments" for "div A B --json", and enroll looked for
// a set named --out. After "--" it is an argument, and so is a name
// spelled as a flag without its dashes.
func TestFlagAfterArguments(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if code, _, errOut := runCmd("synth", "--classes", "3", "--sets", "2", "--frames", "4", "--dim", "3", "--out", data); code != 0 {
		t.Fatal(errOut)
	}
	a, b := filepath.Join(data, "c00", "s000.npy"), filepath.Join(data, "c00", "s001.npy")
	for _, c := range []struct {
		flag string
		args []string
	}{
		{"--json", []string{"div", a, b, "--json"}},
		{"-bandwidth=2", []string{"div", a, b, "-bandwidth=2"}},
		{"--json", []string{"inspect", filepath.Join(dir, "m.smm"), "--json"}},
		{"--out", []string{"enroll", "--model", filepath.Join(dir, "m.smm"), "--label", "new", a, "--out", filepath.Join(dir, "e.smm")}},
	} {
		benchRefused(t, c.flag+" comes after the arguments, where it is read as one: put flags before the arguments (setmatch "+c.args[0]+" -h)", c.args...)
	}
	// An argument spelled as a flag's name without its dashes is an
	// argument: a file named json is read, not refused as --json.
	if code, _, errOut := runCmd("div", a, "json"); code != 1 || strings.Contains(errOut, "comes after the arguments") || !strings.Contains(errOut, "json") {
		t.Errorf("div A json: exit %d, %q; want exit 1 reading the file json", code, errOut)
	}
	// After "--" a name that looks like a flag is an argument.
	if code, _, errOut := runCmd("div", "--", a, "--json"); code == 0 || strings.Contains(errOut, "comes after the arguments") {
		t.Errorf("div -- A --json: exit %d, %q", code, errOut)
	}
}
