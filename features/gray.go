package features

import "image"

// lumaOf is color.GrayModel's conversion of a colour whose 16-bit channels
// are r, g, b: the BT.601 luma, rounded to 8 bits.
func lumaOf(r, g, b uint32) uint8 {
	return uint8((19595*r + 38470*g + 7471*b + 1<<15) >> 24)
}

// toGrayFast converts the image types that decoding produces most often
// (YCbCr from JPEG, RGBA and NRGBA from PNG) exactly as color.GrayModel
// does through img.At, without boxing every pixel in an interface. It
// returns false for other types. Each type has a loop of its own: through
// one generic loop the pixel accessor becomes an indirect call (Go
// compiles one body for the types of one GC shape), which measured slower
// on RGBA and NRGBA frames.
func toGrayFast(img image.Image, out *image.Gray) bool {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	switch m := img.(type) {
	case *image.YCbCr:
		for y := range h {
			row := out.Pix[y*w : (y+1)*w]
			for x := range row {
				r, g, bl, _ := m.YCbCrAt(b.Min.X+x, b.Min.Y+y).RGBA()
				row[x] = lumaOf(r, g, bl)
			}
		}
	case *image.RGBA:
		for y := range h {
			row := out.Pix[y*w : (y+1)*w]
			for x := range row {
				r, g, bl, _ := m.RGBAAt(b.Min.X+x, b.Min.Y+y).RGBA()
				row[x] = lumaOf(r, g, bl)
			}
		}
	case *image.NRGBA:
		for y := range h {
			row := out.Pix[y*w : (y+1)*w]
			for x := range row {
				r, g, bl, _ := m.NRGBAAt(b.Min.X+x, b.Min.Y+y).RGBA()
				row[x] = lumaOf(r, g, bl)
			}
		}
	default:
		return false
	}
	return true
}
