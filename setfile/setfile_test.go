package setfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// npyBytes builds an .npy file by hand: version major.0, the header dict
// (padded to 64 bytes with a newline, as NumPy does) and raw data bytes.
func npyBytes(major byte, dict string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x93NUMPY")
	b.Write([]byte{major, 0})
	pre := 10
	if major > 1 {
		pre = 12
	}
	total := pre + len(dict) + 1
	pad := (64 - total%64) % 64
	h := dict + strings.Repeat(" ", pad) + "\n"
	if major == 1 {
		binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(len(h)))
	}
	b.WriteString(h)
	b.Write(data)
	return b.Bytes()
}

func f64bytes(v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func f32bytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func dict(descr, fortran, shape string) string {
	return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }"
}

func TestNPYRoundTrip(t *testing.T) {
	x := mat.NewDense(3, 4, []float64{
		0, 1, -2.5, 3e-300,
		math.MaxFloat64, -math.SmallestNonzeroFloat64, math.Pi, 1,
		math.Copysign(0, -1), 7, 8, 9,
	})
	var buf bytes.Buffer
	if err := WriteNPY(&buf, x); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// Header layout as numpy.save writes it.
	hlen := int(binary.LittleEndian.Uint16(b[8:10]))
	if (10+hlen)%64 != 0 || b[10+hlen-1] != '\n' {
		t.Errorf("data offset %d not a multiple of 64 or header not newline-terminated", 10+hlen)
	}
	if want := 10 + hlen + 3*4*8; len(b) != want {
		t.Errorf("file is %d bytes, want %d", len(b), want)
	}
	y, err := ReadNPY(bytes.NewReader(b), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(x, y) {
		t.Errorf("round trip changed the matrix:\n%v\n%v", mat.Formatted(x), mat.Formatted(y))
	}
	if math.Signbit(y.At(2, 0)) != true {
		t.Error("negative zero lost")
	}
}

// TestNPYHandWritten checks a file whose bytes are written here by hand,
// independently of WriteNPY.
func TestNPYHandWritten(t *testing.T) {
	b := npyBytes(1, dict("<f8", "False", "(2, 3)"), f64bytes(1, 2, 3, 4, 5, 6))
	x, err := ReadNPY(bytes.NewReader(b), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	if !mat.Equal(x, want) {
		t.Errorf("got %v want %v", mat.Formatted(x), mat.Formatted(want))
	}
}

func TestNPYFloat32(t *testing.T) {
	b := npyBytes(1, dict("<f4", "False", "(3, 2)"), f32bytes(0.5, -1, 2.25, 1e-3, 3e38, -7))
	x, err := ReadNPY(bytes.NewReader(b), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.5, -1, 2.25, float64(float32(1e-3)), float64(float32(3e38)), -7}
	r, c := x.Dims()
	if r != 3 || c != 2 {
		t.Fatalf("shape %d×%d, want 3×2", r, c)
	}
	for i, w := range want {
		if got := x.At(i/2, i%2); got != w {
			t.Errorf("value %d: got %v want %v", i, got, w)
		}
	}
}

func TestNPYVersions(t *testing.T) {
	for _, major := range []byte{2, 3} {
		b := npyBytes(major, dict("<f8", "False", "(1, 2)"), f64bytes(1, 2))
		x, err := ReadNPY(bytes.NewReader(b), Limits{})
		if err != nil {
			t.Fatalf("version %d.0: %v", major, err)
		}
		if x.At(0, 1) != 2 {
			t.Errorf("version %d.0: wrong value", major)
		}
	}
}

func TestNPYHeaderVariants(t *testing.T) {
	for _, d := range []string{
		`{"descr": "<f8", "fortran_order": False, "shape": (1, 2)}`,
		`{'shape': (1, 2), 'fortran_order': False, 'descr': '<f8'}`,
		`{'descr':'<f8','fortran_order':False,'shape':(1,2,),}`,
		`{'descr': '<f8', 'fortran_order': False, 'shape': (1L, 2L), }`,
	} {
		b := npyBytes(1, d, f64bytes(1, 2))
		if _, err := ReadNPY(bytes.NewReader(b), Limits{}); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}

func TestNPYBad(t *testing.T) {
	good := npyBytes(1, dict("<f8", "False", "(2, 2)"), f64bytes(1, 2, 3, 4))
	cases := []struct {
		name string
		in   []byte
		want string // substring of the message
	}{
		{"empty", nil, "empty"},
		{"short", []byte("\x93NUM"), "too short"},
		{"magic", []byte("PK\x03\x04xxxxxxxxxxxxxxxxxxxxxx"), "not an .npy"},
		{"version", append([]byte("\x93NUMPY\x04\x00"), good[8:]...), "version 4.0"},
		{"minor version", append([]byte("\x93NUMPY\x01\x01"), good[8:]...), "version 1.1"},
		{"truncated header", good[:30], "header is truncated"},
		{"truncated length", good[:9], "truncated"},
		{"truncated data", good[:len(good)-5], "needs 32 bytes of data, but the file holds 27"},
		{"extra data", append(append([]byte{}, good...), 0, 0, 0, 0, 0, 0, 0, 0), "holds 40 bytes (8 extra)"},
		{"one extra byte", append(append([]byte{}, good...), 0), "holds 33 bytes (1 extra)"},
		{"implausible header length", []byte("\x93NUMPY\x02\x00\x01\x00\x01\x00"), "header length 65537 bytes is implausible"},
		{"header lies", npyBytes(1, dict("<f8", "False", "(100, 20)"), f64bytes(make([]float64, 200)...)), "needs 16000 bytes of data, but the file holds 1600"},
		{"big endian", npyBytes(1, dict(">f8", "False", "(2, 2)"), f64bytes(1, 2, 3, 4)), "big-endian"},
		{"native order", npyBytes(1, dict("=f8", "False", "(2, 2)"), f64bytes(1, 2, 3, 4)), "byte order"},
		{"int dtype", npyBytes(1, dict("<i8", "False", "(2, 2)"), f64bytes(1, 2, 3, 4)), "not supported"},
		{"float16", npyBytes(1, dict("<f2", "False", "(2, 2)"), f64bytes(1)), "not supported"},
		{"structured", npyBytes(1, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }", f64bytes(1, 2)), "structured"},
		{"fortran", npyBytes(1, dict("<f8", "True", "(2, 2)"), f64bytes(1, 2, 3, 4)), "ascontiguousarray"},
		{"1-D", npyBytes(1, dict("<f8", "False", "(4,)"), f64bytes(1, 2, 3, 4)), "1-D"},
		// Python's tuple (4,) with a tab or a newline before its ')', as
		// NumPy reads it: 1-D, not "(4) is not a tuple".
		{"1-D, tab", npyBytes(1, dict("<f8", "False", "(4,\t)"), f64bytes(1, 2, 3, 4)), "1-D with shape (4,)"},
		{"1-D, newline", npyBytes(1, dict("<f8", "False", "(4,\r\n)"), f64bytes(1, 2, 3, 4)), "1-D with shape (4,)"},
		{"3-D", npyBytes(1, dict("<f8", "False", "(1, 2, 2)"), f64bytes(1, 2, 3, 4)), "3-D"},
		{"0-D", npyBytes(1, dict("<f8", "False", "()"), f64bytes(1)), "0-D"},
		{"no rows", npyBytes(1, dict("<f8", "False", "(0, 3)"), nil), "at least one frame"},
		{"no cols", npyBytes(1, dict("<f8", "False", "(3, 0)"), nil), "at least one frame"},
		{"NaN", npyBytes(1, dict("<f8", "False", "(2, 2)"), f64bytes(1, 2, math.NaN(), 4)), "row 1, column 0"},
		{"Inf", npyBytes(1, dict("<f8", "False", "(2, 2)"), f64bytes(1, math.Inf(-1), 3, 4)), "row 0, column 1"},
		{"f4 Inf", npyBytes(1, dict("<f4", "False", "(1, 2)"), f32bytes(1, float32(math.Inf(1)))), "+Inf"},
		{"missing key", npyBytes(1, "{'descr': '<f8', 'shape': (2, 2), }", f64bytes(1, 2, 3, 4)), "'fortran_order' is missing"},
		{"duplicate key", npyBytes(1, "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", f64bytes(1, 2, 3, 4)), "twice"},
		{"unknown key", npyBytes(1, "{'descr': '<f8', 'x': 1, 'fortran_order': False, 'shape': (2, 2), }", f64bytes(1, 2, 3, 4)), "unexpected key"},
		{"not a tuple", npyBytes(1, dict("<f8", "False", "(4)"), f64bytes(1, 2, 3, 4)), "not a tuple"},
		{"negative", npyBytes(1, dict("<f8", "False", "(-2, 2)"), f64bytes(1, 2, 3, 4)), "non-negative"},
		{"leading zero", npyBytes(1, dict("<f8", "False", "(02, 2)"), f64bytes(1, 2, 3, 4)), "leading zero"},
		{"huge dim", npyBytes(1, dict("<f8", "False", "(99999999999999999999, 2)"), nil), "too large"},
		{"bad bool", npyBytes(1, dict("<f8", "false", "(2, 2)"), f64bytes(1, 2, 3, 4)), "True or False"},
		{"trailing", npyBytes(1, dict("<f8", "False", "(2, 2)")+"x", f64bytes(1, 2, 3, 4)), "after the header"},
		{"unterminated", npyBytes(1, "{'descr': '<f8", nil), "in string"},
		{"expression", npyBytes(1, dict("<f8", "False", "(2*1, 2)"), f64bytes(1, 2, 3, 4)), "expected ',' or ')'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, err := ReadNPY(bytes.NewReader(c.in), Limits{})
			if err == nil {
				t.Fatalf("no error, got %v", x)
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error %q does not wrap ErrFormat", err)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error %T is not *Error", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
}

func TestNPYLimits(t *testing.T) {
	lim := Limits{MaxBytes: 1 << 20, MaxRows: 1000, MaxCols: 50}
	cases := []struct {
		shape, want string
	}{
		{"(1000000000, 2)", "frames"},
		{"(10, 51)", "features"},
		{"(1000, 50)", "in memory"}, // 400000 bytes fits
		{"(9223372036854775807, 9223372036854775807)", "frames"},
	}
	for _, c := range cases[:2] {
		_, err := ReadNPY(bytes.NewReader(npyBytes(1, dict("<f8", "False", c.shape), nil)), lim)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("shape %s: error %v, want ErrTooLarge mentioning %q", c.shape, err, c.want)
		}
	}
	// Bytes limit alone.
	lim2 := Limits{MaxBytes: 1000, MaxRows: -1, MaxCols: -1}
	_, err := ReadNPY(bytes.NewReader(npyBytes(1, dict("<f8", "False", "(100, 2)"), nil)), lim2)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "in memory") {
		t.Errorf("bytes limit: %v", err)
	}
	_, err = ReadNPY(bytes.NewReader(npyBytes(1, dict("<f8", "False", cases[3].shape), nil)), lim2)
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("overflowing shape: %v", err)
	}
	// A set of exactly MaxBytes in memory fits.
	if _, err := ReadNPY(bytes.NewReader(npyBytes(1, dict("<f8", "False", "(25, 5)"), f64bytes(make([]float64, 125)...))), lim2); err != nil {
		t.Errorf("a 25×5 set, 1000 bytes in memory, against a limit of 1000 bytes: %v", err)
	}
	// A header claiming 1e9 rows within generous limits but no data must
	// fail quickly without allocating the claimed size.
	big := Limits{MaxBytes: 1 << 40, MaxRows: -1, MaxCols: -1}
	in := npyBytes(1, dict("<f8", "False", "(1000000000, 20)"), f64bytes(1, 2, 3))
	_, err = ReadNPY(bytes.NewReader(in), big)
	if err == nil || !strings.Contains(err.Error(), "holds 24 bytes") {
		t.Errorf("lying header: %v", err)
	}
	var ms0, ms1 runtimeMem
	ms0.read()
	ReadNPY(bytes.NewReader(in), big)
	ms1.read()
	// Claimed: 1e9×20×8 bytes = 160 GB; allowed: the 16 MiB preallocation.
	if d := ms1.total - ms0.total; d > 20<<20 {
		t.Errorf("lying header made the reader allocate %d bytes", d)
	}
}

func TestReadFileAndWriteFile(t *testing.T) {
	dir := t.TempDir()
	x := mat.NewDense(2, 3, []float64{1, 2, 3, 4.5, -5, 6e10})
	for _, name := range []string{"a.npy", "B.NPY", "c.csv", "d.CSV"} {
		p := filepath.Join(dir, name)
		if err := WriteFile(p, x); err != nil {
			t.Fatal(err)
		}
		y, err := ReadFile(p, DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(x, y) {
			t.Errorf("%s: round trip differs", name)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 4 {
		t.Errorf("directory holds %d entries, want 4 (temporary files left behind?)", len(ents))
	}
	if err := WriteFile(filepath.Join(dir, "x.txt"), x); !errors.Is(err, ErrFormat) {
		t.Errorf("writing .txt: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "x.txt"), Limits{}); !errors.Is(err, ErrFormat) {
		t.Errorf("reading .txt: %v", err)
	}
	_, err := ReadFile(filepath.Join(dir, "missing.npy"), Limits{})
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrFormat) {
		t.Errorf("missing file: %v", err)
	}
	if err != nil && strings.Count(err.Error(), "missing.npy") != 1 {
		t.Errorf("message repeats the path: %q", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.npy"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFile(filepath.Join(dir, "bad.npy"), Limits{})
	var e *Error
	if !errors.As(err, &e) || e.Path != filepath.Join(dir, "bad.npy") || !errors.Is(err, ErrFormat) {
		t.Errorf("bad file: %v", err)
	}
	if err := WriteNPY(io.Discard, mat.NewDense(1, 1, []float64{math.NaN()})); !errors.Is(err, ErrFormat) {
		t.Errorf("writing NaN: %v", err)
	}
	if err := WriteNPY(io.Discard, &mat.Dense{}); !errors.Is(err, ErrFormat) {
		t.Errorf("writing empty: %v", err)
	}
}

func TestWriteNPYView(t *testing.T) {
	x := mat.NewDense(3, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	v := x.Slice(1, 3, 0, 2).(*mat.Dense)
	var buf bytes.Buffer
	if err := WriteNPY(&buf, v); err != nil {
		t.Fatal(err)
	}
	y, err := ReadNPY(&buf, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(y, mat.NewDense(2, 2, []float64{4, 5, 7, 8})) {
		t.Errorf("view written wrongly: %v", mat.Formatted(y))
	}
}

// errReader fails after n bytes.
var _ io.Reader = (*errReader)(nil)

type errReader struct {
	r io.Reader
	n int
}

var errDisk = errors.New("disk on fire")

func (e *errReader) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, errDisk
	}
	p = p[:min(len(p), e.n)]
	n, err := e.r.Read(p)
	e.n -= n
	return n, err
}

func TestIOErrorsAreNotFormatErrors(t *testing.T) {
	good := npyBytes(1, dict("<f8", "False", "(2, 2)"), f64bytes(1, 2, 3, 4))
	for _, n := range []int{0, 5, 9, 20, len(good) - 3} {
		_, err := ReadNPY(&errReader{bytes.NewReader(good), n}, Limits{})
		if !errors.Is(err, errDisk) || errors.Is(err, ErrFormat) {
			t.Errorf("npy failing after %d bytes: %v", n, err)
		}
	}
	_, err := ReadCSV(&errReader{strings.NewReader("1,2\n3,4\n"), 3}, Limits{})
	if !errors.Is(err, errDisk) || errors.Is(err, ErrFormat) {
		t.Errorf("csv: %v", err)
	}
}

// TestLimitMessageTellsSizesApart: a set just over the byte limit is told in
// bytes, where both sizes rounded to "256 MiB, over the limit of 256 MiB".
func TestLimitMessageTellsSizesApart(t *testing.T) {
	l := DefaultLimits()
	err := l.check(1<<19+1, 64) // 256 MiB and 512 bytes
	if err == nil || !strings.Contains(err.Error(), "needs 268435968 bytes in memory, over the limit of 268435456 bytes") {
		t.Errorf("check = %v", err)
	}
	if err := l.check(1<<20, 64); err == nil || !strings.Contains(err.Error(), "needs 512 MiB in memory, over the limit of 256 MiB") {
		t.Errorf("check = %v", err)
	}
}

// endless is a reader of zeros without end that fails the test once more
// than limit bytes have been read from it.
type endless struct {
	t     *testing.T
	n     int
	limit int
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n += len(p); e.n > e.limit {
		e.t.Errorf("the reader read more than %d bytes after the data", e.limit)
		return 0, errors.New("read too far")
	}
	clear(p)
	return len(p), nil
}

// TestNPYEndlessTrailingData: data after the array is counted up to 1 MiB
// only: a file followed by endless bytes is refused as such without reading
// them all.
func TestNPYEndlessTrailingData(t *testing.T) {
	good := npyBytes(1, dict("<f8", "False", "(2, 2)"), f64bytes(1, 2, 3, 4))
	_, err := ReadNPY(io.MultiReader(bytes.NewReader(good), &endless{t: t, limit: 2 << 20}), Limits{})
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "more than 1 MiB follows the data") {
		t.Errorf("error %v, want ErrFormat saying more than 1 MiB follows", err)
	}
}

// TestLimitMessageNoExponent: sizes of 1000 to 1023 of a unit are told in
// whole units, not as "1.02e+03 KiB".
func TestLimitMessageNoExponent(t *testing.T) {
	l := DefaultLimits()
	l.MaxBytes = 1000 << 10
	err := l.check(1023<<7, 1) // 1023 KiB
	if err == nil || !strings.Contains(err.Error(), "needs 1023 KiB in memory, over the limit of 1000 KiB") {
		t.Errorf("check = %v", err)
	}
}
