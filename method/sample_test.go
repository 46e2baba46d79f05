package method

import (
	"slices"
	"testing"
)

func TestChoiceSample(t *testing.T) {
	// 10 classes of 3, 2 or 4 sets.
	var labels []int
	for c := range 10 {
		for range 2 + c%3 {
			labels = append(labels, c)
		}
	}
	if got := ChoiceSample(labels, len(labels), 1); len(got) != len(labels) {
		t.Fatalf("at the cap: %d of %d sets, want all", len(got), len(labels))
	}
	for _, max := range []int{2, 7, 12, 20} {
		got := ChoiceSample(labels, max, 7)
		if !slices.IsSorted(got) {
			t.Errorf("max %d: %v not in increasing order", max, got)
		}
		classes := map[int]int{}
		for _, i := range got {
			classes[labels[i]]++
		}
		if len(classes) < 2 {
			t.Errorf("max %d: %d classes, want at least 2", max, len(classes))
		}
		if len(classes) > 2 && len(got) > max {
			t.Errorf("max %d: %d sets of %d classes", max, len(got), len(classes))
		}
		for c, n := range classes {
			if want := 2 + c%3; n != want {
				t.Errorf("max %d: class %d has %d of its %d sets: want whole classes", max, c, n, want)
			}
		}
		if again := ChoiceSample(labels, max, 7); !slices.Equal(again, got) {
			t.Errorf("max %d: the same seed gave %v, then %v", max, got, again)
		}
		if max >= 12 && len(got) < max-3 {
			t.Errorf("max %d: only %d sets taken, when classes of at most 4 sets were left", max, len(got))
		}
	}
}
