package features

import (
	"math/bits"
	"slices"
	"testing"
)

func TestUniformMapping(t *testing.T) {
	// The uniform codes built independently: 0, 255, and every rotation of
	// a run of k = 1..7 ones.
	set := map[uint8]bool{0: true, 255: true}
	for k := 1; k <= 7; k++ {
		for r := 0; r < 8; r++ {
			set[bits.RotateLeft8(uint8(1<<k-1), r)] = true
		}
	}
	if len(set) != 58 {
		t.Fatalf("construction gives %d uniform codes, want 58", len(set))
	}
	var uniform []int
	for c := range set {
		uniform = append(uniform, int(c))
	}
	slices.Sort(uniform)
	for i, c := range uniform {
		if got := UniformLBPBin(uint8(c)); got != i {
			t.Errorf("code %08b: bin %d, want %d", c, got, i)
		}
	}
	n := 0
	for c := 0; c < 256; c++ {
		if !set[uint8(c)] {
			n++
			if got := UniformLBPBin(uint8(c)); got != 58 {
				t.Errorf("non-uniform code %08b: bin %d, want 58", c, got)
			}
		}
	}
	if n != 256-58 {
		t.Errorf("%d non-uniform codes", n)
	}
	// Spot checks by hand.
	for _, tc := range []struct {
		code uint8
		bin  int
	}{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 58}, {255, 57}, {0b01010101, 58}} {
		if got := UniformLBPBin(tc.code); got != tc.bin {
			t.Errorf("bin of %08b = %d, want %d", tc.code, got, tc.bin)
		}
	}
}

func TestLBPCodeByHand(t *testing.T) {
	tests := []struct {
		patch []uint8
		code  uint8
	}{
		// Centre 50. E 60 ≥ 50 (bit 0), SW 70 (bit 5), S 80 (bit 6), SE 90
		// (bit 7); NE 30, N 20, NW 10, W 40 are darker: 1+32+64+128 = 225.
		{[]uint8{10, 20, 30, 40, 50, 60, 70, 80, 90}, 225},
		// Ties count as brighter: a flat patch is 255.
		{[]uint8{7, 7, 7, 7, 7, 7, 7, 7, 7}, 255},
		// Bright N (bit 2) and W (bit 4) only: 4+16 = 20.
		{[]uint8{0, 9, 0, 9, 5, 0, 0, 0, 0}, 20},
		// Alternating: E, N, W, S bright = bits 0, 2, 4, 6 = 85.
		{[]uint8{1, 9, 1, 9, 5, 9, 1, 9, 1}, 85},
	}
	for _, tc := range tests {
		img := gray(3, 3, tc.patch...)
		if got := LBPCode(img, 1, 1); got != tc.code {
			t.Errorf("LBPCode(%v) = %d (%08b), want %d", tc.patch, got, got, tc.code)
		}
		// The feature of a 3×3 image holds that single code.
		v, err := LBP{GridX: 1, GridY: 1}.Extract(img)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, LBPBins)
		want[UniformLBPBin(tc.code)] = 1
		checkVec(t, "lbp 3x3", v, want, 0)
	}
}

func TestLBPConstantImage(t *testing.T) {
	img := gray(8, 8, make([]uint8, 64)...)
	v, err := LBP{GridX: 2, GridY: 3}.Extract(img)
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 2*3*LBPBins {
		t.Fatalf("length %d", len(v))
	}
	for cell := 0; cell < 6; cell++ {
		for k := 0; k < LBPBins; k++ {
			want := 0.0
			if k == 57 { // code 255
				want = 1
			}
			if v[cell*LBPBins+k] != want {
				t.Errorf("cell %d bin %d = %v, want %v", cell, k, v[cell*LBPBins+k], want)
			}
		}
	}
}

func TestLBPMatchesCodesAndCells(t *testing.T) {
	// The histogram equals a direct count of LBPCode over the cells
	// (⌊x·GX/w⌋, ⌊y·GY/h⌋) of the interior pixels.
	const w, h, gx, gy = 13, 11, 3, 2
	img := randomGray(w, h, 7)
	v, err := LBP{GridX: gx, GridY: gy}.Extract(img)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, gx*gy*LBPBins)
	count := make([]float64, gx*gy)
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			cell := (y*gy/h)*gx + x*gx/w
			want[cell*LBPBins+UniformLBPBin(LBPCode(img, x, y))]++
			count[cell]++
		}
	}
	for i := range want {
		want[i] /= count[i/LBPBins]
	}
	checkVec(t, "lbp", v, want, 1e-15)
	for cell := 0; cell < gx*gy; cell++ {
		var s float64
		for _, x := range v[cell*LBPBins : (cell+1)*LBPBins] {
			s += x
		}
		if !near(s, 1, 1e-12) {
			t.Errorf("cell %d sums to %v", cell, s)
		}
	}
}

func TestLBPErrors(t *testing.T) {
	for _, tc := range []struct {
		f    LBP
		w, h int
	}{
		{LBP{GridX: 1, GridY: 1}, 2, 5},
		{LBP{GridX: 4, GridY: 1}, 5, 5}, // 3 interior columns
		{LBP{GridX: 0, GridY: 1}, 9, 9},
	} {
		if _, err := tc.f.Extract(randomGray(tc.w, tc.h, 1)); err == nil {
			t.Errorf("%+v on %dx%d: no error", tc.f, tc.w, tc.h)
		}
	}
}

// TestLBPCellWithoutInteriorPixels: a cell that holds border pixels only
// (on a 5×3 image in 3×1 cells, the third cell holds column 4 alone) has
// an all-zero histogram, and the other cells still sum to 1.
func TestLBPCellWithoutInteriorPixels(t *testing.T) {
	v, err := LBP{GridX: 3, GridY: 1}.Extract(randomGray(5, 3, 3))
	if err != nil {
		t.Fatal(err)
	}
	for cell, want := range []float64{1, 1, 0} {
		var s float64
		for _, x := range v[cell*LBPBins : (cell+1)*LBPBins] {
			s += x
		}
		if !near(s, want, 1e-12) {
			t.Errorf("cell %d sums to %v, want %v", cell, s, want)
		}
	}
}
