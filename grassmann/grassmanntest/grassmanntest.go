// Package grassmanntest holds what the tests of the Grassmann manifold's
// users share with its own: random points, and the check that a
// conjugate-gradient run only went down.
package grassmanntest

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
	"setmatch/internal/testutil"
)

// RandomPoint returns a random D×d point of the Grassmannian: a matrix of
// standard normal entries (testutil.RandSet), orthonormalised.
func RandomPoint(rng *rand.Rand, D, d int) *mat.Dense {
	w := testutil.RandSet(rng, D, d, 0, 1)
	grassmann.Orthonormalize(w)
	return w
}

// CheckMonotone fails t at every iteration of the history h of
// grassmann.MinimizeCG whose cost rose or whose step is not positive.
func CheckMonotone(t testing.TB, h []grassmann.IterStats) {
	t.Helper()
	for i := 1; i < len(h); i++ {
		if h[i].Cost > h[i-1].Cost {
			t.Errorf("iteration %d: cost rose from %.17g to %.17g", h[i].Iteration, h[i-1].Cost, h[i].Cost)
		}
		if !(h[i].Step > 0) {
			t.Errorf("iteration %d: step %v", h[i].Iteration, h[i].Step)
		}
	}
}
