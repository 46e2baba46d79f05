package synth

import (
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// The lighting directions dominate the principal components, and the
// identity lives in the returned basis: set means projected on the basis
// find their class by the nearest class centre, set means projected on the
// top principal directions do not.
func TestLightingStructure(t *testing.T) {
	o := Options{Kind: Lighting, Classes: 20, Sets: 4, Frames: 16, Dim: 60, Seed: 3}
	d, basis, err := GenerateWithBasis(o)
	if err != nil {
		t.Fatal(err)
	}
	var all []float64
	rows := 0
	for _, s := range d.Sets {
		r, _ := s.Frames.Dims()
		for i := range r {
			all = append(all, s.Frames.RawRowView(i)...)
		}
		rows += r
	}
	x := mat.NewDense(rows, o.Dim, all)
	var pc stat.PC
	if !pc.PrincipalComponents(x, nil) {
		t.Fatal("PCA failed")
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	top := vecs.Slice(0, o.Dim, 0, 4) // the default 4 lighting directions
	var overlap mat.Dense
	overlap.Mul(basis.T(), top)
	if f := mat.Norm(&overlap, 2); f > 0.2 {
		t.Errorf("top 4 principal directions overlap the identity basis: largest cosine %.2f, want ≤ 0.2", f)
	}
	classify := func(p mat.Matrix) float64 {
		_, k := p.Dims()
		means := make([][]float64, len(d.Sets))
		for i, s := range d.Sets {
			var y mat.Dense
			y.Mul(s.Frames, p)
			r, _ := y.Dims()
			m := make([]float64, k)
			for f := range r {
				for j := range k {
					m[j] += y.At(f, j) / float64(r)
				}
			}
			means[i] = m
		}
		return galleryNN(len(d.Sets), o.Sets, func(i, j int) float64 {
			var dd float64
			for l := range k {
				v := means[i][l] - means[j][l]
				dd += v * v
			}
			return dd
		})
	}
	if a := classify(basis); a < 0.95 {
		t.Errorf("nearest set mean in the identity basis: %.0f%% right, want ≥ 95%%", 100*a)
	}
	if a := classify(top); a > 0.3 {
		t.Errorf("nearest set mean in the lighting directions: %.0f%% right, want near chance (≤ 30%%)", 100*a)
	}
}

// galleryNN returns the share of probes recognised by their nearest
// gallery set under dist, for n sets ordered by class, perClass each: the
// gallery is sets 0 and 1 of every class, the probes sets 2 and 3.
func galleryNN(n, perClass int, dist func(i, j int) float64) float64 {
	right, probes := 0, 0
	for i := range n {
		if s := i % perClass; s < 2 || s > 3 {
			continue
		}
		best, bestD := -1, 0.0
		for j := range n {
			if j%perClass >= 2 {
				continue
			}
			if dd := dist(i, j); best < 0 || dd < bestD {
				best, bestD = j, dd
			}
		}
		probes++
		if best/perClass == i/perClass {
			right++
		}
	}
	return float64(right) / float64(probes)
}

// TestLightingPerSet checks the lighting of a Lighting data set along its
// lighting directions: each set has its own mean lighting (the set means
// spread with NuisanceStd/2 on top of what the frames' own variation
// leaves in a mean), and the frames vary around it with NuisanceStd.
func TestLightingPerSet(t *testing.T) {
	o := Options{Kind: Lighting, Classes: 10, Sets: 4, Frames: 16, Dim: 30, Seed: 4}
	d, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	o, err = o.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	n := newLighting(o).nuisance
	var between, within float64
	for j := range o.NuisanceDim {
		means := make([]float64, len(d.Sets))
		for i, s := range d.Sets {
			var y mat.VecDense
			y.MulVec(s.Frames, n.ColView(j))
			m, v := stat.MeanVariance(y.RawVector().Data, nil)
			means[i] = m
			within += v / float64(len(d.Sets)*o.NuisanceDim)
		}
		between += stat.Variance(means, nil) / float64(o.NuisanceDim)
	}
	sd := o.NuisanceStd
	t.Logf("along the lighting: variance %.3f of the set means, %.3f within a set", between, within)
	// Expected: (sd/2)² + sd²/Frames between, sd² within.
	if want := 0.5 * (sd * sd / 4); between < want {
		t.Errorf("variance of the set means along the lighting: %.3f, want at least %.3f (each set lit its own way)", between, want)
	}
	if within < 0.5*sd*sd || within > 2*sd*sd {
		t.Errorf("variance of the frames within a set along the lighting: %.3f, want about %.3f", within, sd*sd)
	}
}
