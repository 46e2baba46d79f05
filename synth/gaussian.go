package synth

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// GaussianSet returns an n×d set of frames of d independent N(mean, 1)
// features drawn from rng.
func GaussianSet(rng *rand.Rand, n, d int, mean float64) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	raw := x.RawMatrix().Data
	for i := range raw {
		raw[i] = mean + rng.NormFloat64()
	}
	return x
}
