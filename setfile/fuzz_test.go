package setfile

import (
	"bytes"
	"math"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fuzzLimits keeps the fuzzers from spending their time on large inputs.
var fuzzLimits = Limits{MaxBytes: 1 << 16, MaxRows: 256, MaxCols: 64}

// checkRead checks what a reader returned: on an error, no matrix and an
// *Error; else a matrix that passes checkResult. It reports whether there
// is a matrix.
func checkRead(t *testing.T, x *mat.Dense, err error) bool {
	t.Helper()
	if err != nil {
		if x != nil {
			t.Fatal("matrix and error both returned")
		}
		if _, ok := err.(*Error); !ok {
			t.Fatalf("error %T is not *Error", err)
		}
		return false
	}
	checkResult(t, x)
	return true
}

func checkResult(t *testing.T, x *mat.Dense) {
	t.Helper()
	r, c := x.Dims()
	if r < 1 || c < 1 || r > fuzzLimits.MaxRows || c > fuzzLimits.MaxCols {
		t.Fatalf("shape %d×%d outside the limits", r, c)
	}
	for i := range r {
		for j := range c {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite value %v at %d,%d", v, i, j)
			}
		}
	}
}

func FuzzReadNPY(f *testing.F) {
	f.Add(npyBytes(1, dict("<f8", "False", "(2, 3)"), f64bytes(1, 2, 3, 4, 5, 6)))
	f.Add(npyBytes(2, dict("<f4", "False", "(1, 2)"), f32bytes(1, 2)))
	f.Add(npyBytes(3, dict("<f8", "False", "(1, 1)"), f64bytes(-1)))
	f.Add(npyBytes(1, dict("<f8", "True", "(1, 1)"), f64bytes(-1)))
	f.Add(npyBytes(1, dict("<f8", "False", "(3,)"), f64bytes(1, 2, 3)))
	f.Fuzz(func(t *testing.T, in []byte) {
		x, err := ReadNPY(bytes.NewReader(in), fuzzLimits)
		if !checkRead(t, x, err) {
			return
		}
		var buf bytes.Buffer
		if err := WriteNPY(&buf, x); err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		y, err := ReadNPY(&buf, fuzzLimits)
		if err != nil {
			t.Fatalf("re-reading: %v", err)
		}
		if !mat.Equal(x, y) {
			t.Fatal("re-encoded matrix differs")
		}
	})
}

func FuzzReadCSV(f *testing.F) {
	f.Add("1,2,3\n4,5,6\n")
	f.Add("# header\n1.5, -2e3\n\n.125,7\r\n")
	f.Add("1,2\n3\n")
	f.Add("nan,1\n")
	f.Add("0x1p-3,1_000\n")
	f.Fuzz(func(t *testing.T, in string) {
		x, err := ReadCSV(strings.NewReader(in), fuzzLimits)
		if !checkRead(t, x, err) {
			return
		}
		// Every non-comment, non-blank line is one frame, of decimal
		// numbers only: no digit separator, no hexadecimal.
		frames := 0
		for i, l := range strings.Split(in, "\n") {
			s := strings.TrimSpace(l)
			if i == 0 {
				s = strings.TrimSpace(strings.TrimPrefix(l, "\xef\xbb\xbf"))
			}
			if s != "" && s[0] != '#' {
				frames++
				if strings.ContainsAny(s, "_xXpP") {
					t.Fatalf("line %d, %q, read as numbers: want decimal numbers only", i+1, s)
				}
			}
		}
		if r, _ := x.Dims(); r != frames {
			t.Fatalf("%d frames read, %d data lines", r, frames)
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, x); err != nil {
			t.Fatal(err)
		}
		y, err := ReadCSV(&buf, fuzzLimits)
		if err != nil || !mat.Equal(x, y) {
			t.Fatalf("CSV round trip: %v", err)
		}
	})
}

// FuzzReadBatch reads any bytes as setmatchd reads a batch: by its name's
// extension, with the model's width (Limits.Cols) and an in-memory limit
// of four times the file's bytes. A set read has that width and is the
// set read without the width; one of another width is refused; and
// reading never allocates out of proportion to the bytes given (a few
// times the matrix, plus the readers' fixed buffers).
func FuzzReadBatch(f *testing.F) {
	f.Add(npyBytes(1, dict("<f8", "False", "(2, 3)"), f64bytes(1, 2, 3, 4, 5, 6)), false, uint8(3))
	f.Add(npyBytes(1, dict("<f4", "False", "(100000, 3)"), f32bytes(1, 2)), false, uint8(3))
	f.Add(npyBytes(1, dict("<f8", "False", "(2, 3)"), f64bytes(1, 2, 3, 4, 5, 6)), false, uint8(2))
	f.Add([]byte("1,2,3\n4,5,6\n"), true, uint8(3))
	f.Add([]byte("1,2\n3,4,5\n"), true, uint8(2))
	f.Add([]byte("# x\n\n1\n"), true, uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, csv bool, cols uint8) {
		name := "b.npy"
		if csv {
			name = "b.CSV"
		}
		width := int(cols % 8) // the width cols names, 1 to 7, else 8
		if width == 0 {
			width = 8
		}
		lim := Limits{MaxBytes: 4 * int64(len(data)), MaxRows: 1 << 10, MaxCols: 64, Cols: width}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		x, err := Read(bytes.NewReader(data), name, lim)
		runtime.ReadMemStats(&after)
		if bound := 16*uint64(len(data)) + 512<<10; after.TotalAlloc-before.TotalAlloc > bound {
			t.Fatalf("reading %d bytes allocated %d (bound %d): %v", len(data), after.TotalAlloc-before.TotalAlloc, bound, err)
		}
		free := lim
		free.Cols = 0
		y, ferr := Read(bytes.NewReader(data), name, free)
		if err != nil {
			if x != nil {
				t.Fatal("matrix and error both returned")
			}
			if ferr == nil {
				if _, c := y.Dims(); c == lim.Cols {
					t.Fatalf("refused with %d columns: %v; read without them as %d columns", lim.Cols, err, c)
				}
			}
			return
		}
		if _, c := x.Dims(); c != lim.Cols {
			t.Fatalf("%d columns read, %d wanted", c, lim.Cols)
		}
		if ferr != nil || !mat.Equal(x, y) {
			t.Fatalf("read with %d columns, and without: %v", lim.Cols, ferr)
		}
	})
}
