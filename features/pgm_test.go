package features

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestPGMRoundTrip(t *testing.T) {
	samples := []int{0, 1, 2, 100, 254, 255}
	for _, plain := range []bool{false, true} {
		img, err := DecodePGM(bytes.NewReader(writePGM(plain, 3, 2, 255, samples)), "x.pgm")
		if err != nil {
			t.Fatalf("plain=%v: %v", plain, err)
		}
		if b := img.Bounds(); b.Dx() != 3 || b.Dy() != 2 {
			t.Fatalf("plain=%v: size %v, want 3x2", plain, b)
		}
		for i, v := range samples {
			if got := img.GrayAt(i%3, i/3).Y; int(got) != v {
				t.Errorf("plain=%v: pixel %d = %d, want %d", plain, i, got, v)
			}
		}
	}
}

func TestPGMScaling(t *testing.T) {
	// round(v·255/maxval): 65535→255, 32768→127.5019…→128, 257→1, 128→0.498…→0.
	img, err := DecodePGM(bytes.NewReader(writePGM(false, 4, 1, 65535, []int{65535, 32768, 257, 128})), "16.pgm")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := img.Pix, []uint8{255, 128, 1, 0}; !bytes.Equal(got, want) {
		t.Errorf("16-bit P5: %v, want %v", got, want)
	}
	// maxval 15: 15→255, 7→119, 1→17, 0→0.
	for _, plain := range []bool{false, true} {
		img, err = DecodePGM(bytes.NewReader(writePGM(plain, 2, 2, 15, []int{15, 7, 1, 0})), "4bit.pgm")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := img.Pix, []uint8{255, 119, 17, 0}; !bytes.Equal(got, want) {
			t.Errorf("maxval 15 plain=%v: %v, want %v", plain, got, want)
		}
	}
}

func TestPGMCommentsAndTrailing(t *testing.T) {
	data := "P5 # magic\n# a comment line\n2 # width\n1\n255\nAB trailing bytes"
	img, err := DecodePGM(strings.NewReader(data), "c.pgm")
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Pix; !bytes.Equal(got, []byte("AB")) {
		t.Errorf("pixels %q, want \"AB\"", got)
	}
	// A P2 raster ending without a final newline.
	img, err = DecodePGM(strings.NewReader("P2 2 1 9 3 9"), "p2.pgm")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := img.Pix, []uint8{85, 255}; !bytes.Equal(got, want) {
		t.Errorf("P2 pixels %v, want %v", got, want)
	}
}

func TestPGMErrors(t *testing.T) {
	huge := "P5\n100000 100000\n255\n"
	tests := []struct {
		name, data string
		want       string // substring of the message
		sentinel   error
	}{
		{"bad magic", "P6\n1 1\n255\n\x00", "not a PGM file", ErrFormat},
		{"not netpbm", "\x89PNG", "not a PGM file", ErrFormat},
		{"empty", "", "not a PGM file", ErrFormat},
		{"truncated raster", "P5\n3 2\n255\n\x01\x02\x03\x04\x05", "PGM header says 3x2 but only 5 of 6 pixel bytes are present (file truncated?)", ErrFormat},
		{"truncated 16-bit raster", "P5\n2 1\n65535\n\x01\x02\x03", "only 3 of 4 pixel bytes are present (file truncated?)", ErrFormat},
		{"truncated plain raster", "P2\n3 2\n255\n1 2 3 4", "only 4 of 6 samples are present (file truncated?)", ErrFormat},
		{"truncated header", "P5\n3 ", "ends before the height", ErrFormat},
		{"maxval 0", "P5\n1 1\n0\n\x00", "maxval is 0", ErrFormat},
		{"maxval too big", "P5\n1 1\n70000\n\x00", "maxval is 70000", ErrFormat},
		{"zero width", "P5\n0 5\n255\n", "must be positive", ErrFormat},
		{"zero height", "P5\n5 0\n255\n", "PGM header says 5x0: width and height must be positive", ErrFormat},
		{"maxval one too big", "P5\n1 1\n65536\n\x00\x00", "maxval is 65536", ErrFormat},
		{"huge dimensions", huge, "more than 67108864 pixels", ErrTooLarge},
		{"too many digits", "P5\n1234567890 1\n255\n", "more than 9 digits", ErrTooLarge},
		{"negative width", "P5\n-3 1\n255\n", "want the width", ErrFormat},
		{"sample above maxval", "P5\n2 1\n100\n\x05\x65", "PGM sample 101 at (1, 0) exceeds maxval 100", ErrFormat},
		{"plain sample above maxval", "P2\n2 1\n100\n5 101\n", "PGM sample 101 at (1, 0) exceeds maxval 100", ErrFormat},
		{"plain junk", "P2\n2 1\n100\n5 x\n", "want a decimal number", ErrFormat},
		{"no space after magic", "P512 1\n255\n\x00", "followed by '1'", ErrFormat},
		{"no space after maxval", "P5\n1 1\n255x", "followed by 'x'", ErrFormat},
		{"comment right after maxval", "P5\n1 1\n255#c\n\x00", "maxval is followed by '#'", ErrFormat},
		{"plain sample followed by junk", "P2\n2 1\n100\n5x6\n", "PGM P2 sample 0 at (0, 0) is followed by 'x'", ErrFormat},
	}
	for _, tc := range tests {
		_, err := DecodePGM(strings.NewReader(tc.data), "orl/s1/1.pgm")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "orl/s1/1.pgm: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want it to name the file and contain %q", tc.name, msg, tc.want)
		}
		if !errors.Is(err, tc.sentinel) {
			t.Errorf("%s: error %q does not wrap %v", tc.name, msg, tc.sentinel)
		}
	}
}

// TestPGMWindowsLineEnds: a PGM written on Windows ends its header lines
// with CR LF. Where the file is exactly that header and the raster, the CR
// LF after maxval is one separator and the raster follows it; where it is
// one byte shorter, the CR alone is the separator and the LF is the first
// pixel (value 10), as Netpbm reads it; where more follows, the same.
func TestPGMWindowsLineEnds(t *testing.T) {
	tests := []struct {
		name, data string
		want       []uint8
	}{
		{"P5 CR LF", "P5\r\n2 2\r\n255\r\nABCD", []uint8("ABCD")},
		{"P5 CR LF with comment", "P5\r\n# made on Windows\r\n2 2\r\n255\r\nABCD", []uint8("ABCD")},
		{"P5 16-bit CR LF", "P5\r\n2 1\r\n65535\r\n\xff\xff\x00\x00", []uint8{255, 0}},
		{"P5 CR LF, raster starts with LF bytes", "P5\r\n2 1\r\n255\r\n\n\n", []uint8{10, 10}},
		{"P5 CR then a pixel of 10", "P5\r\n2 2\r\n255\r\nBCD", []uint8{10, 'B', 'C', 'D'}},
		{"P5 CR LF then more bytes", "P5\r\n2 2\r\n255\r\nABCDE", []uint8{10, 'A', 'B', 'C'}},
		{"P5 LF", "P5\n2 2\n255\n\nBCD", []uint8{10, 'B', 'C', 'D'}},
		{"P2 CR LF", "P2\r\n# made on Windows\r\n2 2\r\n255\r\n1 2\r\n3 4\r\n", []uint8{1, 2, 3, 4}},
	}
	for _, tc := range tests {
		img, err := DecodePGM(strings.NewReader(tc.data), "win.pgm")
		if err != nil {
			t.Errorf("%s: DecodePGM: %v", tc.name, err)
			continue
		}
		if !bytes.Equal(img.Pix, tc.want) {
			t.Errorf("%s: DecodePGM pixels %v, want %v", tc.name, img.Pix, tc.want)
		}
		img, err = Decode(strings.NewReader(tc.data), "win.pgm")
		if err != nil {
			t.Errorf("%s: Decode: %v", tc.name, err)
			continue
		}
		if !bytes.Equal(img.Pix, tc.want) {
			t.Errorf("%s: Decode pixels %v, want %v", tc.name, img.Pix, tc.want)
		}
	}
	// Too short even for a CR separator: the message counts the raster
	// after the CR.
	_, err := DecodePGM(strings.NewReader("P5\r\n2 2\r\n255\r\nAB"), "win.pgm")
	if err == nil || !strings.Contains(err.Error(), "only 3 of 4 pixel bytes") {
		t.Errorf("truncated CR LF file: error %v, want \"only 3 of 4 pixel bytes\"", err)
	}
}

// TestPGMDecodeMemory: a PGM frame of the most pixels a burst takes
// decodes in what the header check counts for it (decodeCost: one byte a
// pixel, the grey image) beyond the file in memory, whether 8-bit, 16-bit
// or plain, where a copy of the raster took 3 bytes a pixel for an 8-bit
// P5 and 5.3 for a 16-bit one, over the 4 a frame may take. A header
// claiming more pixels than the file holds costs a few kilobytes.
func TestPGMDecodeMemory(t *testing.T) {
	const w, h = 4096, 3072
	const n = w * h
	bpp, _ := decodeCost(nil, "pgm", nil)
	if bpp > bytesPerPixelBudget {
		t.Fatalf("a PGM is counted %v bytes a pixel, over the budget of %d", bpp, bytesPerPixelBudget)
	}
	raster8 := make([]byte, n)
	raster16 := make([]byte, 2*n)
	for i := range raster8 {
		raster8[i] = byte(i * 7)
		raster16[2*i], raster16[2*i+1] = byte(i>>3), byte(i)
	}
	last8 := raster8[n-1]
	last16 := newScaler(65535).scale(int(raster16[2*n-2])<<8 | int(raster16[2*n-1]))
	files := []struct {
		name string
		data []byte
		last uint8 // the last pixel decoded
	}{
		{"8-bit P5", append([]byte(fmt.Sprintf("P5\n%d %d\n255\n", w, h)), raster8...), last8},
		{"8-bit P5, CR LF", append([]byte(fmt.Sprintf("P5\r\n%d %d\r\n255\r\n", w, h)), raster8...), last8},
		{"16-bit P5", append([]byte(fmt.Sprintf("P5\n%d %d\n65535\n", w, h)), raster16...), last16},
		{"P2", append([]byte(fmt.Sprintf("P2\n%d %d\n9\n", w, h)), bytes.Repeat([]byte("9 "), n)...), 255},
		{"16-bit P5, short", []byte(fmt.Sprintf("P5\n%d %d\n65535\n\x00\x01", w, h)), 0},
		{"P2, short", []byte(fmt.Sprintf("P2\n%d %d\n9\n1 2 3", w, h)), 0},
	}
	for _, f := range files {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		img, err := decodeBytes(f.data, "frame.pgm", DefaultMaxFramePixels)
		runtime.ReadMemStats(&after)
		got := after.TotalAlloc - before.TotalAlloc
		bound := uint64(64 << 10)
		if strings.HasSuffix(f.name, "short") {
			if err == nil || !strings.Contains(err.Error(), "are present") {
				t.Errorf("%s: %v, want the raster counted short", f.name, err)
			}
		} else {
			if err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			if p := img.Pix[n-1]; p != f.last {
				t.Errorf("%s: last pixel %d, want %d", f.name, p, f.last)
			}
			bound += uint64(bpp * n)
		}
		if got > bound {
			t.Errorf("%s: decoding a %dx%d frame of %d bytes allocated %d bytes (%.2f a pixel), want at most %d",
				f.name, w, h, len(f.data), got, float64(got)/n, bound)
		}
		t.Logf("%s: %d bytes allocated (%.3f a pixel)", f.name, got, float64(got)/n)
	}
}
