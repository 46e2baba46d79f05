package match

import (
	"math"
	"testing"
)

func TestExpNonPos(t *testing.T) {
	worst := 0.0
	const steps = 400000
	for i := range steps + 1 {
		x := expCutoff * float64(i) / steps
		for _, v := range []float64{x, math.Nextafter(x, 0), x * 1e-9} {
			if v <= expCutoff {
				continue
			}
			got, want := expNonPos(v), math.Exp(v)
			if e := math.Abs(got-want) / want; e > worst {
				worst = e
			}
		}
	}
	if worst > 1e-15 {
		t.Errorf("worst relative error %g, want ≤ 1e-15", worst)
	}
	for _, x := range []float64{-708.5, -1000, math.Inf(-1), math.NaN()} {
		if got := expNonPos(x); got != 0 {
			t.Errorf("expNonPos(%v) = %v, want 0", x, got)
		}
	}
	if got := expNonPos(0); got != 1 {
		t.Errorf("expNonPos(0) = %v, want 1", got)
	}
}

func BenchmarkExpNonPos(b *testing.B) {
	xs := make([]float64, 4096)
	for i := range xs {
		xs[i] = -float64(i) * 0.01
	}
	var s float64
	for b.Loop() {
		for _, x := range xs {
			s += expNonPos(x)
		}
	}
	if s == 0 {
		b.Fatal("no work")
	}
}

// BenchmarkMathExp is the standard library on the same inputs, for the
// comparison in docs/PERFORMANCE.md.
func BenchmarkMathExp(b *testing.B) {
	xs := make([]float64, 4096)
	for i := range xs {
		xs[i] = -float64(i) * 0.01
	}
	var s float64
	for b.Loop() {
		for _, x := range xs {
			s += math.Exp(x)
		}
	}
	if s == 0 {
		b.Fatal("no work")
	}
}
