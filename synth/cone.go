package synth

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// cone holds the data-set-wide parameters of a Cone data set.
type cone struct {
	opt   Options
	mean  *mat.Dense   // D×L, the face shared by all classes: albedo in column 0, shading directions in the others
	faces []*mat.Dense // class → D×L, the class's face: mean + ClassRadius·its own deviation
}

func newCone(opt Options) *cone {
	rng := setRNG(opt.Seed, -1, -1)
	l := opt.NuisanceDim
	m := randOrthonormal(rng, opt.Dim, l)
	// The albedo (column 0) is positive, like a face's reflectance, so
	// that the ambient term lights every pixel.
	for i := range opt.Dim {
		m.Set(i, 0, math.Abs(m.At(i, 0)))
	}
	g := &cone{opt: opt, mean: m}
	s := 1 / math.Sqrt(float64(opt.Dim))
	for c := range opt.Classes {
		crng := setRNG(opt.Seed, c, -1)
		a := mat.DenseCopyOf(m)
		for i := range opt.Dim {
			for j := range l {
				a.Set(i, j, a.At(i, j)+opt.ClassRadius*s*crng.NormFloat64())
			}
		}
		g.faces = append(g.faces, a)
	}
	return g
}

// set draws one set of class c under its own lighting:
//
//	frame = max(0, A_c l) + NoiseStd·n,   l = (1, m_s + NuisanceStd·u)
//
// with A_c the class's face (D×L), m_s ~ N(0, SetSpread² I_{L−1}) the
// set's mean lighting direction, u standard normal per frame and n
// standard normal noise. The max is the attached shadow of a Lambertian
// surface.
func (g *cone) set(c, s int, rng *rand.Rand) *mat.Dense {
	o := g.opt
	l := o.NuisanceDim
	light := make([]float64, l)
	for j := 1; j < l; j++ {
		light[j] = o.SetSpread * rng.NormFloat64()
	}
	coef := mat.NewDense(o.Frames, l, nil)
	for i := range o.Frames {
		row := coef.RawRowView(i)
		row[0] = 1
		for j := 1; j < l; j++ {
			row[j] = light[j] + o.NuisanceStd*rng.NormFloat64()
		}
	}
	x := mat.NewDense(o.Frames, o.Dim, nil)
	x.Mul(coef, g.faces[c].T())
	for i := range o.Frames {
		row := x.RawRowView(i)
		for j, v := range row {
			row[j] = max(0, v) + o.NoiseStd*rng.NormFloat64()
		}
	}
	return x
}
