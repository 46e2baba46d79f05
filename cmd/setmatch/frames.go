package main

import (
	"errors"
	"fmt"
	"io"

	"setmatch/dataset"
	"setmatch/method"
)

// maxFramesUsage is the help of --max-frames of train and eval.
const maxFramesUsage = "keep at most `N` frames of every set, evenly spaced over the set (0: every frame, unless the sets hold more frames than the cross-validation takes; then the largest N that fits, and the command says so)"

// cacheFits is the phrase of capFrames's messages for the budget of
// cvBudget.
const cacheFits = "the cross-validation takes (its time grows with the square of the frames)"

// cvBudget returns the frame budget of the cross-validation when the
// smallest class has minSets sets to train on (method.FrameBudget), and the
// phrase that says what it is.
func cvBudget(minSets int) (int, string) {
	b := method.FrameBudget(minSets)
	if b < method.MaxPoolFrames {
		return b, cacheFits + " with the frame halves of the sets (a class has at most two sets to train on)"
	}
	return b, cacheFits
}

// capFrames applies --max-frames (max) to the loaded sets. With max 0 it
// caps the sets only when they hold more than budget frames in all
// (budget 0: never), at the largest per-set count that fits. It tells
// stderr what it kept, and refuses data that do not fit even so; fits
// says what the budget is ("the … that FITS"). It returns the cap in
// force, 0 for none.
func capFrames(ds *dataset.Dataset, max, budget int, fits, cmd string, stderr io.Writer) (int, error) {
	if max < 0 {
		return 0, usagef("--max-frames %d: want a number of frames ≥ 2, or 0 for every frame", max)
	}
	if max == 1 {
		return 0, usagef("--max-frames 1: a set needs at least 2 frames for its density; want ≥ 2, or 0 for every frame")
	}
	c, err := ds.Cap(max, budget)
	var over *dataset.OverBudget
	switch {
	case errors.As(err, &over) && over.Max == 0:
		return 0, fmt.Errorf("%d sets hold %d frames even at 2 frames each, more than the %d that %s: use fewer sets", over.Sets, over.Kept, budget, fits)
	case errors.As(err, &over):
		return 0, usagef("--max-frames %d keeps %d frames, more than the %d that %s: use --max-frames %d or less", over.Max, over.Kept, budget, fits, over.Fit)
	case err != nil:
		return 0, err
	case c.Max == 0:
		return 0, nil
	}
	why, hint := "--max-frames", ""
	if c.Auto {
		why = fmt.Sprintf("the %d sets hold %d frames, more than the %d that %s", len(ds.Sets), c.Total, budget, fits)
		hint = "; set --max-frames to choose"
	}
	fmt.Fprintf(stderr, "%s: %s: every set keeps at most %d frames, evenly spaced (%d of %d frames kept)%s\n",
		cmd, why, c.Max, c.Kept, c.Total, hint)
	return c.Max, nil
}
