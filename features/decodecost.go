package features

import (
	"encoding/binary"
	"image/color"

	"setmatch/internal/bytesize"
)

// bytesPerPixelBudget is what one pixel of a frame may cost to decode, in
// bytes: that of an 8-bit RGBA image. A frame of the most pixels allowed
// then decodes in 4 × maxPixels bytes (48 MiB at 4096×3072), whatever its
// format; a 16-bit PNG or a progressive JPEG, whose decoders hold 8 to 20
// bytes a pixel, an interlaced PNG (twice its image's bytes) or a grey
// PNG with a transparent level (decoded as colour), is refused from its
// header above a smaller size.
const bytesPerPixelBudget = 4

// decodeCost returns the bytes per pixel the decoders hold for the PNG,
// JPEG or PGM image of data whose header has colour model cm (nil for a
// PGM), and how it is stored, for the error: the decoded image (twice
// over for an interlaced PNG), and for a progressive JPEG its
// coefficients (a 32-bit integer for each sample of each component until
// the last scan). A PGM's samples, 8- or 16-bit, are converted from the
// file straight into the grey image (DecodePGM).
func decodeCost(data []byte, format string, cm color.Model) (float64, string) {
	if format == "pgm" {
		return 1, "PGM"
	}
	if format == "png" {
		bpp, what := pngCost(cm)
		if (cm == color.GrayModel || cm == color.Gray16Model) && pngTransparent(data) {
			// A grey level marked transparent: image/png decodes the
			// image into NRGBA (or NRGBA64), 4 times the grey bytes,
			// though its header (all DecodeConfig reads) says grey.
			bpp, what = 4*bpp, what+" with transparency"
		}
		if pngInterlaced(data) {
			// Go's decoder reads each of the seven Adam7 passes into an
			// image of its own before merging it into the whole one: as
			// many bytes again.
			return 2 * bpp, "interlaced " + what
		}
		return bpp, what
	}
	comps, samples, progressive := jpegFrame(data)
	img := samples // grey 1, YCbCr 1.5 at 4:2:0 to 3 at 4:4:4
	what := "JPEG"
	switch {
	case comps == 4:
		// Decoded into planes, then copied into a CMYK image.
		img, what = samples+4, "CMYK JPEG"
	case comps == 3 && jpegRGB(data):
		// Decoded into planes, then copied into an RGBA image.
		img, what = samples+4, "RGB JPEG"
	}
	if progressive {
		return img + 4*samples, "progressive " + what
	}
	return img, what
}

// pngCost returns the bytes a pixel of a PNG of colour model cm decodes
// into, and how it is stored.
func pngCost(cm color.Model) (float64, string) {
	switch cm {
	case color.GrayModel:
		return 1, "8-bit grey PNG"
	case color.Gray16Model:
		return 2, "16-bit grey PNG"
	case color.RGBAModel, color.NRGBAModel:
		return 4, "8-bit colour PNG"
	case color.RGBA64Model, color.NRGBA64Model:
		return 8, "16-bit colour PNG"
	}
	if _, ok := cm.(color.Palette); ok {
		return 1, "palette PNG"
	}
	return 8, "PNG"
}

// pngInterlaced reports whether the PNG data is Adam7-interlaced: the
// interlace method, the last byte of the IHDR chunk, which a PNG holds
// first (image/png refuses it anywhere else).
func pngInterlaced(data []byte) bool {
	// signature (8), length (4), "IHDR" (4), width, height (4 each), bit
	// depth, colour type, compression, filter (1 each), interlace.
	return len(data) > 28 && string(data[12:16]) == "IHDR" && data[28] == 1
}

// pngTransparent reports whether the PNG data holds a tRNS chunk before
// its image data (image/png refuses one after): the chunks are walked by
// their lengths, no further than data and the first IDAT.
func pngTransparent(data []byte) bool {
	for i := int64(8); i+8 <= int64(len(data)); {
		switch string(data[i+4 : i+8]) {
		case "tRNS":
			return true
		case "IDAT", "IEND":
			return false
		}
		// length, type, data and CRC
		i += 12 + int64(binary.BigEndian.Uint32(data[i:]))
	}
	return false
}

// jpegRGB reports whether image/jpeg decodes the three components of the
// JPEG data as R, G and B (then copied into an RGBA image) rather than
// YCbCr: as its decoder decides, when the last APP0 segment is not JFIF
// and either the last Adobe APP14 segment says transform 0 (unknown, in
// practice RGB) or the frame's components are named 'R', 'G' and 'B'.
// Every segment is looked at, those after the scans too, and stray bytes
// are passed over: the decoder reads the whole file so, and decides at its
// end. What cannot be read ends the walk with what was seen.
func jpegRGB(data []byte) bool {
	jfif, adobe, transform, named := false, false, byte(0), false
	for m, seg := range jpegSegments(data) {
		switch {
		case m == 0xE0 && len(seg) >= 5:
			jfif = string(seg[:5]) == "JFIF\x00"
		case m == 0xEE && len(seg) >= 12 && string(seg[:5]) == "Adobe":
			adobe, transform = true, seg[11]
		case jpegSOF(m) && len(seg) >= 6+3*3 && seg[5] == 3:
			named = seg[6] == 'R' && seg[9] == 'G' && seg[12] == 'B'
		}
	}
	return !jfif && (adobe && transform == 0 || named)
}

// jpegFrame reads the start-of-frame segment of the JPEG data: its number
// of components, the samples per pixel they hold together (their sampling
// factors against the largest), and whether the image is progressive.
// What it cannot read counts as three full components, progressive. Only
// the segments before the first scan are looked at, and stray bytes among
// them end the walk: image/jpeg takes the first frame header, which comes
// before the scans, and a header not read plainly costs the worst case
// rather than a guess.
func jpegFrame(data []byte) (comps int, samples float64, progressive bool) {
	const worst = 3
	for m, seg := range jpegSegments(data) {
		switch {
		case m == 0 || m == 0xDA: // stray bytes, or a scan before any frame header
			return worst, worst, true
		case jpegSOF(m):
			if len(seg) < 6 {
				return worst, worst, true
			}
			nc := int(seg[5])
			if nc < 1 || len(seg) < 6+3*nc {
				return worst, worst, true
			}
			hmax, vmax, sum := 1, 1, 0
			for c := range nc {
				hv := seg[6+3*c+1]
				h, v := int(hv>>4), int(hv&15)
				hmax, vmax, sum = max(hmax, h), max(vmax, v), sum+h*v
			}
			return nc, float64(sum) / float64(hmax*vmax), m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE
		}
	}
	return worst, worst, true
}

// checkDecodeCost refuses a w×h image whose decoding would hold more than
// bytesPerPixelBudget × maxPixels bytes.
func checkDecodeCost(data []byte, name, format string, cm color.Model, w, h int, maxPixels int64) error {
	bpp, what := decodeCost(data, format, cm)
	need := bpp * float64(w) * float64(h)
	if budget := bytesPerPixelBudget * float64(maxPixels); need > budget { // in float64: 4 × a pixel limit above 2^61 overflows int64
		size, limit := bytesize.Over(need, budget)
		return limitErr(name, "%dx%d %s takes about %s to decode, more than the %s a frame may (%d bytes a pixel at most %d pixels): send baseline 8-bit frames (JPEGs not progressive, PNGs not interlaced), or smaller ones",
			w, h, what, size, limit, bytesPerPixelBudget, maxPixels)
	}
	return nil
}
