package match

// This file holds the per-pair work of the gallery matcher: the block of
// squared distances between a gallery set P (n_p×d) and the query Q (n_q×d),
// and the two log-sum-exp reductions over it (over Q's samples for log q at
// P's samples, over P's samples for log p at Q's samples). The kernels that
// touch every entry of the block have a portable version (below) and, on
// amd64 built with GOEXPERIMENT=simd, an AVX2 version (pair_simd.go).

import (
	"context"
	"math"

	"setmatch/internal/kde"
)

// The distance block between a gallery set and the query is never held
// whole: it is computed and reduced one tile of at most tileRows gallery
// frames × tileCols query frames at a time, and each row's and column's
// log-sum-exp is carried from tile to tile as an (offset, sum) pair (merge).
// Working memory is then a fixed tile plus O(n_p + n_q) floats, whatever the
// sizes of the sets; with one tile the arithmetic is exactly that of the
// whole block. Variables so that tests can force many small tiles; tileCols
// must be a multiple of 16 (the SIMD kernels' widest step) or of 4 at least.
var (
	tileRows = 256
	tileCols = 1024
)

// query is what Compare prepares once per query and shares with every pair.
type query struct {
	*KDE
	self   []float64 // n_q: log q at the samples of Q
	stride int       // n_q, padded to a multiple of 4 for SIMD
	qt     []float64 // d×stride: Q transposed, zero in the padding (SIMD only)
	sqNorm []float64 // stride: |q_j|², +Inf in the padding so padded distances are +Inf
}

func prepareQuery(ctx context.Context, q *KDE, workers int) (*query, error) {
	self, err := q.logDensity(ctx, q.x, nil, workers)
	if err != nil {
		return nil, err
	}
	return newQuery(q, self), nil
}

// newQuery returns the query of q whose log density at its own samples is
// self.
func newQuery(q *KDE, self []float64) *query {
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
	return qp
}

// pairScratch is one worker's memory for comparing a gallery set with the
// query: one tile of squared distances with its row and column reductions,
// and the running (offset, sum) of every row and column. Everything is sized
// for the largest gallery set and reused.
type pairScratch struct {
	d2     []float64 // tr×tc squared distances of one tile, row-major
	rowMin []float64 // tr: min over the tile's columns of each row
	colMin []float64 // tc: min over the tile's rows of each column
	rowSum []float64 // tr
	colSum []float64 // tc
	rowOff []float64 // n_p: running offset of each row's log-sum-exp
	rowAcc []float64 // n_p: running sum of each row
	colOff []float64 // stride
	colAcc []float64 // stride
	lqp    []float64 // n_p: log q at the samples of P
	lpq    []float64 // stride: log p at the samples of Q
}

// tileDims returns the tile of a block of np rows and stride columns.
func tileDims(np, stride int) (tr, tc int) { return min(np, tileRows), min(stride, tileCols) }

func scratchFloats(np, stride int) int {
	tr, tc := tileDims(np, stride)
	return tr*tc + 2*tr + 2*tc + 3*np + 3*stride
}

func newPairScratch(np, stride int) *pairScratch {
	tr, tc := tileDims(np, stride)
	buf := make([]float64, scratchFloats(np, stride))
	take := func(n int) []float64 { s := buf[:n:n]; buf = buf[n:]; return s }
	return &pairScratch{
		d2:     take(tr * tc),
		rowMin: take(tr), colMin: take(tc),
		rowSum: take(tr), colSum: take(tc),
		rowOff: take(np), rowAcc: take(np),
		colOff: take(stride), colAcc: take(stride),
		lqp: take(np), lpq: take(stride),
	}
}

// fits reports whether s has room for a gallery set of np frames against a
// query with distance rows of the given stride.
func (s *pairScratch) fits(np, stride int) bool {
	tr, tc := tileDims(np, stride)
	return len(s.d2) >= tr*tc && len(s.rowMin) >= tr && len(s.colMin) >= tc &&
		len(s.rowOff) >= np && len(s.colOff) >= stride
}

// compare returns the divergences between gallery set p and query q; lpp is
// p's log density at its own samples. It returns ctx's error if ctx ends
// first (checked between tiles).
func (s *pairScratch) compare(ctx context.Context, p *KDE, lpp []float64, q *query) (Divergences, error) {
	np, nq, stride := p.Len(), q.Len(), q.stride
	tr, tc := tileDims(np, stride)
	rowOff, rowAcc := s.rowOff[:np], s.rowAcc[:np]
	colOff, colAcc := s.colOff[:nq], s.colAcc[:nq]
	lqp, lpq := s.lqp[:np], s.lpq[:nq]
	for i := range rowOff {
		rowOff[i], rowAcc[i] = math.Inf(1), 0
	}
	for j := range colOff {
		colOff[j], colAcc[j] = math.Inf(1), 0
	}
	sp := kde.Scale(p.h) // exponent per squared distance under p's kernel
	sq := kde.Scale(q.h)
	for i0 := 0; i0 < np; i0 += tr {
		i1 := min(i0+tr, np)
		for j0 := 0; j0 < stride; j0 += tc {
			if err := ctx.Err(); err != nil {
				return Divergences{}, err
			}
			j1 := min(j0+tc, stride)
			w := j1 - j0
			valid := min(j1, nq) - j0 // columns that are not padding
			d2 := s.d2[:(i1-i0)*w]
			rowMin, colMin := s.rowMin[:i1-i0], s.colMin[:w]
			rowSum, colSum := s.rowSum[:i1-i0], s.colSum[:w]
			if useSIMD {
				sqDistsSIMD(d2, w, rowMin, colMin, p, i0, q, j0)
			} else {
				sqDists(d2, w, rowMin, colMin, p, i0, q, j0)
			}
			clear(colSum)
			if sp == sq && sharedOffsetSafe(sp, rowMin, colMin[:valid]) {
				// One exponential per entry serves both reductions: offset
				// every exponent by the tile's maximum instead of each
				// row's and column's.
				g := minOf(rowMin)
				if useSIMD {
					expSumsSharedSIMD(d2, w, sp, g, rowSum, colSum)
				} else {
					expSumsShared(d2, w, sp, g, rowSum, colSum)
				}
				for i, rs := range rowSum {
					merge(&rowOff[i0+i], &rowAcc[i0+i], g, rs, sq)
				}
				for j, cs := range colSum[:valid] {
					merge(&colOff[j0+j], &colAcc[j0+j], g, cs, sp)
				}
			} else {
				if useSIMD {
					expSumsSIMD(d2, w, sq, sp, rowMin, colMin, rowSum, colSum)
				} else {
					expSums(d2, w, sq, sp, rowMin, colMin, rowSum, colSum)
				}
				for i, rs := range rowSum {
					merge(&rowOff[i0+i], &rowAcc[i0+i], rowMin[i], rs, sq)
				}
				for j, cs := range colSum[:valid] {
					merge(&colOff[j0+j], &colAcc[j0+j], colMin[j], cs, sp)
				}
			}
		}
	}
	for i := range lqp {
		lqp[i] = kde.LogDensity(sq, rowOff[i], rowAcc[i], q.logNorm)
	}
	for j := range lpq {
		lpq[j] = kde.LogDensity(sp, colOff[j], colAcc[j], p.logNorm)
	}
	return Symmetric(lpp, lqp, lpq, q.self), nil
}

// merge adds to the running sum Σ e^{s(d−off)} of one row or column the
// sum Σ e^{s(d−m)} of a tile, keeping the smaller offset (the larger
// exponent) so that the largest term stays near 1. The first tile is taken
// as it is, so that a block of one tile is reduced exactly as a whole one.
func merge(off, acc *float64, m, sum, s float64) {
	switch {
	case *acc == 0:
		*off, *acc = m, sum
	case m < *off:
		*acc = *acc*math.Exp(s*(*off-m)) + sum
		*off = m
	default:
		*acc += sum * math.Exp(s*(m-*off))
	}
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

// BlockMins sets rowMin[i] and colMin[j] to the smallest entry of row i
// and of column j of the len(rowMin)×len(colMin) block d2 (row-major):
// what BlockLogSums takes, the same for every bandwidth.
func BlockMins(d2, rowMin, colMin []float64) {
	m := len(colMin)
	for j := range colMin {
		colMin[j] = math.Inf(1)
	}
	for i := range rowMin {
		row := d2[i*m : (i+1)*m]
		cm := colMin[:len(row)]
		r := math.Inf(1)
		for j, v := range row {
			r = min(r, v)
			cm[j] = min(cm[j], v)
		}
		rowMin[i] = r
	}
}

// BlockLogSums sets rows[i] = log Σ_j e^{sRow·d2[i,j]} and
// cols[j] = log Σ_i e^{sCol·d2[i,j]} for the len(rows)×len(cols) block d2
// of squared distances between the frames of two sets (row-major, row
// stride len(cols)): the log kernel sums of each set's KDE at the other's
// frames, where sRow is kde.Scale of the bandwidth of the set whose
// frames are the columns (the kernels a row sums) and sCol that of the
// rows' set. Where sRow = sCol one exponential per entry serves both
// sums, offset by the block's smallest distance where that cannot
// underflow, as the matcher's compare does; otherwise each row and
// column is offset by its own smallest distance. rowMin and colMin are
// the block's row and column minima (BlockMins), the same for every
// bandwidth a pair of sets is reduced under. Every value of d2 must be
// finite and ≥ 0, and sRow, sCol < 0.
func BlockLogSums(d2 []float64, sRow, sCol float64, rowMin, colMin, rows, cols []float64) {
	m := len(cols)
	clear(cols)
	// The AVX2 kernels take the columns four at a time and leave the last
	// m mod 4 (none in the matcher's padded rows) to the scalar code here,
	// which runs after they have cleared the vector registers' upper halves.
	tail := m
	if useSIMD {
		tail = m &^ 3
	}
	if sRow == sCol && sharedOffsetSafe(sRow, rowMin, colMin) {
		g := minOf(rowMin)
		if useSIMD {
			expSumsSharedSIMD(d2, m, sRow, g, rows, cols)
		} else {
			expSumsShared(d2, m, sRow, g, rows, cols)
		}
		for j := tail; j < m; j++ {
			for i := range rows {
				e := kde.ExpNonPos(sRow * (d2[i*m+j] - g))
				rows[i] += e
				cols[j] += e
			}
		}
		for i, v := range rows {
			rows[i] = sRow*g + math.Log(v)
		}
		for j, v := range cols {
			cols[j] = sRow*g + math.Log(v)
		}
		return
	}
	if useSIMD {
		expSumsSIMD(d2, m, sRow, sCol, rowMin, colMin, rows, cols)
	} else {
		expSums(d2, m, sRow, sCol, rowMin, colMin, rows, cols)
	}
	for j := tail; j < m; j++ {
		for i := range rows {
			v := d2[i*m+j]
			rows[i] += kde.ExpNonPos(sRow * (v - rowMin[i]))
			cols[j] += kde.ExpNonPos(sCol * (v - colMin[j]))
		}
	}
	for i, v := range rows {
		rows[i] = sRow*rowMin[i] + math.Log(v)
	}
	for j, v := range cols {
		cols[j] = sCol*colMin[j] + math.Log(v)
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

// sqDists fills the tile d2 (rows i0… of P against the w query columns
// j0…, row-major with row stride w) with |p_i − q_j|², computed as
// |p_i|² + |q_j|² − 2·p_i·q_j, and the tile's row and column minima
// (len(rowMin) rows, len(colMin) = w columns).
// The dot products are taken four columns at a time so that each load of
// p_i serves four independent accumulation chains.
func sqDists(d2 []float64, w int, rowMin, colMin []float64, p *KDE, i0 int, q *query, j0 int) {
	for j := range colMin {
		colMin[j] = math.Inf(1)
	}
	qn := q.sqNorm[j0 : j0+w]
	for r := range rowMin {
		i := i0 + r
		pi := p.x.RawRowView(i)
		pn := p.sqNorm[i]
		row := d2[r*w : (r+1)*w]
		j := 0
		for ; j+4 <= w; j += 4 {
			q0 := q.x.RawRowView(j0 + j)[:len(pi)]
			q1 := q.x.RawRowView(j0 + j + 1)[:len(pi)]
			q2 := q.x.RawRowView(j0 + j + 2)[:len(pi)]
			q3 := q.x.RawRowView(j0 + j + 3)[:len(pi)]
			var a0, a1, a2, a3 float64
			for k, v := range pi {
				a0 += v * q0[k]
				a1 += v * q1[k]
				a2 += v * q2[k]
				a3 += v * q3[k]
			}
			row[j] = kde.SqDist(pn, qn[j], a0)
			row[j+1] = kde.SqDist(pn, qn[j+1], a1)
			row[j+2] = kde.SqDist(pn, qn[j+2], a2)
			row[j+3] = kde.SqDist(pn, qn[j+3], a3)
		}
		for ; j < w; j++ {
			qj := q.x.RawRowView(j0 + j)[:len(pi)]
			var a float64
			for k, v := range pi {
				a += v * qj[k]
			}
			row[j] = kde.SqDist(pn, qn[j], a)
		}
		rm := math.Inf(1)
		cm := colMin[:len(row)]
		for j, v := range row {
			rm = min(rm, v)
			cm[j] = min(cm[j], v)
		}
		rowMin[r] = rm
	}
}
