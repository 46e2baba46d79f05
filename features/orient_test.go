package features

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"strings"
	"testing"
)

// exifJPEG returns a JPEG of g whose EXIF Orientation tag is o, in byte
// order bo, as a phone writes one (an APP1 segment after SOI).
func exifJPEG(t *testing.T, g *image.Gray, o uint16, bo binary.ByteOrder) []byte {
	t.Helper()
	var enc bytes.Buffer
	if err := jpeg.Encode(&enc, g, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	tiff := make([]byte, 26)
	copy(tiff, "MM")
	if bo == binary.LittleEndian {
		copy(tiff, "II")
	}
	bo.PutUint16(tiff[2:], 42)
	bo.PutUint32(tiff[4:], 8) // IFD0
	bo.PutUint16(tiff[8:], 1) // one entry
	bo.PutUint16(tiff[10:], 0x0112)
	bo.PutUint16(tiff[12:], 3) // SHORT
	bo.PutUint32(tiff[14:], 1)
	bo.PutUint16(tiff[18:], o)
	body := append([]byte("Exif\x00\x00"), tiff...)
	app1 := []byte{0xFF, 0xE1, byte((len(body) + 2) >> 8), byte(len(body) + 2)}
	b := enc.Bytes()
	return append(append(append([]byte{}, b[:2]...), append(app1, body...)...), b[2:]...)
}

// TestEXIFOrientation: a JPEG is read as a viewer shows it: its EXIF
// orientation (a phone's portrait shot is stored on its side with
// orientation 6) is applied, in either byte order, and the size a
// pipeline checks is the size shown. It was read as stored, turned.
func TestEXIFOrientation(t *testing.T) {
	// 8×4, four quadrants of 4×2: a b on top, c d below.
	const a, b, c, d = 0, 80, 160, 240
	g := image.NewGray(image.Rect(0, 0, 8, 4))
	for y := range 4 {
		for x := range 8 {
			v := [2][2]uint8{{a, b}, {c, d}}[y/2][x/4]
			g.SetGray(x, y, color.Gray{Y: v})
		}
	}
	// The quadrants shown top left, top right, bottom left, bottom right.
	want := map[uint16][4]uint8{
		1: {a, b, c, d}, 2: {b, a, d, c}, 3: {d, c, b, a}, 4: {c, d, a, b},
		5: {a, c, b, d}, 6: {c, a, d, b}, 7: {d, b, c, a}, 8: {b, d, a, c},
	}
	for o := uint16(1); o <= 8; o++ {
		for _, bo := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian} {
			data := exifJPEG(t, g, o, bo)
			hdr, err := readHeader(data, "f.jpg", 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			w, h := 8, 4
			if o >= 5 {
				w, h = 4, 8
			}
			if hdr.w != w || hdr.h != h {
				t.Errorf("orientation %d (%v): header size %dx%d, want %dx%d as shown", o, bo, hdr.w, hdr.h, w, h)
			}
			img, err := decodeBytes(data, "f.jpg", 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if bb := img.Bounds(); bb.Dx() != w || bb.Dy() != h {
				t.Fatalf("orientation %d: decoded %dx%d, want %dx%d", o, bb.Dx(), bb.Dy(), w, h)
			}
			// The centre of each quadrant shown.
			at := [4][2]int{{w / 4, h / 4}, {3 * w / 4, h / 4}, {w / 4, 3 * h / 4}, {3 * w / 4, 3 * h / 4}}
			for q, p := range at {
				if got := int(img.GrayAt(p[0], p[1]).Y); got < int(want[o][q])-20 || got > int(want[o][q])+20 {
					t.Errorf("orientation %d (%v): quadrant %d shows %d, want about %d", o, bo, q, got, want[o][q])
				}
			}
		}
	}
}

// TestUnsupportedJPEGSaysSaveAgain: an intact JPEG of a kind the reader
// does not take (here 12-bit: the frame header's precision byte) is told
// to be saved again, not called damaged.
func TestUnsupportedJPEGSaysSaveAgain(t *testing.T) {
	var enc bytes.Buffer
	if err := jpeg.Encode(&enc, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	b := enc.Bytes()
	i := bytes.Index(b, []byte{0xFF, 0xC0}) // SOF0: length, then precision
	if i < 0 {
		t.Fatal("no SOF0 in the encoded JPEG")
	}
	b[i+4] = 12
	_, err := decodeBytes(b, "cam.jpg", 1<<20)
	if err == nil || !strings.Contains(err.Error(), "save it again") || strings.Contains(err.Error(), "damaged") {
		t.Errorf("a 12-bit JPEG: %v, want it told to be saved again", err)
	}
}

// TestHOGHintFits: where HOG's cells do not fit an image, the smaller
// cells it suggests fit, and none are suggested where none fit.
func TestHOGHintFits(t *testing.T) {
	for _, c := range []struct {
		spec        string
		w, h        int
		want, never string
	}{
		{"hog:8", 12, 12, "e.g. hog:6", ""},
		{"hog:1", 4096, 1, "hog:1@64x64", "smaller cells"},
		{"hog:8", 4096, 1, "hog:8@64x64", "smaller cells"},
	} {
		f := mustFitted(t, c.spec)
		_, err := f.Apply([]*image.Gray{image.NewGray(image.Rect(0, 0, c.w, c.h))})
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.never != "" && strings.Contains(err.Error(), c.never)) {
			t.Errorf("%s on %dx%d: %v, want %q and not %q", c.spec, c.w, c.h, err, c.want, c.never)
		}
	}
}

// TestLimitMessagesSayWhatToDo: a frame just over the decoding budget is
// told in sizes that differ ("48 MiB, more than the 48 MiB" read as no
// fault), and an image too small for an lbp grid is told how to resize.
func TestLimitMessagesSayWhatToDo(t *testing.T) {
	err := checkDecodeCost(nil, "f.png", "png", color.RGBA64Model, 2049, 3072, 4096*3072)
	if err == nil || !strings.Contains(err.Error(), "about 50356224 bytes to decode, more than the 50331648 bytes") {
		t.Errorf("a 16-bit colour PNG of 2049x3072: %v", err)
	}
	f := mustFitted(t, "lbp:4x4")
	if _, err := f.Apply([]*image.Gray{image.NewGray(image.Rect(0, 0, 3, 3))}); err == nil || !strings.Contains(err.Error(), "lbp:4x4@64x64") {
		t.Errorf("lbp:4x4 on 3x3: %v, want how to resize", err)
	}
}

// TestTIFFOrientationRefusesOddEntries: an Orientation entry that is not
// one SHORT, or whose value is not 1 to 8, reads as 1 (as stored).
func TestTIFFOrientationRefusesOddEntries(t *testing.T) {
	entry := func(typ uint16, count uint32, v uint16) []byte {
		b := make([]byte, 26)
		copy(b, "II")
		binary.LittleEndian.PutUint16(b[2:], 42)
		binary.LittleEndian.PutUint32(b[4:], 8)
		binary.LittleEndian.PutUint16(b[8:], 1)
		binary.LittleEndian.PutUint16(b[10:], 0x0112)
		binary.LittleEndian.PutUint16(b[12:], typ)
		binary.LittleEndian.PutUint32(b[14:], count)
		binary.LittleEndian.PutUint16(b[18:], v)
		return b
	}
	for _, tc := range []struct {
		name string
		tiff []byte
		want int
	}{
		{"one SHORT", entry(3, 1, 6), 6},
		{"two values", entry(3, 2, 6), 1},
		{"LONG", entry(4, 1, 6), 1},
		{"value 9", entry(3, 1, 9), 1},
		{"value 0", entry(3, 1, 0), 1},
	} {
		if got := tiffOrientation(tc.tiff); got != tc.want {
			t.Errorf("%s: orientation %d, want %d", tc.name, got, tc.want)
		}
	}
}
