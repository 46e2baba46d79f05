package stats

import (
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		x    []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{1, math.Inf(1)}, math.Inf(1)},
	} {
		x := append([]float64(nil), c.x...)
		if got := Median(x); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.x, got, c.want)
		}
		for i := 1; i < len(x); i++ {
			if x[i-1] > x[i] {
				t.Errorf("Median(%v) left %v unsorted", c.x, x)
			}
		}
	}
}

func TestMeanStd(t *testing.T) {
	if m, s := MeanStd([]float64{1, 2, 6}); m != 3 || math.Abs(s-math.Sqrt(7)) > 1e-12 {
		t.Errorf("MeanStd(1, 2, 6) = %v, %v; want 3, √7", m, s)
	}
	if m, s := MeanStd([]float64{4}); m != 4 || s != 0 {
		t.Errorf("MeanStd(4) = %v, %v; want 4, 0", m, s)
	}
	if m, s := MeanStd(nil); !math.IsNaN(m) || !math.IsNaN(s) {
		t.Errorf("MeanStd() = %v, %v; want NaN, NaN", m, s)
	}
}
