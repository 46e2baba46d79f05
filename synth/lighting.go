package synth

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// lighting holds the data-set-wide parameters of a Lighting data set.
type lighting struct {
	opt      Options
	basis    *mat.Dense  // D×K, orthonormal: the identity directions
	nuisance *mat.Dense  // D×L, orthonormal, orthogonal to basis: the lighting directions
	centres  [][]float64 // class → K-vector
}

func newLighting(opt Options) *lighting {
	rng := setRNG(opt.Seed, -1, -1)
	k, l := opt.InfoDim, opt.NuisanceDim
	q := randOrthonormal(rng, opt.Dim, k+l)
	g := &lighting{
		opt:      opt,
		basis:    mat.DenseCopyOf(q.Slice(0, opt.Dim, 0, k)),
		nuisance: mat.DenseCopyOf(q.Slice(0, opt.Dim, k, k+l)),
	}
	g.centres = classCentres(rng, opt.Classes, k, opt.ClassRadius)
	return g
}

// set draws one set of class c:
//
//	frame = B (centre_c + o_s + WithinStd·z) + N (m_s + NuisanceStd·u) + P n
//
// with o_s ~ N(0, SetSpread² I_K) the set's offset, m_s ~ N(0,
// (NuisanceStd/2)² I_L) the set's mean lighting, z, u standard normal per frame,
// n ~ N(0, NoiseStd² I_D) and P the projection onto the directions outside
// span(B, N).
func (g *lighting) set(c, s int, rng *rand.Rand) *mat.Dense {
	o := g.opt
	k, l, dim := o.InfoDim, o.NuisanceDim, o.Dim
	off := make([]float64, k)
	for j := range off {
		off[j] = g.centres[c][j] + o.SetSpread*rng.NormFloat64()
	}
	light := make([]float64, l)
	for j := range light {
		light[j] = 0.5 * o.NuisanceStd * rng.NormFloat64()
	}
	coef := mat.NewDense(o.Frames, k+l, nil) // coordinates in [B N]
	for i := range o.Frames {
		row := coef.RawRowView(i)
		for j := range k {
			row[j] = off[j] + o.WithinStd*rng.NormFloat64()
		}
		for j := range l {
			row[k+j] = light[j] + o.NuisanceStd*rng.NormFloat64()
		}
	}
	x := mat.NewDense(o.Frames, dim, nil)
	for i := range o.Frames {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = o.NoiseStd * rng.NormFloat64()
		}
	}
	bn := mat.NewDense(dim, k+l, nil)
	bn.Augment(g.basis, g.nuisance)
	var nb mat.Dense
	nb.Mul(x, bn) // the noise's coordinates in [B N], removed
	nb.Sub(coef, &nb)
	var add mat.Dense
	add.Mul(&nb, bn.T())
	x.Add(x, &add)
	return x
}
