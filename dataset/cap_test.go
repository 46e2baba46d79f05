package dataset

import (
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// capData returns sets of n_i frames of 2 features.
func capData(n ...int) *Dataset {
	d := &Dataset{}
	for _, k := range n {
		d.Sets = append(d.Sets, Set{Frames: mat.NewDense(k, 2, nil)})
	}
	return d
}

// TestCap: within the budget nothing changes; over it the sets are
// capped at the largest count that fits; a cap given applies whatever
// the budget; data over the budget are refused unchanged.
func TestCap(t *testing.T) {
	for _, c := range []struct {
		n           []int
		max, budget int
		want        Capped
		over        *OverBudget
	}{
		{[]int{10, 20, 30}, 0, 60, Capped{Total: 60}, nil},
		{[]int{10, 20, 30}, 0, 0, Capped{Total: 60}, nil},
		{[]int{10, 20, 30}, 0, 40, Capped{Max: 15, Auto: true, Kept: 40, Total: 60}, nil},
		{[]int{10, 20, 30}, 12, 0, Capped{Max: 12, Kept: 34, Total: 60}, nil},
		{[]int{10, 20, 30}, 40, 0, Capped{Total: 60}, nil},
		{[]int{10, 20, 30}, 25, 40, Capped{}, &OverBudget{Sets: 3, Kept: 55, Budget: 40, Max: 25, Fit: 15}},
		{[]int{10, 20, 30}, 0, 6, Capped{Max: 2, Auto: true, Kept: 6, Total: 60}, nil},
		{[]int{10, 20, 30}, 0, 5, Capped{}, &OverBudget{Sets: 3, Kept: 6, Budget: 5, Fit: 2}},
	} {
		d := capData(c.n...)
		got, err := d.Cap(c.max, c.budget)
		var over *OverBudget
		if c.over != nil {
			if !errors.As(err, &over) || *over != *c.over {
				t.Errorf("max %d, budget %d: error %v, want %+v", c.max, c.budget, err, *c.over)
			}
			if r, _ := d.Sets[2].Frames.Dims(); r != 30 {
				t.Errorf("max %d, budget %d: refused data changed", c.max, c.budget)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("max %d, budget %d: %+v, %v; want %+v", c.max, c.budget, got, err, c.want)
		}
		if r, _ := d.Sets[2].Frames.Dims(); c.want.Max > 0 && r != c.want.Max {
			t.Errorf("max %d, budget %d: the last set has %d frames", c.max, c.budget, r)
		}
	}
}

func TestFrameCounts(t *testing.T) {
	d := &Dataset{Sets: []Set{{Frames: mat.NewDense(3, 2, nil)}, {Frames: mat.NewDense(5, 2, nil)}}}
	if counts, total := d.FrameCounts(); len(counts) != 2 || counts[0] != 3 || counts[1] != 5 || total != 8 {
		t.Errorf("counts %v, total %d", counts, total)
	}
}
