package synth

import (
	"fmt"
	"image"
	"math"

	"setmatch/internal/bytesize"
)

// ImageOptions configures ImageSet: synthetic camera frames of textured
// surfaces, one texture per class, for trying the image path (feature
// extraction, image bursts) without a camera.
//
// Class c is a sum of two sinusoidal gratings at orientations θ_c = π·c/K
// and θ_c + π/3, with K = max(Classes, 2), of 1/16 and 1/24 cycles per
// pixel at a 128-pixel-wide frame (scaled with W). Each frame has its own
// orientation jitter (±2°), phase and shift, contrast (0.6–1) and
// brightness (±20 grey levels), as a camera sees a surface move under
// flickering light, and Gaussian pixel noise (σ = 6 grey levels): the sets
// of a class are samples of one distribution. Orientation is what tells classes apart, as texture-sensitive
// features (lbp, hog) see it.
type ImageOptions struct {
	Classes int   // number of classes (orientations are spaced for this many)
	Frames  int   // frames per set
	W, H    int   // frame size in pixels
	Seed    int64 // the same seed gives the same frames
}

// Check reports whether the options are usable.
func (o ImageOptions) Check() error {
	switch {
	case o.Classes < 1 || o.Classes > 1000:
		return fmt.Errorf("synth: image classes must be 1 to 1000, got %d", o.Classes)
	}
	return checkFrames(o.Frames, o.W, o.H)
}

// checkFrames reports whether sets of frames frames of w×h pixels can be
// made.
func checkFrames(frames, w, h int) error {
	switch {
	case frames < 2 || frames > 100000:
		return fmt.Errorf("synth: frames per set must be 2 to 100000 (a set needs at least 2 frames), got %d", frames)
	case w < 8 || h < 8 || w > 4096 || h > 4096:
		return fmt.Errorf("synth: image size must be 8x8 to 4096x4096, got %dx%d", w, h)
	}
	return nil
}

// MaxImageBytes bounds the size of an image data set synth writes, its
// frames counted at a byte a pixel (grey PNG frames of textures and
// noise take a little less): 2 GiB, as maxValues bounds feature vectors.
const MaxImageBytes = 1 << 31

// CheckSets reports whether the options are usable (Check) and sets sets
// of each class within MaxImageBytes (checkDataSize), as WriteImageSets
// checks before it writes.
func (o ImageOptions) CheckSets(sets int) error {
	if err := o.Check(); err != nil {
		return err
	}
	return checkDataSize(o.Classes, sets, o.Frames, o.W, o.H)
}

// checkDataSize reports whether classes × sets sets of frames frames of
// w×h pixels are within MaxImageBytes.
func checkDataSize(classes, sets, frames, w, h int) error {
	size := float64(classes) * float64(sets) * float64(frames) * float64(w) * float64(h)
	if size <= MaxImageBytes {
		return nil
	}
	got, limit := bytesize.Over(size, MaxImageBytes)
	return fmt.Errorf("synth: %d classes × %d sets × %d frames of %dx%d pixels are about %s of PNG frames, over the limit of %s: lower --frames, --sets or --classes, or the frame size WxH", classes, sets, frames, w, h, got, limit)
}

// ImageSet returns the frames of set s of class c (0 ≤ c < Classes; any
// s ≥ 0, so that sets beyond those of a data set serve as fresh probes).
// Generation is deterministic for given options, c and s.
func (o ImageOptions) ImageSet(c, s int) ([]*image.Gray, error) {
	return collect(func(emit func(*image.Gray) error) error { return o.imageSet(c, s, emit) })
}

// collect returns the frames a set's function gives to emit, one after
// the other, held together.
func collect(set func(emit func(*image.Gray) error) error) ([]*image.Gray, error) {
	var frames []*image.Gray
	if err := set(func(img *image.Gray) error {
		frames = append(frames, img)
		return nil
	}); err != nil {
		return nil, err
	}
	return frames, nil
}

// imageSet is ImageSet giving each frame to emit as it is made, so that a
// set's frames need not be held at once.
func (o ImageOptions) imageSet(c, s int, emit func(*image.Gray) error) error {
	if err := o.Check(); err != nil {
		return err
	}
	if c < 0 || c >= o.Classes || s < 0 {
		return fmt.Errorf("synth: no class %d set %d (classes 0..%d, sets ≥ 0)", c, s, o.Classes-1)
	}
	rng := setRNG(o.Seed^0x1a4e5, c, s)
	k := max(o.Classes, 2)
	scale := 128 / float64(o.W)
	f1, f2 := 2*math.Pi/16*scale, 2*math.Pi/24*scale
	for range o.Frames {
		theta := math.Pi*float64(c)/float64(k) + (rng.Float64()*2-1)*2*math.Pi/180
		c1, s1 := math.Cos(theta), math.Sin(theta)
		c2, s2 := math.Cos(theta+math.Pi/3), math.Sin(theta+math.Pi/3)
		ph1, ph2 := rng.Float64()*2*math.Pi, rng.Float64()*2*math.Pi
		contrast := 0.6 + 0.4*rng.Float64()
		offset := (rng.Float64()*2 - 1) * 20
		dx, dy := (rng.Float64()*2-1)*3, (rng.Float64()*2-1)*3
		img := image.NewGray(image.Rect(0, 0, o.W, o.H))
		for y := range o.H {
			for x := range o.W {
				px, py := float64(x)+dx, float64(y)+dy
				v := 0.6*math.Sin(f1*(px*c1+py*s1)+ph1) + 0.4*math.Sin(f2*(px*c2+py*s2)+ph2)
				g := 128 + offset + 90*contrast*v + 6*rng.NormFloat64()
				img.Pix[y*img.Stride+x] = uint8(math.Max(0, math.Min(255, math.Round(g))))
			}
		}
		if err := emit(img); err != nil {
			return err
		}
	}
	return nil
}
