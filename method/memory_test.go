package method

import "testing"

// TestMemoryNeed: the need is twice the live data and the frames as
// loaded, and grows with the frames.
func TestMemoryNeed(t *testing.T) {
	frames, labels := []int{10, 12, 10, 12, 10, 12}, []int{0, 0, 1, 1, 2, 2}
	g := DefaultGrid()
	need, live := MemoryNeed(frames, 5, labels, g, 2)
	if live != MemoryEstimate(frames, 5, labels, g, 2) || live <= 0 || need != 2*live+66*5*8 {
		t.Errorf("need %d, live %d", need, live)
	}
	more, _ := MemoryNeed([]int{20, 24, 20, 24, 20, 24}, 5, labels, g, 2)
	if more <= need {
		t.Errorf("twice the frames need %d bytes, once %d", more, need)
	}
	if need, live := MemoryNeed(nil, 5, nil, g, 2); need != 0 || live != 0 {
		t.Errorf("no sets: need %d, live %d", need, live)
	}
}
