package openset

import (
	"errors"
	"fmt"
	"math"
)

// Common returns the one threshold with the highest mean balanced
// accuracy over several slices of samples (each a split's probes, every
// slice's scores in one unit: for example fractions of each model's own
// scale), placed as Balance places its threshold, and that mean. It is
// what a rule that sets the threshold in that unit could reach at best on
// these slices, chosen with hindsight over all of them at once; Balance
// of each slice alone chooses with hindsight per slice, and gains more
// from it the fewer samples a slice holds. It fails on no slices, and
// as Balance does on any slice.
func Common(slices [][]Sample) (threshold, balanced float64, err error) {
	pooled, err := pool(slices)
	if err != nil {
		return 0, 0, err
	}
	bestWidth := math.Inf(-1)
	balanced = math.Inf(-1)
	// A range of equal decisions on the pooled scores is one of equal
	// decisions on every slice.
	ranges(pooled, func(lo, hi float64, r Rates) {
		v := 0.0
		for _, s := range slices {
			v += At(s, r.Threshold).Balanced
		}
		v /= float64(len(slices))
		if w := logWidth(lo, hi); v > balanced+1e-12 || (v > balanced-1e-12 && w > bestWidth) {
			threshold, balanced, bestWidth = r.Threshold, v, w
		}
	})
	return threshold, balanced, nil
}

// Transfer returns, for each of two or more slices (as Common takes
// them), the balanced accuracy on it of the Common threshold of the other
// slices: a threshold in the slices' unit chosen on data other than the
// slice it is measured on. It fails on fewer than two slices, and as
// Common does.
func Transfer(slices [][]Sample) ([]float64, error) {
	if len(slices) < 2 {
		return nil, fmt.Errorf("%d slices of samples: want 2 or more, one to measure on and the others to choose on", len(slices))
	}
	if _, err := pool(slices); err != nil {
		return nil, err
	}
	out := make([]float64, len(slices))
	for i, s := range slices {
		others := append(append(make([][]Sample, 0, len(slices)-1), slices[:i]...), slices[i+1:]...)
		t, _, err := Common(others)
		if err != nil {
			return nil, err
		}
		out[i] = At(s, t).Balanced
	}
	return out, nil
}

// pool returns the samples of every slice in one, or an error for no
// slices or a slice Balance would refuse.
func pool(slices [][]Sample) ([]Sample, error) {
	if len(slices) == 0 {
		return nil, errors.New("no slices of samples")
	}
	var out []Sample
	for i, s := range slices {
		known, strangers, err := check(s)
		if err == nil && (known == 0 || strangers == 0) {
			err = ErrOneSided
		}
		if err != nil {
			return nil, fmt.Errorf("slice %d: %w", i+1, err)
		}
		out = append(out, s...)
	}
	return out, nil
}
