package features

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDecodeCost: what a frame costs to decode is judged from its header.
// With room for exactly its pixels, a baseline JPEG and an 8-bit PNG
// pass; a progressive JPEG (1.5 + 4·1.5 bytes a pixel at 4:2:0), a
// progressive CMYK one (4 + 4 + 4·4), a baseline CMYK one (4 + 4), an RGB
// one (3 + 4: its planes, then the RGBA image the decoder copies them
// into) and a 16-bit colour PNG (8) are refused, with what they are and
// what to send; with six times the pixels allowed (24 bytes a pixel of
// the frame's), every one passes.
func TestDecodeCost(t *testing.T) {
	const w, h = 64, 48
	pngOf := func(img image.Image) []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	file := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "decodecost", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	rect := image.Rect(0, 0, w, h)
	for _, c := range []struct {
		name string
		data []byte
		want string // "" passes
	}{
		{"baseline.jpg", file("baseline.jpg"), ""},
		{"rgba8.png", pngOf(image.NewNRGBA(rect)), ""},
		{"grey.png", pngOf(image.NewGray(rect)), ""},
		{"progressive.jpg", file("progressive.jpg"), "64x48 progressive JPEG takes about"},
		{"progressive-cmyk.jpg", file("progressive-cmyk.jpg"), "64x48 progressive CMYK JPEG takes about"},
		{"rgba16.png", pngOf(image.NewRGBA64(rect)), "64x48 16-bit colour PNG takes about"},
		{"rgb.jpg", file("rgb.jpg"), "64x48 RGB JPEG takes about"},
		{"cmyk.jpg", file("cmyk.jpg"), "64x48 CMYK JPEG takes about"},
	} {
		_, err := readHeader(c.data, c.name, w*h)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "send baseline 8-bit frames (JPEGs not progressive, PNGs not interlaced), or smaller ones")):
			t.Errorf("%s: %v, want it refused: %s", c.name, err, c.want)
		}
		if _, err := readHeader(c.data, c.name, 6*w*h); err != nil {
			t.Errorf("%s with 6 times the pixels allowed: %v", c.name, err)
		}
	}
	if comps, samples, prog := jpegFrame(file("progressive-cmyk.jpg")); comps != 4 || samples != 4 || !prog {
		t.Errorf("jpegFrame(progressive CMYK) = %d, %v, %v; want 4, 4, true", comps, samples, prog)
	}
}

// TestJPEGFrameBroken: headers cut short or with broken lengths read as
// the worst case, never past the data.
func TestJPEGFrameBroken(t *testing.T) {
	for _, b := range [][]byte{
		{0xFF, 0xD8},
		{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x01},
		{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x00, 0x08},
		{0xFF, 0xD8, 0xFF, 0xC2, 0x00, 0x08, 0x08, 0x00, 0x10, 0x00, 0x10, 0x03},
		{0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF},
		{0xFF, 0xD8, 0x00, 0x00, 0x00, 0x00},
		{0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02},
	} {
		if comps, samples, prog := jpegFrame(b); comps != 3 || samples != 3 || !prog {
			t.Errorf("jpegFrame(% x) = %d, %v, %v; want the worst case 3, 3, true", b, comps, samples, prog)
		}
	}
}

// TestDecodeCostHugeLimit: a pixel limit so large that four bytes a pixel
// of it overflow an int64 still lets a small frame through; the budget
// was computed in int64 and came out 0 or negative ("takes about 256
// bytes to decode, more than the -4 bytes a frame may"), refusing every
// frame.
func TestDecodeCostHugeLimit(t *testing.T) {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 16, 16))); err != nil {
		t.Fatal(err)
	}
	for _, max := range []int64{1 << 62, 3e18, 1<<63 - 1} {
		if _, err := decodeBytes(b.Bytes(), "f.png", max); err != nil {
			t.Errorf("limit %d pixels: %v", max, err)
		}
	}
}

// adam7PNG returns a w×h Adam7-interlaced PNG of colour type ct (2 RGB, 6
// RGBA, 0 grey) and bit depth 8, every pixel v: what a camera or an editor
// may write, and what Go's encoder never does.
func adam7PNG(w, h int, ct byte, v byte) []byte { return rawPNG(w, h, ct, 8, true, nil, v) }

// rawPNG returns a w×h PNG of colour type ct (0 grey, 2 RGB, 6 RGBA) and
// bit depth 8 or 16, Adam7-interlaced or not, with a tRNS chunk holding
// trns when it is not nil, every sample v.
func rawPNG(w, h int, ct, depth byte, interlaced bool, trns []byte, v byte) []byte {
	chans := map[byte]int{0: 1, 2: 3, 6: 4}[ct] * int(depth) / 8
	passes := [][4]int{{0, 0, 1, 1}}
	if interlaced {
		passes = [][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}}
	}
	var raw bytes.Buffer
	for _, p := range passes {
		pw := (w - p[0] + p[2] - 1) / p[2]
		ph := (h - p[1] + p[3] - 1) / p[3]
		if pw <= 0 || ph <= 0 {
			continue
		}
		for range ph {
			raw.WriteByte(0)
			raw.Write(bytes.Repeat([]byte{v}, pw*chans))
		}
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw.Bytes())
	zw.Close()
	chunk := func(out *bytes.Buffer, typ string, data []byte) {
		binary.Write(out, binary.BigEndian, uint32(len(data)))
		c := append([]byte(typ), data...)
		out.Write(c)
		binary.Write(out, binary.BigEndian, crc32.ChecksumIEEE(c))
	}
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = depth, ct
	if interlaced {
		ihdr[12] = 1
	}
	chunk(&out, "IHDR", ihdr)
	if trns != nil {
		chunk(&out, "tRNS", trns)
	}
	chunk(&out, "IDAT", z.Bytes())
	chunk(&out, "IEND", nil)
	return out.Bytes()
}

// TestInterlacedPNGCost: Go's PNG decoder reads each Adam7 pass into an
// image of its own and merges it into the whole one, so an interlaced
// 8-bit colour PNG held 8 bytes a pixel, not the 4 its header was judged
// by: at the default limit a 4096×3072 one took about 100 MiB where 48
// MiB was the bound. Its cost is now counted twice: refused with room for
// its pixels, with what it is and what to send; with room for twice as
// many it passes and allocates within that bound (and its grey copy).
func TestInterlacedPNGCost(t *testing.T) {
	const w, h = 256, 256
	for _, c := range []struct {
		ct   byte
		what string
	}{{6, "interlaced 8-bit colour PNG"}, {2, "interlaced 8-bit colour PNG"}} {
		data := adam7PNG(w, h, c.ct, 7)
		_, err := decodeBytes(data, "x.png", w*h)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprintf("%dx%d %s takes about", w, h, c.what)) || !strings.Contains(err.Error(), "PNGs not interlaced") {
			t.Errorf("colour type %d with room for its pixels: %v, want it refused as an %s", c.ct, err, c.what)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		img, err := decodeBytes(data, "x.png", 2*w*h)
		runtime.ReadMemStats(&after)
		if err != nil || img.Bounds().Dx() != w || (c.ct == 2 && img.Pix[0] != 7) {
			t.Fatalf("colour type %d with room for twice its pixels: %v", c.ct, err)
		}
		bound := uint64(bytesPerPixelBudget*2*w*h + w*h + 256<<10) // budget, grey copy, the inflater and row buffers
		if n := after.TotalAlloc - before.TotalAlloc; n > bound {
			t.Errorf("colour type %d: decoding allocated %d bytes, more than the %d of the budget", c.ct, n, bound)
		}
	}
	// A grey one costs 2 bytes a pixel: within the budget at the limit.
	if _, err := decodeBytes(adam7PNG(w, h, 0, 7), "x.png", w*h); err != nil {
		t.Errorf("interlaced grey PNG: %v", err)
	}
}

// TestTransparentGreyPNGCost: a grey PNG with a tRNS chunk (one grey level
// transparent) is decoded by Go into 8-bit or 16-bit NRGBA, not grey, so
// it held 4 bytes a pixel where its header's grey model was judged at 1,
// and a 16-bit one 8 where it was judged at 2: at the default limit a
// 4096×3072 16-bit one took about 100 MiB, twice the 48 MiB bound. Its
// cost is now counted as what it decodes into.
func TestTransparentGreyPNGCost(t *testing.T) {
	const w, h = 256, 256
	for _, c := range []struct {
		depth      byte
		interlaced bool
		ok         int64 // the pixels a limit must allow for it to pass: its bytes a pixel / 4
		what       string
	}{
		{8, false, w * h, ""},
		{16, false, 2 * w * h, "16-bit grey PNG with transparency"},
		{8, true, 2 * w * h, "interlaced 8-bit grey PNG with transparency"},
		{16, true, 4 * w * h, "interlaced 16-bit grey PNG with transparency"},
	} {
		data := rawPNG(w, h, 0, c.depth, c.interlaced, []byte{0, 9}, 7)
		if c.what != "" {
			_, err := decodeBytes(data, "x.png", c.ok/2)
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), c.what+" takes about") {
				t.Errorf("%s with room for half what it needs: %v", c.what, err)
			}
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		img, err := decodeBytes(data, "x.png", c.ok)
		runtime.ReadMemStats(&after)
		if err != nil || img.Bounds().Dx() != w {
			t.Fatalf("depth %d interlaced %v with room for its cost: %v", c.depth, c.interlaced, err)
		}
		bound := uint64(bytesPerPixelBudget*c.ok + w*h + 256<<10) // budget, grey copy, the inflater and row buffers
		// A 16-bit image goes to grey through color.GrayModel pixel by
		// pixel (ToGray has no fast path for it), whose garbage TotalAlloc
		// counts too: only the 8-bit ones are held to the bound.
		if n := after.TotalAlloc - before.TotalAlloc; c.depth == 8 && n > bound {
			t.Errorf("depth %d interlaced %v: decoding allocated %d bytes, more than the %d of the budget", c.depth, c.interlaced, n, bound)
		}
	}
	// Without the chunk a 16-bit grey one is 2 bytes a pixel.
	if _, err := decodeBytes(rawPNG(w, h, 0, 16, false, nil, 7), "x.png", w*h); err != nil {
		t.Errorf("16-bit grey PNG: %v", err)
	}
}

// TestRGBAndCMYKJPEGCost: image/jpeg decodes an RGB JPEG (components
// named R, G, B, or an Adobe segment saying transform 0, and no JFIF) and
// a CMYK one into planes and then copies them into an RGBA or CMYK image:
// 7 and 8 bytes a pixel, where they were judged at their planes' 3 and 4.
// At the default limit a 4096×3072 one of either passed and took 88 or
// 100 MiB, where 48 MiB is the bound. With room for twice their pixels
// (8 bytes a pixel) they decode within it; a JFIF one with the same
// components is YCbCr and stays at its planes.
func TestRGBAndCMYKJPEGCost(t *testing.T) {
	const w, h = 64, 48
	for _, name := range []string{"rgb.jpg", "cmyk.jpg"} {
		data, err := os.ReadFile(filepath.Join("testdata", "decodecost", name))
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		img, err := decodeBytes(data, name, 2*w*h)
		runtime.ReadMemStats(&after)
		if err != nil || img.Bounds().Dx() != w {
			t.Fatalf("%s with room for twice its pixels: %v", name, err)
		}
		// budget, grey copy (a CMYK image reaches it pixel by pixel, 4
		// bytes of garbage each), the decoder's tables
		bound := uint64(bytesPerPixelBudget*2*w*h + 5*w*h + 64<<10)
		if n := after.TotalAlloc - before.TotalAlloc; n > bound {
			t.Errorf("%s: decoding allocated %d bytes, more than the %d of the budget", name, n, bound)
		}
	}
	rgb, err := os.ReadFile(filepath.Join("testdata", "decodecost", "rgb.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	jfif := append([]byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0}, rgb[2:]...)
	if !jpegRGB(rgb) || jpegRGB(jfif) {
		t.Errorf("jpegRGB: %v for R, G, B components, %v with JFIF before them; want true, false", jpegRGB(rgb), jpegRGB(jfif))
	}
}

// TestEverydayFramesAtTheLimit: the frames a camera or a phone writes are
// taken with room for exactly their pixels, as the default limit
// (DefaultMaxFramePixels) takes a 4096×3072 one: a baseline YCbCr 4:2:0
// JPEG with a JFIF segment, with only an EXIF one (a Raspberry Pi camera,
// a phone), with an Adobe segment saying YCbCr, or with none; and an
// 8-bit PNG in grey, RGB, RGBA or a palette, an RGB one with a
// transparent colour (decoded as NRGBA, 4 bytes a pixel).
func TestEverydayFramesAtTheLimit(t *testing.T) {
	const w, h = 64, 48
	bare := encodeJPEG(t, scene(w, h, 3)) // Go's encoder: YCbCr 4:2:0, no APPn segment
	if comps, samples, prog := jpegFrame(bare); comps != 3 || samples != 1.5 || prog {
		t.Fatalf("Go's JPEG: %d components, %v samples a pixel, progressive %v; want a baseline 4:2:0 one", comps, samples, prog)
	}
	withSegment := func(seg ...byte) []byte {
		return append(append([]byte{0xFF, 0xD8}, seg...), bare[2:]...)
	}
	exif := []byte{0xFF, 0xE1, 0, 8, 'E', 'x', 'i', 'f', 0, 0}
	frames := map[string][]byte{
		"bare.jpg":     bare,
		"jfif.jpg":     withSegment(0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0),
		"exif.jpg":     withSegment(exif...),
		"adobe.jpg":    withSegment(append(exif, 0xFF, 0xEE, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, 1)...),
		"grey.png":     rawPNG(w, h, 0, 8, false, nil, 7),
		"rgb.png":      rawPNG(w, h, 2, 8, false, nil, 7),
		"rgba.png":     rawPNG(w, h, 6, 8, false, nil, 7),
		"rgb-trns.png": rawPNG(w, h, 2, 8, false, []byte{0, 1, 0, 2, 0, 3}, 7),
	}
	var pal bytes.Buffer
	if err := png.Encode(&pal, image.NewPaletted(image.Rect(0, 0, w, h), []color.Color{color.Black, color.White})); err != nil {
		t.Fatal(err)
	}
	frames["palette.png"] = pal.Bytes()
	for name, data := range frames {
		if img, err := decodeBytes(data, name, w*h); err != nil || img.Bounds().Dx() != w || img.Bounds().Dy() != h {
			t.Errorf("%s with room for exactly its pixels: %v", name, err)
		}
	}
}
