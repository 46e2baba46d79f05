//go:build goexperiment.simd && amd64

package match

import (
	"math/rand/v2"
	"testing"

	"setmatch/internal/testutil"
)

// TestSIMDMatchesPortable runs the gallery with the AVX2 kernels and with the
// portable ones on the same data, for equal and unequal bandwidths and for
// query sizes that are and are not multiples of the vector width.
func TestSIMDMatchesPortable(t *testing.T) {
	if !useSIMD {
		t.Skip("CPU lacks AVX2 or FMA")
	}
	rng := rand.New(rand.NewPCG(31, 32))
	for _, c := range []struct{ m, n, nq, d int }{{10, 20, 16, 5}, {12, 33, 37, 20}, {5, 7, 3, 400}, {8, 50, 50, 2}} {
		// Half the sets share the query's bandwidth (one-exponential path).
		sets := halfAtBandwidth(t, randGallery(t, rng, c.m, c.n, c.d), 0.9)
		q := mustKDE(t, testutil.RandSet(rng, c.nq, c.d, 0.5, 1), 0.9)
		g, err := NewGallery(sets)
		if err != nil {
			t.Fatal(err)
		}
		fast, err := g.Compare(q, nil)
		if err != nil {
			t.Fatal(err)
		}
		useSIMD = false
		g2, _ := NewGallery(sets)
		slow, err := g2.Compare(q, nil)
		useSIMD = true
		if err != nil {
			t.Fatal(err)
		}
		for k := range fast {
			if !close(fast[k].Hellinger2, slow[k].Hellinger2, 1e-11, 1e-14) || !close(fast[k].Jeffrey, slow[k].Jeffrey, 1e-11, 1e-14) {
				t.Errorf("%+v set %d: SIMD %+v, portable %+v", c, k, fast[k], slow[k])
			}
		}
	}
}
