package features

import (
	"math"
	"testing"
)

// edgeImage returns a 16×16 image, dark (0) where dark(x, y), else 255.
func edgeImage(dark func(x, y int) bool) []uint8 {
	pix := make([]uint8, 16*16)
	for y := 0; y < 16; y++ {
		for x := 0; x < 16; x++ {
			if !dark(x, y) {
				pix[y*16+x] = 255
			}
		}
	}
	return pix
}

func TestHOGVerticalEdge(t *testing.T) {
	// Columns 0..7 dark, 8..15 bright. gx = 1 at x = 7 and x = 8 (8 rows
	// per cell), gy = 0: every cell has 8 in bin 0 (θ = 0°). The block
	// (8, 8, 8, 8 in bins 0 of its four cells) normalises to 0.5 each;
	// clipping to 0.2 and renormalising gives 0.5 again.
	img := gray(16, 16, edgeImage(func(x, y int) bool { return x < 8 })...)
	v, err := HOG{Cell: 8}.Extract(img)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, 36)
	for c := 0; c < 4; c++ {
		want[c*HOGBins] = 0.5
	}
	checkVec(t, "hog vertical edge", v, want, 1e-9)
}

func TestHOGHorizontalEdge(t *testing.T) {
	// Rows 0..7 dark: gy = 1 on rows 7 and 8, θ = 90°, halfway between the
	// centres 80° (bin 4) and 100° (bin 5): 4 and 4 per cell. Eight equal
	// non-zero values normalise to 1/√8 each (clipping to 0.2 and
	// renormalising keeps them equal).
	img := gray(16, 16, edgeImage(func(x, y int) bool { return y < 8 })...)
	v, err := HOG{Cell: 8}.Extract(img)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, 36)
	for c := 0; c < 4; c++ {
		want[c*HOGBins+4] = 1 / math.Sqrt(8)
		want[c*HOGBins+5] = 1 / math.Sqrt(8)
	}
	checkVec(t, "hog horizontal edge", v, want, 1e-9)
}

func TestHOGVote(t *testing.T) {
	deg := func(d float64) (float64, float64) {
		r := d * math.Pi / 180
		return math.Cos(r), math.Sin(r)
	}
	tests := []struct {
		angle  float64
		b0, b1 int
		frac   float64
	}{
		{0, 0, 1, 0},
		{10, 0, 1, 0.5},
		{45, 2, 3, 0.25},
		{90, 4, 5, 0.5},
		{170, 8, 0, 0.5}, // wraps to 180° ≡ 0°
		{-10, 8, 0, 0.5}, // unsigned: −10° ≡ 170°
		{190, 0, 1, 0.5}, // unsigned: 190° ≡ 10°
		{180, 0, 1, 0},
	}
	for _, tc := range tests {
		b0, b1, frac := hogVote(deg(tc.angle))
		if b0 != tc.b0 || b1 != tc.b1 || !near(frac, tc.frac, 1e-9) {
			// At exactly 180° rounding may land just below; accept bin 8/0 with frac ≈ 1.
			if !(tc.angle == 180 && b0 == 8 && b1 == 0 && near(frac, 1, 1e-9)) {
				t.Errorf("%v°: bins %d,%d frac %v, want %d,%d frac %v", tc.angle, b0, b1, frac, tc.b0, tc.b1, tc.frac)
			}
		}
	}
}

func TestHOGShapeAndNorm(t *testing.T) {
	f := HOG{Cell: 8, W: 64, H: 64}
	d, err := f.Dim(41, 41)
	if err != nil || d != 7*7*36 {
		t.Fatalf("Dim = %d, %v; want 1764", d, err)
	}
	v, err := f.Extract(randomGray(41, 41, 3))
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != d {
		t.Fatalf("length %d, want %d", len(v), d)
	}
	for b := 0; b < len(v)/36; b++ {
		var ss float64
		for _, x := range v[b*36 : (b+1)*36] {
			if x < 0 || x > 0.5 || math.IsNaN(x) {
				t.Fatalf("block %d has value %v", b, x)
			}
			ss += x * x
		}
		if !near(ss, 1, 1e-6) {
			t.Errorf("block %d has squared norm %v, want 1", b, ss)
		}
	}
	// Without resizing, leftover pixels are ignored: 20×17 with 8-pixel
	// cells has 2×2 cells and one block.
	if d, err := (HOG{Cell: 8}).Dim(20, 17); err != nil || d != 36 {
		t.Errorf("Dim(20, 17) = %d, %v; want 36", d, err)
	}
	if _, err := (HOG{Cell: 8}).Extract(randomGray(15, 40, 1)); err == nil {
		t.Error("15-pixel-wide image with 8-pixel cells: no error")
	}
	// A constant image has no gradient: all zeros, no NaN.
	v, err = HOG{Cell: 4}.Extract(gray(8, 8, make([]uint8, 64)...))
	if err != nil {
		t.Fatal(err)
	}
	checkVec(t, "constant", v, make([]float64, 36), 0)
}
