package learn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/internal/kde"
	"setmatch/internal/matmul"
	"setmatch/internal/par"
	"setmatch/match"
)

// The training cost (paper Eq. 15) and its Euclidean gradient.
//
// For sets X_i (n_i×D) and a projection W (D×d), Y_i = X_i W and the KDE of
// set i with bandwidth h_i has log density
//
//	log p_i(y) = LSE_k(−|y − y_k|²/(2h_i²)) − log n_i − (d/2)·log(2πh_i²).
//
// For a pair (P, Q) let r(x) = log p(Wᵀx) − log q(Wᵀx) at every sample of
// both sets. The symmetric estimator is δ = mean_P t(r) + mean_Q t(r) with
// t = match.HellingerTerm or match.JeffreyTerm, so
//
//	∂δ/∂W = Σ_x c_x t'(r(x)) (∂log p(Wᵀx)/∂W − ∂log q(Wᵀx)/∂W),   c_x = 1/n_P or 1/n_Q,
//	∂log p(Wᵀx)/∂W = −(1/h_p²) Σ_k w_k (x − x_k)(x − x_k)ᵀ W,
//
// with w_k the softmax weights of the LSE. Every piece is therefore a sum,
// over evaluation points a and centres k, of a scalar A_ak times
// (x_a − x_k)(x_a − x_k)ᵀW, and
//
//	Σ A_ak (x_a − x_k)(x_a − x_k)ᵀW = X_aᵀ[diag(A1)Y_a − AY_k] + X_kᵀ[diag(Aᵀ1)Y_k − AᵀY_a].
//
// So the gradient is Σ_i X_iᵀ B_i with B_i (n_i×d) accumulated from n×n by
// n×d products, and the only products with D are Y = XW and G = XᵀB, both
// N×D by small. No D×D matrix is formed.
//
// Per pair, the only pair-specific work is the n_P×n_Q block of squared
// distances (one product) and its two softmaxes. The terms where a set's own
// density is evaluated at its own samples are shared by all its pairs: their
// coefficients u_i (one per sample) are summed over the pairs first and the
// n_i×n_i block is done once per set.

// PairWeight is one term a·δ(WᵀX_I, WᵀX_J) of the cost, I < J.
type PairWeight struct {
	I, J int
	A    float64 // affinity a_IJ, non-zero
}

// Cost evaluates L(W) = Σ_pairs a_IJ·δ(WᵀX_I, WᵀX_J) and its gradient for
// fixed sets, pairs and bandwidths. It is not safe for concurrent use (it
// reuses its buffers); it runs Workers goroutines itself.
type Cost struct {
	x       *mat.Dense // N×D, the sets stacked
	off     []int      // set i holds rows off[i]:off[i+1]
	h       []float64
	pairs   []PairWeight
	measure match.Measure
	d       int
	workers int

	inc [][]incidence // per set: the pairs it belongs to, in pair order

	// buffers reused across evaluations
	y, b   *mat.Dense // N×d
	wt, gt *mat.Dense // d×D: Wᵀ, and the gradient's transpose
	// yAt is the W (D×d) that y was computed from, bit for bit, nil
	// before the first evaluation: a conjugate-gradient iteration
	// evaluates the cost at the point its line search accepted, then the
	// cost and the gradient at the same point, and the second finds Y = XW
	// here (sameBits) instead of making it again.
	yAt     *mat.Dense
	sets    []projSet
	slots   []pairSlot
	scratch []*pairScratch
}

type incidence struct {
	pair  int
	first bool // the set is the pair's I (P), else its J (Q)
}

// projSet is what one evaluation knows about one projected set.
type projSet struct {
	y     *mat.Dense // n×d view
	sqn   []float64  // |y_a|²
	lself []float64  // log p(y_a), normalised
	u     []float64  // gradient coefficient of log p(y_a), summed over pairs
	h     float64
}

// pairSlot holds one pair's results so that they can be summed in a fixed
// order whatever goroutine computed them (deterministic results).
type pairSlot struct {
	delta    float64
	uP, uQ   []float64
	dBp, dBq *mat.Dense // n_P×d, n_Q×d
}

type pairScratch struct {
	cross, wq, wp, c []float64
	lqp, lpq         []float64
	colMin, colSum   []float64
	rowC, colC       []float64
}

func newPairScratch(n int) *pairScratch {
	return &pairScratch{
		cross: make([]float64, n*n), wq: make([]float64, n*n), wp: make([]float64, n*n), c: make([]float64, n*n),
		lqp: make([]float64, n), lpq: make([]float64, n), colMin: make([]float64, n), colSum: make([]float64, n),
		rowC: make([]float64, n), colC: make([]float64, n),
	}
}

// NewCost prepares the cost for the sets (each n_i×D, n_i ≥ 1, the same D),
// the weighted pairs, the bandwidths h (one per set, held fixed) and the
// target dimension d. workers ≤ 0 means GOMAXPROCS. The sets are copied.
// A set with a frame whose squared norm is beyond match.MaxSqNorm is
// refused (a SetError wrapping match.ErrTooLarge): where W turns towards
// such a frame, the squared distances of its projection are not numbers
// (kde.SqDist), and nor is the cost. Frames that pass keep every
// projection's squared norm within the bound, whatever W.
func NewCost(sets []*mat.Dense, pairs []PairWeight, h []float64, m match.Measure, d, workers int) (*Cost, error) {
	x, err := stackFrames(sets)
	if err != nil {
		return nil, err
	}
	for i, s := range sets {
		if err := match.CheckFrames(s); err != nil {
			return nil, &SetError{Set: i, Err: err}
		}
	}
	if len(h) != len(sets) {
		return nil, fmt.Errorf("%d bandwidths for %d sets", len(h), len(sets))
	}
	for i, v := range h {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("bandwidth of set %d is %v: want a finite number > 0", i, v)
		}
	}
	_, D := x.Dims()
	if d < 1 || d > D {
		return nil, fmt.Errorf("dimension %d: want 1 ≤ d ≤ %d", d, D)
	}
	workers = par.Workers(workers)
	c := &Cost{x: x, h: append([]float64(nil), h...), pairs: append([]PairWeight(nil), pairs...),
		measure: m, d: d, workers: workers}
	c.off = make([]int, len(sets)+1)
	maxN := 0
	for i, s := range sets {
		n, _ := s.Dims()
		c.off[i+1] = c.off[i] + n
		maxN = max(maxN, n)
	}
	c.inc = make([][]incidence, len(sets))
	c.slots = make([]pairSlot, len(c.pairs))
	for k, p := range c.pairs {
		if p.I < 0 || p.J < 0 || p.I >= len(sets) || p.J >= len(sets) || p.I == p.J {
			return nil, fmt.Errorf("pair %d (%d, %d): want two different sets among %d", k, p.I, p.J, len(sets))
		}
		if !finite.Is(p.A) {
			return nil, fmt.Errorf("pair %d: affinity %v", k, p.A)
		}
		c.inc[p.I] = append(c.inc[p.I], incidence{k, true})
		c.inc[p.J] = append(c.inc[p.J], incidence{k, false})
		np, nq := c.off[p.I+1]-c.off[p.I], c.off[p.J+1]-c.off[p.J]
		c.slots[k] = pairSlot{uP: make([]float64, np), uQ: make([]float64, nq),
			dBp: mat.NewDense(np, d, nil), dBq: mat.NewDense(nq, d, nil)}
	}
	N := c.off[len(sets)]
	c.y = mat.NewDense(N, d, nil)
	c.b = mat.NewDense(N, d, nil)
	c.wt = mat.NewDense(d, D, nil)
	c.gt = mat.NewDense(d, D, nil)
	c.sets = make([]projSet, len(sets))
	for i := range sets {
		n := c.off[i+1] - c.off[i]
		c.sets[i] = projSet{
			y:   c.y.Slice(c.off[i], c.off[i+1], 0, d).(*mat.Dense),
			sqn: make([]float64, n), lself: make([]float64, n), u: make([]float64, n),
			h: c.h[i],
		}
	}
	c.scratch = make([]*pairScratch, workers)
	for w := range c.scratch {
		c.scratch[w] = newPairScratch(maxN)
	}
	return c, nil
}

// setViews returns views of the cost's stacked frames, one per set (n_i×D).
func (c *Cost) setViews() []*mat.Dense {
	_, D := c.x.Dims()
	v := make([]*mat.Dense, len(c.off)-1)
	for i := range v {
		v[i] = c.x.Slice(c.off[i], c.off[i+1], 0, D).(*mat.Dense)
	}
	return v
}

// Eval returns L(W) for W (D×d) and, if grad is not nil, writes ∂L/∂W (D×d)
// into grad. It has the signature of an Objective.
func (c *Cost) Eval(w, grad *mat.Dense) (float64, error) {
	D, d := w.Dims()
	_, xd := c.x.Dims()
	if D != xd || d != c.d {
		return 0, fmt.Errorf("W is %d×%d, want %d×%d", D, d, xd, c.d)
	}
	wantGrad := grad != nil
	if wantGrad {
		if gr, gc := grad.Dims(); gr != D || gc != d {
			return 0, fmt.Errorf("gradient buffer is %d×%d, want %d×%d", gr, gc, D, d)
		}
	}
	// Y = X·W as X·(Wᵀ)ᵀ (matmul.MulT, gonum's product with AVX2 kernels
	// where the build has them): dot products of length D rather than
	// axpys of length d. Y depends on W alone: at the W of the evaluation
	// before, it is kept.
	if c.yAt == nil || !sameBits(c.yAt, w) {
		c.wt.Copy(w.T())
		matmul.MulT(c.y, c.x, c.wt, c.workers)
		if c.yAt == nil {
			c.yAt = mat.NewDense(D, d, nil)
		}
		c.yAt.Copy(w)
	}
	// Phase 1: each set's own log density at its own samples.
	par.For(len(c.sets), c.workers, func(wk, i int) {
		selfLogDensity(&c.sets[i], c.d, c.scratch[wk].cross, nil)
	})
	// Phase 2: the pairs.
	par.For(len(c.pairs), c.workers, func(wk, k int) {
		p := c.pairs[k]
		c.slots[k].delta = pairTerms(&c.sets[p.I], &c.sets[p.J], c.measure, c.d, c.scratch[wk], wantGrad, p.A, &c.slots[k])
	})
	var cost float64
	for k, p := range c.pairs {
		cost += p.A * c.slots[k].delta
	}
	if !wantGrad {
		return cost, nil
	}
	// Phase 3: per set, sum the pair contributions in pair order and add the
	// block of the set's own density at its own samples.
	par.For(len(c.sets), c.workers, func(wk, i int) {
		s := &c.sets[i]
		bi := c.b.Slice(c.off[i], c.off[i+1], 0, c.d).(*mat.Dense)
		bi.Zero()
		clear(s.u)
		for _, in := range c.inc[i] {
			sl := &c.slots[in.pair]
			if in.first {
				bi.Add(bi, sl.dBp)
				addTo(s.u, sl.uP)
			} else {
				bi.Add(bi, sl.dBq)
				addTo(s.u, sl.uQ)
			}
		}
		// The softmax weights of the set's own density are recomputed here
		// rather than kept from phase 1: that costs n_i² exps per set but
		// saves Σ n_i² floats of memory.
		sc := c.scratch[wk]
		n := len(s.sqn)
		selfLogDensity(s, c.d, sc.cross, sc.wq[:n*n])
		selfBlock(s, sc.wq[:n*n], bi, sc)
	})
	// ∂L/∂W = XᵀB, made as its transpose BᵀX (matmul.TMul), the same sums
	// in the same order (each entry over the frames in turn, every product
	// the same two numbers): rows of length D, not of length d, whose
	// handling per entry of X would cost more than the arithmetic.
	matmul.TMul(c.gt, c.b, c.x, c.workers)
	grad.Copy(c.gt.T())
	return cost, nil
}

// sameBits reports whether a and b, of the same shape, hold the same
// numbers bit for bit (a −0 is not a +0 to it, and a NaN is itself).
func sameBits(a, b *mat.Dense) bool {
	r, _ := a.Dims()
	for i := range r {
		br := b.RawRowView(i)
		for j, v := range a.RawRowView(i) {
			if math.Float64bits(v) != math.Float64bits(br[j]) {
				return false
			}
		}
	}
	return true
}

func addTo(dst, src []float64) {
	for i, v := range src {
		dst[i] += v
	}
}

// selfLogDensity fills s.sqn and s.lself from s.y, using buf (at least n×n)
// as scratch, and if w is not nil the n×n softmax weights of the LSE (row a
// sums to 1) into w. The log densities are those of match (internal/kde).
func selfLogDensity(s *projSet, d int, buf, w []float64) {
	n, _ := s.y.Dims()
	for a := range n {
		var v float64
		for _, x := range s.y.RawRowView(a) {
			v += x * x
		}
		s.sqn[a] = v
	}
	gram := mat.NewDense(n, n, buf[:n*n])
	gram.Mul(s.y, s.y.T())
	g := gram.RawMatrix().Data
	sc := kde.Scale(s.h)
	ln := kde.LogNorm(n, d, s.h)
	for a := range n {
		row := g[a*n : (a+1)*n]
		// The largest exponent is the one at k = a (distance 0), but use
		// the actual minimum distance to be safe against rounding.
		mn := math.Inf(1)
		for k := range n {
			v := kde.SqDist(s.sqn[a], s.sqn[k], row[k])
			row[k] = v
			mn = min(mn, v)
		}
		var sum float64
		for k := range n {
			e := kde.ExpNonPos(sc * (row[k] - mn))
			row[k] = e
			sum += e
		}
		s.lself[a] = kde.LogDensity(sc, mn, sum, ln)
		if w != nil {
			wr := w[a*n : (a+1)*n]
			is := 1 / sum
			for k := range n {
				wr[k] = row[k] * is
			}
		}
	}
}

// pairTerms returns δ(P, Q) and, if grad, fills the pair's slot with its
// gradient contributions scaled by the affinity aff.
func pairTerms(P, Q *projSet, m match.Measure, d int, sc *pairScratch, grad bool, aff float64, out *pairSlot) float64 {
	np, _ := P.y.Dims()
	nq, _ := Q.y.Dims()
	cross := mat.NewDense(np, nq, sc.cross[:np*nq])
	cross.Mul(P.y, Q.y.T())
	cd := sc.cross[:np*nq]
	sQ, sP := kde.Scale(Q.h), kde.Scale(P.h) // −1/(2h²)
	lnQ := kde.LogNorm(nq, d, Q.h)
	lnP := kde.LogNorm(np, d, P.h)
	colMin := sc.colMin[:nq]
	for b := range colMin {
		colMin[b] = math.Inf(1)
	}
	// Squared distances; row minima give log q at P, column minima log p at Q.
	lqp := sc.lqp[:np]
	for a := range np {
		row := cd[a*nq : (a+1)*nq]
		mn := math.Inf(1)
		for b := range nq {
			v := kde.SqDist(P.sqn[a], Q.sqn[b], row[b])
			row[b] = v
			mn = min(mn, v)
			colMin[b] = min(colMin[b], v)
		}
		var sum float64
		if grad {
			wr := sc.wq[a*nq : (a+1)*nq]
			for b := range nq {
				e := kde.ExpNonPos(sQ * (row[b] - mn))
				wr[b] = e
				sum += e
			}
			is := 1 / sum
			for b := range wr {
				wr[b] *= is
			}
		} else {
			for b := range nq {
				sum += kde.ExpNonPos(sQ * (row[b] - mn))
			}
		}
		lqp[a] = kde.LogDensity(sQ, mn, sum, lnQ)
	}
	colSum := sc.colSum[:nq]
	clear(colSum)
	for a := range np {
		row := cd[a*nq : (a+1)*nq]
		if grad {
			wr := sc.wp[a*nq : (a+1)*nq]
			for b := range nq {
				e := kde.ExpNonPos(sP * (row[b] - colMin[b]))
				wr[b] = e
				colSum[b] += e
			}
		} else {
			for b := range nq {
				colSum[b] += kde.ExpNonPos(sP * (row[b] - colMin[b]))
			}
		}
	}
	lpq := sc.lpq[:nq]
	for b := range nq {
		lpq[b] = kde.LogDensity(sP, colMin[b], colSum[b], lnP)
	}

	// δ = mean_P t(r) + mean_Q t(r), r = log p − log q.
	var sp, sq float64
	for a := range np {
		sp += m.Term(P.lself[a] - lqp[a])
	}
	for b := range nq {
		sq += m.Term(lpq[b] - Q.lself[b])
	}
	delta := sp/float64(np) + sq/float64(nq)
	if !grad {
		return delta
	}

	// α_a = a·t'(r_a)/n_P at a in P, β_b = a·t'(r_b)/n_Q at b in Q.
	// Coefficients of the own-density terms: +α for log p at P, −β for
	// log q at Q (shared per set, see selfBlock).
	for a := range np {
		out.uP[a] = aff * m.TermDeriv(P.lself[a]-lqp[a]) / float64(np)
	}
	for b := range nq {
		out.uQ[b] = -aff * m.TermDeriv(lpq[b]-Q.lself[b]) / float64(nq)
	}
	// Cross weights C[a,b] = α_a wq[a,b]/h_q² − β_b wp[a,b]/h_p², where
	// wq is log q's softmax over b at a, wp is log p's softmax over a at b.
	ihq2, ihp2 := 1/(Q.h*Q.h), 1/(P.h*P.h)
	cm := mat.NewDense(np, nq, sc.c[:np*nq])
	cdat := sc.c[:np*nq]
	rowC := sc.rowC[:np]
	colC := sc.colC[:nq]
	clear(colC)
	for b := range nq {
		// out.uQ[b] = −β_b; fold 1/colSum (normalisation of wp) in here.
		sc.colSum[b] = out.uQ[b] * ihp2 / colSum[b]
	}
	for a := range np {
		alpha := out.uP[a] * ihq2
		wq := sc.wq[a*nq : (a+1)*nq]
		wp := sc.wp[a*nq : (a+1)*nq]
		cr := cdat[a*nq : (a+1)*nq]
		var rs float64
		for b := range nq {
			v := alpha*wq[b] + sc.colSum[b]*wp[b]
			cr[b] = v
			rs += v
			colC[b] += v
		}
		rowC[a] = rs
	}
	// dB_P = diag(C1)Y_P − C·Y_Q ; dB_Q = diag(Cᵀ1)Y_Q − Cᵀ·Y_P.
	out.dBp.Mul(cm, Q.y)
	scaleRowsSub(out.dBp, rowC, P.y)
	out.dBq.Mul(cm.T(), P.y)
	scaleRowsSub(out.dBq, colC, Q.y)
	return delta
}

// scaleRowsSub sets dst = diag(s)·y − dst.
func scaleRowsSub(dst *mat.Dense, s []float64, y *mat.Dense) {
	for a, sa := range s {
		dr := dst.RawRowView(a)
		yr := y.RawRowView(a)
		for j := range dr {
			dr[j] = sa*yr[j] - dr[j]
		}
	}
}

// selfBlock adds to b (n×d) the own-density terms of set s, whose n×n
// softmax weights are w: A[a,k] = −u_a w_ak / h², S = A + Aᵀ,
// b += diag(S1)·Y − S·Y.
func selfBlock(s *projSet, w []float64, b *mat.Dense, sc *pairScratch) {
	n, _ := s.y.Dims()
	ih2 := 1 / (s.h * s.h)
	sd := sc.c[:n*n]
	for a := range n {
		ua := -s.u[a] * ih2
		wr := w[a*n : (a+1)*n]
		sr := sd[a*n : (a+1)*n]
		for k := range n {
			sr[k] = ua * wr[k]
		}
	}
	// Symmetrise in place: S = A + Aᵀ.
	for a := range n {
		for k := a; k < n; k++ {
			v := sd[a*n+k] + sd[k*n+a]
			sd[a*n+k], sd[k*n+a] = v, v
		}
	}
	rs := sc.rowC[:n]
	for a := range n {
		var t float64
		for _, v := range sd[a*n : (a+1)*n] {
			t += v
		}
		rs[a] = t
	}
	sm := mat.NewDense(n, n, sd)
	var sy mat.Dense
	sy.Mul(sm, s.y)
	for a := range n {
		br := b.RawRowView(a)
		yr := s.y.RawRowView(a)
		syr := sy.RawRowView(a)
		for j := range br {
			br[j] += rs[a]*yr[j] - syr[j]
		}
	}
}
