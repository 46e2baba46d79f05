package synth

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
)

// TurntableOptions configures WriteTurntableSets: camera frames of objects
// turning on a turntable, one object per class, for trying recognition
// and the open set on objects (a new object can look like a known one
// from some side) without a camera.
//
// Each class is a random object: 3 to 5 ellipsoids (semi-axes 0.15 to
// 0.45, centred as a whole on the turntable's axis), each with its own grey albedo
// and a stripe texture of its own frequency and direction, seen from a
// camera tilted 15° down (±3° per set) and lit from the upper left, in
// orthographic projection on a dark background, the frame 1.8 wide. Set s of S is the s-th
// arc of one turn (360°/S wide); its frames are spread over the arc, each
// with ±¼ of the spacing of jitter, a brightness of ±10% per set and
// Gaussian pixel noise (σ = 3 grey levels). Sets beyond S repeat the
// arcs of the next turns, with their own jitter.
type TurntableOptions struct {
	Classes int   // number of objects
	Sets    int   // arcs a turn is cut into, one set each
	Frames  int   // frames per set
	W, H    int   // frame size in pixels
	Seed    int64 // the same seed gives the same frames
}

// Check reports whether the options are usable, the data set they make
// within MaxImageBytes (checkDataSize).
func (o TurntableOptions) Check() error {
	switch {
	case o.Classes < 1 || o.Classes > 1000:
		return fmt.Errorf("synth: turntable objects must be 1 to 1000, got %d", o.Classes)
	case o.Sets < 1 || o.Sets > 360:
		return fmt.Errorf("synth: turntable sets (arcs of a turn) must be 1 to 360, got %d", o.Sets)
	}
	if err := checkFrames(o.Frames, o.W, o.H); err != nil {
		return err
	}
	return checkDataSize(o.Classes, o.Sets, o.Frames, o.W, o.H)
}

// ellipsoid is one part of a turntable object, in the object's frame
// (y up, the turntable's axis).
type ellipsoid struct {
	centre [3]float64
	axes   [3]float64    // semi-axes
	rot    [3][3]float64 // columns: its axes' directions
	albedo float64
	// The stripe texture: albedo × (1 + amp·sin(2π·freq·(dir·p) + phase)).
	dir         [3]float64
	freq, amp   float64
	phase       float64
	invAxesSqrd [3]float64
}

// object returns the ellipsoids of class c.
func (o TurntableOptions) object(c int) []ellipsoid {
	rng := setRNG(o.Seed^0x7ab1e, c, -1)
	parts := make([]ellipsoid, 3+rng.IntN(3))
	for i := range parts {
		e := &parts[i]
		e.centre = [3]float64{uniform(rng, -0.3, 0.3), uniform(rng, -0.45, 0.45), uniform(rng, -0.3, 0.3)}
		for k := range e.axes {
			e.axes[k] = uniform(rng, 0.15, 0.45)
			e.invAxesSqrd[k] = 1 / (e.axes[k] * e.axes[k])
		}
		e.rot = randRotation(rng)
		e.albedo = uniform(rng, 0.3, 0.95)
		e.dir = unit3([3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
		e.freq, e.amp, e.phase = uniform(rng, 2, 8), uniform(rng, 0.1, 0.45), uniform(rng, 0, 2*math.Pi)
	}
	// The object stands centred on the turntable, in the middle of the
	// frame: its parts' mean centre on the axis.
	var mean [3]float64
	for _, e := range parts {
		for k := range 3 {
			mean[k] += e.centre[k] / float64(len(parts))
		}
	}
	for i := range parts {
		for k := range 3 {
			parts[i].centre[k] -= mean[k]
		}
	}
	return parts
}

// turntableSet gives to emit, one after the other, the frames of set s
// of class c (0 ≤ c < Classes; any s ≥ 0), so that a set's frames need
// not be held at once. Generation is deterministic for given options, c
// and s.
func (o TurntableOptions) turntableSet(c, s int, emit func(*image.Gray) error) error {
	if err := o.Check(); err != nil {
		return err
	}
	if c < 0 || c >= o.Classes || s < 0 {
		return fmt.Errorf("synth: no object %d set %d (objects 0..%d, sets ≥ 0)", c, s, o.Classes-1)
	}
	parts := o.object(c)
	rng := setRNG(o.Seed^0x7ab1e, c, s)
	arc := 2 * math.Pi / float64(o.Sets)
	tilt := (15 + uniform(rng, -3, 3)) * math.Pi / 180
	gain := uniform(rng, 0.9, 1.1)
	for f := range o.Frames {
		step := arc / float64(o.Frames)
		turn := float64(s%o.Sets)*arc + (float64(f)+0.5+uniform(rng, -0.25, 0.25))*step
		if err := emit(o.render(parts, turn, tilt, gain, 3, rng)); err != nil {
			return err
		}
	}
	return nil
}

// render draws the object turned by turn radians about its axis and seen
// from a camera tilted down by tilt, its shading scaled by gain, with
// Gaussian pixel noise of standard deviation noise grey levels from rng.
func (o TurntableOptions) render(parts []ellipsoid, turn, tilt, gain, noise float64, rng *rand.Rand) *image.Gray {
	// The camera looks along −z; a point p of the object is at
	// Tilt·Turn·p. Rays are taken back to the object's frame by the
	// transpose.
	pose := mul3(rotX(tilt), rotY(turn))
	inv := transpose3(pose)
	dir := apply3(inv, [3]float64{0, 0, -1})
	img := image.NewGray(image.Rect(0, 0, o.W, o.H))
	half := 0.9 * math.Max(1, float64(o.W)/float64(o.H))
	px := 2 * half / float64(o.W)
	for y := range o.H {
		for x := range o.W {
			u := -half + (float64(x)+0.5)*px
			v := (float64(o.H)/2 - float64(y) - 0.5) * px
			origin := apply3(inv, [3]float64{u, v, 10})
			shade := 0.08 // the background
			if hit, n, e := firstHit(parts, origin, dir); e != nil {
				p := [3]float64{origin[0] + hit*dir[0], origin[1] + hit*dir[1], origin[2] + hit*dir[2]}
				albedo := e.albedo * (1 + e.amp*math.Sin(2*math.Pi*e.freq*dot3(e.dir, p)+e.phase))
				lambert := math.Max(0, dot3(apply3(pose, n), turntableLight))
				shade = math.Min(1, albedo) * (0.25 + 0.75*lambert)
			}
			g := 255*gain*shade + noise*rng.NormFloat64()
			img.Pix[y*img.Stride+x] = uint8(math.Max(0, math.Min(255, math.Round(g))))
		}
	}
	return img
}

// turntableLight is the direction the light comes from, in the camera's
// frame (x right, y up, z towards the camera): the upper left, in front.
var turntableLight = unit3([3]float64{-0.5, 0.6, 0.7})

// firstHit returns where the ray origin + t·dir (object frame, |dir| = 1)
// first meets one of the parts: t, the unit normal there (object frame)
// and the part; the part is nil if the ray misses them all.
func firstHit(parts []ellipsoid, origin, dir [3]float64) (float64, [3]float64, *ellipsoid) {
	best, part := math.Inf(1), (*ellipsoid)(nil)
	var normal [3]float64
	for i := range parts {
		e := &parts[i]
		// In the ellipsoid's frame: q = Rᵀ(p − centre), and the surface
		// is Σ q_k²/a_k² = 1.
		var oq, dq [3]float64
		for k := range 3 {
			for j := range 3 {
				oq[k] += e.rot[j][k] * (origin[j] - e.centre[j])
				dq[k] += e.rot[j][k] * dir[j]
			}
		}
		var a, b, c float64
		for k := range 3 {
			a += dq[k] * dq[k] * e.invAxesSqrd[k]
			b += 2 * oq[k] * dq[k] * e.invAxesSqrd[k]
			c += oq[k] * oq[k] * e.invAxesSqrd[k]
		}
		disc := b*b - 4*a*(c-1)
		if disc < 0 {
			continue
		}
		t := (-b - math.Sqrt(disc)) / (2 * a)
		if t <= 0 || t >= best {
			continue
		}
		best, part = t, e
		var g [3]float64 // the gradient in the ellipsoid's frame, then the object's
		for k := range 3 {
			g[k] = (oq[k] + t*dq[k]) * e.invAxesSqrd[k]
		}
		normal = unit3(apply3(e.rot, g))
	}
	return best, normal, part
}

func uniform(rng *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }

// randRotation returns a random rotation matrix (the Q of a Gaussian
// matrix's QR, by Gram–Schmidt, with a positive determinant).
func randRotation(rng *rand.Rand) [3][3]float64 {
	a := unit3([3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
	b := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	d := dot3(a, b)
	b = unit3([3]float64{b[0] - d*a[0], b[1] - d*a[1], b[2] - d*a[2]})
	c := [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	return [3][3]float64{{a[0], b[0], c[0]}, {a[1], b[1], c[1]}, {a[2], b[2], c[2]}}
}

// The 3-vector and 3×3 helpers below are written by hand although
// gonum's spatial/r3 has their like: its Unit normalises by Hypot and a
// reciprocal, which rounds otherwise and would change the published
// turntable data sets (and the figures measured on them) pixel by pixel,
// and its Mat checks bounds element by element in the per-pixel loop.

func rotX(t float64) [3][3]float64 {
	c, s := math.Cos(t), math.Sin(t)
	return [3][3]float64{{1, 0, 0}, {0, c, -s}, {0, s, c}}
}

func rotY(t float64) [3][3]float64 {
	c, s := math.Cos(t), math.Sin(t)
	return [3][3]float64{{c, 0, s}, {0, 1, 0}, {-s, 0, c}}
}

func mul3(a, b [3][3]float64) [3][3]float64 {
	var m [3][3]float64
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				m[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return m
}

func transpose3(a [3][3]float64) [3][3]float64 {
	var m [3][3]float64
	for i := range 3 {
		for j := range 3 {
			m[i][j] = a[j][i]
		}
	}
	return m
}

func apply3(a [3][3]float64, v [3]float64) [3]float64 {
	var r [3]float64
	for i := range 3 {
		for k := range 3 {
			r[i] += a[i][k] * v[k]
		}
	}
	return r
}

func dot3(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func unit3(v [3]float64) [3]float64 {
	n := math.Sqrt(dot3(v, v))
	return [3]float64{v[0] / n, v[1] / n, v[2] / n}
}
