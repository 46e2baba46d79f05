package synth

import (
	"image"
	"math"
	"math/rand/v2"
	"testing"
)

func TestTurntableSetDeterministic(t *testing.T) {
	o := TurntableOptions{Classes: 3, Sets: 4, Frames: 5, W: 40, H: 30, Seed: 5}
	a, err := turntableFrames(o, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := turntableFrames(o, 1, 2)
	c, _ := turntableFrames(o, 1, 3)
	checkRepeatable(t, a, b, c, 5, 40, 30, "sets 2 and 3")
	for _, bad := range []TurntableOptions{
		{Classes: 0, Sets: 1, Frames: 2, W: 8, H: 8},
		{Classes: 1, Sets: 0, Frames: 2, W: 8, H: 8},
		{Classes: 1, Sets: 361, Frames: 2, W: 8, H: 8},
		{Classes: 1, Sets: 1, Frames: 0, W: 8, H: 8},
		{Classes: 1, Sets: 1, Frames: 1, W: 8, H: 8},
		{Classes: 1, Sets: 1, Frames: 2, W: 4, H: 8},
	} {
		if _, err := turntableFrames(bad, 0, 0); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := turntableFrames(o, 3, 0); err == nil {
		t.Error("object 3 of 3 accepted")
	}
	if _, err := turntableFrames(o, 0, -1); err == nil {
		t.Error("set −1 accepted")
	}
}

// TestTurntableSphere checks the renderer on a known answer: a sphere of
// radius 0.5 with a plain albedo at the centre of the frame. The pixel at
// its centre faces the camera, so its grey level is 255 × albedo ×
// (0.25 + 0.75 × the light's z); a corner pixel is background; and since
// a sphere looks the same from every side, turning it changes nothing.
func TestTurntableSphere(t *testing.T) {
	o := TurntableOptions{Classes: 1, Sets: 1, Frames: 1, W: 33, H: 33}
	sphere := []ellipsoid{{
		axes: [3]float64{0.5, 0.5, 0.5}, rot: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		albedo: 0.8, dir: [3]float64{1, 0, 0}, invAxesSqrd: [3]float64{4, 4, 4},
	}}
	rng := rand.New(rand.NewPCG(1, 2))
	a := o.render(sphere, 0, 0.3, 1, 0, rng)
	b := o.render(sphere, 2.1, 0.3, 1, 0, rng)
	centre := a.GrayAt(16, 16).Y
	want := math.Round(255 * 0.8 * (0.25 + 0.75*turntableLight[2]))
	if float64(centre) != want {
		t.Errorf("centre pixel %d, want %v", centre, want)
	}
	if bg := a.GrayAt(0, 0).Y; float64(bg) != math.Round(255*0.08) {
		t.Errorf("corner pixel %d, want the background %v", bg, math.Round(255*0.08))
	}
	for i := range a.Pix {
		if d := int(a.Pix[i]) - int(b.Pix[i]); d < -1 || d > 1 {
			t.Fatalf("pixel %d: %d turned by 2.1 rad, %d before: a sphere must look the same", i, b.Pix[i], a.Pix[i])
		}
	}
	// Lit from the upper left: its upper-left side is brighter than its
	// lower-right side.
	if ul, lr := a.GrayAt(11, 11).Y, a.GrayAt(21, 21).Y; ul <= lr {
		t.Errorf("upper-left %d ≤ lower-right %d", ul, lr)
	}
}

// TestTurntableTurns checks that a set's frames show its object turning:
// a full turn brings a view back, a frame is nearer to the view 5° on
// than to the other objects' views at the same angle, and the sets of an
// object are the arcs of one turn.
func TestTurntableTurns(t *testing.T) {
	o := TurntableOptions{Classes: 5, Sets: 4, Frames: 3, W: 32, H: 32, Seed: 2}
	view := func(c int, turn float64) []float64 {
		return pixels(o.render(o.object(c), turn, 0.25, 1, 0, rand.New(rand.NewPCG(1, 2))))
	}
	dist := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += (a[i] - b[i]) * (a[i] - b[i])
		}
		return math.Sqrt(s)
	}
	for c := range o.Classes {
		a := view(c, 1)
		if d := dist(a, view(c, 1+2*math.Pi)); d > 16 {
			t.Errorf("object %d: a full turn moves the view by %.3g", c, d)
		}
		near := dist(a, view(c, 1+5*math.Pi/180))
		for k := range o.Classes {
			if k != c {
				if d := dist(a, view(k, 1)); d <= near {
					t.Errorf("object %d: the view 5° on is %.3g away, object %d's view %.3g", c, near, k, d)
				}
			}
		}
	}
	// Set s of 4 covers [s·90°, (s+1)·90°): its middle frame (of 3, at
	// 45° into the arc, ±7.5° of jitter) is nearer to the view at the
	// middle of its arc than to the middles of the other arcs (frames
	// carry their set's tilt, brightness and noise).
	for c := range o.Classes {
		var middle [4][]float64
		for k := range middle {
			middle[k] = view(c, (float64(k)+0.5)*math.Pi/2)
		}
		for s := range 4 {
			frames, err := turntableFrames(o, c, s)
			if err != nil {
				t.Fatal(err)
			}
			if len(frames) != o.Frames {
				t.Fatalf("object %d set %d: %d frames", c, s, len(frames))
			}
			v := pixels(frames[1])
			nearest := 0
			for k := range middle {
				if dist(v, middle[k]) < dist(v, middle[nearest]) {
					nearest = k
				}
			}
			if nearest != s {
				t.Errorf("object %d set %d: the middle frame is nearest to the middle of arc %d", c, s, nearest)
			}
		}
	}
}

// pixels returns the grey levels of img as a vector.
func pixels(img *image.Gray) []float64 {
	v := make([]float64, len(img.Pix))
	for i, p := range img.Pix {
		v[i] = float64(p)
	}
	return v
}

// turntableFrames returns the frames of set s of class c of o, held
// together.
func turntableFrames(o TurntableOptions, c, s int) ([]*image.Gray, error) {
	return collect(func(emit func(*image.Gray) error) error { return o.turntableSet(c, s, emit) })
}
