//go:build goexperiment.simd && amd64

package match

import (
	"math"
	"simd/archsimd"
)

// useSIMD selects the AVX2+FMA kernels when the CPU has them. They compute
// the same quantities as the portable kernels in pair.go, four lanes at a
// time and with fused multiply-adds, so results agree to rounding.
var useSIMD = archsimd.X86.AVX2() && archsimd.X86.FMA()

type f64x4 = archsimd.Float64x4

var (
	vZero      = archsimd.BroadcastFloat64x4(0)
	vMinus2    = archsimd.BroadcastFloat64x4(-2)
	vLog2e     = archsimd.BroadcastFloat64x4(log2e)
	vRoundHalf = archsimd.BroadcastFloat64x4(roundHalf)
	vNegLn2hi  = archsimd.BroadcastFloat64x4(-ln2hi)
	vNegLn2lo  = archsimd.BroadcastFloat64x4(-ln2lo)
	vCutoff    = archsimd.BroadcastFloat64x4(expCutoff)
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

// expNonPos4 is expNonPos on four lanes: the same range reduction and
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

// sqDistsSIMD is sqDists with the query transposed (d×stride): for each row
// of P, sixteen columns of dot products accumulate at once from broadcasts
// of p_ik times four-wide rows of Qᵀ. Padded columns come out +Inf.
func sqDistsSIMD(d2, rowMin, colMin []float64, p *KDE, q *query) {
	np, d, stride := p.Len(), p.Dim(), q.stride
	for j := range colMin {
		colMin[j] = math.Inf(1)
	}
	qt := q.qt[:d*stride]
	for i := range np {
		pi := p.x.RawRowView(i)[:d]
		pn := archsimd.BroadcastFloat64x4(p.sqNorm[i])
		row := d2[i*stride : (i+1)*stride]
		j := 0
		for ; j+16 <= stride; j += 16 {
			a0, a1, a2, a3 := vZero, vZero, vZero, vZero
			for k, v := range pi {
				b := archsimd.BroadcastFloat64x4(v)
				qk := qt[k*stride+j : k*stride+j+16]
				a0 = b.MulAdd(archsimd.LoadFloat64x4Slice(qk[0:4]), a0)
				a1 = b.MulAdd(archsimd.LoadFloat64x4Slice(qk[4:8]), a1)
				a2 = b.MulAdd(archsimd.LoadFloat64x4Slice(qk[8:12]), a2)
				a3 = b.MulAdd(archsimd.LoadFloat64x4Slice(qk[12:16]), a3)
			}
			storeDists(row[j:j+4], a0, pn, q.sqNorm[j:j+4])
			storeDists(row[j+4:j+8], a1, pn, q.sqNorm[j+4:j+8])
			storeDists(row[j+8:j+12], a2, pn, q.sqNorm[j+8:j+12])
			storeDists(row[j+12:j+16], a3, pn, q.sqNorm[j+12:j+16])
		}
		for ; j < stride; j += 4 {
			a := vZero
			for k, v := range pi {
				a = archsimd.BroadcastFloat64x4(v).MulAdd(archsimd.LoadFloat64x4Slice(qt[k*stride+j:k*stride+j+4]), a)
			}
			storeDists(row[j:j+4], a, pn, q.sqNorm[j:j+4])
		}
		rm := archsimd.BroadcastFloat64x4(math.Inf(1))
		cm := colMin[:len(row)]
		for j := 0; j < len(row); j += 4 {
			v := archsimd.LoadFloat64x4Slice(row[j : j+4])
			rm = rm.Min(v)
			archsimd.LoadFloat64x4Slice(cm[j : j+4]).Min(v).StoreSlice(cm[j : j+4])
		}
		var a [4]float64
		rm.Store(&a)
		rowMin[i] = min(a[0], a[1], a[2], a[3])
	}
}

// storeDists stores max(0, |p|² + |q|² − 2·dot) for four columns.
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
}
