package openset

import (
	"errors"
	"fmt"
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
	// A range of equal decisions on the pooled scores is one of equal
	// decisions on every slice.
	r, _ := choose(pooled, func() counter { return newSliceTally(slices) }, func(r Rates) float64 { return r.Balanced }, nil)
	return r.Threshold, r.Balanced, nil
}

// sliceTally counts the samples of several slices pooled in one (as
// pool pools them), each in a tally of its own slice; its rates hold the
// mean balanced accuracy over the slices only.
type sliceTally struct {
	slice    []int     // the slice of each pooled sample
	at       []int     // its index in its slice
	tallies  []*tally  // one per slice
	balanced []float64 // each slice's balanced accuracy as counted
}

func newSliceTally(slices [][]Sample) *sliceTally {
	c := &sliceTally{tallies: make([]*tally, len(slices)), balanced: make([]float64, len(slices))}
	for i, s := range slices {
		c.tallies[i] = newTally(s)
		c.balanced[i] = c.tallies[i].rates(0).Balanced
		for k := range s {
			c.slice, c.at = append(c.slice, i), append(c.at, k)
		}
	}
	return c
}

func (c *sliceTally) add(k int) {
	i := c.slice[k]
	c.tallies[i].add(c.at[k])
	c.balanced[i] = c.tallies[i].rates(0).Balanced
}

// rates returns the mean balanced accuracy over the slices at threshold
// t (Balanced), summed in the order of the slices as At's would be.
func (c *sliceTally) rates(t float64) Rates {
	v := 0.0
	for _, b := range c.balanced {
		v += b
	}
	return Rates{Threshold: t, Balanced: v / float64(len(c.balanced))}
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
		if _, err := check(s); err != nil {
			return nil, fmt.Errorf("slice %d: %w", i+1, err)
		}
		out = append(out, s...)
	}
	return out, nil
}
