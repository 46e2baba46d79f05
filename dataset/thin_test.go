package dataset

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestFrameCap(t *testing.T) {
	for _, c := range []struct {
		n      []int
		budget int
		want   int
	}{
		{[]int{10, 20, 30}, 60, 0},   // fits as it is
		{[]int{10, 20, 30}, 59, 29},  // 10 + 20 + 29 = 59
		{[]int{10, 20, 30}, 40, 15},  // 10 + 15 + 15 = 40
		{[]int{10, 20, 30}, 41, 15},  // 16 gives 42
		{[]int{100, 100}, 7, 3},      // 3 + 3 = 6 ≤ 7 < 8
		{[]int{100, 100, 100}, 5, 2}, // not even 2 per set fits: the floor
	} {
		got := FrameCap(c.n, c.budget)
		if got != c.want {
			t.Errorf("FrameCap(%v, %d) = %d, want %d", c.n, c.budget, got, c.want)
		}
		if got > 2 {
			kept, over := 0, 0
			for _, v := range c.n {
				kept += min(v, got)
				over += min(v, got+1)
			}
			if kept > c.budget || over <= c.budget {
				t.Errorf("FrameCap(%v, %d) = %d keeps %d, and %d with one more: not the largest that fits", c.n, c.budget, got, kept, over)
			}
		}
	}
}

func TestThin(t *testing.T) {
	n := 10
	m := mat.NewDense(n, 2, nil)
	for i := range n {
		m.Set(i, 0, float64(i))
		m.Set(i, 1, -float64(i))
	}
	if got := Thin(m, 10); got != m {
		t.Error("Thin to as many frames as the set has copied it")
	}
	got := Thin(m, 4)
	if r, c := got.Dims(); r != 4 || c != 2 {
		t.Fatalf("Thin(10 frames, 4) is %d×%d, want 4×2", r, c)
	}
	// Rows ⌊i·10/4⌋: 0, 2, 5, 7.
	for i, want := range []float64{0, 2, 5, 7} {
		if got.At(i, 0) != want || got.At(i, 1) != -want {
			t.Errorf("row %d = %v, want frame %v", i, got.RawRowView(i), want)
		}
	}
	if m.At(3, 0) != 3 {
		t.Error("Thin changed its input")
	}
	ds := &Dataset{Sets: []Set{{Frames: m}, {Frames: mat.NewDense(3, 2, nil)}}}
	if dropped := ds.Thin(4); dropped != 6 {
		t.Errorf("Dataset.Thin(4) dropped %d frames, want 6", dropped)
	}
	if r, _ := ds.Sets[0].Frames.Dims(); r != 4 {
		t.Errorf("set 0 has %d frames after Thin(4), want 4", r)
	}
	if r, _ := ds.Sets[1].Frames.Dims(); r != 3 {
		t.Errorf("set 1 has %d frames after Thin(4), want its 3", r)
	}
}

func TestFramesKept(t *testing.T) {
	if got := FramesKept([]int{10, 20, 30}, 15); got != 40 {
		t.Errorf("FramesKept([10 20 30], 15) = %d, want 10 + 15 + 15 = 40", got)
	}
	if got := FramesKept([]int{10, 20, 30}, 100); got != 60 {
		t.Errorf("FramesKept([10 20 30], 100) = %d, want all 60", got)
	}
}
