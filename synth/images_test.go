package synth

import (
	"bytes"
	"image"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"setmatch/features"
)

func TestImageSetDeterministic(t *testing.T) {
	o := ImageOptions{Classes: 3, Frames: 4, W: 40, H: 30, Seed: 5}
	a, err := o.ImageSet(1, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := o.ImageSet(1, 2)
	c, _ := o.ImageSet(1, 3)
	checkRepeatable(t, a, b, c, 4, 40, 30, "sets 2 and 3")
	for _, bad := range []ImageOptions{{Classes: 0, Frames: 2, W: 8, H: 8}, {Classes: 1, Frames: 2, W: 4, H: 8}, {Classes: 1, Frames: 0, W: 8, H: 8}, {Classes: 1, Frames: 1, W: 8, H: 8}, {Classes: 1, Frames: 1 << 40, W: 8, H: 8}} {
		if _, err := bad.ImageSet(0, 0); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := o.ImageSet(3, 0); err == nil {
		t.Error("class 3 of 3 accepted")
	}
}

// TestImageClassesSeparate checks that the classes are told apart by the
// texture features they are made for: every set's mean lbp:4x4@64x64
// feature vector is nearest to a set of its own class.
func TestImageClassesSeparate(t *testing.T) {
	o := ImageOptions{Classes: 5, Frames: 6, W: 96, H: 72, Seed: 1}
	p, err := features.Parse("lbp:4x4@64x64")
	if err != nil {
		t.Fatal(err)
	}
	fit := features.Fitted{Pipeline: p}
	var means [][]float64
	var class []int
	for c := range o.Classes {
		for s := range 3 {
			frames, err := o.ImageSet(c, s)
			if err != nil {
				t.Fatal(err)
			}
			x, err := fit.Apply(frames)
			if err != nil {
				t.Fatal(err)
			}
			n, d := x.Dims()
			m := make([]float64, d)
			for i := range n {
				floats.Add(m, mat.Row(nil, i, x))
			}
			floats.Scale(1/float64(n), m)
			means = append(means, m)
			class = append(class, c)
		}
	}
	for i := range means {
		best, bestD := -1, 0.0
		for j := range means {
			if j == i {
				continue
			}
			if d := floats.Distance(means[i], means[j], 2); best < 0 || d < bestD {
				best, bestD = j, d
			}
		}
		if class[best] != class[i] {
			t.Errorf("set %d of class %d is nearest to a set of class %d", i, class[i], class[best])
		}
	}
}

// checkRepeatable checks a set a of n frames of w×h pixels against b, the
// same set drawn again (the same frames), and c, another set (what names
// the two: a different first frame).
func checkRepeatable(t *testing.T, a, b, c []*image.Gray, n, w, h int, what string) {
	t.Helper()
	if len(a) != n || a[0].Rect.Dx() != w || a[0].Rect.Dy() != h {
		t.Fatalf("got %d frames of %v", len(a), a[0].Rect)
	}
	for i := range a {
		if !bytes.Equal(a[i].Pix, b[i].Pix) {
			t.Fatalf("frame %d differs between two calls", i)
		}
	}
	if bytes.Equal(a[0].Pix, c[0].Pix) {
		t.Errorf("%s have the same first frame", what)
	}
}

// TestImageSeeds checks that the seed is what makes the pictures: another
// seed gives other frames of the textures and other turntable objects.
func TestImageSeeds(t *testing.T) {
	img := ImageOptions{Classes: 3, Frames: 2, W: 24, H: 16, Seed: 5}
	a, err := img.ImageSet(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	img.Seed = 6
	b, err := img.ImageSet(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if bytes.Equal(a[i].Pix, b[i].Pix) {
			t.Errorf("ImageSet: frame %d is the same for seeds 5 and 6", i)
		}
	}
	tt := TurntableOptions{Classes: 3, Sets: 2, Frames: 2, W: 24, H: 16, Seed: 5}
	other := tt
	other.Seed = 6
	for c := range tt.Classes {
		if p, q := tt.object(c), other.object(c); len(p) == len(q) && p[0] == q[0] {
			t.Errorf("turntable object %d is the same for seeds 5 and 6", c)
		}
	}
}
