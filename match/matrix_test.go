package match

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
)

// DivergenceMatrix agrees with Compare on every pair, for equal and unequal
// bandwidths, whatever the number of workers.
func TestDivergenceMatrix(t *testing.T) {
	testutil.CPUs(t, 8) // several workers on any machine
	rng := rand.New(rand.NewPCG(41, 42))
	const m, d = 6, 3
	y := make([]*mat.Dense, m)
	h := make([]float64, m)
	for i := range y {
		y[i] = testutil.RandSet(rng, 5+rng.IntN(9), d, float64(i%3), 0.5+rng.Float64())
		h[i] = 0.8
		if i%2 == 1 {
			h[i] = 0.4 + rng.Float64()
		}
	}
	for _, meas := range []Measure{Hellinger, Jeffrey} {
		var first *mat.SymDense
		for _, workers := range []int{1, 3, 0} {
			got, err := DivergenceMatrix(y, h, meas, workers)
			if err != nil {
				t.Fatal(err)
			}
			for i := range m {
				if got.At(i, i) != 0 {
					t.Errorf("%v: diagonal %d is %v", meas, i, got.At(i, i))
				}
				for j := i + 1; j < m; j++ {
					ref, err := Compare(mustKDE(t, y[i], h[i]), mustKDE(t, y[j], h[j]))
					if err != nil {
						t.Fatal(err)
					}
					if want := ref.Of(meas); !close(got.At(i, j), want, 1e-9, 1e-12) {
						t.Errorf("%v (%d, %d): %v, Compare gives %v", meas, i, j, got.At(i, j), want)
					}
				}
			}
			if first == nil {
				first = got
			} else if !mat.Equal(first, got) {
				t.Errorf("%v: %d workers give another matrix than 1", meas, workers)
			}
		}
	}
}

func TestDivergenceMatrixRejectsBadInput(t *testing.T) {
	ok := mat.NewDense(2, 2, []float64{0, 1, 1, 0})
	for name, c := range map[string]struct {
		y []*mat.Dense
		h []float64
	}{
		"no sets":         {nil, nil},
		"nil set":         {[]*mat.Dense{nil, ok}, []float64{1, 1}},
		"bandwidth count": {[]*mat.Dense{ok, ok}, []float64{1}},
		"zero bandwidth":  {[]*mat.Dense{ok, ok}, []float64{1, 0}},
		"dimension":       {[]*mat.Dense{ok, mat.NewDense(2, 3, nil)}, []float64{1, 1}},
	} {
		if _, err := DivergenceMatrix(c.y, c.h, Hellinger, 1); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
