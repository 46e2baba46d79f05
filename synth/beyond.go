package synth

import (
	"math"
	"math/rand/v2"
	"setmatch/internal/stats"

	"gonum.org/v1/gonum/mat"
)

// shape is a distribution of unit variance along a direction u (and, for
// the ring, a second direction v); the frame is Gaussian elsewhere.
type shape int

const (
	shapeGauss shape = iota
	shapeRing
	shapeTwoBlobs
	shapeUniform
	shapeThreeBlobs
	shapeLaplace
	shapeSkewed
)

// directional shapes change with the direction u and are repeated along
// different directions when there are more classes than shapes; the
// Gaussian and the ring (in a fixed plane) occur once.
var directional = []shape{shapeTwoBlobs, shapeUniform, shapeThreeBlobs, shapeLaplace, shapeSkewed}

type beyondGauss struct {
	opt Options
	q   *mat.Dense // D×D orthonormal
	// per class: the shape and the orthonormal directions carrying it
	// (for the ring, consecutive pairs span its planes)
	shapes []shape
	dirs   [][][]float64
}

func newBeyondGauss(opt Options) *beyondGauss {
	rng := setRNG(opt.Seed, -1, -1)
	dim, m := opt.Dim, opt.ShapeDims
	g := &beyondGauss{opt: opt, q: randOrthonormal(rng, dim, dim)}
	ndir := 0
	if opt.Classes > 2 {
		ndir = (opt.Classes - 2 + len(directional) - 1) / len(directional)
	}
	cols := func(q *mat.Dense, n int) [][]float64 {
		out := make([][]float64, n)
		for j := range out {
			out[j] = mat.Col(nil, j, q)
		}
		return out
	}
	// dir returns the directions of the k-th repetition of the shapes.
	dir := func(k int) [][]float64 {
		switch {
		case m > 1 && k > 0:
			return cols(randOrthonormal(rng, dim, m), m)
		case m > 1 || ndir <= dim:
			return cols(g.q, m+k)[k:]
		}
		// One direction each, more of them than dimensions: spread them
		// over half a turn in the plane of the first two basis vectors.
		a := math.Pi * float64(k) / float64(ndir)
		u := make([]float64, dim)
		for i := range u {
			u[i] = math.Cos(a)*g.q.At(i, 0) + math.Sin(a)*g.q.At(i, 1)
		}
		return [][]float64{u}
	}
	for c := range opt.Classes {
		switch c {
		case 0:
			g.shapes = append(g.shapes, shapeGauss)
			g.dirs = append(g.dirs, nil)
		case 1:
			g.shapes = append(g.shapes, shapeRing)
			g.dirs = append(g.dirs, cols(g.q, 2*max(1, min(m, dim)/2)))
		default:
			g.shapes = append(g.shapes, directional[(c-2)%len(directional)])
			g.dirs = append(g.dirs, dir((c-2)/len(directional)))
		}
	}
	return g
}

// set draws one set of class c and whitens it exactly; nil if the sample
// covariance is singular.
func (g *beyondGauss) set(c int, rng *rand.Rand) *mat.Dense {
	o := g.opt
	x := mat.NewDense(o.Frames, o.Dim, nil)
	for i := range o.Frames {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		dirs := g.dirs[c]
		switch sh := g.shapes[c]; sh {
		case shapeGauss:
		case shapeRing:
			// Replace the components in each plane by a point on a thin
			// ring of unit variance per coordinate.
			for p := 0; p+1 < len(dirs); p += 2 {
				a := rng.Float64() * 2 * math.Pi
				r := (1 + 0.05*rng.NormFloat64()) * math.Sqrt2 / math.Sqrt(1+0.05*0.05)
				setComp(row, dirs[p], r*math.Cos(a))
				setComp(row, dirs[p+1], r*math.Sin(a))
			}
		default:
			for _, u := range dirs {
				setComp(row, u, sample1D(sh, rng))
			}
		}
	}
	return whiten(x)
}

// setComp replaces the component of x along the unit vector u by t.
func setComp(x, u []float64, t float64) {
	var p float64
	for i := range x {
		p += x[i] * u[i]
	}
	for i := range x {
		x[i] += (t - p) * u[i]
	}
}

// sample1D draws from a zero-mean, unit-variance distribution of the given
// shape.
func sample1D(sh shape, rng *rand.Rand) float64 {
	const s = 0.15 // blob width
	switch sh {
	case shapeTwoBlobs:
		c := 1.0
		if rng.IntN(2) == 0 {
			c = -1
		}
		return (c + s*rng.NormFloat64()) / math.Sqrt(1+s*s)
	case shapeThreeBlobs:
		a := 1.5
		c := float64(rng.IntN(3)-1) * a
		return (c + s*rng.NormFloat64()) / math.Sqrt(2*a*a/3+s*s)
	case shapeUniform:
		return math.Sqrt(3) * (2*rng.Float64() - 1)
	case shapeLaplace:
		return rng.ExpFloat64() * float64(2*rng.IntN(2)-1) / math.Sqrt2
	case shapeSkewed:
		return rng.ExpFloat64() - 1
	}
	return rng.NormFloat64()
}

// whiten makes the sample mean of x (n×D) zero and its sample covariance
// (normalised by n−1) the identity: x ← (x − 1μᵀ) L⁻ᵀ with S = L Lᵀ.
func whiten(x *mat.Dense) *mat.Dense {
	n, _ := x.Dims()
	centre(x)
	var s mat.SymDense
	s.SymOuterK(1/float64(n-1), x.T())
	var ch mat.Cholesky
	if !ch.Factorize(&s) {
		return nil
	}
	var l mat.TriDense
	ch.LTo(&l)
	// Solve Y Lᵀ = X for Y, i.e. L Yᵀ = Xᵀ.
	var yt mat.Dense
	if err := yt.Solve(&l, x.T()); err != nil {
		return nil
	}
	out := mat.DenseCopyOf(yt.T())
	// One more pass removes the rounding left in the mean.
	centre(out)
	return out
}

// centre subtracts the mean frame of x (n×D) from each of its rows.
func centre(x *mat.Dense) {
	stats.SubtractFrame(x, stats.MeanFrame(x))
}
