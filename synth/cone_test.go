package synth

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Each class of a Cone data set lives near its own low-dimensional
// subspace whatever the light, while the set means move with the light:
// the nearest subspace (gallery sets 0, 1 of each class, probes 2, 3)
// finds the class far more often than the nearest set mean.
func TestConeStructure(t *testing.T) {
	o := Options{Kind: Cone, Classes: 20, Sets: 4, Frames: 16, Dim: 100, Seed: 3}
	d, _, err := GenerateWithBasis(o)
	if err != nil {
		t.Fatal(err)
	}
	const l = 5 // the default lighting dimension
	bases := make([]*mat.Dense, len(d.Sets))
	means := make([][]float64, len(d.Sets))
	for i, s := range d.Sets {
		r, c := s.Frames.Dims()
		if r != o.Frames || c != o.Dim {
			t.Fatalf("set %d is %d×%d, want %d×%d", i, r, c, o.Frames, o.Dim)
		}
		var svd mat.SVD
		if !svd.Factorize(s.Frames, mat.SVDThin) {
			t.Fatal("SVD failed")
		}
		var v mat.Dense
		svd.VTo(&v)
		bases[i] = mat.DenseCopyOf(v.Slice(0, o.Dim, 0, l))
		m := make([]float64, o.Dim)
		for f := range r {
			for j := range c {
				m[j] += s.Frames.At(f, j) / float64(r)
			}
		}
		means[i] = m
	}
	subspace := galleryNN(len(d.Sets), o.Sets, func(i, j int) float64 { // l − ‖UᵢᵀUⱼ‖²_F, the projection distance
		var p mat.Dense
		p.Mul(bases[i].T(), bases[j])
		f := mat.Norm(&p, 2)
		return l - f*f
	})
	mean := galleryNN(len(d.Sets), o.Sets, func(i, j int) float64 {
		var s float64
		for k := range means[i] {
			v := means[i][k] - means[j][k]
			s += v * v
		}
		return s
	})
	if subspace < 0.9 {
		t.Errorf("nearest subspace: %.0f%% right, want ≥ 90%%", 100*subspace)
	}
	t.Logf("nearest subspace %.0f%%, nearest mean %.0f%%", 100*subspace, 100*mean)
	if mean > subspace-0.2 {
		t.Errorf("nearest set mean: %.0f%% right against %.0f%% for the nearest subspace, want at least 20 points fewer", 100*mean, 100*subspace)
	}
	again, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(again.Sets[5].Frames, d.Sets[5].Frames) {
		t.Error("the same options gave different data")
	}
}

// TestConeShadows checks the attached shadows of a Cone data set: a
// pixel is never darker than black by more than the pixel noise (8 of its
// standard deviations), and many pixels are in shadow, near black.
func TestConeShadows(t *testing.T) {
	o := Options{Kind: Cone, Classes: 4, Sets: 4, Frames: 20, Dim: 10, Seed: 2}
	d, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	const noise = 0.05 // the default NoiseStd
	dark, all := 0, 0
	for _, s := range d.Sets {
		for _, v := range s.Frames.RawMatrix().Data {
			if v < -8*noise {
				t.Fatalf("%s/%s: a pixel of %.3f, below black by more than the noise", s.Class, s.Name, v)
			}
			if v < 3*noise {
				dark++
			}
			all++
		}
	}
	t.Logf("%d of %d pixels near black", dark, all)
	if dark < all/20 {
		t.Errorf("%d of %d pixels near black, want at least 5%% (attached shadows)", dark, all)
	}
}
