package synth

import (
	"fmt"
	"image"
	"math"
)

// RelightOptions configures WriteRelit: image sets of real faces (or any
// photographs) under strong synthetic lighting, the way a face walks past
// a camera under a lamp at the side, for trying a method on a nuisance as
// strong as the identity without a lighting data set.
//
// Every data set has one list of Sets×Frames light directions (the same
// for every class, as a lighting rig gives every person the same lights);
// each class deals a shuffle of them to its sets, Frames each, so the sets
// of a class see different lights from the same distribution. The class's
// source images are dealt to its sets too (a shuffle, round the sets), so
// that no two sets share a photograph when there are at least as many
// images as sets (with fewer, set s takes image s mod their number). A
// frame is one of its set's images, picked at random, lit by Relight.
type RelightOptions struct {
	Sets, Frames int     // sets per class and frames per set
	MaxAngle     float64 // largest angle of a light from the camera axis, degrees (default RelightMaxAngle)
	Ambient      float64 // share of the light that reaches every pixel, in (0, 1) (default RelightAmbient)
	Seed         int64   // the same seed gives the same frames
}

// The defaults of RelightOptions.
const (
	RelightMaxAngle = 90   // degrees
	RelightAmbient  = 0.05 // share of the light
)

func (o RelightOptions) withDefaults() (RelightOptions, error) {
	if o.MaxAngle == 0 {
		o.MaxAngle = RelightMaxAngle
	}
	if o.Ambient == 0 {
		o.Ambient = RelightAmbient
	}
	switch {
	case o.Sets < 1 || o.Sets > 1000:
		return o, fmt.Errorf("synth: sets per class must be 1 to 1000, got %d", o.Sets)
	case o.Frames < 2 || o.Frames > 10000:
		return o, fmt.Errorf("synth: frames per set must be 2 to 10000 (a set needs at least 2 frames), got %d", o.Frames)
	case !(o.MaxAngle > 0 && o.MaxAngle <= 90):
		return o, fmt.Errorf("synth: the largest light angle must be in (0, 90] degrees, got %g", o.MaxAngle)
	case !(o.Ambient > 0 && o.Ambient < 1):
		return o, fmt.Errorf("synth: the ambient share must be in (0, 1), got %g", o.Ambient)
	}
	return o, nil
}

// Check reports whether the options are usable.
func (o RelightOptions) Check() error {
	_, err := o.withDefaults()
	return err
}

// Lights returns the Sets×Frames light directions of the data set: unit
// vectors (x right, y up, z towards the camera) drawn uniformly over the
// cap of directions within MaxAngle of the camera axis.
func (o RelightOptions) Lights() ([][3]float64, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	rng := setRNG(o.Seed^0x11647, -1, -1)
	lo := math.Cos(o.MaxAngle * math.Pi / 180)
	ls := make([][3]float64, o.Sets*o.Frames)
	for i := range ls {
		z := lo + (1-lo)*rng.Float64() // uniform in z is uniform over the cap's area
		r := math.Sqrt(max(0, 1-z*z))
		phi := 2 * math.Pi * rng.Float64()
		ls[i] = [3]float64{r * math.Cos(phi), r * math.Sin(phi), z}
	}
	return ls, nil
}

// relightSet gives to emit, one after the other, the frames of set s
// (0 ≤ s < Sets) of class c lit from its share of Lights; src holds the
// class's source images (at least one), of which the set takes its share.
// The frames keep their source's size; one frame at a time is held (a
// frame is as large as its source image). Generation is deterministic for
// given options, c, s and src.
func (o RelightOptions) relightSet(src []*image.Gray, c, s int, emit func(*image.Gray) error) error {
	o, err := o.withDefaults()
	if err != nil {
		return err
	}
	if len(src) == 0 {
		return fmt.Errorf("synth: class %d has no source image to light", c)
	}
	if c < 0 || s < 0 || s >= o.Sets {
		return fmt.Errorf("synth: no class %d set %d (sets 0..%d)", c, s, o.Sets-1)
	}
	lights, err := o.Lights()
	if err != nil {
		return err
	}
	// The class's deal of the lights and of its images: one shuffle of
	// each per class, whatever set is asked for.
	crng := setRNG(o.Seed^0x11647, c, -1)
	perm := crng.Perm(len(lights))
	var own []*image.Gray
	if deal := crng.Perm(len(src)); len(src) >= o.Sets {
		for i := s; i < len(src); i += o.Sets {
			own = append(own, src[deal[i]])
		}
	} else {
		own = []*image.Gray{src[deal[s%len(src)]]}
	}
	rng := setRNG(o.Seed^0x11647, c, s)
	for f := range o.Frames {
		if err := emit(Relight(own[rng.IntN(len(own))], lights[perm[s*o.Frames+f]], o.Ambient)); err != nil {
			return err
		}
	}
	return nil
}

// Relight returns img as if lit from direction l (a unit vector: x right,
// y up, z towards the camera) instead of from the camera: the image is
// taken as the albedo of a surface shaped like the ellipsoid that fills
// the frame (a face seen from the front), and each pixel is scaled by
//
//	ambient + (1 − ambient)·max(0, n·l)
//
// with n the ellipsoid's normal there (outside the ellipse, the normal of
// its rim). A light from the side darkens the far half of the face to the
// ambient level (an attached shadow); l = (0, 0, 1) changes the centre
// not at all and darkens the rim.
func Relight(img *image.Gray, l [3]float64, ambient float64) *image.Gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	rx, ry := float64(w)/2, float64(h)/2
	for y := range h {
		v := -(float64(y) + 0.5 - ry) / ry // up is +y
		for x := range w {
			u := (float64(x) + 0.5 - rx) / rx
			nx, ny := u, v
			nz := 1 - u*u - v*v
			if nz < 0 {
				k := 1 / math.Hypot(u, v)
				nx, ny, nz = u*k, v*k, 0
			}
			nz = math.Sqrt(nz)
			shade := ambient + (1-ambient)*max(0, nx*l[0]+ny*l[1]+nz*l[2])
			p := float64(img.Pix[img.PixOffset(b.Min.X+x, b.Min.Y+y)]) * shade
			out.Pix[y*out.Stride+x] = uint8(math.Min(255, math.Round(p)))
		}
	}
	return out
}
