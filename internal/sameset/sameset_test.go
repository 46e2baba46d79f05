package sameset

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sameFrames reports whether the n×D sets a and b hold the same frames in
// any order, as Index compares two sets: the same shape, and every row
// of one equal to a row of the other (within sameTol) as often.
func sameFrames(a, b *mat.Dense) bool {
	return sameIndexed(newIndexedSet(a), newIndexedSet(b))
}

// TestSameFrames: the same frames in another order are the same set, also
// where rounding changed their values in the last digits (a gallery's
// frames moved onto a new mean against the same burst projected anew); a
// frame changed by more, one frame repeated in place of another, or another
// shape is not.
func TestSameFrames(t *testing.T) {
	a := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	for _, c := range []struct {
		name string
		b    *mat.Dense
		same bool
	}{
		{"itself", mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6}), true},
		{"reversed", mat.NewDense(3, 2, []float64{5, 6, 3, 4, 1, 2}), true},
		{"reversed and rounded", mat.NewDense(3, 2, []float64{5 + 1e-14, 6, 3, 4 - 2e-15, 1, 2 + 4e-16}), true},
		{"a value changed by a millionth", mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6 + 6e-6}), false},
		{"a value changed", mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 7}), false},
		{"a frame twice", mat.NewDense(3, 2, []float64{1, 2, 1, 2, 5, 6}), false},
		{"a frame fewer", mat.NewDense(2, 2, []float64{1, 2, 3, 4}), false},
		{"the values as 2×3", mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6}), false},
	} {
		if got := sameFrames(a, c.b); got != c.same {
			t.Errorf("%s: SameFrames %v, want %v", c.name, got, c.same)
		}
	}
	// The tolerance is each feature's: a feature of 1e10 does not widen
	// another's.
	big := mat.NewDense(3, 2, []float64{1e10, 2, 1e10, 4, 1e10, 6})
	if sameFrames(big, mat.NewDense(3, 2, []float64{1e10, 2.5, 1e10, 4, 1e10, 6})) {
		t.Error("frames that differ by 0.5 in a feature beside one of 1e10 are taken for the same")
	}
	if !sameFrames(big, mat.NewDense(3, 2, []float64{1e10 + 1, 6, 1e10, 4, 1e10 - 1, 2})) {
		t.Error("frames that differ by rounding in a feature of 1e10 (1 in 1e10) are not the same")
	}
	// A feature that is 0 in every frame (a dead sensor channel) has no
	// magnitude to scale the tolerance by: equal zeros are still the same.
	zeroFeature := mat.NewDense(2, 2, []float64{1, 0, 3, 0})
	if !sameFrames(zeroFeature, mat.NewDense(2, 2, []float64{3, 0, 1, 0})) {
		t.Error("the same frames with a feature 0 throughout are not the same")
	}
	z, nz := mat.NewDense(2, 1, []float64{0, 1}), mat.NewDense(2, 1, []float64{1, 0})
	nz.Set(1, 0, negZero())
	if !sameFrames(z, nz) {
		t.Error("−0 and 0 are not the same frame")
	}
}

func negZero() float64 { z := 0.0; return -z }

// TestIndex: Add names the earlier set of the same frames (in any
// order), once per set given twice, and -1 for a set first seen.
func TestIndex(t *testing.T) {
	ix := New()
	a := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	for i, c := range []struct {
		x    *mat.Dense
		want int
	}{
		{a, -1},
		{mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 7}), -1},
		{mat.NewDense(3, 2, []float64{5, 6, 1, 2, 3, 4}), 0},
		{mat.NewDense(3, 2, []float64{5, 7, 3, 4, 1, 2}), 1},
		{mat.NewDense(2, 2, []float64{1, 2, 3, 4}), -1},
		// Rounded in the last digits and reordered: found through the
		// sorted keys as well.
		{mat.NewDense(3, 2, []float64{5, 6 + 1e-14, 1 - 1e-15, 2, 3, 4}), 0},
	} {
		if got := ix.Add(c.x); got != c.want {
			t.Errorf("set %d: Add = %d, want %d", i, got, c.want)
		}
	}
	// A NaN orders consistently: a frame of NaN is no frame of 5.
	if sameFrames(mat.NewDense(1, 1, []float64{math.NaN()}), mat.NewDense(1, 1, []float64{5})) {
		t.Error("a frame of NaN is taken for a frame of 5")
	}
}

// BenchmarkIndex adds 10 000 sets of one shape (10 frames × 64
// features), as train's check of a 10 000-set data set does: a search in
// each shape's sorted keys, not a comparison of every pair.
func BenchmarkIndex(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	sets := make([]*mat.Dense, 10000)
	for i := range sets {
		x := mat.NewDense(10, 64, nil)
		for r := range 10 {
			for c := range 64 {
				x.Set(r, c, rng.NormFloat64())
			}
		}
		sets[i] = x
	}
	for b.Loop() {
		ix := New()
		for _, x := range sets {
			if ix.Add(x) >= 0 {
				b.Fatal("distinct sets taken for the same")
			}
		}
	}
}
