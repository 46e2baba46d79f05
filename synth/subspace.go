package synth

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// subspace holds the data-set-wide parameters of a Subspace data set.
type subspace struct {
	opt     Options
	basis   *mat.Dense   // D×K, orthonormal: the informative directions
	centres [][]float64  // class → K-vector
	shapes  []*mat.Dense // class → K×K within-set transform
}

func newSubspace(opt Options) *subspace {
	rng := setRNG(opt.Seed, -1, -1)
	k := opt.InfoDim
	g := &subspace{opt: opt, basis: randOrthonormal(rng, opt.Dim, k)}
	g.centres = classCentres(rng, opt.Classes, k, opt.ClassRadius)
	for range opt.Classes {
		// Random axes, stretched by factors in [0.5, 1.5]: each class has
		// its own within-set shape in the informative subspace.
		r := randOrthonormal(rng, k, k)
		for j := range k {
			f := opt.WithinStd * (0.5 + rng.Float64())
			for i := range k {
				r.Set(i, j, r.At(i, j)*f)
			}
		}
		g.shapes = append(g.shapes, r)
	}
	return g
}

// classCentres places n points on the sphere of the given radius in k
// dimensions, well spread: evenly on a circle for k = 2, evenly on a
// segment for k = 1, otherwise the best (largest minimum distance) of 64
// random draws.
func classCentres(rng *rand.Rand, n, k int, radius float64) [][]float64 {
	out := make([][]float64, n)
	switch {
	case k == 1:
		for i := range n {
			v := 0.0
			if n > 1 {
				v = -radius + 2*radius*float64(i)/float64(n-1)
			}
			out[i] = []float64{v}
		}
		return out
	case k == 2:
		phase := rng.Float64() * 2 * math.Pi
		for i := range n {
			a := phase + 2*math.Pi*float64(i)/float64(n)
			out[i] = []float64{radius * math.Cos(a), radius * math.Sin(a)}
		}
		return out
	}
	best := -1.0
	for range 64 {
		cand := make([][]float64, n)
		for i := range cand {
			v := make([]float64, k)
			var norm float64
			for norm == 0 {
				norm = 0
				for j := range v {
					v[j] = rng.NormFloat64()
					norm += v[j] * v[j]
				}
			}
			norm = math.Sqrt(norm)
			for j := range v {
				v[j] *= radius / norm
			}
			cand[i] = v
		}
		md := math.Inf(1)
		for i := range cand {
			for j := range i {
				var s float64
				for l := range k {
					dd := cand[i][l] - cand[j][l]
					s += dd * dd
				}
				md = min(md, s)
			}
		}
		if md > best {
			best, out = md, cand
		}
	}
	return out
}

// set draws one set of class c: frame = B (centre + offset + A z) + P n,
// with z ~ N(0, I_K), n ~ N(0, NoiseStd² I_D) and P = I − B Bᵀ the
// projection onto the noise directions.
func (g *subspace) set(c, s int, rng *rand.Rand) *mat.Dense {
	o := g.opt
	k, dim := o.InfoDim, o.Dim
	off := make([]float64, k)
	for j := range off {
		off[j] = g.centres[c][j] + o.SetSpread*rng.NormFloat64()
	}
	// Informative coordinates: F×K.
	inf := mat.NewDense(o.Frames, k, nil)
	z := mat.NewDense(o.Frames, k, nil)
	for i := range o.Frames {
		for j := range k {
			z.Set(i, j, rng.NormFloat64())
		}
	}
	inf.Mul(z, g.shapes[c].T())
	for i := range o.Frames {
		row := inf.RawRowView(i)
		for j := range row {
			row[j] += off[j]
		}
	}
	// Noise: F×D, then remove its component in span(B).
	x := mat.NewDense(o.Frames, dim, nil)
	for i := range o.Frames {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = o.NoiseStd * rng.NormFloat64()
		}
	}
	var nb mat.Dense
	nb.Mul(x, g.basis) // F×K
	nb.Sub(inf, &nb)   // informative coordinates minus the noise's
	var add mat.Dense
	add.Mul(&nb, g.basis.T()) // F×D
	x.Add(x, &add)
	return x
}
