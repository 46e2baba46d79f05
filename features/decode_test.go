package features

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDecodePNGGray(t *testing.T) {
	src := gray(3, 2, 0, 10, 20, 30, 40, 255)
	var buf bytes.Buffer
	if err := png.Encode(&buf, src); err != nil {
		t.Fatal(err)
	}
	img, err := Decode(&buf, "a.png")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(img.Pix, src.Pix) || img.Stride != 3 || img.Rect != src.Rect {
		t.Errorf("decoded %v stride %d rect %v, want %v", img.Pix, img.Stride, img.Rect, src.Pix)
	}
}

func TestDecodePNGColourLuma(t *testing.T) {
	// BT.601 luma, hand-computed: red 0.299·255 = 76.2, green 149.7, blue
	// 29.1, white 255, half-transparent white (premultiplied) ≈ 127.5.
	src := image.NewNRGBA(image.Rect(0, 0, 5, 1))
	src.Set(0, 0, color.NRGBA{255, 0, 0, 255})
	src.Set(1, 0, color.NRGBA{0, 255, 0, 255})
	src.Set(2, 0, color.NRGBA{0, 0, 255, 255})
	src.Set(3, 0, color.NRGBA{255, 255, 255, 255})
	src.Set(4, 0, color.NRGBA{255, 255, 255, 128})
	var buf bytes.Buffer
	if err := png.Encode(&buf, src); err != nil {
		t.Fatal(err)
	}
	img, err := Decode(&buf, "c.png")
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{76.2, 149.7, 29.1, 255, 128}
	for i, w := range want {
		if got := float64(img.Pix[i]); !near(got, w, 1) {
			t.Errorf("pixel %d: %v, want %v ± 1", i, got, w)
		}
	}
}

func TestDecodeJPEG(t *testing.T) {
	src := image.NewGray(image.Rect(0, 0, 16, 16))
	for i := range src.Pix {
		src.Pix[i] = 100
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	img, err := Decode(&buf, "a.jpg")
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 16 || img.Bounds().Dy() != 16 {
		t.Fatalf("size %v", img.Bounds())
	}
	for i, v := range img.Pix {
		if v < 98 || v > 102 {
			t.Fatalf("pixel %d = %d, want about 100", i, v)
		}
	}
}

func TestDecodeImageFile(t *testing.T) {
	dir := t.TempDir()
	p5 := filepath.Join(dir, "face.pgm")
	if err := os.WriteFile(p5, writePGM(false, 2, 2, 255, []int{1, 2, 3, 4}), 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := DecodeImageFile(p5)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(img.Pix, []byte{1, 2, 3, 4}) {
		t.Errorf("pixels %v", img.Pix)
	}

	missing := filepath.Join(dir, "missing.png")
	if _, err := DecodeImageFile(missing); err == nil || !strings.Contains(err.Error(), missing) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct{ data, want string }{
		{"", "file is empty"},
		{"hello world", "unrecognised image format"},
		{"P6\n1 1\n255\n\x00\x00\x00", "P6 is not supported"},
		{"\x89PNG\r\n\x1a\nbroken", "PNG"},
	}
	for _, tc := range tests {
		_, err := Decode(strings.NewReader(tc.data), "img/x")
		if err == nil || !strings.HasPrefix(err.Error(), "img/x: ") || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrFormat) {
			t.Errorf("Decode(%q): %v, want ErrFormat naming img/x and containing %q", tc.data, err, tc.want)
		}
	}
}

func TestToGraySubImage(t *testing.T) {
	src := gray(3, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	sub := src.SubImage(image.Rect(1, 1, 3, 3))
	g := ToGray(sub)
	if g.Rect != image.Rect(0, 0, 2, 2) || g.Stride != 2 || !bytes.Equal(g.Pix, []byte{5, 6, 8, 9}) {
		t.Errorf("ToGray(sub) = %v %v stride %d", g.Rect, g.Pix, g.Stride)
	}
}

// TestDecodeJPEGOfHeightZero: a JPEG whose frame header says height 0 (to
// be given later by a DNL marker, which image/jpeg reads as an empty
// image) is refused from its header as empty.
func TestDecodeJPEGOfHeightZero(t *testing.T) {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	i := bytes.Index(data, []byte{0xFF, 0xC0}) // SOF0: length, precision, height, width
	if i < 0 {
		t.Fatal("no SOF0")
	}
	data[i+5], data[i+6] = 0, 0
	if _, err := Decode(bytes.NewReader(data), "x.jpg"); err == nil || !strings.Contains(err.Error(), "JPEG image has empty size 8x0") {
		t.Errorf("a JPEG of height 0: %v", err)
	}
}
