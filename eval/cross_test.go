package eval

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCrossDivergencesEqualAllPairs checks that the divergences of some
// sets against others are those of all pairs, to the last bit, for
// disjoint rows and columns (a fold), overlapping ones and a set against
// itself, with one bandwidth per frame.
func TestCrossDivergencesEqualAllPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sets := make([]*mat.Dense, 7)
	for i := range sets {
		sets[i] = randSet(rng, 5+i, 3, float64(i%3), 1)
	}
	p, err := NewPool(sets, 2)
	if err != nil {
		t.Fatal(err)
	}
	h := make([]float64, p.Frames())
	for f := range h {
		h[f] = 0.5 + rng.Float64()
	}
	all, err := p.Divergences(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ rows, cols []int }{
		{[]int{1, 4}, []int{0, 2, 3, 5, 6}},
		{[]int{6, 0, 3}, []int{3, 1}},
		{[]int{2}, []int{2, 5}},
	} {
		h2, j, err := p.CrossDivergences(h, c.rows, c.cols)
		if err != nil {
			t.Fatal(err)
		}
		for a, r := range c.rows {
			for b, q := range c.cols {
				if h2.At(a, b) != all.H2.At(r, q) || j.At(a, b) != all.J.At(r, q) {
					t.Errorf("rows %v cols %v: (%d, %d) = %v, %v; all pairs %v, %v", c.rows, c.cols, r, q, h2.At(a, b), j.At(a, b), all.H2.At(r, q), all.J.At(r, q))
				}
			}
		}
	}
	if _, _, err := p.CrossDivergences(h, []int{7}, []int{0}); err == nil {
		t.Error("a set outside the pool gave no error")
	}
	if _, _, err := p.CrossDivergences(h[1:], []int{1}, []int{0}); err == nil {
		t.Error("too few bandwidths gave no error")
	}
}
