package match

// This file holds the per-pair work of the gallery matcher: the block of
// squared distances between a gallery set P (n_p×d) and the query Q (n_q×d),
// and the two log-sum-exp reductions over it (over Q's samples for log q at
// P's samples, over P's samples for log p at Q's samples).

import "math"

// pairScratch is one worker's memory for comparing a gallery set with the
// query: everything is sized for the largest gallery set and reused.
type pairScratch struct {
	d2     []float64 // n_p×n_q squared distances, row-major
	rowMin []float64 // n_p: min over j of d2[i,j]
	colMin []float64 // n_q: min over i of d2[i,j]
	rowSum []float64 // n_p
	colSum []float64 // n_q
	lqp    []float64 // n_p: log q at the samples of P
	lpq    []float64 // n_q: log p at the samples of Q
}

func scratchFloats(np, nq int) int { return np*nq + 3*np + 3*nq }

func newPairScratch(np, nq int) *pairScratch {
	buf := make([]float64, scratchFloats(np, nq))
	take := func(n int) []float64 { s := buf[:n:n]; buf = buf[n:]; return s }
	return &pairScratch{
		d2:     take(np * nq),
		rowMin: take(np), colMin: take(nq),
		rowSum: take(np), colSum: take(nq),
		lqp: take(np), lpq: take(nq),
	}
}

// compare returns the divergences between gallery set p and query q; lpp and
// lqq are their log densities at their own samples.
func (s *pairScratch) compare(p *KDE, lpp []float64, q *KDE, lqq []float64) Divergences {
	np, nq := p.Len(), q.Len()
	d2 := s.d2[:np*nq]
	rowMin, colMin := s.rowMin[:np], s.colMin[:nq]
	sqDists(d2, rowMin, colMin, p, q)
	rowSum, colSum := s.rowSum[:np], s.colSum[:nq]
	lqp, lpq := s.lqp[:np], s.lpq[:nq]
	clear(colSum)

	sp := -0.5 / (p.h * p.h) // exponent per squared distance under p's kernel
	sq := -0.5 / (q.h * q.h)
	if sp == sq && sharedOffsetSafe(sp, rowMin, colMin) {
		// One exponential per entry serves both reductions: offset every
		// exponent by the global maximum instead of each row's and column's.
		g := minOf(rowMin)
		for i := range np {
			row := d2[i*nq : (i+1)*nq]
			cs := colSum[:len(row)]
			var rs float64
			for j, v := range row {
				e := expNonPos(sp * (v - g))
				rs += e
				cs[j] += e
			}
			rowSum[i] = rs
		}
		for i, rs := range rowSum {
			lqp[i] = sp*g + math.Log(rs) + q.logNorm
		}
		for j, cs := range colSum {
			lpq[j] = sp*g + math.Log(cs) + p.logNorm
		}
	} else {
		for i := range np {
			row := d2[i*nq : (i+1)*nq]
			cm := colMin[:len(row)]
			cs := colSum[:len(row)]
			ri := rowMin[i]
			var rs float64
			for j, v := range row {
				rs += expNonPos(sq * (v - ri))
				cs[j] += expNonPos(sp * (v - cm[j]))
			}
			lqp[i] = sq*ri + math.Log(rs) + q.logNorm
		}
		for j, cs := range colSum {
			lpq[j] = sp*colMin[j] + math.Log(cs) + p.logNorm
		}
	}
	return Symmetric(lpp, lqp, lpq, lqq)
}

// sharedOffsetSafe reports whether, with one offset (the global minimum
// squared distance) for every row and column, the largest term of each row
// and each column stays far above the float64 underflow threshold, so that
// every term within e^−40 of it keeps full relative precision.
func sharedOffsetSafe(s float64, rowMin, colMin []float64) bool {
	g := minOf(rowMin)
	worst := max(maxOf(rowMin), maxOf(colMin))
	return s*(worst-g) > expCutoff+60
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
func sqDists(d2, rowMin, colMin []float64, p, q *KDE) {
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
			row[j] = sqDist(pn, q.sqNorm[j], a0)
			row[j+1] = sqDist(pn, q.sqNorm[j+1], a1)
			row[j+2] = sqDist(pn, q.sqNorm[j+2], a2)
			row[j+3] = sqDist(pn, q.sqNorm[j+3], a3)
		}
		for ; j < nq; j++ {
			qj := q.x.RawRowView(j)[:len(pi)]
			var a float64
			for k, v := range pi {
				a += v * qj[k]
			}
			row[j] = sqDist(pn, q.sqNorm[j], a)
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
