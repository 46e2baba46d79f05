package dataset

import "gonum.org/v1/gonum/mat"

// FrameCap returns the largest per-set frame count k ≥ 2 such that the
// sets, each keeping at most k of its frames, hold at most budget frames
// in all: Σ min(n_i, k) ≤ budget for the frame counts n. It returns 0
// when the sets already fit (no cap is needed), and 2 when even two
// frames per set exceed the budget (the caller must refuse the data).
func FrameCap(n []int, budget int) int {
	total, most := 0, 0
	for _, v := range n {
		total += v
		most = max(most, v)
	}
	if total <= budget {
		return 0
	}
	lo, hi := 2, most // FramesKept(n, hi) = total > budget
	if FramesKept(n, lo) > budget {
		return lo
	}
	for hi-lo > 1 { // FramesKept(n, lo) ≤ budget < FramesKept(n, hi)
		mid := (lo + hi) / 2
		if FramesKept(n, mid) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// FramesKept returns Σ min(n_i, k): the frames that sets of the frame
// counts n hold when each keeps at most k.
func FramesKept(n []int, k int) int {
	s := 0
	for _, v := range n {
		s += min(v, k)
	}
	return s
}

// Thin returns the set's n×d frames if n ≤ k, else k of them, evenly
// spaced over the set (rows ⌊i·n/k⌋ for i = 0…k−1, in their order), as
// a new k×d matrix. Frames of a burst are in time order, so evenly
// spaced frames keep its whole span at a coarser step.
func Thin(frames *mat.Dense, k int) *mat.Dense {
	n, d := frames.Dims()
	if n <= k {
		return frames
	}
	out := mat.NewDense(k, d, nil)
	for i := range k {
		out.SetRow(i, frames.RawRowView(i*n/k))
	}
	return out
}

// Thin keeps at most k frames of every set (see the function Thin) and
// returns how many frames were dropped in all.
func (d *Dataset) Thin(k int) int {
	dropped := 0
	for i := range d.Sets {
		n, _ := d.Sets[i].Frames.Dims()
		if n > k {
			d.Sets[i].Frames = Thin(d.Sets[i].Frames, k)
			dropped += n - k
		}
	}
	return dropped
}
