package openset

import (
	"errors"
	"testing"
)

// TestFree: the threshold-free rates are Balance's and StrangersIn's at
// 95% and 99% of the known sets.
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
	best, _ := Balance(s)
	if f.StrangersIn95 != 0 || f.Threshold95 != 95 || f.StrangersIn99 != 0.25 || f.Threshold99 != 99 ||
		f.BestBalanced != best.Balanced || f.BestThreshold != best.Threshold {
		t.Errorf("got %+v, best %+v", f, best)
	}
	if _, err := Free(s[:100]); !errors.Is(err, ErrOneSided) {
		t.Errorf("one-sided: %v", err)
	}
}
