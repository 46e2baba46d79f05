package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
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

func TestMeanFrame(t *testing.T) {
	a := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	b := mat.NewDense(1, 3, []float64{0.1, 0.2, 0.3})
	if got, want := MeanFrame(a), []float64{2.5, 3.5, 4.5}; !slices.Equal(got, want) {
		t.Errorf("MeanFrame(a) = %v, want %v", got, want)
	}
	// The sets one by one and their rows stacked: the same sum, bit for bit.
	var stacked mat.Dense
	stacked.Stack(a, b)
	if got, want := MeanFrame(a, b), MeanFrame(&stacked); !slices.Equal(got, want) {
		t.Errorf("MeanFrame(a, b) = %v, stacked %v", got, want)
	}
	// A view with a stride wider than its columns.
	v := mat.NewDense(2, 4, []float64{1, 2, 3, 99, 4, 5, 6, 99}).Slice(0, 2, 0, 3).(*mat.Dense)
	if got, want := MeanFrame(v), MeanFrame(a); !slices.Equal(got, want) {
		t.Errorf("MeanFrame(view) = %v, want %v", got, want)
	}
}

// TestMeanOverflow: where the sum of a feature over the rows overflows, the
// set named is the one holding that feature's largest value, not the one
// at which the sum ran over; a finite mean names none.
func TestMeanOverflow(t *testing.T) {
	small := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	big := mat.NewDense(2, 2, []float64{1, 1.7e308, 1, 1.6e308})
	one := mat.NewDense(1, 2, []float64{1, 1.7e308})
	half := mat.NewDense(1, 2, []float64{1, 1e308})
	if set, _, _ := MeanOverflow(MeanFrame(small, half), small, half); set != -1 {
		t.Errorf("MeanOverflow of a mean that overflows nowhere named set %d", set)
	}
	nan := mat.NewDense(1, 2, []float64{1, math.NaN()})
	if set, _, _ := MeanOverflow(MeanFrame(big, nan), big, nan); set != -1 {
		t.Errorf("MeanOverflow of a mean that is NaN by a NaN of the rows named set %d, want none (no overflow)", set)
	}
	for _, c := range []struct {
		sets []*mat.Dense
		want int
	}{
		{[]*mat.Dense{small, big, small}, 1},
		{[]*mat.Dense{one, half}, 0}, // the sum runs over at half
		{[]*mat.Dense{half, small, one}, 2},
	} {
		mean := MeanFrame(c.sets...)
		set, feature, value := MeanOverflow(mean, c.sets...)
		if set != c.want || feature != 1 || value != 1.7e308 {
			t.Errorf("MeanOverflow = set %d, feature %d, value %v; want set %d, feature 1, 1.7e308", set, feature, value, c.want)
		}
	}
}

func TestCentred(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{1, 10, 3, 20})
	c := Centred(x)
	if want := mat.NewDense(2, 2, []float64{-1, -5, 1, 5}); !mat.Equal(c, want) {
		t.Errorf("Centred = %v, want %v", mat.Formatted(c), mat.Formatted(want))
	}
	if x.At(0, 0) != 1 {
		t.Error("Centred changed its argument")
	}
	// Into another matrix (a view of a wider one), x kept.
	dst := mat.NewDense(2, 3, nil).Slice(0, 2, 0, 2).(*mat.Dense)
	SubtractFrameTo(dst, x, []float64{1, 10})
	if want := mat.NewDense(2, 2, []float64{0, 0, 2, 10}); !mat.Equal(dst, want) || x.At(0, 0) != 1 {
		t.Errorf("SubtractFrameTo = %v (x %v), want %v", mat.Formatted(dst), mat.Formatted(x), mat.Formatted(want))
	}
	SubtractFrame(x, []float64{1, 10})
	if want := mat.NewDense(2, 2, []float64{0, 0, 2, 10}); !mat.Equal(x, want) {
		t.Errorf("SubtractFrame = %v, want %v", mat.Formatted(x), mat.Formatted(want))
	}
}

// TestMeanStdInOrder: the sums run in order, so the figures are the same
// bits on every architecture; here the order loses the first 1.
func TestMeanStdInOrder(t *testing.T) {
	if m, s := MeanStd([]float64{1e16, 1, -1e16, 1}); m != 0.25 || s != 8164965809277260 {
		t.Errorf("MeanStd(1e16, 1, −1e16, 1) = %v, %v; want 0.25, 8164965809277260 (summed in order)", m, s)
	}
}

// TestMeanStdRoundsEachProduct: the sum of squares rounds each product on
// its own, as on amd64, also where arm64 could fuse it with the add (the
// reference below rounds each product by its conversion); fused, about one
// of seven of these vectors differs in the last digit.
func TestMeanStdRoundsEachProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 200 {
		x := make([]float64, 37)
		for i := range x {
			x[i] = rng.Float64()
		}
		var mean, ss float64
		for _, v := range x {
			mean += v
		}
		mean /= float64(len(x))
		for _, v := range x {
			d := v - mean
			ss += float64(d * d)
		}
		if m, s := MeanStd(x); m != mean || s != math.Sqrt(ss/float64(len(x)-1)) {
			t.Fatalf("vector %d: MeanStd = %v, %v; want %v, %v", trial, m, s, mean, math.Sqrt(ss/float64(len(x)-1)))
		}
	}
}

// TestMedianOfMeans: the median of the sets' mean frames, feature by
// feature; a set far from the others does not move it.
func TestMedianOfMeans(t *testing.T) {
	a := mat.NewDense(2, 2, []float64{0, 10, 2, 10})   // mean (1, 10)
	b := mat.NewDense(1, 2, []float64{3, 20})          // mean (3, 20)
	c := mat.NewDense(2, 2, []float64{1e9, 0, 1e9, 2}) // mean (1e9, 1)
	got := MedianOfMeans(a, b, c)
	if want := []float64{3, 10}; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("MedianOfMeans = %v, want %v", got, want)
	}
	if got := MedianOfMeans(a, b); got[0] != 2 || got[1] != 15 {
		t.Errorf("two sets: %v, want [2 15]", got)
	}
}

// TestMaxAbs: the largest magnitude, of negative values too, over the
// rows of a view whose stride is wider than its columns.
func TestMaxAbs(t *testing.T) {
	x := mat.NewDense(3, 3, []float64{1, -7, 100, 2, 3, -100, -4, 0.5, 100})
	if got := MaxAbs(x.Slice(0, 3, 0, 2).(*mat.Dense)); got != 7 {
		t.Errorf("MaxAbs = %g, want 7", got)
	}
	if got := MaxAbs(mat.NewDense(2, 2, nil)); got != 0 {
		t.Errorf("MaxAbs of zeros = %g, want 0", got)
	}
}
