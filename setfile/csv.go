package setfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/bytesize"
	"setmatch/internal/finite"
)

// ReadCSV reads a set written as comma-separated text: one frame per line,
// the same number of values on every line. Lines whose first non-blank
// character is '#' are comments (headers), blank lines are ignored, spaces
// and tabs around values are allowed, and a UTF-8 byte-order mark at the
// start is skipped. Values must be decimal numbers (decimal) and finite:
// Go's digit separators and hexadecimal floats, which strconv.ParseFloat
// also reads, are refused. The returned matrix is frames×features.
func ReadCSV(r io.Reader, lim Limits) (*mat.Dense, error) {
	lim = lim.Resolved()
	// The longest acceptable line: MaxCols values of up to 64 characters.
	maxLine := min(int64(lim.MaxCols), 1<<24)*64 + 1024
	maxLine = min(maxLine, textBudget(lim.MaxBytes), 1<<30)
	// Count the text read so the whole input is bounded by MaxBytes (plus
	// slack for comments and blank lines).
	cr := &countReader{r: r}
	sc := bufio.NewScanner(cr)
	sc.Buffer(make([]byte, 0, 64<<10), int(maxLine))
	var (
		data []float64
		rows int
		cols = -1
		line int
		// crLine is the first comment line holding a carriage return:
		// a file whose lines end in CR alone is one line, and one that
		// begins with a header is one comment, without a frame.
		crLine int
	)
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if cr.n > textBudget(lim.MaxBytes) {
			return nil, limitErr("CSV text is longer than %s, the limit for a set of %s in memory; %s",
				bytesize.Of(float64(textBudget(lim.MaxBytes))), bytesize.Of(float64(lim.MaxBytes)), Raise("split the set", lim.Knobs.Bytes))
		}
		s := strings.TrimSpace(string(b))
		if s == "" || s[0] == '#' {
			if crLine == 0 && strings.ContainsRune(s, '\r') {
				crLine = line
			}
			continue
		}
		// A line that holds a carriage return is refused as what it
		// is, several lines ended by CR alone, where it is refused.
		framesErr := func(err error) error {
			if strings.ContainsRune(s, '\r') {
				return crErr(line)
			}
			return err
		}
		n := strings.Count(s, ",") + 1
		if cols < 0 {
			if n > lim.MaxCols {
				return nil, framesErr(limitErr("line %d: %d features (columns) exceed the limit of %d; %s", line, n, lim.MaxCols, Raise("reduce the features (e.g. PCA)", lim.Knobs.Cols)))
			}
			if err := lim.checkCols(n); err != nil {
				e := err.(*Error)
				e.Msg = fmt.Sprintf("line %d: %s", line, e.Msg)
				return nil, framesErr(e)
			}
			cols = n
		} else if n != cols {
			return nil, framesErr(formatErr("line %d has %d values but the first frame has %d; every line must have the same number of comma-separated values", line, n, cols))
		}
		if rows+1 > lim.MaxRows {
			return nil, limitErr("line %d: more than %d frames (rows); %s", line, lim.MaxRows, Raise("split the set", lim.Knobs.Rows))
		}
		if int64(len(data)+cols) > lim.MaxBytes/8 {
			return nil, limitErr("line %d: the set needs more than the limit of %s in memory; %s", line, bytesize.Of(float64(lim.MaxBytes)), Raise("split the set", lim.Knobs.Bytes))
		}
		col := 0
		for f := range strings.SplitSeq(s, ",") {
			v, err := parseField(f, line, col)
			if err != nil {
				return nil, framesErr(err)
			}
			data = append(data, v)
			col++
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, limitErr("line %d is longer than %d bytes; is this a CSV file with one frame per line?", line+1, maxLine)
		}
		return nil, ioErr("reading CSV", err)
	}
	if rows == 0 && crLine > 0 {
		return nil, crErr(crLine)
	}
	if rows == 0 {
		return nil, formatErr("no frames: the CSV file is empty or holds only comments and blank lines; write one frame per line, values separated by commas")
	}
	return mat.NewDense(rows, cols, data), nil
}

// crErr is the error of line, which holds a carriage return: the lines of
// the file end in CR alone.
func crErr(line int) error {
	return formatErr("line %d holds a carriage return (\\r) inside it: the file's lines end in CR alone, as classic Mac programs write them (such as Excel's \"CSV (Macintosh)\"); save it with LF or CRLF line endings, e.g. tr '\\r' '\\n' < in.csv > out.csv", line)
}

func parseField(f string, line, col int) (float64, error) {
	t := strings.TrimSpace(f)
	if t == "" {
		return 0, formatErr("line %d, column %d is empty; write a number in every column (no trailing comma)", line, col+1)
	}
	if strings.ContainsAny(t, " \t;") {
		return 0, formatErr("line %d, column %d: %q is not one number; separate values with commas (numpy.savetxt(f, x, delimiter=','))", line, col+1, clip(t))
	}
	if !decimal(t) && !nonFinite(t) {
		if goSyntax(t) {
			return 0, formatErr("line %d, column %d: %q is not a decimal number; write features as decimal numbers (such as 12, -0.5 or 1.5e-3), without digit separators (_) or hexadecimal (0x)", line, col+1, clip(t))
		}
		return 0, formatErr("line %d, column %d: %q is not a number; mark header lines with '#'", line, col+1, clip(t))
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) && !math.IsInf(v, 0) {
			// Underflow to a denormal or zero is harmless.
			return v, nil
		}
		if errors.Is(err, strconv.ErrRange) {
			return 0, formatErr("line %d, column %d: %q is out of the range of float64", line, col+1, clip(t))
		}
		return 0, formatErr("line %d, column %d: %q is not a number; mark header lines with '#'", line, col+1, clip(t))
	}
	if !finite.Is(v) {
		return 0, formatErr("line %d, column %d is %q; every value must be finite: clean or drop that frame", line, col+1, clip(t))
	}
	return v, nil
}

// goSyntax reports whether t is written in Go's number syntax beyond the
// decimal, whether or not strconv.ParseFloat reads it: a decimal number
// with digit separators (1_000), or a hexadecimal one (0x10, 0x1p-2).
// Such a value is meant as a number; a header's name (feat_0) is not.
func goSyntax(t string) bool {
	u := strings.TrimLeft(t, "+-")
	return strings.HasPrefix(u, "0x") || strings.HasPrefix(u, "0X") ||
		(strings.Contains(t, "_") && decimal(strings.ReplaceAll(t, "_", "")))
}

// decimal reports whether t is a number in decimal notation: an optional
// sign, digits with at most one point among or after them (at least one
// digit), and an optional exponent: e or E, an optional sign, digits.
func decimal(t string) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(t) && '0' <= t[i] && t[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	n := digits()
	if i < len(t) && t[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(t)
}

// nonFinite reports whether t names a value that is not finite (nan,
// inf, infinity, in any case, inf with a sign), which the reader refuses
// as such.
func nonFinite(t string) bool {
	u := strings.TrimLeft(t, "+-")
	return len(t)-len(u) <= 1 && (strings.EqualFold(u, "nan") || strings.EqualFold(u, "inf") || strings.EqualFold(u, "infinity"))
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// WriteCSV writes x (rows×cols, all values finite) as CSV, one frame per
// line, with the shortest decimal representation that reads back exactly.
func WriteCSV(w io.Writer, x *mat.Dense) error {
	if x == nil || x.IsEmpty() {
		return formatErr("cannot write an empty matrix: a set needs at least one frame")
	}
	rows, _ := x.Dims()
	bw := bufio.NewWriter(w)
	var buf []byte
	for i := range rows {
		buf = buf[:0]
		for j, v := range x.RawRowView(i) {
			if !finite.Is(v) {
				return formatErr("cannot write value %v at row %d, column %d: every value must be finite", v, i, j)
			}
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	if err := bw.Flush(); err != nil {
		return ioErr("writing CSV", err)
	}
	return nil
}
