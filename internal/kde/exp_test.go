package kde

import (
	"math"
	"testing"
)

func TestExpNonPos(t *testing.T) {
	worst := 0.0
	const steps = 400000
	for i := range steps + 1 {
		x := ExpCutoff * float64(i) / steps
		for _, v := range []float64{x, math.Nextafter(x, 0), x * 1e-9} {
			if v <= ExpCutoff {
				continue
			}
			got, want := ExpNonPos(v), math.Exp(v)
			if e := math.Abs(got-want) / want; e > worst {
				worst = e
			}
		}
	}
	if worst > 1e-15 {
		t.Errorf("worst relative error %g, want ≤ 1e-15", worst)
	}
	for _, x := range []float64{-708.5, -1000, math.Inf(-1), math.NaN()} {
		if got := ExpNonPos(x); got != 0 {
			t.Errorf("ExpNonPos(%v) = %v, want 0", x, got)
		}
	}
	if got := ExpNonPos(0); got != 1 {
		t.Errorf("ExpNonPos(0) = %v, want 1", got)
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
			s += ExpNonPos(x)
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

func TestLogNorm(t *testing.T) {
	// n = 1, d = 2, h = 1: −log(2π).
	if got, want := LogNorm(1, 2, 1), -math.Log(2*math.Pi); math.Abs(got-want) > 1e-15 {
		t.Errorf("LogNorm(1, 2, 1) = %v, want %v", got, want)
	}
	// n = 4 samples: the mean of the kernels, log 4 less.
	if got, want := LogNorm(4, 2, 1), -math.Log(4)-math.Log(2*math.Pi); math.Abs(got-want) > 1e-15 {
		t.Errorf("LogNorm(4, 2, 1) = %v, want %v", got, want)
	}
	// One sample of a 1-d KDE at distance 0: the standard normal density at 0.
	h := 0.7
	got := LogDensity(Scale(h), 0, ExpNonPos(0), LogNorm(1, 1, h))
	want := -0.5*math.Log(2*math.Pi) - math.Log(h)
	if math.Abs(got-want) > 1e-15 {
		t.Errorf("log N(0; 0, h²) = %v, want %v", got, want)
	}
}

func TestSqDist(t *testing.T) {
	a, b := []float64{1, 2, 3}, []float64{1, 2, 3 + 1e-9}
	var aa, bb, ab float64
	for i := range a {
		aa += a[i] * a[i]
		bb += b[i] * b[i]
		ab += a[i] * b[i]
	}
	if d := SqDist(aa, bb, ab); d < 0 || d > 1e-12 {
		t.Errorf("nearly equal vectors: %v", d)
	}
	if d := SqDist(1, 1, 1); d != 0 {
		t.Errorf("equal vectors: %v", d)
	}
	// The expansion rounded below 0 (2 − 2·(1+2⁻⁵²)): clamped, never negative.
	if d := SqDist(1, 1, math.Nextafter(1, 2)); d != 0 {
		t.Errorf("expansion rounded below 0: %v, want 0", d)
	}
	if d := SqDist(1, 4, 0); d != 5 {
		t.Errorf("orthogonal vectors: %v", d)
	}
	// Squared norms that overflowed (Inf − Inf), or a NaN given: no
	// distance can be told, and it is passed on as NaN for the callers'
	// checks, never as 0, which would put the frames on top of each other.
	inf := math.Inf(1)
	for _, c := range [][3]float64{{inf, inf, inf}, {inf, 1, inf}, {math.NaN(), 1, 0}, {1, 1, math.NaN()}} {
		if d := SqDist(c[0], c[1], c[2]); !math.IsNaN(d) {
			t.Errorf("SqDist(%v, %v, %v) = %v, want NaN", c[0], c[1], c[2], d)
		}
	}
	// An overflow that leaves the expansion +Inf stays +Inf: far apart.
	if d := SqDist(inf, 1, 1); d != inf {
		t.Errorf("SqDist(+Inf, 1, 1) = %v, want +Inf", d)
	}
}
