package features

import (
	"bufio"
	"bytes"
	"errors"
	"image"
	"io"
)

// DecodePGM reads one PGM image: binary P5 (one byte per sample when
// maxval ≤ 255, two bytes big-endian when 256 ≤ maxval ≤ 65535) or plain
// ASCII P2. Header fields are separated by whitespace and may be interleaved
// with '#' comments running to the end of the line; exactly one whitespace
// byte separates maxval from a P5 raster, but for a header whose lines end in
// CR LF, as written on Windows: where maxval is followed by CR LF and the
// input is exactly the header and the raster after the LF, the pair is the
// separator (read with the CR alone, such a file would lose its last pixel
// and begin with a pixel of 10). Where one byte fewer follows the CR, the LF
// is the first pixel, and where more follow, the CR alone is the separator,
// as Netpbm reads them. Bytes after the raster (e.g. a second image) are
// ignored.
//
// Samples are rescaled to 8 bits as round(v·255/maxval) (computed exactly in
// integers, halves rounded up), so maxval 255 is copied unchanged. Width and
// height must be positive, width×height at most MaxPixels and maxval in
// 1..65535; every sample must be ≤ maxval. r is read to its end (at most
// MaxFileBytes bytes, as Decode reads it), and the samples are converted from
// it straight into the image: decoding holds one byte a pixel beyond the
// input, and nothing is allocated from the declared size until the pixel
// data are present. name is used in error messages only.
func DecodePGM(r io.Reader, name string) (*image.Gray, error) {
	data, err := readImage(r, name)
	if err != nil {
		return nil, err
	}
	return decodePGM(data, name, MaxPixels)
}

// decodePGM decodes the PGM image held in data, with a limit of maxPixels
// on width×height. It allocates the image (one byte a pixel) once the
// raster is known to be present, and a few kilobytes more; the samples are
// read from data where they are.
func decodePGM(data []byte, name string, maxPixels int64) (*image.Gray, error) {
	src := bytes.NewReader(data)
	br := bufio.NewReader(src)
	p := pgmReader{r: br, name: name}
	raw, w, h, maxval, err := p.header(maxPixels)
	if err != nil {
		return nil, err
	}
	rest := data[len(data)-br.Buffered()-src.Len():] // what follows the header
	if raw {
		return p.rawRaster(rest, w, h, maxval)
	}
	return p.plainRaster(w, h, len(rest), maxval)
}

// header reads and checks a PGM header up to and including the whitespace
// byte after maxval: raw is true for P5. Width×height must be at most
// maxPixels. Nothing is allocated from the declared size.
func (p *pgmReader) header(maxPixels int64) (raw bool, w, h, maxval int, err error) {
	br, name := p.r, p.name
	var magic [2]byte
	if _, err := io.ReadFull(br, magic[:]); err != nil || magic[0] != 'P' || (magic[1] != '2' && magic[1] != '5') {
		return false, 0, 0, 0, formatErr(name, "not a PGM file: it must start with \"P5\" (binary) or \"P2\" (plain)")
	}
	if c, err := br.Peek(1); err == nil && !isSpace(c[0]) && c[0] != '#' {
		return false, 0, 0, 0, formatErr(name, "not a PGM file: magic number \"P%c\" is followed by %q, want whitespace", magic[1], c[0])
	}
	fail := func(err error) (bool, int, int, int, error) { return false, 0, 0, 0, err }
	w64, err := p.headerInt("width")
	if err != nil {
		return fail(err)
	}
	h64, err := p.headerInt("height")
	if err != nil {
		return fail(err)
	}
	mv, err := p.headerInt("maxval")
	if err != nil {
		return fail(err)
	}
	if w64 == 0 || h64 == 0 {
		return fail(formatErr(name, "PGM header says %dx%d: width and height must be positive", w64, h64))
	}
	if w64*h64 > maxPixels {
		return fail(limitErr(name, "PGM header says %dx%d, more than %d pixels", w64, h64, maxPixels))
	}
	if mv == 0 || mv > 65535 {
		return fail(formatErr(name, "PGM maxval is %d: it must be between 1 and 65535", mv))
	}
	return magic[1] == '5', int(w64), int(h64), int(mv), nil
}

type pgmReader struct {
	r    *bufio.Reader
	name string
	end  byte // the whitespace byte that ended the last header number
}

// maxDigits bounds header numbers: anything longer exceeds every limit.
const maxDigits = 9

// headerInt skips whitespace and comments, then reads an unsigned decimal
// followed by one whitespace byte (consumed).
func (p *pgmReader) headerInt(field string) (int64, error) {
	c, err := p.skipSpace(true)
	if err != nil {
		return 0, p.eofErr(err, "PGM header ends before the "+field)
	}
	if c < '0' || c > '9' {
		return 0, formatErr(p.name, "PGM header: want the %s as a decimal number, found %q", field, c)
	}
	v, c, err := p.digits(c)
	if err != nil {
		if errors.Is(err, errTooManyDigits) {
			return 0, limitErr(p.name, "PGM header: %s has more than %d digits", field, maxDigits)
		}
		return 0, p.eofErr(err, "PGM header ends inside the "+field)
	}
	if !isSpace(c) {
		if c == '#' && field != "maxval" {
			// A comment may follow a field directly; put it back.
			_ = p.r.UnreadByte()
			return v, nil
		}
		return 0, formatErr(p.name, "PGM header: %s is followed by %q, want whitespace", field, c)
	}
	p.end = c
	return v, nil
}

var errTooManyDigits = errors.New("too many digits")

// digits reads a decimal number whose first digit c has been read and
// returns it with the byte that ended it.
func (p *pgmReader) digits(c byte) (int64, byte, error) {
	v := int64(c - '0')
	for k := 1; ; k++ {
		c, err := p.r.ReadByte()
		if err != nil {
			return v, 0, err
		}
		if c < '0' || c > '9' {
			return v, c, nil
		}
		if k >= maxDigits {
			return 0, 0, errTooManyDigits
		}
		v = 10*v + int64(c-'0')
	}
}

// skipSpace returns the first byte that is neither whitespace nor inside a
// comment.
func (p *pgmReader) skipSpace(comments bool) (byte, error) {
	for {
		c, err := p.r.ReadByte()
		if err != nil {
			return 0, err
		}
		switch {
		case isSpace(c):
		case c == '#' && comments:
			for c != '\n' && c != '\r' {
				if c, err = p.r.ReadByte(); err != nil {
					return 0, err
				}
			}
		default:
			return c, nil
		}
	}
}

func (p *pgmReader) eofErr(err error, msg string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return formatErr(p.name, "%s (file truncated?)", msg)
	}
	return &Error{Path: p.name, Msg: msg, Err: err}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// rawRaster converts the P5 raster at the start of rest, everything the
// input holds after the header, into a w×h image.
func (p *pgmReader) rawRaster(rest []byte, w, h, maxval int) (*image.Gray, error) {
	n := w * h
	bps := 1
	if maxval > 255 {
		bps = 2
	}
	need := n * bps
	// A CR after maxval followed by an LF may be a Windows line end: the
	// LF is the separator's second byte where the input ends right after a
	// whole raster following it, and the first pixel otherwise.
	if p.end == '\r' && len(rest) == need+1 && rest[0] == '\n' {
		rest = rest[1:]
	}
	if len(rest) < need {
		return nil, formatErr(p.name, "PGM header says %dx%d but only %d of %d pixel bytes are present (file truncated?)", w, h, len(rest), need)
	}
	rest = rest[:need] // bytes after the raster are ignored
	pix := make([]uint8, n)
	sc := newScaler(maxval)
	for i := range pix {
		var v int
		if bps == 1 {
			v = int(rest[i])
		} else {
			v = int(rest[2*i])<<8 | int(rest[2*i+1])
		}
		if v > maxval {
			return nil, formatErr(p.name, "PGM sample %d at (%d, %d) exceeds maxval %d", v, i%w, i/w, maxval)
		}
		pix[i] = sc.scale(v)
	}
	return grayFromPix(pix, w, h), nil
}

// plainRaster reads the w×h samples of a P2 raster, of which avail bytes
// are left in the input.
func (p *pgmReader) plainRaster(w, h, avail, maxval int) (*image.Gray, error) {
	n := w * h
	// k samples take at least 2k−1 bytes (a digit each and whitespace
	// between them): the image is allocated once, as large as the input
	// can fill, so a header claiming more pixels than the file holds costs
	// no more than half the file.
	pix := make([]uint8, 0, min(n, avail/2+1))
	sc := newScaler(maxval)
	for len(pix) < n {
		c, err := p.skipSpace(true)
		if err != nil {
			if err == io.EOF {
				return nil, formatErr(p.name, "PGM header says %dx%d but only %d of %d samples are present (file truncated?)", w, h, len(pix), n)
			}
			return nil, &Error{Path: p.name, Msg: "cannot read PGM samples", Err: err}
		}
		i := len(pix)
		if c < '0' || c > '9' {
			return nil, formatErr(p.name, "PGM P2 sample %d at (%d, %d): want a decimal number, found %q", i, i%w, i/w, c)
		}
		v, c, err := p.digits(c)
		switch {
		case errors.Is(err, errTooManyDigits):
			return nil, formatErr(p.name, "PGM P2 sample at (%d, %d) has more than %d digits (maxval is %d)", i%w, i/w, maxDigits, maxval)
		case err == io.EOF:
			// The last sample may end the file.
		case err != nil:
			return nil, &Error{Path: p.name, Msg: "cannot read PGM samples", Err: err}
		case !isSpace(c) && c != '#':
			return nil, formatErr(p.name, "PGM P2 sample %d at (%d, %d) is followed by %q, want whitespace", i, i%w, i/w, c)
		case c == '#':
			_ = p.r.UnreadByte()
		}
		if v > int64(maxval) {
			return nil, formatErr(p.name, "PGM sample %d at (%d, %d) exceeds maxval %d", v, i%w, i/w, maxval)
		}
		pix = append(pix, sc.scale(int(v)))
	}
	return grayFromPix(pix, w, h), nil
}

// scaler maps 0..maxval to 0..255 as round(v·255/maxval).
type scaler struct{ maxval int }

func newScaler(maxval int) scaler { return scaler{maxval} }

func (s scaler) scale(v int) uint8 {
	if s.maxval == 255 {
		return uint8(v)
	}
	return uint8((2*v*255 + s.maxval) / (2 * s.maxval))
}
