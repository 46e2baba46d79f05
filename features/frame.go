package features

import (
	"bufio"
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"io/fs"
	"os"
	"strings"

	"setmatch/internal/regfile"
)

// imageHeader is what a frame's header declares, read before any pixel
// memory is allocated.
type imageHeader struct {
	format string // "png", "jpeg" or "pgm"
	w, h   int    // as a viewer shows the image (orientation applied)
	orient int    // a JPEG's EXIF orientation, 1 to 8 (0 or 1: as stored)
}

// readHeader reads the header of the PNG, JPEG or PGM image held in data
// and checks it: a supported format, a positive size, at most maxPixels
// pixels, and a decoding that holds at most 4 bytes a pixel of those
// (checkDecodeCost). Only the header is parsed; nothing is allocated from the declared
// size.
func readHeader(data []byte, name string, maxPixels int64) (imageHeader, error) {
	if len(data) == 0 {
		return imageHeader{}, formatErr(name, "file is empty (want a PNG, JPEG or PGM image)")
	}
	if len(data) >= 2 && data[0] == 'P' {
		switch data[1] {
		case '2', '5':
			p := pgmReader{r: bufio.NewReader(bytes.NewReader(data)), name: name}
			_, w, h, _, err := p.header(maxPixels)
			if err != nil {
				return imageHeader{}, err
			}
			if err := checkDecodeCost(data, name, "pgm", nil, w, h, maxPixels); err != nil {
				return imageHeader{}, err
			}
			return imageHeader{format: "pgm", w: w, h: h}, nil
		case '1', '3', '4', '6', '7':
			return imageHeader{}, formatErr(name, "Netpbm format P%c is not supported (want PGM P2/P5, PNG or JPEG; convert with e.g. `pnmtopng` or `ppmtopgm`)", data[1])
		}
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		if errors.Is(err, image.ErrFormat) {
			return imageHeader{}, formatErr(name, "unrecognised image format (want PNG, JPEG or PGM P2/P5)")
		}
		return imageHeader{}, formatErr(name, "cannot read %s image header: %v%s", strings.ToUpper(format), err, decodeHint(err))
	}
	if format != "png" && format != "jpeg" {
		// Another package of the program may register more formats with
		// the image package; only the documented ones are read.
		return imageHeader{}, formatErr(name, "%s images are not read (want PNG, JPEG or PGM P2/P5)", strings.ToUpper(format))
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return imageHeader{}, formatErr(name, "%s image has empty size %dx%d", strings.ToUpper(format), cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxPixels {
		return imageHeader{}, limitErr(name, "%s image is %dx%d, more than %d pixels", strings.ToUpper(format), cfg.Width, cfg.Height, maxPixels)
	}
	if err := checkDecodeCost(data, name, format, cfg.ColorModel, cfg.Width, cfg.Height, maxPixels); err != nil {
		return imageHeader{}, err
	}
	hdr := imageHeader{format: format, w: cfg.Width, h: cfg.Height, orient: 1}
	if format == "jpeg" {
		hdr.orient = jpegOrientation(data)
		hdr.w, hdr.h = orientedSize(cfg.Width, cfg.Height, hdr.orient)
	}
	return hdr, nil
}

// decodeHint says what to make of a decoder's error: a JPEG of a kind the
// reader does not take (12-bit, arithmetic-coded, lossless) is intact, and
// is to be saved again; anything else is likely a damaged file.
func decodeHint(err error) string {
	var unsupported jpeg.UnsupportedError
	if errors.As(err, &unsupported) {
		return " (an intact JPEG of a kind not read here, such as 12-bit, arithmetic-coded or lossless: save it again as an 8-bit baseline or progressive JPEG, e.g. with cjpeg or jpegtran, or as PNG)"
	}
	return " (file damaged or truncated?)"
}

// decodeBody decodes the image in data whose header readHeader accepted.
func decodeBody(data []byte, name string, hdr imageHeader, maxPixels int64) (*image.Gray, error) {
	if hdr.format == "pgm" {
		return decodePGM(data, name, maxPixels)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, formatErr(name, "cannot decode %s image: %v%s", strings.ToUpper(hdr.format), err, decodeHint(err))
	}
	// The header's size is the one shown; the pixels are as stored.
	if b := img.Bounds(); b.Dx() != hdr.w || b.Dy() != hdr.h {
		if w, h := orientedSize(b.Dx(), b.Dy(), hdr.orient); w != hdr.w || h != hdr.h {
			return nil, formatErr(name, "%s image decodes to %dx%d but its header says %dx%d", strings.ToUpper(hdr.format), b.Dx(), b.Dy(), hdr.w, hdr.h)
		}
	}
	return orient(ToGray(img), hdr.orient), nil
}

// decodeBytes decodes one PNG, JPEG or PGM image held in data, refusing
// images of more than maxPixels pixels from the header.
func decodeBytes(data []byte, name string, maxPixels int64) (*image.Gray, error) {
	hdr, err := readHeader(data, name, maxPixels)
	if err != nil {
		return nil, err
	}
	return decodeBody(data, name, hdr, maxPixels)
}

// whileRead is what to do, said after the error of a frame that changed
// while a burst was read (readRegular).
const whileRead = ": write every frame of a burst before it is read (into a spool: rename the burst in only once it is complete)"

// readRegular reads the whole of the open file f, which must be a regular
// file of at most maxBytes bytes. The buffer is sized from the file's size
// (plus one byte to notice a file that grows meanwhile), so a frame costs
// its size once. listed, when not nil, is what the directory listing said
// about the entry: the open file must be that same file, of the size
// listed.
func readRegular(f *os.File, name string, maxBytes int64, listed fs.FileInfo) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, &Error{Path: name, Msg: "cannot stat frame", Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, formatErr(name, "not a regular file (%v): a frame must be an image file", fi.Mode().Type())
	}
	if listed != nil && !os.SameFile(listed, fi) {
		return nil, formatErr(name, "the file was replaced while the frames were read"+whileRead)
	}
	size := fi.Size()
	if listed != nil && size != listed.Size() {
		return nil, formatErr(name, "the file changed size since the burst was listed (%d bytes, then %d)"+whileRead, listed.Size(), size)
	}
	if size > maxBytes {
		return nil, limitErr(name, "file is %d bytes, more than the limit of %d per frame: send smaller frames (e.g. JPEG) or raise the limit", size, maxBytes)
	}
	if size == 0 {
		return nil, formatErr(name, "file is empty (want a PNG, JPEG or PGM image)")
	}
	b, err := regfile.ReadSized(f, size, maxBytes) // one byte past the limit tells a file that grew
	if err != nil {
		return nil, &Error{Path: name, Msg: "cannot read frame", Err: err}
	}
	if int64(len(b)) > maxBytes {
		return nil, limitErr(name, "file grew to more than the limit of %d bytes per frame while it was read", maxBytes)
	}
	if int64(len(b)) != size {
		return nil, formatErr(name, "file changed size while it was read (%d bytes, then %d)"+whileRead, size, len(b))
	}
	return b, nil
}
