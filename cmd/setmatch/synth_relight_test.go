package main

import (
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"setmatch/synth"
)

// relightSource writes a pooled image folder like ORL's: classes a and b
// of n PGM/PNG images each, and a README that is not a class.
func relightSource(t *testing.T, n int) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "faces")
	for ci, c := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(src, c), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			img := image.NewGray(image.Rect(0, 0, 24, 30))
			for p := range img.Pix {
				img.Pix[p] = uint8(40 + 60*ci + 7*i + p%13)
			}
			if err := synth.WritePNG(filepath.Join(src, c, string(rune('0'+i))+".png"), img); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A PGM too, as ORL has.
	pgm := "P2\n2 2\n255\n10 20\n30 40\n"
	if err := os.WriteFile(filepath.Join(src, "a", "9.pgm"), []byte(pgm), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "README"), []byte("faces\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return src
}

// TestSynthRelight checks that synth --relight writes the source's classes
// as set folders of lit PNG frames that train's image reader loads, and
// refuses what does not apply.
func TestSynthRelight(t *testing.T) {
	src := relightSource(t, 3)
	out := filepath.Join(t.TempDir(), "lit")
	args := []string{"synth", "--relight", src, "--sets", "3", "--frames", "5", "--seed", "2", "--out", out}
	checkSynth(t, args, "wrote 2 classes × 3 sets × 5 frames (PNG, lit from 15 directions, seed 2)", filepath.Join(out, "b", "s002", "f004.png"))
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil || !strings.Contains(string(readme), "setmatch synth "+strings.Join(args[1:], " ")) {
		t.Errorf("README.md: %v\n%s", err, readme)
	}
	ds := loadImageSets(t, out, "intensity:8x8")
	if len(ds.Sets) != 6 || ds.Dim() != 64 || len(ds.Classes) != 2 || ds.Classes[0] != "a" {
		t.Fatalf("loaded %d sets of dim %d, classes %v", len(ds.Sets), ds.Dim(), ds.Classes)
	}
	if code, _, errOut := runCmd(append(args, "--force")...); code != 0 {
		t.Errorf("--force over a relit data set: exit %d, %s", code, errOut)
	}

	// Too many pixels per class to hold: a clear error, not a huge
	// allocation.
	limit := synth.MaxRelightPixels
	synth.MaxRelightPixels = 2 * 24 * 30
	code, _, errOut := runCmd("synth", "--relight", src, "--out", t.TempDir())
	synth.MaxRelightPixels = limit
	if code == 0 || !strings.Contains(errOut, "scale them down") {
		t.Errorf("3 images of 24×30 with room for 2: exit %d, %q", code, errOut)
	}

	empty := relightSource(t, 1)
	if err := os.MkdirAll(filepath.Join(empty, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	linkToSrc := filepath.Join(t.TempDir(), "src-link")
	if err := os.Symlink(src, linkToSrc); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"synth", "--relight", src, "--classes", "3", "--out", t.TempDir()}, "--classes: not with --relight"},
		{[]string{"synth", "--relight", src, "--kind", "lighting", "--out", t.TempDir()}, "--kind shapes feature-vector data only, not --relight image sets: leave it out\n"},
		{[]string{"synth", "--relight", src, "--dim", "4", "--noise", "1", "--out", t.TempDir()}, "--dim, --noise shape feature-vector data only, not --relight image sets: leave them out\n"},
		// synth --images and --turntable alike; --kind lighting, which
		// makes feature vectors, points to --relight.
		{[]string{"synth", "--images", "8x8", "--kind", "lighting", "--out", t.TempDir()}, "--kind shapes feature-vector data only, not --images image sets: leave it out (images under synthetic light: --relight SRC, a folder of images such as faces)\n"},
		{[]string{"synth", "--turntable", "8x8", "--dim", "4", "--noise", "1", "--out", t.TempDir()}, "--dim, --noise shape feature-vector data only, not --turntable image sets: leave them out\n"},
		{[]string{"synth", "--relight", src, "--images", "8x8", "--out", t.TempDir()}, "exclude each other"},
		{[]string{"synth", "--relight", src, "--sets", "0", "--out", t.TempDir()}, "sets per class"},
		{[]string{"synth", "--relight", empty, "--out", t.TempDir()}, "holds no image"},
		{[]string{"synth", "--relight", filepath.Join(src, "missing"), "--out", t.TempDir()}, "no such file"},
		{[]string{"synth", "--relight", t.TempDir(), "--out", t.TempDir()}, "has no class folders"},
		{[]string{"synth", "--relight", src, "--out", filepath.Join(src, "lit")}, "is inside --relight"},
		{[]string{"synth", "--relight", src, "--out", src}, "is --relight"},
		// A link to the source spells the same folder otherwise.
		{[]string{"synth", "--relight", src, "--out", filepath.Join(linkToSrc, "lit")}, "is inside --relight"},
	} {
		code, _, errOut := runCmd(bad.args...)
		if code == 0 || !strings.Contains(errOut, bad.want) {
			t.Errorf("%v: exit %d, %q; want an error with %q", bad.args, code, errOut, bad.want)
		}
	}
}
