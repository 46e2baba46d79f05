package features

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecodeCost: what a frame costs to decode is judged from its header.
// With room for exactly its pixels, a baseline JPEG and an 8-bit PNG
// pass; a progressive JPEG (1.5 + 4·1.5 bytes a pixel at 4:2:0), a
// progressive CMYK one (4 + 4·4) and a 16-bit colour PNG (8) are refused,
// with what they are and what to send; with five times the pixels allowed
// (20 bytes a pixel of the frame's), every one passes.
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
	} {
		_, err := readHeader(c.data, c.name, w*h)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "send baseline 8-bit frames, or smaller ones")):
			t.Errorf("%s: %v, want it refused: %s", c.name, err, c.want)
		}
		if _, err := readHeader(c.data, c.name, 5*w*h); err != nil {
			t.Errorf("%s with 5 times the pixels allowed: %v", c.name, err)
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
