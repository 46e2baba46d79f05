package features

import (
	"math"
	"math/rand/v2"
	"testing"

	"setmatch/internal/testutil"
)

// TestSplitTransform: the PCA is fitted on the listed sets only, every
// set comes out with k columns, and with centre each set's mean frame is
// zero.
func TestSplitTransform(t *testing.T) {
	sets, _ := testutil.Sets{Classes: 3, PerClass: 1, Frames: 8, Dim: 5, Sep: 1, Spread: 1, Noise: 1}.Make(rand.New(rand.NewPCG(1, 2)))
	out, err := SplitTransform(2, false, true)(sets, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := PCASets(sets, []int{0, 1}, 2, false)
	for i, x := range out {
		n, k := x.Dims()
		if n != 8 || k != 2 {
			t.Fatalf("set %d: %d×%d, want 8×2", i, n, k)
		}
		for c := range k {
			var mean, wantMean float64
			for r := range n {
				mean += x.At(r, c) / float64(n)
				wantMean += want[i].At(r, c) / float64(n)
			}
			if math.Abs(mean) > 1e-12 || math.Abs(x.At(0, c)-(want[i].At(0, c)-wantMean)) > 1e-12 {
				t.Errorf("set %d column %d: mean %g, first %g; want 0 and the PCA's minus its mean", i, c, mean, x.At(0, c))
			}
		}
	}
	same, err := SplitTransform(0, false, false)(sets, []int{0})
	if err != nil || same[2] != sets[2] {
		t.Errorf("no PCA, no centring: the sets should come back as they are (%v)", err)
	}
}
