package match

// This file holds the per-pair work of the gallery matcher: the block of
// squared distances between a gallery set P (n_p×d) and the query Q (n_q×d),
// and the two log-sum-exp reductions over it (over Q's samples for log q at
// P's samples, over P's samples for log p at Q's samples). The kernels that
// touch every entry of the block have a portable version (below) and, on
// amd64 built with GOEXPERIMENT=simd, an AVX2 version (pair_simd.go).

import (
	"math"

	"setmatch/internal/kde"
)

// query is what Compare prepares once per query and shares with every pair.
type query struct {
	*KDE
	self   []float64 // n_q: log q at the samples of Q
	stride int       // row stride of the distance block: n_q, padded to a multiple of 4 for SIMD
	qt     []float64 // d×stride: Q transposed, zero in the padding (SIMD only)
	sqNorm []float64 // stride: |q_j|², +Inf in the padding so padded distances are +Inf
}

func prepareQuery(q *KDE) (*query, error) {
	self, err := q.LogDensity(q.x, nil)
	if err != nil {
		return nil, err
	}
	qp := &query{KDE: q, self: self, stride: q.Len(), sqNorm: q.sqNorm}
	if useSIMD {
		n, d := q.Len(), q.Dim()
		qp.stride = (n + 3) &^ 3
		qp.qt = make([]float64, d*qp.stride)
		for j := range n {
			for k, v := range q.x.RawRowView(j) {
				qp.qt[k*qp.stride+j] = v
			}
		}
		qp.sqNorm = make([]float64, qp.stride)
		copy(qp.sqNorm, q.sqNorm)
		for j := n; j < qp.stride; j++ {
			qp.sqNorm[j] = math.Inf(1)
		}
	}
	return qp, nil
}

// pairScratch is one worker's memory for comparing a gallery set with the
// query: everything is sized for the largest gallery set and reused.
type pairScratch struct {
	d2     []float64 // n_p×stride squared distances, row-major
	rowMin []float64 // n_p: min over j of d2[i,j]
	colMin []float64 // stride: min over i of d2[i,j]
	rowSum []float64 // n_p
	colSum []float64 // stride
	lqp    []float64 // n_p: log q at the samples of P
	lpq    []float64 // stride: log p at the samples of Q
}

func scratchFloats(np, stride int) int { return np*stride + 3*np + 3*stride }

func newPairScratch(np, stride int) *pairScratch {
	buf := make([]float64, scratchFloats(np, stride))
	take := func(n int) []float64 { s := buf[:n:n]; buf = buf[n:]; return s }
	return &pairScratch{
		d2:     take(np * stride),
		rowMin: take(np), colMin: take(stride),
		rowSum: take(np), colSum: take(stride),
		lqp: take(np), lpq: take(stride),
	}
}

// fits reports whether s has room for a gallery set of np frames against a
// query with distance rows of the given stride.
func (s *pairScratch) fits(np, stride int) bool {
	return len(s.d2) >= np*stride && len(s.rowMin) >= np && len(s.colMin) >= stride
}

// compare returns the divergences between gallery set p and query q; lpp is
// p's log density at its own samples.
func (s *pairScratch) compare(p *KDE, lpp []float64, q *query) Divergences {
	np, nq, stride := p.Len(), q.Len(), q.stride
	d2 := s.d2[:np*stride]
	rowMin, colMin := s.rowMin[:np], s.colMin[:stride]
	rowSum, colSum := s.rowSum[:np], s.colSum[:stride]
	lqp, lpq := s.lqp[:np], s.lpq[:nq]
	if useSIMD {
		sqDistsSIMD(d2, rowMin, colMin, p, q)
	} else {
		sqDists(d2, rowMin, colMin, p, q)
	}
	clear(colSum)

	sp := kde.Scale(p.h) // exponent per squared distance under p's kernel
	sq := kde.Scale(q.h)
	if sp == sq && sharedOffsetSafe(sp, rowMin, colMin[:nq]) {
		// One exponential per entry serves both reductions: offset every
		// exponent by the global maximum instead of each row's and column's.
		g := minOf(rowMin)
		if useSIMD {
			expSumsSharedSIMD(d2, stride, sp, g, rowSum, colSum)
		} else {
			expSumsShared(d2, stride, sp, g, rowSum, colSum)
		}
		for i, rs := range rowSum {
			lqp[i] = kde.LogDensity(sp, g, rs, q.logNorm)
		}
		for j := range lpq {
			lpq[j] = kde.LogDensity(sp, g, colSum[j], p.logNorm)
		}
	} else {
		if useSIMD {
			expSumsSIMD(d2, stride, sq, sp, rowMin, colMin, rowSum, colSum)
		} else {
			expSums(d2, stride, sq, sp, rowMin, colMin, rowSum, colSum)
		}
		for i, rs := range rowSum {
			lqp[i] = kde.LogDensity(sq, rowMin[i], rs, q.logNorm)
		}
		for j := range lpq {
			lpq[j] = kde.LogDensity(sp, colMin[j], colSum[j], p.logNorm)
		}
	}
	return Symmetric(lpp, lqp, lpq, q.self)
}

// expSumsShared sets rowSum[i] = Σ_j e^{s(d2[i,j]−g)} and adds the same terms
// into colSum[j].
func expSumsShared(d2 []float64, stride int, s, g float64, rowSum, colSum []float64) {
	for i := range rowSum {
		row := d2[i*stride : (i+1)*stride]
		cs := colSum[:len(row)]
		var rs float64
		for j, v := range row {
			e := kde.ExpNonPos(s * (v - g))
			rs += e
			cs[j] += e
		}
		rowSum[i] = rs
	}
}

// expSums sets rowSum[i] = Σ_j e^{sRow(d2[i,j]−rowMin[i])} and
// colSum[j] = Σ_i e^{sCol(d2[i,j]−colMin[j])}: each reduction offset by its
// own maximum exponent, for gallery and query kernels of different widths.
func expSums(d2 []float64, stride int, sRow, sCol float64, rowMin, colMin, rowSum, colSum []float64) {
	for i := range rowSum {
		row := d2[i*stride : (i+1)*stride]
		cm := colMin[:len(row)]
		cs := colSum[:len(row)]
		ri := rowMin[i]
		var rs float64
		for j, v := range row {
			rs += kde.ExpNonPos(sRow * (v - ri))
			cs[j] += kde.ExpNonPos(sCol * (v - cm[j]))
		}
		rowSum[i] = rs
	}
}

// sharedOffsetSafe reports whether, with one offset (the global minimum
// squared distance) for every row and column, the largest term of each row
// and each column stays far above the float64 underflow threshold, so that
// every term within e^−40 of it keeps full relative precision.
func sharedOffsetSafe(s float64, rowMin, colMin []float64) bool {
	g := minOf(rowMin)
	worst := max(maxOf(rowMin), maxOf(colMin))
	return s*(worst-g) > kde.ExpCutoff+60
}

func minOf(a []float64) float64 {
	m := math.Inf(1)
	for _, v := range a {
		m = min(m, v)
	}
	return m
}

func maxOf(a []float64) float64 {
	m := math.Inf(-1)
	for _, v := range a {
		m = max(m, v)
	}
	return m
}

// sqDists fills d2 (n_p×n_q, row-major) with |p_i − q_j|², computed as
// |p_i|² + |q_j|² − 2·p_i·q_j, and the row and column minima.
// The dot products are taken four columns at a time so that each load of
// p_i serves four independent accumulation chains.
func sqDists(d2, rowMin, colMin []float64, p *KDE, q *query) {
	np, nq := p.Len(), q.Len()
	for j := range colMin {
		colMin[j] = math.Inf(1)
	}
	for i := range np {
		pi := p.x.RawRowView(i)
		pn := p.sqNorm[i]
		row := d2[i*nq : (i+1)*nq]
		j := 0
		for ; j+4 <= nq; j += 4 {
			q0 := q.x.RawRowView(j)[:len(pi)]
			q1 := q.x.RawRowView(j + 1)[:len(pi)]
			q2 := q.x.RawRowView(j + 2)[:len(pi)]
			q3 := q.x.RawRowView(j + 3)[:len(pi)]
			var a0, a1, a2, a3 float64
			for k, v := range pi {
				a0 += v * q0[k]
				a1 += v * q1[k]
				a2 += v * q2[k]
				a3 += v * q3[k]
			}
			row[j] = kde.SqDist(pn, q.sqNorm[j], a0)
			row[j+1] = kde.SqDist(pn, q.sqNorm[j+1], a1)
			row[j+2] = kde.SqDist(pn, q.sqNorm[j+2], a2)
			row[j+3] = kde.SqDist(pn, q.sqNorm[j+3], a3)
		}
		for ; j < nq; j++ {
			qj := q.x.RawRowView(j)[:len(pi)]
			var a float64
			for k, v := range pi {
				a += v * qj[k]
			}
			row[j] = kde.SqDist(pn, q.sqNorm[j], a)
		}
		rm := math.Inf(1)
		cm := colMin[:len(row)]
		for j, v := range row {
			rm = min(rm, v)
			cm[j] = min(cm[j], v)
		}
		rowMin[i] = rm
	}
}
