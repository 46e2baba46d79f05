package openset

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// Two slices whose known sets score 1 and 2 and strangers 3 and 4, and
// one whose known sets score 3 and 4 and strangers 5 and 6: a threshold
// in [2, 3) is right on the first two, one in [4, 5) on the third.
func commonSlices() [][]Sample {
	a := func() []Sample { return []Sample{known(1, true), known(2, true), stranger(3), stranger(4)} }
	b := []Sample{known(3, true), known(4, true), stranger(5), stranger(6)}
	return [][]Sample{a(), a(), b}
}

func TestCommon(t *testing.T) {
	th, bal, err := Common(commonSlices())
	if err != nil {
		t.Fatal(err)
	}
	// [2, 3): 1, 1 and 1/2 (the third slice's known sets all kept out).
	if want := math.Sqrt(6); math.Abs(th-want) > 1e-12 || math.Abs(bal-2.5/3) > 1e-12 {
		t.Fatalf("threshold %v balanced %v, want %v and %v", th, bal, want, 2.5/3)
	}
	// One slice: Common is Balance.
	for _, s := range commonSlices() {
		r, err := Balance(s)
		if err != nil {
			t.Fatal(err)
		}
		th, bal, err := Common([][]Sample{s})
		if err != nil || th != r.Threshold || bal != r.Balanced {
			t.Fatalf("one slice: %v %v %v, Balance gives %v %v", th, bal, err, r.Threshold, r.Balanced)
		}
	}
}

// TestCommonWidestOfEqual: of thresholds of equal mean balanced accuracy
// the one of the widest range on a log scale wins, not the first: here
// [1, 2) and [10, 30) both reach 3/4, and [10, 30) is the wider.
func TestCommonWidestOfEqual(t *testing.T) {
	th, bal, err := Common([][]Sample{
		{known(1, true), stranger(2)},
		{known(10, true), stranger(30)},
	})
	if err != nil || math.Abs(th-math.Sqrt(300)) > 1e-12 || math.Abs(bal-0.75) > 1e-12 {
		t.Fatalf("threshold %v balanced %v (%v), want √300 and 3/4", th, bal, err)
	}
}

// TestTransferLeavesTheSliceOut: each slice is measured at the threshold
// chosen on the others alone. Here each slice's own threshold keeps the
// other's known set out or lets its stranger in (1/2 each), while one
// chosen on both would be right on the first.
func TestTransferLeavesTheSliceOut(t *testing.T) {
	got, err := Transfer([][]Sample{
		{known(1, true), stranger(2)},
		{known(3, true), stranger(4)},
	})
	if err != nil || len(got) != 2 || got[0] != 0.5 || got[1] != 0.5 {
		t.Fatalf("transfer %v (%v), want [0.5 0.5]", got, err)
	}
}

func TestTransfer(t *testing.T) {
	got, err := Transfer(commonSlices())
	if err != nil {
		t.Fatal(err)
	}
	// Each first slice: the others tie at 3/4 on [2, 3), [3, 4) and
	// [4, 5); the widest on a log scale, [2, 3), is right on it. The
	// third: the first two choose [2, 3), which keeps its known sets out.
	want := []float64{1, 1, 0.5}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("transfer %v, want %v", got, want)
		}
	}
}

// TestCommonBounds checks, on random slices, that Common's threshold
// reaches the mean it reports, that no slice's own best threshold does
// better over all of them, and that it does no better than each slice's
// own best (hindsight per slice) on average.
func TestCommonBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for trial := range 50 {
		slices := make([][]Sample, 2+rng.IntN(4))
		for i := range slices {
			n := 2 + rng.IntN(8)
			for k := range n {
				if k%2 == 0 {
					slices[i] = append(slices[i], known(rng.ExpFloat64(), rng.IntN(5) > 0))
				} else {
					slices[i] = append(slices[i], stranger(1+rng.ExpFloat64()))
				}
			}
		}
		th, bal, err := Common(slices)
		if err != nil {
			t.Fatal(err)
		}
		mean := func(t float64) float64 {
			v := 0.0
			for _, s := range slices {
				v += At(s, t).Balanced
			}
			return v / float64(len(slices))
		}
		if math.Abs(mean(th)-bal) > 1e-12 {
			t.Fatalf("trial %d: mean at the threshold %v, reported %v", trial, mean(th), bal)
		}
		own := 0.0
		for _, s := range slices {
			r, _ := Balance(s)
			if m := mean(r.Threshold); m > bal+1e-12 {
				t.Fatalf("trial %d: a slice's own threshold %v reaches %v over all, above Common's %v", trial, r.Threshold, m, bal)
			}
			own += r.Balanced / float64(len(slices))
		}
		if bal > own+1e-12 {
			t.Fatalf("trial %d: Common %v above the mean of each slice's best %v", trial, bal, own)
		}
	}
}

func TestCommonErrors(t *testing.T) {
	if _, _, err := Common(nil); err == nil {
		t.Error("no slices: no error")
	}
	oneSided := [][]Sample{{known(1, true), stranger(2)}, {known(1, true)}}
	if _, _, err := Common(oneSided); !errors.Is(err, ErrOneSided) {
		t.Errorf("a slice without strangers: %v", err)
	}
	if _, err := Transfer(oneSided); !errors.Is(err, ErrOneSided) {
		t.Errorf("transfer, a slice without strangers: %v", err)
	}
	if _, _, err := Common([][]Sample{{known(math.NaN(), true), stranger(2)}}); err == nil {
		t.Error("NaN score: no error")
	}
	if _, err := Transfer(commonSlices()[:1]); err == nil {
		t.Error("transfer from one slice: no error")
	}
}
