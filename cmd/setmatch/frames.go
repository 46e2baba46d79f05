package main

import (
	"fmt"
	"io"

	"setmatch/dataset"
)

// maxFramesUsage is the help of --max-frames of train and eval.
const maxFramesUsage = "keep at most `N` frames of every set, evenly spaced over the set (0: every frame, unless the sets hold more frames than the cross-validation's cache of frame distances fits; then the largest N that fits, and the command says so)"

// capFrames applies --max-frames (max) to the loaded sets. With max 0 it
// caps the sets only when they hold more than budget frames in all
// (budget 0: never), at the largest per-set count that fits. It tells
// stderr what it kept, and refuses data that do not fit even so.
func capFrames(ds *dataset.Dataset, max, budget int, cmd string, stderr io.Writer) error {
	if max < 0 {
		return usagef("--max-frames %d: want a number of frames ≥ 2, or 0 for every frame", max)
	}
	if max == 1 {
		return usagef("--max-frames 1: a set needs at least 2 frames for its density; want ≥ 2, or 0 for every frame")
	}
	counts := make([]int, len(ds.Sets))
	total, two := 0, 0
	for i, s := range ds.Sets {
		counts[i], _ = s.Frames.Dims()
		total += counts[i]
		two += min(counts[i], 2)
	}
	if budget > 0 && two > budget {
		return fmt.Errorf("%d sets hold %d frames even at 2 frames each, more than the %d that the cross-validation's cache of frame distances fits: use fewer sets", len(counts), two, budget)
	}
	why := "--max-frames"
	if max == 0 {
		if budget == 0 {
			return nil
		}
		if max = dataset.FrameCap(counts, budget); max == 0 {
			return nil
		}
		why = fmt.Sprintf("the %d sets hold %d frames, more than the %d that the cross-validation's cache of frame distances fits", len(counts), total, budget)
	}
	kept := 0
	for _, n := range counts {
		kept += min(n, max)
	}
	if budget > 0 && kept > budget {
		return usagef("--max-frames %d keeps %d frames, more than the %d that the cross-validation's cache of frame distances fits: use --max-frames %d or less", max, kept, budget, dataset.FrameCap(counts, budget))
	}
	if ds.Thin(max) > 0 {
		fmt.Fprintf(stderr, "%s: %s: every set keeps at most %d frames, evenly spaced (%d of %d frames kept); set --max-frames to choose\n",
			cmd, why, max, kept, total)
	}
	return nil
}
