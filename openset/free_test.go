package openset

import (
	"errors"
	"math"
	"testing"
)

// TestFree: the threshold-free rates are the best balanced threshold and
// the strangers let in at 95% and 99% of the known sets.
func TestFree(t *testing.T) {
	var s []Sample
	for i := 1; i <= 100; i++ {
		s = append(s, known(float64(i), true))
	}
	s = append(s, stranger(95.5), stranger(99.5), stranger(200), stranger(300))
	f, err := Free(s)
	if err != nil {
		t.Fatal(err)
	}
	// The best threshold keeps the four strangers out and lets in the 95
	// known sets up to 95: the middle of [95, 95.5).
	if f.StrangersIn95 != 0 || f.Threshold95 != 95 || f.StrangersIn99 != 0.25 || f.Threshold99 != 99 ||
		math.Abs(f.BestBalanced-0.975) > 1e-15 || math.Abs(f.BestThreshold-math.Sqrt(95*95.5)) > 1e-12 {
		t.Errorf("got %+v, want the best balanced 0.975 at √(95·95.5)", f)
	}
	if _, err := Free(s[:100]); !errors.Is(err, ErrOneSided) {
		t.Errorf("one-sided: %v", err)
	}
}
