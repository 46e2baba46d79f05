package setfile

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestReadCSV(t *testing.T) {
	in := "\xef\xbb\xbf# frames of set s000\n" +
		"# f0, f1, f2\n" +
		"1, 2.5, -3\r\n" +
		"\n" +
		"   \t\n" +
		"4e2,\t.25 , 6.\n" +
		"  # a comment between frames\n" +
		"-0,1E-310,+7\n" +
		"-.5e+1,1.5E-3,000012\n"
	x, err := ReadCSV(strings.NewReader(in), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(4, 3, []float64{1, 2.5, -3, 400, 0.25, 6, 0, 1e-310, 7, -5, 1.5e-3, 12})
	if !mat.Equal(x, want) {
		t.Errorf("got\n%v\nwant\n%v", mat.Formatted(x), mat.Formatted(want))
	}
	// Single value, no final newline.
	x, err = ReadCSV(strings.NewReader("42"), Limits{})
	if err != nil || x.At(0, 0) != 42 {
		t.Errorf("single value: %v %v", x, err)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	x := mat.NewDense(2, 3, []float64{math.Pi, -1e-300, math.MaxFloat64, 1.0 / 3, 0.1, -2})
	var buf bytes.Buffer
	if err := WriteCSV(&buf, x); err != nil {
		t.Fatal(err)
	}
	y, err := ReadCSV(&buf, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(x, y) {
		t.Errorf("round trip differs")
	}
}

func TestReadCSVBad(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", "no frames"},
		{"only comments", "# a\n\n# b\n", "no frames"},
		{"ragged", "1,2,3\n4,5\n", "line 2 has 2 values but the first frame has 3"},
		{"ragged after comment", "# h\n1,2\n\n3,4,5\n", "line 4 has 3 values"},
		{"header row", "a,b\n1,2\n", `line 1, column 1: "a" is not a number`},
		{"trailing comma", "1,2,\n", "line 1, column 3 is empty"},
		{"empty field", "1,,2\n", "column 2 is empty"},
		{"spaces", "1 2 3\n", "separate values with commas"},
		{"semicolons", "1;2;3\n", "separate values with commas"},
		{"NaN", "1,2\n3,nan\n", "line 2, column 2"},
		{"Inf", "1,-Inf\n", "finite"},
		{"infinity", "1,infinity\n", "finite"},
		{"overflow", "1,1e400\n", "out of the range"},
		{"garbage", "1,2x\n", "not a number"},
		// Go's number syntax beyond the decimal, whether or not strconv.ParseFloat reads it.
		{"digit separators", "1,2\n3,1_000\n", `line 2, column 2: "1_000" is not a decimal number; write features as decimal numbers`},
		{"separators in a fraction", "1_0.5,2\n", `line 1, column 1: "1_0.5" is not a decimal number`},
		{"hexadecimal float", "1,0x1p-2\n", `line 1, column 2: "0x1p-2" is not a decimal number`},
		{"hexadecimal float, upper case", "-0X1.8P+1,2\n", `"-0X1.8P+1" is not a decimal number`},
		{"hexadecimal float, separators", "0x_1p0,2\n", `"0x_1p0" is not a decimal number`},
		{"hexadecimal float beyond float64", "1,0x1p99999\n", `"0x1p99999" is not a decimal number`},
		{"hexadecimal integer", "0x10,2\n", `"0x10" is not a decimal number`},
		{"digit separators that ParseFloat refuses", "1__0,2\n", `"1__0" is not a decimal number`},
		{"a header's names with underscores", "feat_0,feat_1\n1,2\n", `line 1, column 1: "feat_0" is not a number; mark header lines with '#'`},
		{"point alone", "1,.\n", `"." is not a number`},
		{"exponent alone", "1,e5\n", `"e5" is not a number`},
		{"exponent without digits", "1,1e+\n", `"1e+" is not a number`},
		{"two signs", "1,+-1\n", `"+-1" is not a number`},
		{"signed nan", "1,-nan\n", `"-nan"`},
		{"byte-order mark after the first line", "1,2\n\xef\xbb\xbf3,4\n", "line 2, column 1"},
		// Lines ended by CR alone (classic Mac text, Excel's "CSV
		// (Macintosh)") read as one line: refused as such, not as a
		// value "2\r3" that is no number, nor as a file of comments.
		{"lines ended by CR alone", "1,2\r3,4\r5,6\r", "line 1 holds a carriage return (\\r) inside it: the file's lines end in CR alone"},
		{"one column, lines ended by CR alone", "1\r2\r3", "line 1 holds a carriage return"},
		{"a header, lines ended by CR alone", "# a,b\r1,2\r3,4\r", "line 1 holds a carriage return"},
		{"lines ended by CR alone after LF lines", "1,2\n3,4\r5,6\r7,8\n", "line 2 holds a carriage return"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, err := ReadCSV(strings.NewReader(c.in), Limits{})
			if err == nil {
				t.Fatalf("no error, got %v", mat.Formatted(x))
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error %q does not wrap ErrFormat", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
}

func TestReadCSVLimits(t *testing.T) {
	lim := Limits{MaxRows: 2, MaxCols: 3, MaxBytes: 1 << 20}
	for _, c := range []struct{ in, want string }{
		{"1,2,3\n4,5,6\n7,8,9\n", "more than 2 frames"},
		{"1,2,3,4\n", "4 features"},
	} {
		_, err := ReadCSV(strings.NewReader(c.in), lim)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want ErrTooLarge mentioning %q", c.in, err, c.want)
		}
	}
	_, err := ReadCSV(strings.NewReader(strings.Repeat("1,2\n", 100)), Limits{MaxBytes: 100})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("bytes limit: %v", err)
	}
	// 4 values (32 bytes) fit a limit of 32 bytes; a third frame, 48
	// bytes in all, does not.
	if _, err := ReadCSV(strings.NewReader("1,2\n3,4\n"), Limits{MaxBytes: 32}); err != nil {
		t.Errorf("2×2 set against a limit of 32 bytes: %v", err)
	}
	_, err = ReadCSV(strings.NewReader("1,2\n3,4\n5,6\n"), Limits{MaxBytes: 32})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("3×2 set against a limit of 32 bytes: %v, want ErrTooLarge at line 3", err)
	}
	_, err = ReadCSV(strings.NewReader(strings.Repeat("# comment\n", 120000)), Limits{MaxBytes: 100})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("bytes limit: %v", err)
	}
	// The text may be at most 4×MaxBytes + 1 MiB long, comments included.
	_, err = ReadCSV(strings.NewReader(strings.Repeat("#\n", (4<<18+1<<20)/2+1)), Limits{MaxBytes: 1 << 18})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "CSV text is longer than 2 MiB") {
		t.Errorf("text over its budget: %v", err)
	}
	// A single endless line stops at the line-length bound.
	_, err = ReadCSV(strings.NewReader(strings.Repeat("1", 1<<20)), Limits{MaxCols: 4, MaxBytes: 1 << 10})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("long line: %v", err)
	}
}

func TestNoLimits(t *testing.T) {
	none := Limits{MaxBytes: -1, MaxRows: -1, MaxCols: -1}
	x, err := ReadCSV(strings.NewReader("1,2\n3,4\n"), none)
	if err != nil || x.At(1, 1) != 4 {
		t.Errorf("CSV without limits: %v", err)
	}
	p := filepath.Join(t.TempDir(), "x.csv")
	if err := WriteFile(p, mat.NewDense(1, 2, []float64{1, 2})); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p, none); err != nil {
		t.Errorf("ReadFile without limits: %v", err)
	}
	b := npyBytes(1, dict("<f8", "False", "(1, 2)"), f64bytes(1, 2))
	if _, err := ReadNPY(bytes.NewReader(b), none); err != nil {
		t.Errorf("NPY without limits: %v", err)
	}
}

func TestRead(t *testing.T) {
	x, err := Read(strings.NewReader("1,2\n"), "dir/set.CSV", Limits{})
	if err != nil || x.At(0, 1) != 2 {
		t.Fatalf("%v %v", x, err)
	}
	_, err = Read(strings.NewReader("1,2\n3\n"), "dir/set.csv", Limits{})
	var e *Error
	if !errors.As(err, &e) || e.Path != "dir/set.csv" || !strings.HasPrefix(err.Error(), "dir/set.csv: line 2") {
		t.Errorf("error %q should start with the name and line", err)
	}
	if _, err := Read(strings.NewReader(""), "set.json", Limits{}); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), ".npy or .csv") {
		t.Errorf("unknown extension: %v", err)
	}
}

// TestReadFileRefusesLargeCSVBySize: ReadFile refuses a CSV file longer
// than the text a set within the limits can take from its size alone,
// before reading any of it (here its first line, not a number, is never
// looked at).
func TestReadFileRefusesLargeCSVBySize(t *testing.T) {
	lim := Limits{MaxBytes: 8} // text budget: 4×8 bytes + 1 MiB
	p := filepath.Join(t.TempDir(), "big.csv")
	text := "x\n" + strings.Repeat("#\n", 1<<19+64)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(p, lim)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "file is") {
		t.Errorf("a %d-byte CSV file against a limit of 8 bytes: %v, want ErrTooLarge from its size", len(text), err)
	}
}

// TestLimitKnobs: the error of a set over each limit, of .npy and CSV,
// says to raise it with the knob the caller names for it (Limits.Knobs),
// and, where the caller names none, not to raise it.
func TestLimitKnobs(t *testing.T) {
	knobs := Knobs{Bytes: "--max-bytes", Rows: "spool.max_frames", Cols: "the cols knob"}
	npy := func(shape string) func(Limits) error {
		return func(l Limits) error {
			_, err := ReadNPY(bytes.NewReader(npyBytes(1, dict("<f8", "False", shape), nil)), l)
			return err
		}
	}
	csv := func(text string) func(Limits) error {
		return func(l Limits) error { _, err := ReadCSV(strings.NewReader(text), l); return err }
	}
	big := filepath.Join(t.TempDir(), "big.csv")
	if err := os.WriteFile(big, []byte(strings.Repeat("#\n", 1<<19+64)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want, knob string
		lim              Limits
		read             func(Limits) error
	}{
		{".npy frames", "1000 frames (rows) exceed the limit of 10; split the set", knobs.Rows, Limits{MaxRows: 10}, npy("(1000, 2)")},
		{".npy features", "51 features (columns) exceed the limit of 50; reduce the features (e.g. PCA)", knobs.Cols, Limits{MaxCols: 50}, npy("(10, 51)")},
		{".npy bytes", "over the limit of 1000 bytes; split the set", knobs.Bytes, Limits{MaxBytes: 1000}, npy("(100, 2)")},
		{"CSV frames", "line 3: more than 2 frames (rows); split the set", knobs.Rows, Limits{MaxRows: 2}, csv("1\n2\n3\n")},
		{"CSV features", "line 1: 4 features (columns) exceed the limit of 3; reduce the features (e.g. PCA)", knobs.Cols, Limits{MaxCols: 3}, csv("1,2,3,4\n")},
		{"CSV bytes", "line 3: the set needs more than the limit of 32 bytes in memory; split the set", knobs.Bytes, Limits{MaxBytes: 32}, csv("1,2\n3,4\n5,6\n")},
		{"CSV text", "CSV text is longer than 2 MiB, the limit for a set of 256 KiB in memory; split the set", knobs.Bytes, Limits{MaxBytes: 1 << 18}, csv(strings.Repeat("#\n", (4<<18+1<<20)/2+1))},
		{"CSV file", "too large for the limit of 8 bytes in memory; split the set", knobs.Bytes, Limits{MaxBytes: 8}, func(l Limits) error { _, err := ReadFile(big, l); return err }},
	} {
		for _, named := range []bool{true, false} {
			l := c.lim
			want := c.want
			if named {
				l.Knobs = knobs
				want += " or raise the limit (" + c.knob + ")"
			}
			err := c.read(l)
			if !errors.Is(err, ErrTooLarge) || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("%s, knobs %v: %v, want ErrTooLarge ending %q", c.name, named, err, want)
			}
		}
	}
}

// TestReadCSVCROnlyAtTheModelsWidth: a file of frames of the model's width
// whose lines end in CR alone is refused by setmatchd (Limits.Cols) as
// such, not as frames of another number of features than the model's.
func TestReadCSVCROnlyAtTheModelsWidth(t *testing.T) {
	_, err := Read(strings.NewReader("1,2\r3,4\r5,6\r"), "b.csv", Limits{Cols: 2})
	if !errors.Is(err, ErrFormat) || errors.Is(err, ErrColumns) || !strings.Contains(err.Error(), "line 1 holds a carriage return") {
		t.Errorf("got %v, want the lines ended by CR alone", err)
	}
}
