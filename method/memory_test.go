package method

import "testing"

// TestMemoryNeed: the need is twice the live data and the frames as
// loaded, and grows with the frames.
func TestMemoryNeed(t *testing.T) {
	frames, labels := []int{10, 12, 10, 12, 10, 12}, []int{0, 0, 1, 1, 2, 2}
	g := DefaultGrid()
	need, live := MemoryNeed(frames, 5, labels, g, 2, 1)
	if live != MemoryEstimate(frames, 5, labels, g, 2, 1) || live <= 0 || need != 2*live+66*5*8 {
		t.Errorf("need %d, live %d", need, live)
	}
	more, _ := MemoryNeed([]int{20, 24, 20, 24, 20, 24}, 5, labels, g, 2, 1)
	if more <= need {
		t.Errorf("twice the frames need %d bytes, once %d", more, need)
	}
	if need, live := MemoryNeed(nil, 5, nil, g, 2, 1); need != 0 || live != 0 {
		t.Errorf("no sets: need %d, live %d", need, live)
	}
}

// TestMemoryEstimateOfASample: beyond Grid.ChoiceSets sets the estimate
// is the choice on the sample and the fit on every set: less than a
// choice on every set, more than the sample's alone, and its m×m part
// grows as the square of the sets.
func TestMemoryEstimateOfASample(t *testing.T) {
	sets := func(classes int) (frames, labels []int) {
		for c := range classes {
			frames, labels = append(frames, 12, 12), append(labels, c, c)
		}
		return frames, labels
	}
	g := DefaultGrid()
	all := g
	all.ChoiceSets = -1
	frames, labels := sets(1500)
	sampled, whole := MemoryEstimate(frames, 64, labels, g, 2, 1), MemoryEstimate(frames, 64, labels, all, 2, 1)
	sf, sl := sets(ChoiceSets / 2)
	alone := MemoryEstimate(sf, 64, sl, g, 2, 1)
	if !(alone < sampled && sampled < whole) {
		t.Errorf("3000 sets: %d bytes choosing on a sample, %d on every set, %d for the sample alone: want sample alone < sampled < every set", sampled, whole, alone)
	}
	f2, l2 := sets(3000)
	twice := MemoryEstimate(f2, 64, l2, g, 2, 1)
	if r := float64(twice-alone) / float64(sampled-alone); r < 3 || r > 4.1 {
		t.Errorf("twice the sets: what the fit on every set adds grew %.2f times, want about 4 (its m×m matrices)", r)
	}
}

// TestMemoryEstimateSingleSetClasses: where some classes have one set
// among classes of more, the folds' pool holds the halves of those sets
// and of their halves, so the estimate is above that of the same sets in
// classes of three.
func TestMemoryEstimateSingleSetClasses(t *testing.T) {
	frames := []int{10, 10, 10, 10, 10, 10}
	g := DefaultGrid()
	mixed := MemoryEstimate(frames, 5, []int{0, 0, 0, 1, 1, 2}, g, 2, 1)
	threes := MemoryEstimate(frames, 5, []int{0, 0, 0, 1, 1, 1}, g, 2, 1)
	if mixed <= threes {
		t.Errorf("a class of one set among classes of more: %d bytes, classes of three: %d", mixed, threes)
	}
}
