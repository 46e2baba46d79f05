package setfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
)

const (
	npyMagic = "\x93NUMPY"
	// maxHeaderLen bounds the header dictionary. NumPy itself refuses
	// headers over 10000 bytes by default; a 2-D float array needs < 128.
	maxHeaderLen = 1 << 16
	// chunkBytes is the unit in which data is read, so that a header that
	// lies about the size costs at most one chunk beyond the data present.
	chunkBytes = 64 << 10
	// preallocFloats bounds what a header alone can make the reader
	// allocate before the data arrives.
	preallocFloats = 2 << 20
)

// npyHeader is the parsed header dictionary of an .npy file.
type npyHeader struct {
	descr   string
	fortran bool
	shape   []int
}

// ReadNPY reads a 2-D float64 or float32 NumPy array (rows = frames,
// columns = features) in .npy format versions 1.0, 2.0 or 3.0. See the
// package documentation for the rules. The returned matrix is rows×cols.
func ReadNPY(r io.Reader, lim Limits) (*mat.Dense, error) {
	lim = lim.Resolved()
	br := bufio.NewReaderSize(r, chunkBytes)
	h, err := readNPYHeader(br)
	if err != nil {
		return nil, err
	}
	rows, cols, item, err := h.validate(lim)
	if err != nil {
		return nil, err
	}
	data, err := readNPYData(br, rows, cols, item)
	if err != nil {
		return nil, err
	}
	return mat.NewDense(rows, cols, data), nil
}

func readNPYHeader(r io.Reader) (*npyHeader, error) {
	var pre [8]byte
	n, err := io.ReadFull(r, pre[:])
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			if n == 0 {
				return nil, formatErr("file is empty; expected a NumPy .npy array (numpy.save)")
			}
			if !strings.HasPrefix(npyMagic, string(pre[:min(n, 6)])) {
				return nil, notNPY()
			}
			return nil, formatErr("file is only %d bytes long: too short for an .npy header", n)
		}
		return nil, ioErr("reading .npy header", err)
	}
	if string(pre[:6]) != npyMagic {
		return nil, notNPY()
	}
	major, minor := pre[6], pre[7]
	var hlen int
	switch {
	case major == 1 && minor == 0:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, truncHeader(err)
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case (major == 2 || major == 3) && minor == 0:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, truncHeader(err)
		}
		l := binary.LittleEndian.Uint32(b[:])
		if l > maxHeaderLen {
			return nil, formatErr("header length %d bytes is implausible (limit %d); the file is corrupt", l, maxHeaderLen)
		}
		hlen = int(l)
	default:
		return nil, formatErr(".npy format version %d.%d is not supported (only 1.0, 2.0 and 3.0); re-save with numpy.save", major, minor)
	}
	buf := make([]byte, hlen)
	if n, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, formatErr("header is truncated: its length field says %d bytes but only %d are present", hlen, n)
		}
		return nil, ioErr("reading .npy header", err)
	}
	// Version 3.0 allows UTF-8 in the header; the only valid content for a
	// float array is ASCII, which the parser enforces below.
	return parseNPYHeader(string(buf))
}

func notNPY() error {
	return formatErr("not an .npy file (missing the \\x93NUMPY magic at the start); write sets with numpy.save or as CSV")
}

func truncHeader(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return formatErr("file ends inside the .npy header length field: truncated")
	}
	return ioErr("reading .npy header", err)
}

// validate checks the header against what this package supports and the
// limits, and returns the shape and the item size in bytes.
func (h *npyHeader) validate(lim Limits) (rows, cols, item int, err error) {
	switch h.descr {
	case "<f8":
		item = 8
	case "<f4":
		item = 4
	case ">f8", ">f4":
		return 0, 0, 0, formatErr("dtype %q is big-endian; only little-endian float64 ('<f8') or float32 ('<f4') is read: save x.astype('<f8')", h.descr)
	case "=f8", "|f8", "=f4", "|f4", "f8", "f4":
		return 0, 0, 0, formatErr("dtype %q does not state the byte order; save x.astype('<f8') with numpy.save", h.descr)
	default:
		return 0, 0, 0, formatErr("dtype %q is not supported; frames must be float64 ('<f8') or float32 ('<f4'): save x.astype('<f8')", h.descr)
	}
	if h.fortran {
		return 0, 0, 0, formatErr("array is stored in Fortran (column-major) order; save np.ascontiguousarray(x) instead")
	}
	switch len(h.shape) {
	case 2:
	case 1:
		return 0, 0, 0, formatErr("array is 1-D with shape (%d,); a set must be 2-D (frames, features): save x.reshape(1, -1) for one frame or x.reshape(-1, 1) for 1-D features", h.shape[0])
	case 0:
		return 0, 0, 0, formatErr("array is a 0-D scalar; a set must be 2-D (frames, features)")
	default:
		return 0, 0, 0, formatErr("array is %d-D with shape %s; a set must be 2-D (frames, features): flatten each frame, e.g. x.reshape(len(x), -1)", len(h.shape), shapeString(h.shape))
	}
	rows, cols = h.shape[0], h.shape[1]
	if rows == 0 || cols == 0 {
		return 0, 0, 0, formatErr("array has shape %s: a set needs at least one frame and one feature", shapeString(h.shape))
	}
	if err := lim.check(rows, cols); err != nil {
		return 0, 0, 0, err
	}
	return rows, cols, item, nil
}

// readNPYData reads rows×cols little-endian floats of item bytes each and
// checks that nothing follows. The slice grows as data arrives, so a header
// claiming more data than present does not cause a large allocation.
func readNPYData(r io.Reader, rows, cols, item int) ([]float64, error) {
	n := rows * cols
	want := int64(n) * int64(item)
	// Up to 16 MiB is allocated at once; beyond that the slice grows with
	// the data actually read.
	data := make([]float64, 0, min(n, preallocFloats))
	buf := make([]byte, chunkBytes)
	var got int64
	for got < want {
		k := int(min(int64(len(buf)), want-got))
		m, err := io.ReadFull(r, buf[:k])
		got += int64(m)
		data = decodeFloats(data, buf[:m-m%item], item)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, formatErr("header says shape (%d, %d) of %d-byte floats, which needs %d bytes of data, but the file holds %d bytes: it is truncated or the header is wrong",
					rows, cols, item, want, got)
			}
			return nil, ioErr("reading .npy data", err)
		}
	}
	// Anything after the data means the header lies about the shape.
	// Count at most 1 MiB of it: enough for the message.
	extra, err := io.Copy(io.Discard, io.LimitReader(r, 1<<20+1))
	if err != nil {
		return nil, ioErr("reading .npy data", err)
	}
	if extra > 1<<20 {
		return nil, formatErr("header says shape (%d, %d) of %d-byte floats, which needs %d bytes of data, but more than 1 MiB follows the data: the header is wrong",
			rows, cols, item, want)
	}
	if extra > 0 {
		return nil, formatErr("header says shape (%d, %d) of %d-byte floats, which needs %d bytes of data, but the file holds %d bytes (%d extra): the header is wrong",
			rows, cols, item, want, want+extra, extra)
	}
	for i, v := range data {
		if !finite.Is(v) {
			return nil, formatErr("value at row %d, column %d (counting from 0) is %v; every value must be finite: clean or drop those frames",
				i/cols, i%cols, v)
		}
	}
	return data, nil
}

func decodeFloats(dst []float64, b []byte, item int) []float64 {
	if item == 8 {
		for i := 0; i+8 <= len(b); i += 8 {
			dst = append(dst, math.Float64frombits(binary.LittleEndian.Uint64(b[i:])))
		}
		return dst
	}
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, float64(math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))))
	}
	return dst
}

func shapeString(s []int) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, v := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(v))
	}
	if len(s) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

// WriteNPY writes x (rows×cols, at least 1×1, all values finite) as a
// C-order '<f8' array in .npy format version 1.0, with the header padded
// so the data starts at a multiple of 64 bytes, as numpy.save does.
func WriteNPY(w io.Writer, x *mat.Dense) error {
	if x == nil || x.IsEmpty() {
		return formatErr("cannot write an empty matrix: a set needs at least one frame")
	}
	rows, cols := x.Dims()
	for i := range rows {
		for j, v := range x.RawRowView(i) {
			if !finite.Is(v) {
				return formatErr("cannot write value %v at row %d, column %d: every value must be finite", v, i, j)
			}
		}
	}
	dict := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	// magic(6) + version(2) + length(2) + dict + padding + '\n' ≡ 0 mod 64.
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	hlen := len(dict) + pad + 1
	if hlen > math.MaxUint16 {
		return formatErr("header too long for .npy version 1.0") // cannot happen for 2-D
	}
	bw := bufio.NewWriterSize(w, chunkBytes)
	bw.WriteString(npyMagic)
	bw.Write([]byte{1, 0, byte(hlen), byte(hlen >> 8)})
	bw.WriteString(dict)
	bw.WriteString(strings.Repeat(" ", pad))
	bw.WriteByte('\n')
	var b [8]byte
	for i := range rows {
		for _, v := range x.RawRowView(i) {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			bw.Write(b[:])
		}
	}
	if err := bw.Flush(); err != nil {
		return ioErr("writing .npy", err)
	}
	return nil
}
