package main

import (
	"bytes"
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

// TestSynthImageSizeEdges: synth --images and --turntable take a frame
// size WxH of 8 to 4096 on a side, X for x and spaces around it alike,
// and refuse a size out of those bounds with the bounds, and what is no
// size with the form it wants. An accepted size goes on to the output
// folder, here one not empty, refused before anything is written.
func TestSynthImageSizeEdges(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--images", "--turntable"} {
		for _, tc := range []struct{ size, want string }{
			{"8x8", "not empty"},
			{"4096x4096", "not empty"},
			{" 4096X8 ", "not empty"},
			{"0008x8", "not empty"},
			{"7x8", "image size must be 8x8 to 4096x4096, got 7x8\n"},
			{"8x7", "image size must be 8x8 to 4096x4096, got 8x7\n"},
			{"4097x4096", "image size must be 8x8 to 4096x4096, got 4097x4096\n"},
			{"4096x4097", "image size must be 8x8 to 4096x4096, got 4096x4097\n"},
			{"0x0", "image size must be 8x8 to 4096x4096, got 0x0\n"},
			{"24", flag + `: want a frame size WxH such as 128x96, got "24"` + "\n"},
			{"8x", flag + `: want a frame size WxH such as 128x96, got "8x"` + "\n"},
			{"8x8x8", flag + `: want a frame size WxH such as 128x96, got "8x8x8"` + "\n"},
			{"-8x8", flag + `: want a frame size WxH such as 128x96, got "-8x8"` + "\n"},
			{"+64x64", flag + `: want a frame size WxH such as 128x96, got "+64x64"` + "\n"},
			{"99999999999999999999x8", flag + `: want a frame size WxH such as 128x96, got "99999999999999999999x8"` + "\n"},
		} {
			code, _, errOut := runCmd("synth", flag, tc.size, "--classes", "2", "--sets", "1", "--frames", "2", "--out", full)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Errorf("synth %s %q: exit %d, %q; want %q", flag, tc.size, code, errOut, tc.want)
			}
		}
	}
}

// TestSynthImageDataSize: synth --images, --turntable and --relight refuse
// a data set over 2 GiB of frames (at a byte a pixel) before anything is
// written, as feature vectors are: with --force, the data set there
// before is left whole. --relight reads its source images before it
// writes, so that one that does not decode is refused as early.
func TestSynthImageDataSize(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d")
	if code, _, e := runCmd("synth", "--images", "8x8", "--classes", "2", "--sets", "1", "--frames", "2", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	before, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	src := relightSource(t, 3)
	broken := relightSource(t, 1)
	if err := os.WriteFile(filepath.Join(broken, "b", "9.png"), []byte("not a png"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--images", "32x24", "--classes", "1000", "--sets", "1000", "--frames", "1000"}, 2, "1000 classes × 1000 sets × 1000 frames of 32x24 pixels are about 715 GiB of PNG frames, over the limit of 2 GiB: lower --frames, --sets or --classes, or the frame size WxH\n"},
		{[]string{"--turntable", "4096x4096", "--classes", "2", "--sets", "4", "--frames", "100"}, 2, "are about 12.5 GiB of PNG frames, over the limit of 2 GiB"},
		{[]string{"--relight", src, "--sets", "1000", "--frames", "10000"}, 1, "2 classes × 1000 sets × 10000 frames of their images are about 11.7 GiB of PNG frames, over the limit of 2 GiB: lower --frames or --sets, or scale the images down\n"},
		{[]string{"--relight", broken}, 1, "9.png"},
	} {
		code, _, e := runCmd(append(append([]string{"synth"}, c.args...), "--out", out, "--force")...)
		if code != c.code || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", c.args, code, e, c.code, c.want)
		}
		if b, err := os.ReadFile(filepath.Join(out, "README.md")); err != nil || !bytes.Equal(b, before) {
			t.Errorf("%v: README.md after the refusal: %v\n%s", c.args, err, b)
		}
		if _, err := os.Stat(filepath.Join(out, "c01", "s000", "f001.png")); err != nil {
			t.Errorf("%v: the data set there before: %v", c.args, err)
		}
	}
}

// TestSynthImagesOneFrame: synth --images, --turntable and --relight
// refuse sets of one frame, as feature vectors are refused, since train
// refuses them; nothing is written.
func TestSynthImagesOneFrame(t *testing.T) {
	src := relightSource(t, 2)
	for _, args := range [][]string{
		{"--images", "8x8"},
		{"--turntable", "8x8"},
		{"--relight", src},
		{"--dim", "2"},
	} {
		out := filepath.Join(t.TempDir(), "d")
		code, _, e := runCmd(append(append([]string{"synth"}, args...), "--frames", "1", "--out", out)...)
		if code != 2 || !strings.Contains(e, "a set needs at least 2 frames") {
			t.Errorf("%v --frames 1: exit %d, %q", args, code, e)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v --frames 1 made its output folder", args)
		}
	}
}
