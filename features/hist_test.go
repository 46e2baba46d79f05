package features

import (
	"bytes"
	"testing"
)

func TestEqualize(t *testing.T) {
	// N = 4, c(0) = 2 = c_min, c(100) = 3, c(200) = 4:
	// 0 → 0, 100 → 255·1/2 = 127.5 → 128, 200 → 255.
	img := gray(2, 2, 0, 200, 100, 0)
	if got, want := Equalize(img).Pix, []uint8{0, 255, 128, 0}; !bytes.Equal(got, want) {
		t.Errorf("Equalize = %v, want %v", got, want)
	}
	// Already spread levels 10, 20, 30, 40 (one each): c_min = 1, N = 4,
	// e = 0, 1/3, 2/3, 1 → 0, 85, 170, 255.
	if got, want := Equalize(gray(4, 1, 40, 10, 30, 20)).Pix, []uint8{255, 0, 170, 85}; !bytes.Equal(got, want) {
		t.Errorf("Equalize = %v, want %v", got, want)
	}
	if got := Equalize(gray(2, 1, 9, 9)).Pix; !bytes.Equal(got, []uint8{0, 0}) {
		t.Errorf("Equalize(constant) = %v, want zeros", got)
	}
}

func TestHist(t *testing.T) {
	img := gray(2, 2, 0, 200, 100, 0) // e = 0, 1, 1/2, 0
	tests := []struct {
		f    Hist
		want []float64
	}{
		{Hist{Bins: 2}, []float64{0.5, 0.5}},                        // e=0,0 | e=½,1
		{Hist{Bins: 4}, []float64{0.5, 0, 0.25, 0.25}},              // ⌊4e⌋ = 0,0,2,4→3
		{Hist{Bins: 4, Plain: true}, []float64{0.5, 0.25, 0, 0.25}}, // ⌊4v/256⌋ = 0,0,1,3
		{Hist{Bins: 1}, []float64{1}},
	}
	for _, tc := range tests {
		v, err := tc.f.Extract(img)
		if err != nil {
			t.Fatal(err)
		}
		checkVec(t, tc.f.Name(), v, tc.want, 1e-15)
	}
	// One pixel brighter than the rest: N = c_min + 1, and it is
	// equalised to e = 1, the last bin.
	v, err := Hist{Bins: 2}.Extract(gray(3, 1, 5, 9, 5))
	if err != nil {
		t.Fatal(err)
	}
	checkVec(t, "one bright pixel", v, []float64{2.0 / 3, 1.0 / 3}, 1e-15)
	// With 256 plain bins every level has its own.
	v, err = Hist{Bins: 256, Plain: true}.Extract(img)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, 256)
	want[0], want[100], want[200] = 0.5, 0.25, 0.25
	checkVec(t, "hist:256:plain", v, want, 0)
	v, err = Hist{Bins: 3}.Extract(gray(3, 1, 5, 5, 5))
	if err != nil {
		t.Fatal(err)
	}
	checkVec(t, "constant", v, []float64{1, 0, 0}, 0)
	if _, err := (Hist{Bins: 0}).Extract(img); err == nil {
		t.Error("0 bins: no error")
	}
}
