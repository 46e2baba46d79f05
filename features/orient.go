package features

import (
	"bytes"
	"encoding/binary"
	"image"
)

// A JPEG from a phone or a camera held on its side often stores its pixels
// as the sensor read them and says in its EXIF Orientation tag how a viewer
// turns them. A frame is read as a viewer shows it: the orientation is
// applied to the grey image, and the size checked against a pipeline's is
// the size shown.

// jpegOrientation returns the EXIF Orientation (1 to 8) of the JPEG in data,
// or 1 (as stored) where it has none or cannot be read. Only the segments
// before the first scan are looked at, and stray bytes among them end the
// walk: EXIF is an APP1 segment of the header (the EXIF standard puts it
// right after SOI), and the scans that follow need not be walked for it.
func jpegOrientation(data []byte) int {
	for m, seg := range jpegSegments(data) {
		switch {
		case m == 0 || m == 0xDA: // stray bytes, or the first scan
			return 1
		case m == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")):
			return tiffOrientation(seg[6:])
		}
	}
	return 1
}

// tiffOrientation returns the Orientation tag (0x0112) of IFD0 of the TIFF
// structure t (an EXIF segment's body), or 1.
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 1
	}
	if bo.Uint16(t[2:]) != 42 {
		return 1
	}
	ifd := int64(bo.Uint32(t[4:]))
	if ifd+2 > int64(len(t)) {
		return 1
	}
	count := int64(bo.Uint16(t[ifd:]))
	for k := range count {
		e := ifd + 2 + 12*k
		if e+12 > int64(len(t)) {
			return 1
		}
		if bo.Uint16(t[e:]) != 0x0112 {
			continue
		}
		// Type SHORT, one value, held in the entry itself.
		if bo.Uint16(t[e+2:]) != 3 || bo.Uint32(t[e+4:]) != 1 {
			return 1
		}
		if v := int(bo.Uint16(t[e+8:])); v >= 1 && v <= 8 {
			return v
		}
		return 1
	}
	return 1
}

// orientedSize is the size a viewer shows a w×h image of orientation o in.
func orientedSize(w, h, o int) (int, int) {
	if o >= 5 {
		return h, w
	}
	return w, h
}

// orient returns g (stored as the sensor read it) as a viewer shows an
// image of EXIF orientation o: mirrored (2, 4), turned half a turn (3),
// transposed (5), turned a quarter clockwise (6) or anticlockwise (8), or
// transposed across the other diagonal (7). Orientation 1 returns g.
func orient(g *image.Gray, o int) *image.Gray {
	if o <= 1 || o > 8 {
		return g
	}
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	ow, oh := orientedSize(w, h, o)
	out := image.NewGray(image.Rect(0, 0, ow, oh))
	for y := range oh {
		for x := range ow {
			// The stored pixel (sx, sy) shown at (x, y).
			var sx, sy int
			switch o {
			case 2:
				sx, sy = w-1-x, y
			case 3:
				sx, sy = w-1-x, h-1-y
			case 4:
				sx, sy = x, h-1-y
			case 5:
				sx, sy = y, x
			case 6:
				sx, sy = y, h-1-x
			case 7:
				sx, sy = w-1-y, h-1-x
			case 8:
				sx, sy = w-1-y, x
			}
			out.Pix[y*out.Stride+x] = g.GrayAt(b.Min.X+sx, b.Min.Y+sy).Y
		}
	}
	return out
}
