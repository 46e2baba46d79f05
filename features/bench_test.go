package features

import "testing"

func BenchmarkLBP(b *testing.B) {
	img := randomGray(64, 64, 1)
	f := LBP{GridX: 4, GridY: 4}
	for b.Loop() {
		if _, err := f.Extract(img); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHOG(b *testing.B) {
	img := randomGray(64, 64, 1)
	f := HOG{Cell: 8}
	for b.Loop() {
		if _, err := f.Extract(img); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIntensityResize(b *testing.B) {
	img := randomGray(92, 112, 1)
	f := Intensity{W: 20, H: 20}
	for b.Loop() {
		if _, err := f.Extract(img); err != nil {
			b.Fatal(err)
		}
	}
}
