//go:build goexperiment.simd && amd64

package match

import (
	"math"
	"simd/archsimd"
	"unsafe"

	"setmatch/internal/kde"
)

// useSIMD selects the AVX2+FMA kernels when the CPU has them. They compute
// the same quantities as the portable kernels in pair.go, four lanes at a
// time and with fused multiply-adds, so results agree to rounding.
var useSIMD = archsimd.X86.AVX2() && archsimd.X86.FMA()

type f64x4 = archsimd.Float64x4

var (
	vZero      = archsimd.BroadcastFloat64x4(0)
	vMinus2    = archsimd.BroadcastFloat64x4(-2)
	vLog2e     = archsimd.BroadcastFloat64x4(kde.Log2e)
	vRoundHalf = archsimd.BroadcastFloat64x4(kde.RoundHalf)
	vNegLn2hi  = archsimd.BroadcastFloat64x4(-kde.Ln2Hi)
	vNegLn2lo  = archsimd.BroadcastFloat64x4(-kde.Ln2Lo)
	vCutoff    = archsimd.BroadcastFloat64x4(kde.ExpCutoff)
	vOne       = archsimd.BroadcastFloat64x4(1)
	vBias      = archsimd.BroadcastInt64x4(1023)
	vC         = [...]f64x4{
		archsimd.BroadcastFloat64x4(1.0 / 2), archsimd.BroadcastFloat64x4(1.0 / 6),
		archsimd.BroadcastFloat64x4(1.0 / 24), archsimd.BroadcastFloat64x4(1.0 / 120),
		archsimd.BroadcastFloat64x4(1.0 / 720), archsimd.BroadcastFloat64x4(1.0 / 5040),
		archsimd.BroadcastFloat64x4(1.0 / 40320), archsimd.BroadcastFloat64x4(1.0 / 362880),
		archsimd.BroadcastFloat64x4(1.0 / 3628800), archsimd.BroadcastFloat64x4(1.0 / 39916800),
		archsimd.BroadcastFloat64x4(1.0 / 479001600),
	}
)

// expNonPos4 is kde.ExpNonPos on four lanes: the same range reduction and
// polynomial, with fused multiply-adds.
func expNonPos4(x f64x4) f64x4 {
	t := x.MulAdd(vLog2e, vRoundHalf)
	k := t.Sub(vRoundHalf)
	r := k.MulAdd(vNegLn2hi, x)
	r = k.MulAdd(vNegLn2lo, r)
	r2 := r.Mul(r)
	r4 := r2.Mul(r2)
	q0 := r2.MulAdd(r.MulAdd(vC[1], vC[0]), vOne.Add(r))
	q1 := r2.MulAdd(r.MulAdd(vC[5], vC[4]), r.MulAdd(vC[3], vC[2]))
	q2 := r2.MulAdd(r.MulAdd(vC[9], vC[8]), r.MulAdd(vC[7], vC[6]))
	u := r4.MulAdd(vC[10], q2)
	u = r4.MulAdd(u, q1)
	p := r4.MulAdd(u, q0)
	scale := t.AsInt64x4().Add(vBias).ShiftAllLeft(52).AsFloat64x4()
	return p.Mul(scale).Masked(x.Greater(vCutoff))
}

func hsum(v f64x4) float64 {
	var a [4]float64
	v.Store(&a)
	return (a[0] + a[1]) + (a[2] + a[3])
}

// sqDistsSIMD is sqDists with the query transposed (d×stride): two rows of
// P at a time, sixteen columns of dot products accumulate at once from
// broadcasts of p_ik times four-wide rows of Qᵀ, so that every load of Qᵀ
// feeds two fused multiply-adds. Padded columns come out +Inf. j0 and w are
// multiples of 4.
func sqDistsSIMD(d2 []float64, w int, rowMin, colMin []float64, p *KDE, i0 int, q *query, j0 int) {
	nr := len(rowMin)
	for j := range colMin {
		colMin[j] = math.Inf(1)
	}
	r := 0
	for ; r+2 <= nr; r += 2 {
		sqDistRows2(d2[r*w:(r+2)*w], w, p, i0+r, q, j0)
	}
	if r < nr {
		sqDistRow1(d2[r*w:(r+1)*w], w, p, i0+r, q, j0)
	}
	for r := range nr {
		row := d2[r*w : (r+1)*w]
		rm := archsimd.BroadcastFloat64x4(math.Inf(1))
		cm := colMin[:len(row)]
		for j := 0; j+4 <= len(row); j += 4 {
			v := archsimd.LoadFloat64x4Slice(row[j : j+4])
			rm = rm.Min(v)
			archsimd.LoadFloat64x4Slice(cm[j : j+4]).Min(v).StoreSlice(cm[j : j+4])
		}
		var a [4]float64
		rm.Store(&a)
		rowMin[r] = min(a[0], a[1], a[2], a[3])
	}
	archsimd.ClearAVXUpperBits() // see the note at expSumsSIMD
}

// sqDistRows2 fills two rows of distances (2×w) for rows i and i+1 of P
// against query columns j0 to j0+w.
func sqDistRows2(dst []float64, w int, p *KDE, i int, q *query, j0 int) {
	d, stride := p.Dim(), q.stride
	p0 := p.x.RawRowView(i)[:d]
	p1 := p.x.RawRowView(i + 1)[:d]
	n0 := archsimd.BroadcastFloat64x4(p.sqNorm[i])
	n1 := archsimd.BroadcastFloat64x4(p.sqNorm[i+1])
	r0, r1 := dst[:w], dst[w:2*w]
	qt := q.qt[:d*stride]
	qn := q.sqNorm[j0 : j0+w]
	j := 0
	var acc [8]f64x4
	for ; j+16 <= w; j += 16 {
		_ = qt[(d-1)*stride+j0+j+15] // every load of dots2x16 is within qt
		dots2x16(&acc, unsafe.Pointer(&p0[0]), unsafe.Pointer(&p1[0]), unsafe.Pointer(&qt[j0+j]), d, stride)
		qj := qn[j : j+16]
		storeDists(r0[j:j+4], acc[0], n0, qj[0:4])
		storeDists(r0[j+4:j+8], acc[1], n0, qj[4:8])
		storeDists(r0[j+8:j+12], acc[2], n0, qj[8:12])
		storeDists(r0[j+12:j+16], acc[3], n0, qj[12:16])
		storeDists(r1[j:j+4], acc[4], n1, qj[0:4])
		storeDists(r1[j+4:j+8], acc[5], n1, qj[4:8])
		storeDists(r1[j+8:j+12], acc[6], n1, qj[8:12])
		storeDists(r1[j+12:j+16], acc[7], n1, qj[12:16])
	}
	for ; j < w; j += 4 {
		a0, a1 := vZero, vZero
		off := j0 + j
		for k, v0 := range p0 {
			qv := archsimd.LoadFloat64x4Slice(qt[off : off+4])
			off += stride
			a0 = archsimd.BroadcastFloat64x4(v0).MulAdd(qv, a0)
			a1 = archsimd.BroadcastFloat64x4(p1[k]).MulAdd(qv, a1)
		}
		storeDists(r0[j:j+4], a0, n0, qn[j:j+4])
		storeDists(r1[j:j+4], a1, n1, qn[j:j+4])
	}
}

// dots2x16 sets acc to the dot products of two rows of P (p0, p1: d
// values each) with sixteen columns of Qᵀ (q: d rows of 16 values,
// stride apart), summed in order of k with fused multiply-adds: acc[0:4]
// row p0, acc[4:8] row p1, four columns each. The caller checks that
// every load is in bounds: with a check at each of the loop's loads the
// compiler spilled the accumulators, and the matcher took a sixth longer.
// The pointers move on between two k, not after the last: moved on after
// it, q would point past the end of Qᵀ and p1 past P's last row, which
// unsafe.Pointer's rules forbid (checkptr, on under -race, stops there).
func dots2x16(acc *[8]f64x4, p0, p1, q unsafe.Pointer, d, stride int) {
	a00, a01, a02, a03 := vZero, vZero, vZero, vZero
	a10, a11, a12, a13 := vZero, vZero, vZero, vZero
	step := uintptr(stride) * 8
	for k := 1; k <= d; k++ {
		q0 := archsimd.LoadFloat64x4((*[4]float64)(q))
		q1 := archsimd.LoadFloat64x4((*[4]float64)(unsafe.Add(q, 32)))
		q2 := archsimd.LoadFloat64x4((*[4]float64)(unsafe.Add(q, 64)))
		q3 := archsimd.LoadFloat64x4((*[4]float64)(unsafe.Add(q, 96)))
		b0 := archsimd.BroadcastFloat64x4(*(*float64)(p0))
		b1 := archsimd.BroadcastFloat64x4(*(*float64)(p1))
		a00 = b0.MulAdd(q0, a00)
		a01 = b0.MulAdd(q1, a01)
		a02 = b0.MulAdd(q2, a02)
		a03 = b0.MulAdd(q3, a03)
		a10 = b1.MulAdd(q0, a10)
		a11 = b1.MulAdd(q1, a11)
		a12 = b1.MulAdd(q2, a12)
		a13 = b1.MulAdd(q3, a13)
		if k == d {
			break
		}
		q = unsafe.Add(q, step)
		p0 = unsafe.Add(p0, 8)
		p1 = unsafe.Add(p1, 8)
	}
	acc[0], acc[1], acc[2], acc[3] = a00, a01, a02, a03
	acc[4], acc[5], acc[6], acc[7] = a10, a11, a12, a13
}

// sqDistRow1 fills one row of distances for row i of P against query
// columns j0 to j0+w.
func sqDistRow1(dst []float64, w int, p *KDE, i int, q *query, j0 int) {
	d, stride := p.Dim(), q.stride
	p0 := p.x.RawRowView(i)[:d]
	n0 := archsimd.BroadcastFloat64x4(p.sqNorm[i])
	qt := q.qt[:d*stride]
	qn := q.sqNorm[j0 : j0+w]
	for j := 0; j+4 <= w; j += 4 {
		a := vZero
		off := j0 + j
		for _, v := range p0 {
			a = archsimd.BroadcastFloat64x4(v).MulAdd(archsimd.LoadFloat64x4Slice(qt[off:off+4]), a)
			off += stride
		}
		storeDists(dst[j:j+4], a, n0, qn[j:j+4])
	}
}

// storeDists stores max(0, |p|² + |q|² − 2·dot) for four columns. The
// sum is always a number: NewKDE bounds every frame's squared norm
// (MaxSqNorm), so the Max, which would give 0 where kde.SqDist gives NaN,
// never meets a NaN, and costs nothing more than the clamp.
func storeDists(dst []float64, dot, pn f64x4, qn []float64) {
	dot.MulAdd(vMinus2, pn.Add(archsimd.LoadFloat64x4Slice(qn))).Max(vZero).StoreSlice(dst)
}

func expSumsSharedSIMD(d2 []float64, stride int, s, g float64, rowSum, colSum []float64) {
	vs := archsimd.BroadcastFloat64x4(s)
	vg := archsimd.BroadcastFloat64x4(g)
	cs := colSum[:stride]
	for i := range rowSum {
		row := d2[i*stride : (i+1)*stride]
		rs := vZero
		for j := 0; j+4 <= len(row); j += 4 {
			e := expNonPos4(archsimd.LoadFloat64x4Slice(row[j : j+4]).Sub(vg).Mul(vs))
			rs = rs.Add(e)
			archsimd.LoadFloat64x4Slice(cs[j : j+4]).Add(e).StoreSlice(cs[j : j+4])
		}
		rowSum[i] = hsum(rs)
	}
	archsimd.ClearAVXUpperBits()
}

func expSumsSIMD(d2 []float64, stride int, sRow, sCol float64, rowMin, colMin, rowSum, colSum []float64) {
	vr := archsimd.BroadcastFloat64x4(sRow)
	vc := archsimd.BroadcastFloat64x4(sCol)
	cs := colSum[:stride]
	cm := colMin[:stride]
	for i := range rowSum {
		row := d2[i*stride : (i+1)*stride]
		ri := archsimd.BroadcastFloat64x4(rowMin[i])
		rs := vZero
		for j := 0; j+4 <= len(row); j += 4 {
			v := archsimd.LoadFloat64x4Slice(row[j : j+4])
			rs = rs.Add(expNonPos4(v.Sub(ri).Mul(vr)))
			ec := expNonPos4(v.Sub(archsimd.LoadFloat64x4Slice(cm[j : j+4])).Mul(vc))
			archsimd.LoadFloat64x4Slice(cs[j : j+4]).Add(ec).StoreSlice(cs[j : j+4])
		}
		rowSum[i] = hsum(rs)
	}
	// Leave the upper halves of the vector registers clear (VZEROUPPER):
	// the SSE code that runs next (math.Exp's assembly in the per-point
	// terms) otherwise pays for a false dependency on them at every
	// instruction, which made math.Exp 14 times slower and the whole AVX2
	// matcher slower than the portable one.
	archsimd.ClearAVXUpperBits()
}

// sumExpBelowSIMD returns Σ e^{a_i − mx} over the first len(a)&^3 entries
// of a, four lanes at a time (sumExpBelow adds the rest).
func sumExpBelowSIMD(a []float64, mx float64) float64 {
	vm := archsimd.BroadcastFloat64x4(mx)
	s := vZero
	for j := 0; j+4 <= len(a); j += 4 {
		s = s.Add(expNonPos4(archsimd.LoadFloat64x4Slice(a[j : j+4]).Sub(vm)))
	}
	sum := hsum(s)
	archsimd.ClearAVXUpperBits()
	return sum
}
