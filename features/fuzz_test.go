package features

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func FuzzDecodePGM(f *testing.F) {
	f.Add(writePGM(false, 3, 2, 255, []int{0, 1, 2, 3, 4, 5}))
	f.Add(writePGM(true, 2, 2, 15, []int{15, 7, 1, 0}))
	f.Add(writePGM(false, 2, 1, 65535, []int{65535, 300}))
	f.Add([]byte("P5 # c\n2 1\n255\nAB"))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := DecodePGM(bytes.NewReader(data), "fuzz.pgm")
		if err != nil {
			if img != nil {
				t.Fatal("image and error both returned")
			}
			return
		}
		b := img.Bounds()
		if b.Dx() <= 0 || b.Dy() <= 0 || len(img.Pix) != b.Dx()*b.Dy() || img.Stride != b.Dx() {
			t.Fatalf("inconsistent image: %v, %d pixels, stride %d", b, len(img.Pix), img.Stride)
		}
		// Whatever decodes also goes through Decode and the features.
		if _, err := Decode(bytes.NewReader(data), "fuzz.pgm"); err != nil {
			t.Fatalf("DecodePGM accepted what Decode rejects: %v", err)
		}
		if _, err := (Hist{Bins: 8}).Extract(img); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzReadHeader: a frame's header, however damaged, is read or refused
// without a panic, and the JPEG frame reader never reads past the data.
func FuzzReadHeader(f *testing.F) {
	for _, name := range []string{"baseline.jpg", "progressive.jpg", "progressive-cmyk.jpg"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "decodecost", name)); err == nil {
			f.Add(b[:min(len(b), 700)])
		}
	}
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		readHeader(data, "fuzz", 1<<20)
		jpegFrame(data)
	})
}
