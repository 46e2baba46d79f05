package dataset

import "fmt"

// Capped is what Dataset.Cap did.
type Capped struct {
	// Max is the frames every set keeps at most, 0 when no set was
	// thinned.
	Max int
	// Auto is true when Max was chosen to fit the budget rather than
	// given.
	Auto bool
	// Kept and Total are the frames the sets hold after and before.
	Kept, Total int
}

// OverBudget is the error of Dataset.Cap for sets that hold more frames
// than the budget at the cap given, or, with Max 0, even at two frames a
// set.
type OverBudget struct {
	Sets   int // the sets
	Kept   int // the frames they hold at the cap (at 2 frames a set when Max is 0)
	Budget int
	Max    int // the cap given; 0 when even two frames a set are too many
	Fit    int // the largest cap that fits (FrameCap)
}

// Error says how many frames the sets hold against the budget.
func (e *OverBudget) Error() string {
	if e.Max == 0 {
		return fmt.Sprintf("%d sets hold %d frames even at 2 frames each, more than the budget of %d", e.Sets, e.Kept, e.Budget)
	}
	return fmt.Sprintf("%d frames a set keep %d frames, more than the budget of %d: keep %d or less", e.Max, e.Kept, e.Budget, e.Fit)
}

// Cap keeps at most max frames of every set, evenly spaced (Thin). With
// max 0 it caps the sets only when they hold more than budget frames in
// all (budget 0: never), at the largest per-set count that fits
// (FrameCap). It refuses, with an *OverBudget, sets that do not fit the
// budget even at two frames a set, and a max that keeps more frames than
// the budget; budget 0 is no budget.
func (d *Dataset) Cap(max, budget int) (Capped, error) {
	counts, total := d.FrameCounts()
	c := Capped{Total: total}
	if two := FramesKept(counts, 2); budget > 0 && two > budget {
		return Capped{}, &OverBudget{Sets: len(counts), Kept: two, Budget: budget, Fit: 2}
	}
	if max == 0 {
		if budget == 0 {
			return c, nil
		}
		if max = FrameCap(counts, budget); max == 0 {
			return c, nil
		}
		c.Auto = true
	}
	kept := FramesKept(counts, max)
	if budget > 0 && kept > budget {
		return Capped{}, &OverBudget{Sets: len(counts), Kept: kept, Budget: budget, Max: max, Fit: FrameCap(counts, budget)}
	}
	if d.Thin(max) == 0 {
		return Capped{Total: c.Total}, nil // no set had more
	}
	c.Max, c.Kept = max, kept
	return c, nil
}
