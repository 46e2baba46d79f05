package features

import (
	"image"
	"image/color"
	_ "image/jpeg" // register JPEG with image.Decode
	_ "image/png"  // register PNG with image.Decode
	"io"

	"setmatch/internal/regfile"
)

// Limits applied to every decoded image. An image file is read whole into
// memory, so MaxFileBytes bounds the read; MaxPixels bounds width×height as
// declared by the header and is checked before any pixel buffer is
// allocated.
const (
	MaxPixels    = 1 << 26 // 67,108,864 pixels, e.g. 8192×8192
	MaxFileBytes = 1 << 28 // 256 MiB
)

// DecodeImageFile reads a PNG, JPEG or PGM (P2 or P5) image and returns it
// as 8-bit grey (see Decode). The format is recognised from the content, not
// the file name. Errors name the file.
func DecodeImageFile(path string) (*image.Gray, error) {
	f, _, err := regfile.Open(path) // a FIFO in its place is refused, not waited on
	if err != nil {
		return nil, &Error{Path: path, Msg: "cannot open image", Err: err}
	}
	defer f.Close()
	return Decode(f, path)
}

// Decode reads one PNG, JPEG or PGM image from r. name is used in error
// messages only (typically the file path).
//
// The result always has its origin at (0, 0) and Stride equal to its width.
// Colour images are converted with color.GrayModel, i.e. the ITU-R BT.601
// luma Y = 0.299 R + 0.587 G + 0.114 B of the 16-bit-per-channel colour,
// rounded to 8 bits; alpha is ignored after premultiplication, so fully
// transparent pixels become black. 16-bit grey PNGs keep their high byte.
// PGM samples are rescaled to 0..255 (see DecodePGM).
func Decode(r io.Reader, name string) (*image.Gray, error) {
	data, err := readImage(r, name)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, formatErr(name, "file is empty (want a PNG, JPEG or PGM image)")
	}
	return decodeBytes(data, name, MaxPixels)
}

// readImage reads all of r, the image file name, as Decode and DecodePGM
// do: more than MaxFileBytes bytes is an error.
func readImage(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, &Error{Path: name, Msg: "cannot read image", Err: err}
	}
	if len(data) > MaxFileBytes {
		return nil, limitErr(name, "file is larger than %d bytes", MaxFileBytes)
	}
	return data, nil
}

// ToGray converts img to 8-bit grey with color.GrayModel (BT.601 luma, see
// Decode). The result has its origin at (0, 0) and Stride equal to its
// width; an *image.Gray already in that form is returned as is.
func ToGray(img image.Image) *image.Gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if g, ok := img.(*image.Gray); ok && b.Min == (image.Point{}) && g.Stride == w {
		return g
	}
	out := image.NewGray(image.Rect(0, 0, w, h))
	if g, ok := img.(*image.Gray); ok {
		for y := 0; y < h; y++ {
			copy(out.Pix[y*w:(y+1)*w], g.Pix[g.PixOffset(b.Min.X, b.Min.Y+y):])
		}
		return out
	}
	if toGrayFast(img, out) {
		return out
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			out.Pix[y*w+x] = color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
		}
	}
	return out
}

// grayFromPix wraps a w×h pixel slice (len w*h) as an image.Gray.
func grayFromPix(pix []uint8, w, h int) *image.Gray {
	return &image.Gray{Pix: pix, Stride: w, Rect: image.Rect(0, 0, w, h)}
}
