package features

import (
	"image"
	"image/color"
	"math/rand/v2"
	"testing"
)

// slowGray is the reference conversion: color.GrayModel through img.At.
func slowGray(img image.Image) *image.Gray {
	b := img.Bounds()
	out := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			out.Pix[y*b.Dx()+x] = color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
		}
	}
	return out
}

func TestToGrayFastEqualsGrayModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	fill := func(p []uint8) {
		for i := range p {
			p[i] = uint8(r.IntN(256))
		}
	}
	var imgs []image.Image
	for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422,
		image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410} {
		m := image.NewYCbCr(image.Rect(0, 0, 37, 23), ratio)
		fill(m.Y)
		fill(m.Cb)
		fill(m.Cr)
		imgs = append(imgs, m, m.SubImage(image.Rect(3, 5, 30, 20)))
	}
	rgba := image.NewRGBA(image.Rect(0, 0, 31, 17))
	fill(rgba.Pix)
	for i := 0; i < len(rgba.Pix); i += 4 { // premultiplied: channels ≤ alpha
		for c := range 3 {
			rgba.Pix[i+c] = min(rgba.Pix[i+c], rgba.Pix[i+3])
		}
	}
	nrgba := image.NewNRGBA(image.Rect(0, 0, 31, 17))
	fill(nrgba.Pix)
	imgs = append(imgs, rgba, rgba.SubImage(image.Rect(2, 2, 20, 9)), nrgba, nrgba.SubImage(image.Rect(1, 4, 13, 16)))
	for i, img := range imgs {
		got, want := ToGray(img), slowGray(img)
		if got.Bounds() != want.Bounds() || string(got.Pix) != string(want.Pix) {
			t.Errorf("image %d (%T): fast grey conversion differs from color.GrayModel", i, img)
		}
	}
}
