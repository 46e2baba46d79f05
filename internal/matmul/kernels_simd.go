//go:build goexperiment.simd && amd64

package matmul

import "simd/archsimd"

// useSIMD selects the AVX2 kernels when the CPU has AVX2. They multiply
// and add in separate, rounded steps (no fused multiply-adds), as gonum's
// SSE2 kernels do.
var useSIMD = archsimd.X86.AVX2()

type f64x4 = archsimd.Float64x4

// mulT sets dst's n×d block (stride ldd) to x·wtᵀ, x n×D (stride ldx),
// the rows of wt in groups of four (groups, from wtGroups), each dot
// product summed in runs of runLen features as gonum's DotUnitary sums a
// run: two rows of x against a group at a time, an odd last row of x
// paired with itself.
func mulT(dst []float64, ldd int, x []float64, ldx int, groups [][4][]float64, n, d, D, runLen int) {
	for i := 0; i < n; i += 2 {
		x0 := x[i*ldx : i*ldx+D]
		x1 := x0
		if i+1 < n {
			x1 = x[(i+1)*ldx : (i+1)*ldx+D]
		}
		for g := range groups {
			j := 4 * g
			nc := min(4, d-j)
			var c0, c1 [4]float64
			dots2x4(&c0, &c1, x0, x1, &groups[g], runLen)
			copy(dst[i*ldd+j:i*ldd+j+nc], c0[:nc])
			if i+1 < n {
				copy(dst[(i+1)*ldd+j:(i+1)*ldd+j+nc], c1[:nc])
			}
		}
	}
}

// dots2x4 adds to c0 and c1 the dot products of x0 and x1 with the four
// rows of w, over runs of runLen features, each run summed as DotUnitary
// sums it and added in turn.
func dots2x4(c0, c1 *[4]float64, x0, x1 []float64, w *[4][]float64, runLen int) {
	D := len(x0)
	x1 = x1[:D]
	w0, w1, w2, w3 := w[0][:D], w[1][:D], w[2][:D], w[3][:D]
	zero := archsimd.BroadcastFloat64x4(0)
	for k0 := 0; k0 < D; k0 += runLen {
		k1 := min(k0+runLen, D)
		a00, a01, a02, a03 := zero, zero, zero, zero
		a10, a11, a12, a13 := zero, zero, zero, zero
		f := k0
		for ; f+4 <= k1; f += 4 {
			xa := archsimd.LoadFloat64x4Slice(x0[f : f+4])
			xb := archsimd.LoadFloat64x4Slice(x1[f : f+4])
			v0 := archsimd.LoadFloat64x4Slice(w0[f : f+4])
			v1 := archsimd.LoadFloat64x4Slice(w1[f : f+4])
			v2 := archsimd.LoadFloat64x4Slice(w2[f : f+4])
			v3 := archsimd.LoadFloat64x4Slice(w3[f : f+4])
			a00 = a00.Add(xa.Mul(v0))
			a01 = a01.Add(xa.Mul(v1))
			a02 = a02.Add(xa.Mul(v2))
			a03 = a03.Add(xa.Mul(v3))
			a10 = a10.Add(xb.Mul(v0))
			a11 = a11.Add(xb.Mul(v1))
			a12 = a12.Add(xb.Mul(v2))
			a13 = a13.Add(xb.Mul(v3))
		}
		c0[0] += runSum(a00, x0[f:k1], w0[f:k1])
		c0[1] += runSum(a01, x0[f:k1], w1[f:k1])
		c0[2] += runSum(a02, x0[f:k1], w2[f:k1])
		c0[3] += runSum(a03, x0[f:k1], w3[f:k1])
		c1[0] += runSum(a10, x1[f:k1], w0[f:k1])
		c1[1] += runSum(a11, x1[f:k1], w1[f:k1])
		c1[2] += runSum(a12, x1[f:k1], w2[f:k1])
		c1[3] += runSum(a13, x1[f:k1], w3[f:k1])
	}
}

// runSum ends a run's dot product as DotUnitary ends it: the features
// left over after the last four (fewer than four) go to the first
// running sum, then (s₀+s₂)+(s₁+s₃). The conversions keep each product
// rounded on its own (no fused multiply-add).
func runSum(a f64x4, x, w []float64) float64 {
	var s [4]float64
	a.Store(&s)
	for f := range x {
		s[0] += float64(x[f] * w[f])
	}
	return (s[0] + s[2]) + (s[1] + s[3])
}

// tmul sets dst's d×cols block (stride ldd) to bᵀ·x, b n×d (stride ldb),
// x n×cols (stride ldx): dst[r·ldd+c] = Σ_l b[l·ldb+r]·x[l·ldx+c] in
// order of l, a zero b skipped. Sixteen columns of x against two columns
// of b at a time (an odd last column of b paired with itself).
//
// With upper ≥ 0 the block is that of a square product starting at its
// column upper, whose entries below the diagonal are not wanted: the strip
// of columns c … c+15 computes only the rows r < upper+c+16, and reads
// and writes of each row only the entries on or above the diagonal (the
// other lanes of its sums are computed and dropped).
//
// The rows l of b and x are taken lBlock at a time, each entry's sum
// kept in dst between them (stored and loaded whole, so the sum is the
// same), so that the block of x a strip reads stays in the cache for
// every pair of columns of b.
func tmul(dst []float64, ldd int, b []float64, ldb int, x []float64, ldx int, n, d, cols, upper int) {
	var acc [2][16]float64
	for c := 0; c < cols; c += 16 {
		cw := min(16, cols-c)
		rows := d
		if upper >= 0 {
			rows = min(d, upper+c+cw)
		}
		for l0 := 0; l0 < max(n, 1); l0 += lBlock {
			ln := min(lBlock, n-l0)
			bl, xl := b[l0*ldb:], x[l0*ldx+c:]
			for r := 0; r < rows; r += 2 {
				rb := min(r+1, d-1)
				// The first column of the strip each row keeps.
				lo0, lo1 := 0, 0
				if upper >= 0 {
					lo0, lo1 = min(max(r-upper-c, 0), cw), min(max(rb-upper-c, 0), cw)
				}
				if l0 == 0 {
					acc = [2][16]float64{}
				} else {
					copy(acc[0][lo0:cw], dst[r*ldd+c+lo0:r*ldd+c+cw])
					copy(acc[1][lo1:cw], dst[rb*ldd+c+lo1:rb*ldd+c+cw])
				}
				if cw == 16 {
					axpy2x16(&acc, bl[r:], bl[rb:], ldb, xl, ldx, ln)
				} else {
					tmul2xNarrow(&acc, bl[r:], bl[rb:], ldb, xl, ldx, ln, cw)
				}
				copy(dst[r*ldd+c+lo0:r*ldd+c+cw], acc[0][lo0:cw])
				if rb != r {
					copy(dst[rb*ldd+c+lo1:rb*ldd+c+cw], acc[1][lo1:cw])
				}
			}
		}
	}
}

// lBlock is how many rows of x tmul takes at a time: 128 rows of a strip
// of 16 columns are 16 KiB.
const lBlock = 128

// axpy2x16 adds to the sums in acc, in order of the n rows l,
// a0[l·lda]·r[l·ldr : l·ldr+16] (acc[0]) and a1[l·lda]·… (acc[1]), a zero a
// skipped: the entries of bᵀ·x (a the columns of b, r the rows of x) and
// of x·w (a the rows of x, r the rows of w) as Dgemm's axpys sum them.
func axpy2x16(acc *[2][16]float64, a0, a1 []float64, lda int, r []float64, ldr, n int) {
	a00 := archsimd.LoadFloat64x4Slice(acc[0][0:4])
	a01 := archsimd.LoadFloat64x4Slice(acc[0][4:8])
	a02 := archsimd.LoadFloat64x4Slice(acc[0][8:12])
	a03 := archsimd.LoadFloat64x4Slice(acc[0][12:16])
	a10 := archsimd.LoadFloat64x4Slice(acc[1][0:4])
	a11 := archsimd.LoadFloat64x4Slice(acc[1][4:8])
	a12 := archsimd.LoadFloat64x4Slice(acc[1][8:12])
	a13 := archsimd.LoadFloat64x4Slice(acc[1][12:16])
	for l := range n {
		rl := r[l*ldr : l*ldr+16]
		r0 := archsimd.LoadFloat64x4Slice(rl[0:4])
		r1 := archsimd.LoadFloat64x4Slice(rl[4:8])
		r2 := archsimd.LoadFloat64x4Slice(rl[8:12])
		r3 := archsimd.LoadFloat64x4Slice(rl[12:16])
		if v := a0[l*lda]; v != 0 {
			s := archsimd.BroadcastFloat64x4(v)
			a00 = a00.Add(r0.Mul(s))
			a01 = a01.Add(r1.Mul(s))
			a02 = a02.Add(r2.Mul(s))
			a03 = a03.Add(r3.Mul(s))
		}
		if v := a1[l*lda]; v != 0 {
			s := archsimd.BroadcastFloat64x4(v)
			a10 = a10.Add(r0.Mul(s))
			a11 = a11.Add(r1.Mul(s))
			a12 = a12.Add(r2.Mul(s))
			a13 = a13.Add(r3.Mul(s))
		}
	}
	a00.StoreSlice(acc[0][0:4])
	a01.StoreSlice(acc[0][4:8])
	a02.StoreSlice(acc[0][8:12])
	a03.StoreSlice(acc[0][12:16])
	a10.StoreSlice(acc[1][0:4])
	a11.StoreSlice(acc[1][4:8])
	a12.StoreSlice(acc[1][8:12])
	a13.StoreSlice(acc[1][12:16])
}

// tmul2xNarrow is axpy2x16 for the cols < 16 columns at the end of a
// row.
func tmul2xNarrow(acc *[2][16]float64, b0, b1 []float64, ldb int, x []float64, ldx int, n, cols int) {
	for l := range n {
		xr := x[l*ldx : l*ldx+cols]
		if v := b0[l*ldb]; v != 0 {
			for k, xv := range xr {
				acc[0][k] += float64(v * xv)
			}
		}
		if v := b1[l*ldb]; v != 0 {
			for k, xv := range xr {
				acc[1][k] += float64(v * xv)
			}
		}
	}
}

// mul sets dst's n×d block (stride ldd) to x·w, x n×D (stride ldx), w
// D×d (stride ldw, rows padded with zeros to a multiple of 16 columns):
// dst[i·ldd+j] = Σ_l x[i·ldx+l]·w[l·ldw+j] in order of l, a zero x
// skipped. Two rows of x against sixteen columns of w at a time (an odd
// last row of x paired with itself); the sums of the padding are
// dropped.
func mul(dst []float64, ldd int, x []float64, ldx int, w []float64, ldw int, n, d, D int) {
	var acc [2][16]float64
	for j := 0; j < d; j += 16 {
		cw := min(16, d-j)
		for i := 0; i < n; i += 2 {
			ib := min(i+1, n-1)
			acc = [2][16]float64{}
			axpy2x16(&acc, x[i*ldx:i*ldx+D], x[ib*ldx:ib*ldx+D], 1, w[j:], ldw, D)
			copy(dst[i*ldd+j:i*ldd+j+cw], acc[0][:cw])
			if ib != i {
				copy(dst[ib*ldd+j:ib*ldd+j+cw], acc[1][:cw])
			}
		}
	}
}
