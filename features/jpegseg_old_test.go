package features

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// The three JPEG marker walkers as they were before jpegSegments, kept
// for the differential checks below until the new ones are trusted.

func oldJPEGRGB(data []byte) bool {
	jfif, adobe, transform, named := false, false, byte(0), false
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xFF {
			j := i + 1
			for j+1 < len(data) && !(data[j] == 0xFF && data[j+1] != 0 && data[j+1] != 0xFF && (data[j+1] < 0xD0 || data[j+1] > 0xD7)) {
				j++
			}
			if j+1 >= len(data) {
				break
			}
			i = j
			continue
		}
		m := data[i+1]
		switch {
		case m == 0xFF:
			i++
			continue
		case m == 0xD9:
			i = len(data)
			continue
		case m == 0x00 || m == 0x01 || (m >= 0xD0 && m <= 0xD8):
			i += 2
			continue
		}
		n := int(data[i+2])<<8 | int(data[i+3])
		if n < 2 || i+2+n > len(data) {
			break
		}
		seg := data[i+4 : i+2+n]
		switch {
		case m == 0xE0 && len(seg) >= 5:
			jfif = string(seg[:5]) == "JFIF\x00"
		case m == 0xEE && len(seg) >= 12 && string(seg[:5]) == "Adobe":
			adobe, transform = true, seg[11]
		case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC && len(seg) >= 6+3*3 && seg[5] == 3:
			named = seg[6] == 'R' && seg[9] == 'G' && seg[12] == 'B'
		}
		i += 2 + n
	}
	return !jfif && (adobe && transform == 0 || named)
}

// oldJPEGFrame's odd says it read a length after a marker that has none
// (0x00, TEM, RSTn, SOI, EOI) or read a frame header cut short by the end
// of data, where jpegSegments reads otherwise.
func oldJPEGFrame(data []byte) (comps int, samples float64, progressive, odd bool) {
	const worst = 3
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xFF {
			return worst, worst, true, odd
		}
		m := data[i+1]
		if m == 0xFF {
			i++
			continue
		}
		if m == 0x00 || m == 0x01 || (m >= 0xD0 && m <= 0xD9) {
			odd = true
		}
		n := int(data[i+2])<<8 | int(data[i+3])
		if n < 2 {
			return worst, worst, true, odd
		}
		if m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC {
			if i+2+n > len(data) {
				odd = true
			}
			seg := data[i+4 : min(len(data), i+2+n)]
			if len(seg) < 6 {
				return worst, worst, true, odd
			}
			nc := int(seg[5])
			if nc < 1 || len(seg) < 6+3*nc {
				return worst, worst, true, odd
			}
			hmax, vmax, sum := 1, 1, 0
			for c := range nc {
				hv := seg[6+3*c+1]
				h, v := int(hv>>4), int(hv&15)
				hmax, vmax, sum = max(hmax, h), max(vmax, v), sum+h*v
			}
			return nc, float64(sum) / float64(hmax*vmax), m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE, odd
		}
		if m == 0xDA {
			return worst, worst, true, odd
		}
		i += 2 + n
	}
	return worst, worst, true, odd
}

// oldJPEGOrientation's odd says it read a length after 0x00 or EOI, which
// have none, where jpegSegments reads otherwise.
func oldJPEGOrientation(data []byte) (o int, odd bool) {
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xFF {
			return 1, odd
		}
		m := data[i+1]
		switch {
		case m == 0xFF:
			i++
			continue
		case m == 0xDA:
			return 1, odd
		case m == 0x01 || (m >= 0xD0 && m <= 0xD8):
			i += 2
			continue
		}
		if m == 0x00 || m == 0xD9 {
			odd = true
		}
		n := int(data[i+2])<<8 | int(data[i+3])
		if n < 2 || i+2+n > len(data) {
			return 1, odd
		}
		if seg := data[i+4 : i+2+n]; m == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return tiffOrientation(seg[6:]), odd
		}
		i += 2 + n
	}
	return 1, odd
}

type jpegWalkerInput struct {
	name string
	data []byte
}

// jpegWalkerInputs: every file under testdata (whole and cut to the 400
// and 700 bytes the fuzz targets seed with) and every JPEG-ish seed and
// test input the package builds.
func jpegWalkerInputs(t testing.TB) []jpegWalkerInput {
	var in []jpegWalkerInput
	add := func(name string, b []byte) { in = append(in, jpegWalkerInput{name, b}) }
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		add(p, b)
		for _, n := range []int{400, 700} {
			if n < len(b) {
				add(fmt.Sprintf("%s[:%d]", p, n), b[:n])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
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
	add("exif II 6", exif("II", 6))
	add("exif MM 8", exif("MM", 8))
	add("exif MM 9", exif("MM", 9))
	add("FuzzReadHeader seed", []byte{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x01})
	add("encodePNG 12x9", encodePNG(t, scene(12, 9, 0)))
	add("encodeJPEG 12x9", encodeJPEG(t, scene(12, 9, 1)))
	add("encodePGM 12x9", encodePGM(scene(12, 9, 2)))
	add("pngHeaderClaiming", pngHeaderClaiming(t, 60000, 60000))
	add("jpegHeaderClaiming", jpegHeaderClaiming(t, 60000, 60000))
	add("P5 claiming", []byte("P5\n60000 60000\n255\n\x00\x01"))
	for i, b := range [][]byte{
		{0xFF, 0xD8},
		{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x01},
		{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x00, 0x08},
		{0xFF, 0xD8, 0xFF, 0xC2, 0x00, 0x08, 0x08, 0x00, 0x10, 0x00, 0x10, 0x03},
		{0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF},
		{0xFF, 0xD8, 0x00, 0x00, 0x00, 0x00},
		{0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02},
	} {
		add(fmt.Sprintf("TestJPEGFrameBroken %d", i), b)
	}
	bare := encodeJPEG(t, scene(64, 48, 3))
	withSegment := func(seg ...byte) []byte {
		return append(append([]byte{0xFF, 0xD8}, seg...), bare[2:]...)
	}
	ex := []byte{0xFF, 0xE1, 0, 8, 'E', 'x', 'i', 'f', 0, 0}
	add("bare", bare)
	add("jfif", withSegment(0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0))
	add("exif", withSegment(ex...))
	add("adobe", withSegment(append(ex, 0xFF, 0xEE, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, 1)...))
	if rgb, err := os.ReadFile(filepath.Join("testdata", "decodecost", "rgb.jpg")); err == nil {
		add("jfif+rgb", append([]byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0}, rgb[2:]...))
	}
	return in
}

// TestJPEGWalkersRecord writes what the three walkers give on every input
// to the file $JPEGREC, to be compared before and after a change.
func TestJPEGWalkersRecord(t *testing.T) {
	out := os.Getenv("JPEGREC")
	if out == "" {
		t.Skip("JPEGREC not set")
	}
	var b bytes.Buffer
	for _, in := range jpegWalkerInputs(t) {
		c, s, p := jpegFrame(in.data)
		fmt.Fprintf(&b, "%s (%d bytes): frame %d %v %v, rgb %v, orientation %d\n", in.name, len(in.data), c, s, p, jpegRGB(in.data), jpegOrientation(in.data))
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkJPEGWalkers compares the three walkers with the old ones on data:
// jpegRGB always, jpegFrame and jpegOrientation where the old ones did not
// misread a marker without a length or a cut frame header. It reports
// whether the comparison was skipped for either.
func checkJPEGWalkers(t *testing.T, name string, data []byte) (skipped bool) {
	if got, want := jpegRGB(data), oldJPEGRGB(data); got != want {
		t.Errorf("%s: jpegRGB %v, was %v", name, got, want)
	}
	c, s, p := jpegFrame(data)
	oc, osm, op, odd := oldJPEGFrame(data)
	if c != oc || s != osm || p != op {
		if !odd {
			t.Errorf("%s: jpegFrame %d %v %v, was %d %v %v", name, c, s, p, oc, osm, op)
		}
		skipped = true
	}
	o := jpegOrientation(data)
	oo, odd := oldJPEGOrientation(data)
	if o != oo {
		if !odd {
			t.Errorf("%s: jpegOrientation %d, was %d", name, o, oo)
		}
		skipped = true
	}
	return skipped
}

func TestJPEGWalkersMatchOld(t *testing.T) {
	for _, in := range jpegWalkerInputs(t) {
		if checkJPEGWalkers(t, in.name, in.data) {
			t.Errorf("%s: differs from the old walkers", in.name)
		}
	}
}

func FuzzJPEGWalkersMatchOld(f *testing.F) {
	for _, in := range jpegWalkerInputs(f) {
		f.Add(in.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkJPEGWalkers(t, "fuzz", data)
	})
}
