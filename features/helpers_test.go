package features

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"testing"
)

// gray builds a w×h image from row-major levels.
func gray(w, h int, levels ...uint8) *image.Gray {
	if len(levels) != w*h {
		panic(fmt.Sprintf("gray: %d levels for %dx%d", len(levels), w, h))
	}
	return grayFromPix(append([]uint8(nil), levels...), w, h)
}

func randomGray(w, h int, seed uint64) *image.Gray {
	r := rand.New(rand.NewPCG(seed, 1))
	pix := make([]uint8, w*h)
	for i := range pix {
		pix[i] = uint8(r.IntN(256))
	}
	return grayFromPix(pix, w, h)
}

// writePGM writes a PGM the way a test wants it; samples are raw values
// ≤ maxval.
func writePGM(plain bool, w, h, maxval int, samples []int) []byte {
	var b bytes.Buffer
	if plain {
		fmt.Fprintf(&b, "P2\n# test image\n%d %d\n%d\n", w, h, maxval)
		for i, v := range samples {
			fmt.Fprintf(&b, "%d", v)
			if (i+1)%w == 0 {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		return b.Bytes()
	}
	fmt.Fprintf(&b, "P5\n%d %d\n%d\n", w, h, maxval)
	for _, v := range samples {
		if maxval > 255 {
			b.WriteByte(byte(v >> 8))
		}
		b.WriteByte(byte(v))
	}
	return b.Bytes()
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func checkVec(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !near(got[i], want[i], tol) {
			t.Errorf("%s[%d] = %.12g, want %.12g", what, i, got[i], want[i])
		}
	}
}
