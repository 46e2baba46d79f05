package match

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"setmatch/internal/kde"
)

// checkBlockLogSums runs BlockMins and BlockLogSums on the n×m block d2 with scales
// sRow and sCol, fails t, naming the case name, where a row's or a
// column's log sum differs from LogSumExp of its terms by more than 1e-13
// (relative, or absolute), and returns the row and column sums.
func checkBlockLogSums(t *testing.T, name string, d2 []float64, n, m int, sRow, sCol float64) (rows, cols []float64) {
	t.Helper()
	rows, cols = make([]float64, n), make([]float64, m)
	rowMin, colMin := make([]float64, n), make([]float64, m)
	BlockMins(d2, rowMin, colMin)
	BlockLogSums(d2, sRow, sCol, rowMin, colMin, rows, cols)
	// lse is LogSumExp of s·d2 over the k entries at(l) indexes.
	lse := func(s float64, k int, at func(l int) int) float64 {
		buf := make([]float64, k)
		for l := range buf {
			buf[l] = s * d2[at(l)]
		}
		return LogSumExp(buf)
	}
	for i := range n {
		if want := lse(sRow, m, func(j int) int { return i*m + j }); !close(rows[i], want, 1e-13, 1e-13) {
			t.Errorf("%s: row %d: %v, want %v", name, i, rows[i], want)
		}
	}
	for j := range m {
		if want := lse(sCol, n, func(i int) int { return i*m + j }); !close(cols[j], want, 1e-13, 1e-13) {
			t.Errorf("%s: column %d: %v, want %v", name, j, cols[j], want)
		}
	}
	return rows, cols
}

// TestBlockLogSums checks the log kernel sums of a block against
// LogSumExp of each row and column: with equal kernels where one
// offset is safe (the shared exponentials) and where it is not (sets far
// apart: each row and column offset by its own), with unequal kernels,
// and with widths that are not multiples of the vector width.
func TestBlockLogSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, c := range []struct {
		n, m       int
		hRow, hCol float64
		spread     float64 // squared distances drawn from [0, spread) plus a row offset
		shared     bool    // the one-exponential path is expected
	}{
		{7, 13, 1, 1, 4, true},
		{16, 16, 0.5, 0.5, 2, true},
		{5, 3, 0.3, 0.3, 2, true},
		{9, 11, 0.05, 0.05, 2, false}, // a row's nearest term far below the block's largest
		{6, 10, 1, 2, 4, false},
		{1, 1, 1, 1, 1, true},
	} {
		d2 := make([]float64, c.n*c.m)
		for i := range c.n {
			off := 0.0
			if !c.shared {
				off = 5 * float64(i) // rows far apart: one offset would underflow
			}
			for j := range c.m {
				d2[i*c.m+j] = off + c.spread*rng.Float64()
			}
		}
		sRow, sCol := kde.Scale(c.hRow), kde.Scale(c.hCol)
		if got := sRow == sCol && sharedOffsetSafe(sRow, rowMins(d2, c.n, c.m), colMins(d2, c.n, c.m)); got != c.shared {
			t.Fatalf("%+v: shared path %v, the case expects %v", c, got, c.shared)
		}
		rows, cols := checkBlockLogSums(t, fmt.Sprintf("%+v", c), d2, c.n, c.m, sRow, sCol)
		for _, v := range append(rows, cols...) {
			if math.IsInf(v, 0) || math.IsNaN(v) {
				t.Fatalf("%+v: %v", c, v)
			}
		}
	}
}

// TestBlockLogSumsOffsetUnderflow: rows 1000 apart in squared distance
// at bandwidth 1, where one offset for the block would put the far rows'
// largest terms at e^−500 and e^−1000, below what a float64 holds: each
// row and column must be offset by its own smallest distance and its log
// sum stay finite and exact.
func TestBlockLogSumsOffsetUnderflow(t *testing.T) {
	const n, m = 3, 5
	d2 := make([]float64, n*m)
	for i := range n {
		for j := range m {
			d2[i*m+j] = 1000*float64(i) + float64(j)
		}
	}
	s := kde.Scale(1)
	checkBlockLogSums(t, "rows 1000 apart", d2, n, m, s, s)
}

func rowMins(d2 []float64, n, m int) []float64 {
	out := make([]float64, n)
	for i := range n {
		out[i] = minOf(d2[i*m : (i+1)*m])
	}
	return out
}

func colMins(d2 []float64, n, m int) []float64 {
	out := make([]float64, m)
	for j := range m {
		out[j] = math.Inf(1)
		for i := range n {
			out[j] = min(out[j], d2[i*m+j])
		}
	}
	return out
}

// BenchmarkBlockLogSums reduces blocks of the sizes the method engine's
// divergence matrices meet (sets of 18, 41 and 100 frames), with one kernel
// for both sets (one exponential per entry) and two, the minima found
// (BlockMins) in each reduction.
func BenchmarkBlockLogSums(b *testing.B) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, n := range []int{18, 41, 100} {
		d2 := make([]float64, n*n)
		for i := range d2 {
			d2[i] = 2 * rng.Float64()
		}
		rows, cols, scratch := make([]float64, n), make([]float64, n), make([]float64, 2*n)
		for _, c := range []struct {
			name       string
			sRow, sCol float64
		}{{"shared", -0.5, -0.5}, {"two", -0.5, -0.25}} {
			b.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(b *testing.B) {
				for b.Loop() {
					BlockMins(d2, scratch[:n], scratch[n:])
					BlockLogSums(d2, c.sRow, c.sCol, scratch[:n], scratch[n:], rows, cols)
				}
			})
		}
	}
}
