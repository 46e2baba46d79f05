package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"setmatch/dataset"
	"setmatch/features"
)

// TestSynthImages checks that synth --images writes a data set of PNG set
// folders that train's image reader loads, that --force replaces it, and
// that the flags of feature-vector data are refused with it.
func TestSynthImages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "imgs")
	args := []string{"synth", "--images", "40x30", "--classes", "2", "--sets", "3", "--frames", "4", "--seed", "3", "--out", dir}
	checkSynth(t, args, "wrote 2 classes × 3 sets × 4 frames of 40x30 pixels", filepath.Join(dir, "c01", "s002", "f003.png"))
	ds := loadImageSets(t, dir, "lbp:2x2")
	if len(ds.Sets) != 6 || ds.Dim() != 4*59 {
		t.Fatalf("loaded %d sets of dim %d", len(ds.Sets), ds.Dim())
	}
	if n, _ := ds.Sets[0].Frames.Dims(); n != 4 {
		t.Errorf("set 0 has %d frames", n)
	}
	if code, _, errOut := runCmd(args...); code == 0 || !strings.Contains(errOut, "not empty") {
		t.Errorf("a second run into the same folder: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCmd(append(args, "--force")...); code != 0 {
		t.Errorf("--force over an image data set: exit %d, %s", code, errOut)
	}
	for _, bad := range [][]string{
		{"synth", "--images", "40x30", "--dim", "5", "--out", t.TempDir()},
		{"synth", "--images", "forty", "--out", t.TempDir()},
		{"synth", "--images", "4x4", "--out", t.TempDir()},
	} {
		if code, _, _ := runCmd(bad...); code == 0 {
			t.Errorf("%v accepted", bad)
		}
	}
}

// checkSynth runs setmatch with args, a synth command, and fails the test
// unless it succeeds, says summary on stdout and writes file.
func checkSynth(t *testing.T, args []string, summary, file string) {
	t.Helper()
	code, out, errOut := runCmd(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, summary) {
		t.Errorf("summary %q", out)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
}

// loadImageSets loads the image data set in dir with the features of
// spec, as train's image reader does.
func loadImageSets(t *testing.T, dir, spec string) *dataset.Dataset {
	t.Helper()
	p, err := features.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Load(dir, dataset.Options{Images: features.Fitted{Pipeline: p}.ImageSetReader()})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestSynthTurntable checks that synth --turntable writes a data set of
// PNG set folders, one per arc of a turn, that train's image reader
// loads, with a README that says what it holds, and that it excludes the
// other image kinds and the flags of feature-vector data.
func TestSynthTurntable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tt")
	args := []string{"synth", "--turntable", "24x24", "--classes", "3", "--sets", "4", "--frames", "5", "--seed", "2", "--out", dir}
	checkSynth(t, args, "wrote 3 objects × 4 arcs of a turn × 5 frames of 24x24 pixels", filepath.Join(dir, "c02", "s003", "f004.png"))
	ds := loadImageSets(t, dir, "intensity:8x8")
	if len(ds.Sets) != 12 || ds.Dim() != 64 {
		t.Fatalf("loaded %d sets of dim %d", len(ds.Sets), ds.Dim())
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil || !strings.Contains(string(readme), "one arc of\na turn (90°)") {
		t.Errorf("README: %v\n%s", err, readme)
	}
	for _, bad := range [][]string{
		{"synth", "--turntable", "24x24", "--images", "24x24", "--out", t.TempDir()},
		{"synth", "--turntable", "24x24", "--relight", dir, "--out", t.TempDir()},
		{"synth", "--turntable", "24x24", "--kind", "cone", "--out", t.TempDir()},
		{"synth", "--turntable", "24", "--out", t.TempDir()},
		{"synth", "--turntable", "24x24", "--sets", "0", "--out", t.TempDir()},
	} {
		if code, _, _ := runCmd(bad...); code == 0 {
			t.Errorf("%v accepted", bad)
		}
	}
}
