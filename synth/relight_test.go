package synth

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// flat returns a w×h image of one grey level.
func flat(w, h int, v uint8) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = v
	}
	return img
}

// mean is the mean grey level of img's columns x0 ≤ x < x1.
func mean(img *image.Gray, x0, x1 int) float64 {
	var s float64
	var n int
	for y := range img.Rect.Dy() {
		for x := x0; x < x1; x++ {
			s += float64(img.Pix[y*img.Stride+x])
			n++
		}
	}
	return s / float64(n)
}

func TestRelightShading(t *testing.T) {
	src := flat(40, 50, 200)
	// From the camera: the centre as it was, the rim at the ambient level.
	front := Relight(src, [3]float64{0, 0, 1}, 0.05)
	if got := front.GrayAt(20, 25).Y; got < 198 {
		t.Errorf("centre under a frontal light: %d, want about 200", got)
	}
	if got := front.GrayAt(0, 0).Y; got != 10 {
		t.Errorf("corner under a frontal light: %d, want the ambient 0.05·200 = 10", got)
	}
	// From the right: the left half in the attached shadow (ambient only),
	// the right half lit.
	right := Relight(src, [3]float64{1, 0, 0}, 0.05)
	if l := mean(right, 0, 20); math.Abs(l-10) > 0.5 {
		t.Errorf("left half under a light from the right: mean %.1f, want 10", l)
	}
	if r := mean(right, 20, 40); r < 60 {
		t.Errorf("right half under a light from the right: mean %.1f, want well lit", r)
	}
	// From above: the top brighter than the bottom.
	up := Relight(src, [3]float64{0, 1, 0}, 0.05)
	if top, bottom := up.GrayAt(20, 5).Y, up.GrayAt(20, 45).Y; top <= bottom {
		t.Errorf("light from above: top %d, bottom %d", top, bottom)
	}
	// The image is the albedo: a pixel twice as bright stays twice as bright.
	dim := Relight(flat(40, 50, 100), [3]float64{1, 0, 0}, 0.05)
	if a, b := float64(dim.GrayAt(30, 25).Y), float64(right.GrayAt(30, 25).Y); math.Abs(2*a-b) > 1 {
		t.Errorf("albedo 100 → %v, albedo 200 → %v", a, b)
	}
}

func TestRelightSet(t *testing.T) {
	o := RelightOptions{Sets: 4, Frames: 5, Seed: 3}
	src := []*image.Gray{flat(30, 40, 120), flat(30, 40, 240)}
	a, err := relightFrames(o, src, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := relightFrames(o, src, 2, 1)
	c, _ := relightFrames(o, src, 2, 2)
	checkRepeatable(t, a, b, c, 5, 30, 40, "sets 1 and 2")
	ls, err := o.Lights()
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 20 {
		t.Fatalf("%d lights, want sets × frames = 20", len(ls))
	}
	lo := math.Cos(RelightMaxAngle * math.Pi / 180)
	for _, l := range ls {
		if n := math.Sqrt(l[0]*l[0] + l[1]*l[1] + l[2]*l[2]); math.Abs(n-1) > 1e-12 || l[2] < lo-1e-12 {
			t.Fatalf("light %v: norm %v, angle beyond %v°", l, n, RelightMaxAngle)
		}
	}
	for _, bad := range []RelightOptions{{Sets: 0, Frames: 2}, {Sets: 1, Frames: 0}, {Sets: 1, Frames: 1}, {Sets: 1, Frames: 2, MaxAngle: 100}, {Sets: 1, Frames: 2, Ambient: 1.5}} {
		if _, err := relightFrames(bad, src, 0, 0); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := relightFrames(o, src, 0, 4); err == nil {
		t.Error("set 4 of 4 accepted")
	}
	if _, err := relightFrames(o, nil, 0, 0); err == nil {
		t.Error("no source image accepted")
	}
}

// TestRelightDealsEveryLightOnce checks that a class's sets share out the
// data set's lights: with a single source image each frame is that image
// under one light, and the sets of a class together show each light once.
func TestRelightDealsEveryLightOnce(t *testing.T) {
	o := RelightOptions{Sets: 3, Frames: 4, Seed: 9}
	src := []*image.Gray{flat(64, 64, 250)}
	ls, _ := o.Lights()
	want := map[[3]float64]bool{}
	for _, l := range ls {
		want[l] = true
	}
	for c := range 2 {
		got := map[[3]float64]bool{}
		for s := range o.Sets {
			frames, err := relightFrames(o, src, c, s)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range frames {
				for l := range want {
					if bytes.Equal(Relight(src[0], l, RelightAmbient).Pix, f.Pix) {
						if got[l] {
							t.Errorf("class %d: light %v used twice", c, l)
						}
						got[l] = true
					}
				}
			}
		}
		if len(got) != len(ls) {
			t.Errorf("class %d: %d of the %d lights used", c, len(got), len(ls))
		}
	}
}

// TestRelightDealsSources checks that the sets of a class do not share a
// source image when there are enough of them.
func TestRelightDealsSources(t *testing.T) {
	o := RelightOptions{Sets: 2, Frames: 12, Seed: 4}
	src := []*image.Gray{flat(32, 32, 80), flat(32, 32, 130), flat(32, 32, 180), flat(32, 32, 230)}
	ls, _ := o.Lights()
	used := make([]map[int]bool, o.Sets)
	for s := range o.Sets {
		used[s] = map[int]bool{}
		frames, err := relightFrames(o, src, 1, s)
		if err != nil {
			t.Fatal(err)
		}
	frame:
		for _, f := range frames {
			for i, img := range src {
				for _, l := range ls {
					if bytes.Equal(Relight(img, l, RelightAmbient).Pix, f.Pix) {
						used[s][i] = true
						continue frame
					}
				}
			}
			t.Fatal("a frame is no source image under any light")
		}
	}
	for i := range src {
		if used[0][i] && used[1][i] {
			t.Errorf("source %d in both sets (%v, %v)", i, used[0], used[1])
		}
	}
	if len(used[0])+len(used[1]) < 3 {
		t.Errorf("sources used: %v, %v; want each set's two", used[0], used[1])
	}
	// Fewer images than sets: set s takes one of them.
	o.Sets = 3
	for s := range o.Sets {
		if _, err := relightFrames(o, src[:2], 0, s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRelightSources checks what RelightSources reads of a source folder:
// the class folders in lexical order, hidden ones skipped, and each
// class's images at any depth, in lexical order, without hidden files or
// folders and without files that are not images.
func TestRelightSources(t *testing.T) {
	src := t.TempDir()
	for _, f := range []string{
		"b/2.png", "b/1.pgm", "b/deeper/3.jpg", "b/notes.txt",
		"b/.hidden.png", "b/.thumbs/4.png",
		"a/x.png",
		".git/y.png",
	} {
		p := filepath.Join(src, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := RelightSources(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []RelightClass{
		{Name: "a", Files: []string{filepath.Join(src, "a/x.png")}},
		{Name: "b", Files: []string{filepath.Join(src, "b/1.pgm"), filepath.Join(src, "b/2.png"), filepath.Join(src, "b/deeper/3.jpg")}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RelightSources:\n got %v\nwant %v", got, want)
	}
}

// TestRelightSourcesLimit checks that RelightSources takes a class of
// MaxRelightSources images and refuses one more, naming the class and the
// limit, from the listing alone: the files are empty (hard links to one
// file, which are quick to make), so an image decoded before the count
// would fail with another error.
func TestRelightSourcesLimit(t *testing.T) {
	src := t.TempDir()
	dir := filepath.Join(src, "many")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(dir, "00000.png")
	if err := os.WriteFile(first, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := func(i int) {
		if err := os.Link(first, filepath.Join(dir, fmt.Sprintf("%05d.png", i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < MaxRelightSources; i++ {
		link(i)
	}
	got, err := RelightSources(src)
	if err != nil || len(got) != 1 || len(got[0].Files) != MaxRelightSources {
		t.Fatalf("%d images: %v, %d classes", MaxRelightSources, err, len(got))
	}
	link(MaxRelightSources)
	_, err = RelightSources(src)
	want := fmt.Sprintf("class many has more than %d images", MaxRelightSources)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%d images: %v, want %q", MaxRelightSources+1, err, want)
	}
}

// relightFrames returns the frames of set s of class c of o, lit from
// the source images src, held together.
func relightFrames(o RelightOptions, src []*image.Gray, c, s int) ([]*image.Gray, error) {
	return collect(func(emit func(*image.Gray) error) error { return o.relightSet(src, c, s, emit) })
}
