package learn

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestOpenSetThreshold(t *testing.T) {
	// Sets 0, 1, 2 of class a, 3 of class b (no same-class neighbour).
	div := mat.NewSymDense(4, []float64{
		0, 1, 4, 0.1,
		1, 0, 3, 0.1,
		4, 3, 0, 0.1,
		0.1, 0.1, 0.1, 0,
	})
	labels := []string{"a", "a", "a", "b"}
	// Nearest same-class divergences: 1, 1, 3 (set 3 has none).
	for _, c := range []struct{ p, want float64 }{{0, 1}, {50, 1}, {75, 2}, {100, 3}, {95, 2.8}} {
		got, err := OpenSetThreshold(div, labels, c.p)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("p = %v: %v, want %v", c.p, got, c.want)
		}
	}
	if _, err := OpenSetThreshold(div, []string{"a", "b", "c", "d"}, 95); err == nil {
		t.Error("no class with two sets: no error")
	}
	if _, err := OpenSetThreshold(div, labels[:3], 95); err == nil {
		t.Error("3 labels for 4 sets: no error")
	}
	if _, err := OpenSetThreshold(div, labels, math.NaN()); err == nil {
		t.Error("NaN percentile: no error")
	}
}
