package main

import (
	"path/filepath"
	"testing"
)

// TestNegativeWorkersRefused: --workers below 0 is a usage error in every
// command that takes it, as train and test had it; eval, enroll, forget,
// bench and bench train took it as 0 (one per CPU) without a word.
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
		args := append(append(c.cmd, "--workers", "-2"), c.rest...)
		benchRefused(t, "--workers must be ≥ 0 (got -2)", args...)
	}
}
