package features

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// FuzzParseSpec: a feature spec is parsed or refused with an error that
// lists the valid specs; one parsed names itself canonically (Name parses
// to the same pipeline) and extracts features from a small frame.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"intensity:20x20", "intensity:20x20:norm", "lbp:4x4", "lbp:4x4@64x64",
		"lbp:4x4+pca:50", "hog:8@64x64", "hog:8", "hist:32", "hist:32:plain@16x16",
		"intensity:32x32+pca:50", " intensity:8x6+pca:3 ", "hist:0", "lbp:99999x1",
		"intensity:1x1+pca:1+pca:2", "hog:1@4096x4096", "intensity:+1x2",
	} {
		f.Add(s)
	}
	img := randomGray(24, 17, 1)
	f.Fuzz(func(t *testing.T, spec string) {
		p, err := Parse(spec)
		if err != nil {
			if !strings.Contains(err.Error(), "valid feature specs") {
				t.Fatalf("error without the valid specs: %v", err)
			}
			return
		}
		q, err := Parse(p.Name())
		if err != nil || q != p {
			t.Fatalf("Parse(%q) = %+v, named %q, which parses to %+v, %v", spec, p, p.Name(), q, err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		v, err := p.Extract(img)
		runtime.ReadMemStats(&after)
		if err != nil {
			return
		}
		if len(v) == 0 || len(v) > MaxDim {
			t.Fatalf("%s: %d features", p.Name(), len(v))
		}
		for j, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("%s: feature %d is %v", p.Name(), j, x)
			}
		}
		// The most a feature may resize a frame to is MaxResize² pixels;
		// its features and buffers are a few float64 a pixel beyond that.
		if n := after.TotalAlloc - before.TotalAlloc; n > 64*MaxResize*MaxResize+64*MaxDim+1<<20 {
			t.Fatalf("%s: extracting a 24×17 frame allocated %d bytes", p.Name(), n)
		}
	})
}

// fuzzBurstLimits are small limits, so that the fuzzer reaches them.
var fuzzBurstLimits = ImageLimits{MaxFrames: 4, MaxPixels: 64 * 64, MaxFileBytes: 64 << 10}

// fuzzDecoderBytes bounds what the decoders allocate beyond the pixels: a
// PNG's inflater and its window, a JPEG's tables (the seeds take up to 70
// KiB in all, pixels included).
const fuzzDecoderBytes = 256 << 10

// fuzzBurstSpecs are the pipelines a burst is read with, chosen by a byte.
var fuzzBurstSpecs = []string{"intensity:8x8", "lbp:2x2", "hog:4", "hist:16:plain", "lbp:2x2@16x16", "intensity:6x4:norm"}

// FuzzApplyBurst: a burst of two frames of any bytes, written to a folder
// as a camera writes it, is turned into features or refused with an
// *Error, under the limits: never a panic, and never more memory than a
// frame of the limit's pixels costs to decode.
func FuzzApplyBurst(f *testing.F) {
	var frames [][]byte
	for _, name := range []string{"a.png", "b.jpg", "c.pgm", "d.jpg"} {
		b, err := os.ReadFile(filepath.Join("testdata", "burst", name))
		if err != nil {
			f.Fatal(err)
		}
		frames = append(frames, b)
	}
	for _, name := range []string{"baseline.jpg", "progressive.jpg", "progressive-cmyk.jpg", "rgb.jpg", "cmyk.jpg"} {
		b, err := os.ReadFile(filepath.Join("testdata", "decodecost", name))
		if err != nil {
			f.Fatal(err)
		}
		frames = append(frames, b)
	}
	frames = append(frames,
		encodePNG(f, scene(12, 9, 0)), encodeJPEG(f, scene(12, 9, 1)), encodePGM(scene(12, 9, 2)),
		pngHeaderClaiming(f, 60000, 60000), jpegHeaderClaiming(f, 60000, 60000),
		[]byte("P5\n60000 60000\n255\n\x00\x01"), writePGM(true, 2, 2, 15, []int{15, 7, 1, 0}))
	for i, b := range frames {
		f.Add(b, frames[(i+1)%len(frames)], uint8(i))
	}
	f.Fuzz(func(t *testing.T, a, b []byte, which uint8) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "1.png"), a, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "2.jpg"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		p, err := Parse(fuzzBurstSpecs[int(which)%len(fuzzBurstSpecs)])
		if err != nil {
			t.Fatal(err)
		}
		fit := Fitted{Pipeline: p}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		x, err := fit.ApplyBurst(root, ".", fuzzBurstLimits)
		runtime.ReadMemStats(&after)
		// What is allocated in all, frame after frame: for each, its
		// decoding (checkDecodeCost holds it to 4 bytes a pixel of the
		// limit), its grey copy and features, its file, and the
		// decoders' own tables and buffers, a fixed cost.
		lim := 2*(uint64(32*fuzzBurstLimits.MaxPixels)+fuzzDecoderBytes) + 4*uint64(len(a)+len(b))
		if n := after.TotalAlloc - before.TotalAlloc; n > lim {
			t.Fatalf("reading a burst of %d and %d bytes allocated %d bytes (bound %d): %v", len(a), len(b), n, lim, err)
		}
		checkFuzzFeatures(t, x, err, 2, "a burst of two frames")
	})
}

// checkFuzzFeatures checks what a fuzzed read returned: an error alone,
// and a *features.Error, or features alone, rows × at least one (what
// names the frames read, for the failure).
func checkFuzzFeatures(t *testing.T, x *mat.Dense, err error, rows int, what string) {
	t.Helper()
	if err != nil {
		if x != nil {
			t.Fatal("features and error both returned")
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %T is not a *features.Error: %v", err, err)
		}
		return
	}
	if r, c := x.Dims(); r != rows || c == 0 {
		t.Fatalf("%d×%d features from %s", r, c, what)
	}
}

// FuzzJPEGOrientation: the EXIF orientation of any bytes is read as 1 to 8
// without a panic or a read past them, and applying it keeps the pixels.
func FuzzJPEGOrientation(f *testing.F) {
	for _, name := range []string{"b.jpg", "d.jpg"} {
		b, err := os.ReadFile(filepath.Join("testdata", "burst", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 400)])
	}
	exif := func(order string, o uint16) []byte {
		t := []byte(order)
		if order == "II" {
			t = append(t, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, byte(o), byte(o>>8), 0, 0)
		} else {
			t = append(t, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, byte(o>>8), byte(o), 0, 0)
		}
		seg := append([]byte("Exif\x00\x00"), t...)
		n := len(seg) + 2
		return append([]byte{0xFF, 0xD8, 0xFF, 0xE1, byte(n >> 8), byte(n)}, append(seg, 0xFF, 0xDA)...)
	}
	f.Add(exif("II", 6))
	f.Add(exif("MM", 8))
	f.Add(exif("MM", 9))
	img := randomGray(5, 3, 2)
	f.Fuzz(func(t *testing.T, data []byte) {
		o := jpegOrientation(data)
		if o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		g := orient(img, o)
		w, h := orientedSize(5, 3, o)
		if b := g.Bounds(); b.Dx() != w || b.Dy() != h || len(g.Pix) != 15 {
			t.Fatalf("orientation %d: %v", o, b)
		}
	})
}

// FuzzApplyFrames is FuzzApplyBurst without the folder: the frames' bytes
// go straight to the decoding and feature path every burst and image set
// takes (applySource), so that the fuzzer reaches deep into the decoders
// many times faster. The same bound on memory holds.
func FuzzApplyFrames(f *testing.F) {
	for _, name := range []string{"a.png", "b.jpg", "c.pgm", "d.jpg"} {
		b, err := os.ReadFile(filepath.Join("testdata", "burst", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(len(b)))
	}
	for _, name := range []string{"baseline.jpg", "progressive.jpg", "progressive-cmyk.jpg", "rgb.jpg", "cmyk.jpg"} {
		b, err := os.ReadFile(filepath.Join("testdata", "decodecost", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(len(b)))
	}
	for i, b := range [][]byte{encodePNG(f, scene(12, 9, 0)), encodeJPEG(f, scene(12, 9, 1)), encodePGM(scene(12, 9, 2)),
		pngHeaderClaiming(f, 60000, 60000), jpegHeaderClaiming(f, 60000, 60000), []byte("P5\n60000 60000\n255\n\x00\x01"),
		adam7PNG(12, 9, 6, 7), adam7PNG(45, 45, 2, 1), adam7PNG(5, 3, 0, 200),
		rawPNG(10, 7, 0, 16, false, []byte{0, 9}, 7), rawPNG(6, 6, 0, 8, true, []byte{0, 7}, 7)} {
		f.Add(b, uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		p, err := Parse(fuzzBurstSpecs[int(which)%len(fuzzBurstSpecs)])
		if err != nil {
			t.Fatal(err)
		}
		fit := Fitted{Pipeline: p}
		read := func(int) ([]byte, error) { return data, nil }
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		x, _, err := fit.applySource(context.Background(), 1, func(int) string { return "f.png" }, read, fuzzBurstLimits)
		runtime.ReadMemStats(&after)
		lim := uint64(32*fuzzBurstLimits.MaxPixels) + 4*uint64(len(data)) + fuzzDecoderBytes
		if n := after.TotalAlloc - before.TotalAlloc; n > lim {
			t.Fatalf("reading a frame of %d bytes allocated %d bytes (bound %d): %v", len(data), n, lim, err)
		}
		checkFuzzFeatures(t, x, err, 1, "one frame")
	})
}
