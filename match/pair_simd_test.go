//go:build goexperiment.simd && amd64

package match

import (
	"context"
	"math"
	"math/rand/v2"
	"simd/archsimd"
	"testing"
	"unsafe"

	"setmatch/internal/testutil"
)

// TestSIMDMatchesPortable runs the gallery with the AVX2 kernels and with the
// portable ones on the same data, for equal and unequal bandwidths and for
// query sizes that are and are not multiples of the vector width.
func TestSIMDMatchesPortable(t *testing.T) {
	if !useSIMD {
		t.Skip("CPU lacks AVX2 or FMA")
	}
	defer func() { useSIMD = true }() // also after a t.Fatal with the portable kernels on
	rng := rand.New(rand.NewPCG(31, 32))
	for _, c := range []struct{ m, n, nq, d int }{{10, 20, 16, 5}, {12, 33, 37, 20}, {5, 7, 3, 400}, {8, 50, 50, 2}} {
		// Half the sets share the query's bandwidth (one-exponential path).
		sets := halfAtBandwidth(t, randGallery(t, rng, c.m, c.n, c.d), 0.9)
		q := mustKDE(t, testutil.RandSet(rng, c.nq, c.d, 0.5, 1), 0.9)
		fast := galleryCompare(t, sets, q)
		useSIMD = false
		slow := galleryCompare(t, sets, q)
		useSIMD = true
		for k := range fast {
			if !close(fast[k].Hellinger2, slow[k].Hellinger2, 1e-11, 1e-14) || !close(fast[k].Jeffrey, slow[k].Jeffrey, 1e-11, 1e-14) {
				t.Errorf("%+v set %d: SIMD %+v, portable %+v", c, k, fast[k], slow[k])
			}
		}
	}
}

// TestSqDistsSIMDOrder checks every squared distance of the AVX2 kernel,
// bit for bit, against the same sum in scalar code: each dot product
// summed in order of the features with fused multiply-adds, then
// max(0, |p|² + |q|² − 2·dot) fused alike. The kernel's blocking (two
// rows, sixteen columns, the rest four at a time) must not change what
// it computes, only how fast: the divergences, and every figure made
// with them, stay the same to the bit.
func TestSqDistsSIMDOrder(t *testing.T) {
	if !useSIMD {
		t.Skip("CPU lacks AVX2 or FMA")
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for _, c := range []struct{ np, nq, d int }{{1, 1, 1}, {2, 16, 3}, {5, 17, 20}, {7, 37, 2}, {16, 100, 20}, {3, 33, 400}} {
		p := mustKDE(t, testutil.RandSet(rng, c.np, c.d, 0.3, 1), 1)
		qk := mustKDE(t, testutil.RandSet(rng, c.nq, c.d, 0.5, 1), 1)
		q, err := prepareQuery(context.Background(), qk, 1)
		if err != nil {
			t.Fatal(err)
		}
		stride := q.stride
		want := make([]float64, c.np*stride)
		for i := range c.np {
			pi := p.x.RawRowView(i)
			for j := range stride {
				want[i*stride+j] = math.Inf(1) // a padded column
				if j < c.nq {
					dot := 0.0
					for k, v := range pi {
						dot = math.FMA(v, q.qt[k*stride+j], dot)
					}
					want[i*stride+j] = math.Max(0, math.FMA(dot, -2, p.sqNorm[i]+q.sqNorm[j]))
				}
			}
		}
		// The whole block as one tile, and a tile that starts inside it.
		for _, at := range [][2]int{{0, 0}, {c.np / 2, 4 * (stride / 8)}} {
			i0, j0 := at[0], at[1]
			rows, w := c.np-i0, stride-j0
			d2 := make([]float64, rows*w)
			rowMin, colMin := make([]float64, rows), make([]float64, w)
			sqDistsSIMD(d2, w, rowMin, colMin, p, i0, q, j0)
			for i := range rows {
				for j := range w {
					if got, want := d2[i*w+j], want[(i0+i)*stride+j0+j]; math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("%+v, tile at (%d, %d): row %d column %d: %v, want %v", c, i0, j0, i, j, got, want)
					}
				}
			}
		}
	}
}

// TestDots2x16StaysInBounds: dots2x16 forms no pointer past the end of the
// rows it reads. Qᵀ here is one allocation of exactly d rows of 16 columns
// (384 bytes, a size class of its own: no slack after it) and each row of
// P one of d values. It moved its pointers on after the last k, to one row
// past Qᵀ's end, which unsafe.Pointer's rules forbid: under -race (which
// turns on checkptr) this test then stopped with "checkptr: pointer
// arithmetic result points to invalid allocation", as did every test of
// the gallery under GOEXPERIMENT=simd.
func TestDots2x16StaysInBounds(t *testing.T) {
	if !useSIMD {
		t.Skip("CPU lacks AVX2 or FMA")
	}
	const d, stride = 3, 16
	qt := make([]float64, d*stride)
	p0, p1 := make([]float64, d), make([]float64, d)
	heapRows = [][]float64{qt, p0, p1} // on the heap, where checkptr looks
	for k := range d {
		p0[k], p1[k] = float64(k+1), -float64(k+1)
		for j := range stride {
			qt[k*stride+j] = float64(j + 1)
		}
	}
	var acc [8]f64x4
	dots2x16(&acc, unsafe.Pointer(&p0[0]), unsafe.Pointer(&p1[0]), unsafe.Pointer(&qt[0]), d, stride)
	// Σ_k (k+1)·(j+1) = 6(j+1) for row p0, −6(j+1) for p1.
	for v := range acc {
		var a [4]float64
		acc[v].Store(&a)
		for l, got := range a {
			j := (v%4)*4 + l
			want := 6 * float64(j+1)
			if v >= 4 {
				want = -want
			}
			if got != want {
				t.Errorf("row %d column %d: %v, want %v", v/4, j, got, want)
			}
		}
	}
	archsimd.ClearAVXUpperBits()
}

// heapRows keeps TestDots2x16StaysInBounds's rows on the heap: on the
// stack, a pointer past their end is not checked.
var heapRows [][]float64
