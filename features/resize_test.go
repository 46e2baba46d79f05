package features

import (
	"bytes"
	"image"
	"runtime"
	"strings"
	"testing"
)

func TestIntensityMean(t *testing.T) {
	// 2×2 → 1×1 is the mean: (10+20+30+41)/4 = 25.25 grey levels.
	v, err := Intensity{W: 1, H: 1}.Extract(gray(2, 2, 10, 20, 30, 41))
	if err != nil {
		t.Fatal(err)
	}
	checkVec(t, "intensity", v, []float64{25.25 / 255}, 1e-15)
}

func TestResizeAxes(t *testing.T) {
	const a, b, c = 30.0, 90.0, 150.0
	tests := []struct {
		name string
		src  []uint8
		w    int
		want []float64 // grey levels
	}{
		// 3 → 2: output 0 covers source [0, 1.5): (a + b/2)/1.5.
		{"shrink 3→2", []uint8{a, b, c}, 2, []float64{(a + b/2) / 1.5, (b/2 + c) / 1.5}},
		// 4 → 2: pairs averaged.
		{"shrink 4→2", []uint8{a, b, c, a}, 2, []float64{(a + b) / 2, (c + a) / 2}},
		// 2 → 4: samples at −0.25 (clamped), 0.25, 0.75, 1.25 (clamped).
		{"enlarge 2→4", []uint8{a, b}, 4, []float64{a, 0.75*a + 0.25*b, 0.25*a + 0.75*b, b}},
		// 2 → 3: samples at −1/6 (clamped), 0.5, 7/6 (clamped).
		{"enlarge 2→3", []uint8{a, b}, 3, []float64{a, (a + b) / 2, b}},
		{"same", []uint8{a, b, c}, 3, []float64{a, b, c}},
	}
	for _, tc := range tests {
		// Along x, and (transposed) along y.
		for _, vertical := range []bool{false, true} {
			img := gray(len(tc.src), 1, tc.src...)
			w, h := tc.w, 1
			if vertical {
				img = gray(1, len(tc.src), tc.src...)
				w, h = 1, tc.w
			}
			v, err := Intensity{W: w, H: h}.Extract(img)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, len(tc.want))
			for i, x := range tc.want {
				want[i] = x / 255
			}
			checkVec(t, tc.name, v, want, 1e-14)
		}
	}
}

func TestResizeTapsSum(t *testing.T) {
	for src := 1; src <= 40; src++ {
		for dst := 1; dst <= 40; dst++ {
			taps, den := axisTaps(src, dst)
			for j, ts := range taps {
				var s int64
				for _, tp := range ts {
					if tp.src < 0 || tp.src >= src || tp.w <= 0 {
						t.Fatalf("%d→%d: output %d has tap %+v", src, dst, j, tp)
					}
					s += tp.w
				}
				if s != den {
					t.Fatalf("%d→%d: output %d weights sum to %d, want %d", src, dst, j, s, den)
				}
			}
		}
	}
}

func TestResizeConstantStaysExact(t *testing.T) {
	img := gray(7, 5, make([]uint8, 35)...)
	for i := range img.Pix {
		img.Pix[i] = 77
	}
	for _, sz := range [][2]int{{3, 2}, {20, 20}, {5, 9}} {
		r, err := Resize(img, sz[0], sz[1])
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range r.Pix {
			if v != 77 {
				t.Fatalf("%v: pixel %d = %d, want 77", sz, i, v)
			}
		}
	}
	if _, err := Resize(img, 0, 3); err == nil {
		t.Error("Resize to 0x3: no error")
	}
}

func TestIntensityNorm(t *testing.T) {
	v, err := Intensity{W: 2, H: 2, Norm: true}.Extract(gray(2, 2, 0, 0, 255, 255))
	if err != nil {
		t.Fatal(err)
	}
	checkVec(t, "norm", v, []float64{-0.5, -0.5, 0.5, 0.5}, 1e-15)
	v, err = Intensity{W: 3, H: 3, Norm: true}.Extract(gray(2, 2, 9, 9, 9, 9))
	if err != nil {
		t.Fatal(err)
	}
	checkVec(t, "constant", v, make([]float64, 9), 0)
}

// TestExtractMemory: extracting features from a frame allocates less than
// half a byte per frame pixel beyond the frame itself (the grey levels are
// used where they are, one byte each; a resized plane has the feature's
// size), where holding the frame as int64 numerators took 8 and more.
func TestExtractMemory(t *testing.T) {
	const w, h = 2048, 1536
	img := randomGray(w, h, 3)
	for _, spec := range []string{"intensity:20x20", "intensity:8x6:norm", "lbp:4x4@64x64", "lbp:4x4", "hog:8@64x64", "hog:64", "hist:16", "hist:16@64x64"} {
		p, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := p.Extract(img); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > w*h/2 {
			t.Errorf("%s on a %dx%d frame allocated %d bytes, want at most %d", spec, w, h, got, w*h/2)
		}
	}
}

// TestResizeRounds: Resize rounds the exact resized level to the nearest
// grey level, halves up.
func TestResizeRounds(t *testing.T) {
	for _, tc := range []struct {
		src  []uint8
		want uint8
	}{
		{[]uint8{0, 1}, 1},            // 0.5
		{[]uint8{0, 0, 0, 1}, 0},      // 0.25
		{[]uint8{0, 0, 2}, 1},         // 2/3
		{[]uint8{10, 11, 11, 11}, 11}, // 10.75
		{[]uint8{254, 255}, 255},      // 254.5
		{[]uint8{200, 201, 201}, 201}, // 200.67
		{[]uint8{200, 200, 201}, 200}, // 200.33
	} {
		got, err := Resize(gray(len(tc.src), 1, tc.src...), 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Pix, []uint8{tc.want}) {
			t.Errorf("Resize(%v) to 1×1 = %v, want %d", tc.src, got.Pix, tc.want)
		}
	}
}

// TestExtractRefusesTooManyPixels: an image of more than MaxPixels pixels
// is refused from its bounds, before any of its pixels is read (here it
// has none).
func TestExtractRefusesTooManyPixels(t *testing.T) {
	const w = 1 << 13
	img := &image.Gray{Rect: image.Rect(0, 0, w, MaxPixels/w+1), Stride: w}
	for _, f := range []Extractor{Hist{Bins: 8}, Intensity{W: 4, H: 4}, LBP{GridX: 2, GridY: 2}, HOG{Cell: 8, W: 64, H: 64}} {
		if _, err := f.Extract(img); err == nil || !strings.Contains(err.Error(), "more than 67108864 pixels") {
			t.Errorf("%s of a %dx%d image: %v", f.Name(), w, MaxPixels/w+1, err)
		}
	}
}
