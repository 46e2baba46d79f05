package grassmann

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"
)

// Objective evaluates a cost at W (D×d, orthonormal columns). If grad is not
// nil it also writes the Euclidean gradient ∂L/∂W (D×d) into grad. The cost
// must be invariant to W → WR for orthogonal R.
type Objective func(w, grad *mat.Dense) (float64, error)

// CGOptions controls MinimizeCG. Zero values select the defaults.
type CGOptions struct {
	MaxIter      int     // iteration cap (default DefaultMaxIter)
	GradTol      float64 // stop when the Riemannian gradient norm ≤ GradTol (default DefaultGradTol)
	CostRelTol   float64 // stop when |L_k − L_{k+1}| ≤ CostRelTol·max(|L_k|, |L_{k+1}|) (default DefaultCostRelTol)
	MinStep      float64 // stop when the accepted step length ‖tη‖ ≤ MinStep (default DefaultMinStep)
	RestartEvery int     // reset the direction to −grad every so many iterations (default D·d)
	InitialStep  float64 // first trial step length ‖tη‖ (default DefaultInitialStep)
	// NoFinalGradient: where an iteration is the last (the iteration cap,
	// the cost's change or the step below its tolerance), the gradient at
	// the point it reached is not evaluated, for a caller that takes W
	// alone: that iteration's GradNorm, and the result's, are NaN, and a
	// run stopped by the cap says "iteration limit" whatever the gradient.
	// W, the cost and the iterations are those of a run without it.
	NoFinalGradient bool
	Progress        func(IterStats)
}

// The defaults of CGOptions, which MinimizeCG puts in place of zero (or
// negative) fields.
const (
	DefaultMaxIter     = 100
	DefaultGradTol     = 1e-6
	DefaultCostRelTol  = 1e-6
	DefaultMinStep     = 1e-10
	DefaultInitialStep = 1.0
)

// withDefaults returns o with the defaults in place of zero fields, for a
// D×d point.
func (o CGOptions) withDefaults(D, d int) CGOptions {
	if o.MaxIter <= 0 {
		o.MaxIter = DefaultMaxIter
	}
	if o.GradTol <= 0 {
		o.GradTol = DefaultGradTol
	}
	if o.CostRelTol <= 0 {
		o.CostRelTol = DefaultCostRelTol
	}
	if o.MinStep <= 0 {
		o.MinStep = DefaultMinStep
	}
	if o.RestartEvery <= 0 {
		o.RestartEvery = D * d
	}
	if o.InitialStep <= 0 {
		o.InitialStep = DefaultInitialStep
	}
	return o
}

// IterStats describes one iteration. Iteration 0 is the starting point.
type IterStats struct {
	Iteration int
	Cost      float64 // cost after the iteration
	GradNorm  float64 // Riemannian gradient norm after the iteration
	Step      float64 // accepted step length ‖tη‖ (0 for iteration 0)
	Seconds   float64 // wall time of this iteration
	Evals     int     // cost evaluations of the line search
	Restart   bool    // the direction was reset to −grad
}

// CGResult is the outcome of MinimizeCG.
type CGResult struct {
	W          *mat.Dense // D×d, orthonormal columns
	Cost       float64
	GradNorm   float64
	Iterations int
	Stop       string // why it stopped
	History    []IterStats

	// next is where a run stopped by its iteration cap stands, and opt
	// its options, for Continue; nil where it stopped otherwise.
	next *cgState
	opt  CGOptions
}

const (
	armijoC1        = 1e-4
	lsContraction   = 0.5
	lsMaxBacktracks = 30
)

// MinimizeCG minimises f over the Grassmann manifold from w0 (D×d, d ≤ D;
// f is called with W and its gradient G, both D×d) by Riemannian
// conjugate gradient: Riemannian gradient ξ = G − W(WᵀG); direction
// η = −ξ + βT(η_prev) with β Polak–Ribière+ (max(0, ⟨ξ, ξ − T(ξ_prev)⟩/⟨ξ_prev, ξ_prev⟩)),
// vector transport T by projection onto the new tangent space, reset to −ξ
// when η is not a descent direction and every RestartEvery iterations; QR
// retraction; Armijo backtracking whose first trial step length is the last
// accepted one, doubled when it was accepted at once (Manopt's adaptive line
// search). Every accepted step decreases the cost.
func MinimizeCG(f Objective, w0 *mat.Dense, opt CGOptions) (*CGResult, error) {
	if w0 == nil || w0.IsEmpty() {
		return nil, errors.New("grassmann: empty starting point")
	}
	D, d := w0.Dims()
	if d > D {
		return nil, fmt.Errorf("grassmann: W is %d×%d, but a point of the Grassmannian needs d ≤ D", D, d)
	}
	opt = opt.withDefaults(D, d)

	start := time.Now()
	w := mat.DenseCopyOf(w0)
	Orthonormalize(w)
	grad := mat.NewDense(D, d, nil)
	cost, err := f(w, grad)
	if err != nil {
		return nil, err
	}
	if !isFiniteNum(cost) {
		return nil, fmt.Errorf("cost at the starting point is %v", cost)
	}
	xi := ProjectTangent(nil, w, grad)
	gn := mat.Norm(xi, 2)
	res := &CGResult{}
	res.record(opt, IterStats{Cost: cost, GradNorm: gn, Seconds: time.Since(start).Seconds()})

	s := &cgState{w: w, xi: xi, eta: mat.NewDense(D, d, nil), cost: cost, gn: gn, stepLen: opt.InitialStep}
	s.eta.Scale(-1, xi)
	return s.run(f, opt, res)
}

// Continue goes on from where r, a run of MinimizeCG (or of Continue)
// stopped by its iteration cap, stopped, to maxIter iterations in all,
// f being r's objective (or one that gives the same numbers): it returns
// what MinimizeCG with r's options and the cap maxIter returns, the
// same W, cost, gradient norm, iterations, stop and History to the bit
// (but each iteration's Seconds), and calls progress (if not nil) for
// every entry of that History in turn, r's first. Where r stopped
// otherwise, or maxIter is r's iterations, that is r itself (with a
// W of its own). r is not changed: it can be continued again, from
// several goroutines at once.
func (r *CGResult) Continue(f Objective, maxIter int, progress func(IterStats)) (*CGResult, error) {
	if maxIter < r.Iterations {
		return nil, fmt.Errorf("grassmann: continuing %d iterations to a cap of %d", r.Iterations, maxIter)
	}
	opt := r.opt
	opt.MaxIter, opt.Progress = maxIter, progress
	hist := r.History
	if r.next == nil || maxIter == r.Iterations {
		res := *r
		res.W, res.History = mat.DenseCopyOf(r.W), nil
		for _, h := range hist {
			res.record(opt, h)
		}
		return &res, nil
	}
	s := *r.next
	s.eta = mat.DenseCopyOf(s.eta) // the one matrix of the state an iteration changes in place
	if s.pending != nil {
		hist = hist[:len(hist)-1] // its last iteration, without the gradient at its end
	}
	res := &CGResult{}
	for _, h := range hist {
		res.record(opt, h)
	}
	if _, err := s.run(f, opt, res); err != nil {
		return nil, err
	}
	res.W = mat.DenseCopyOf(res.W) // the point r's state holds, where the run stops at it
	return res, nil
}

// record appends an iteration to r's History and passes it to opt's
// Progress.
func (r *CGResult) record(opt CGOptions, s IterStats) {
	r.History = append(r.History, s)
	if opt.Progress != nil {
		opt.Progress(s)
	}
}

// cgState is where a run of MinimizeCG stands after an iteration: the
// point w, the cost there, the Riemannian gradient xi there and its norm
// gn, the search direction eta, the first trial step length of the next
// line search and the iterations made. Where an iteration under
// NoFinalGradient was the last, the step it took is pending, without the
// gradient at its end, and the rest is the state before it.
type cgState struct {
	w, xi, eta        *mat.Dense
	cost, gn, stepLen float64
	iter              int
	pending           *cgStep
}

// cgStep is an accepted step of the line search: the point it reached,
// the cost there, its length, the cost evaluations it took, whether the
// direction was reset to −ξ for it, and the wall time its iteration took
// up to it (a step pending in a run that stopped is finished later, by
// Continue: the time in between is no part of the iteration).
type cgStep struct {
	w          *mat.Dense
	cost, step float64
	evals      int
	restart    bool
	took       time.Duration
}

// run makes the iterations from s up to opt's cap, recording them in res,
// and returns res with the outcome.
func (s *cgState) run(f Objective, opt CGOptions, res *CGResult) (*CGResult, error) {
	stop := ""
	if p := s.pending; p != nil {
		s.pending = nil
		var err error
		if stop, err = s.finish(f, opt, res, p); err != nil {
			return nil, err
		}
	}
	for stop == "" && s.iter < opt.MaxIter {
		var err error
		if stop, err = s.iterate(f, opt, res); err != nil {
			return nil, err
		}
	}
	if stop == "" {
		stop = "iteration limit"
	}
	w, cost, gn := s.w, s.cost, s.gn
	if p := s.pending; p != nil {
		w, cost, gn = p.w, p.cost, math.NaN()
	}
	if s.iter >= opt.MaxIter && stop == "iteration limit" && gn <= opt.GradTol {
		stop = "gradient norm below tolerance"
	}
	res.W, res.Cost, res.GradNorm, res.Iterations, res.Stop = w, cost, gn, s.iter, stop
	if stop == "iteration limit" {
		res.next, res.opt = s, opt
	}
	return res, nil
}

// iterate makes one iteration from s and returns why the run stops after
// it ("" where it goes on).
func (s *cgState) iterate(f Objective, opt CGOptions, res *CGResult) (string, error) {
	if s.gn <= opt.GradTol {
		return "gradient norm below tolerance", nil
	}
	t0 := time.Now()
	restart := false
	slope := frobDot(s.xi, s.eta)
	if !(slope < 0) {
		s.eta.Scale(-1, s.xi)
		slope = -s.gn * s.gn
		restart = true
	}
	var (
		wNew   *mat.Dense
		t, c   float64
		evals  int
		accept bool
	)
	for attempt := 0; attempt < 2 && !accept; attempt++ {
		var (
			n   int
			err error
		)
		wNew, t, c, n, err = backtrack(f, s.w, s.eta, s.cost, slope, s.stepLen/mat.Norm(s.eta, 2))
		evals += n
		if err != nil {
			return "", err
		}
		accept = wNew != nil
		if accept || restart {
			break
		}
		// A conjugate direction that gives no decrease: retry along −ξ.
		s.eta.Scale(-1, s.xi)
		slope = -s.gn * s.gn
		restart = true
	}
	if !accept {
		return "line search found no decrease", nil
	}
	s.iter++
	step := t * mat.Norm(s.eta, 2)
	if evals == 1 {
		s.stepLen = 2 * step
	} else {
		s.stepLen = step
	}
	p := &cgStep{w: wNew, cost: c, step: step, evals: evals, restart: restart, took: time.Since(t0)}
	if opt.NoFinalGradient {
		// The stop rules (converged), decided before the gradient: the cost at
		// wNew is the line search's c, the same evaluation.
		why := opt.converged(s.cost, c, step)
		if why == "" && s.iter >= opt.MaxIter {
			why = "iteration limit"
		}
		if why != "" {
			s.pending = p
			res.record(opt, IterStats{Iteration: s.iter, Cost: c, GradNorm: math.NaN(), Step: step,
				Seconds: time.Since(t0).Seconds(), Evals: evals, Restart: restart})
			return why, nil
		}
	}
	return s.finish(f, opt, res, p)
}

// finish ends the iteration that took step p from s: the gradient at its
// end, the next search direction. It returns why the run stops after it
// ("" where it goes on).
func (s *cgState) finish(f Objective, opt CGOptions, res *CGResult, p *cgStep) (string, error) {
	t0 := time.Now()
	D, d := p.w.Dims()
	gNew := mat.NewDense(D, d, nil)
	cAcc, err := f(p.w, gNew)
	if err != nil {
		return "", err
	}
	xiNew := ProjectTangent(nil, p.w, gNew)
	gnNew := mat.Norm(xiNew, 2)

	conjugate(s.eta, s.xi, xiNew, p.w, s.gn, s.iter%opt.RestartEvery == 0)

	prev := s.cost
	s.w, s.cost, s.xi, s.gn = p.w, cAcc, xiNew, gnNew
	res.record(opt, IterStats{Iteration: s.iter, Cost: s.cost, GradNorm: s.gn, Step: p.step,
		Seconds: (p.took + time.Since(t0)).Seconds(), Evals: p.evals + 1, Restart: p.restart})
	return opt.converged(prev, s.cost, p.step), nil
}

// converged returns why a run stops after an iteration that took the
// cost from prev to cost by a step of length step (the cost's relative
// change within CostRelTol, or the step within MinStep), "" where it goes
// on.
func (opt CGOptions) converged(prev, cost, step float64) string {
	switch {
	case math.Abs(prev-cost) <= opt.CostRelTol*math.Max(math.Abs(prev), math.Abs(cost)):
		return "relative cost change below tolerance"
	case step <= opt.MinStep:
		return "step below minimum"
	}
	return ""
}

// backtrack tries the steps t, t·lsContraction, … (lsMaxBacktracks of
// them) along eta from w, where the cost is cost and its slope along eta
// slope, until one decreases the cost enough (Armijo's condition). It
// returns that point (nil if none did), the step, the cost there and the
// cost evaluations made.
func backtrack(f Objective, w, eta *mat.Dense, cost, slope, t float64) (wNew *mat.Dense, step, cNew float64, evals int, err error) {
	for range lsMaxBacktracks {
		wNew = Retract(w, eta, t)
		c, err := f(wNew, nil)
		evals++
		if err != nil {
			return nil, t, 0, evals, err
		}
		if c <= cost+armijoC1*t*slope {
			return wNew, t, c, evals, nil
		}
		t *= lsContraction
	}
	return nil, t, 0, evals, nil
}

// conjugate replaces eta, the search direction at the point before wNew
// (where the Riemannian gradient was xi, of norm gn), by the next one at
// wNew, where the gradient is xiNew: Polak–Ribière+ with transport by
// projection, −xiNew + β·eta with β = max(0, ⟨xiNew, xiNew − xi⟩/gn²), or
// β = 0 on a restart.
func conjugate(eta, xi, xiNew, wNew *mat.Dense, gn float64, restart bool) {
	D, d := eta.Dims()
	xiOldT := ProjectTangent(nil, wNew, xi)
	diff := mat.NewDense(D, d, nil)
	diff.Sub(xiNew, xiOldT)
	beta := math.Max(0, frobDot(xiNew, diff)/(gn*gn))
	if restart {
		beta = 0
	}
	etaT := ProjectTangent(nil, wNew, eta)
	eta.Scale(beta, etaT)
	eta.Sub(eta, xiNew)
}

func isFiniteNum(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// frobDot returns the Frobenius inner product tr(aᵀb) of two r×c matrices.
func frobDot(a, b *mat.Dense) float64 {
	r, _ := a.Dims()
	var s float64
	for i := range r {
		br := b.RawRowView(i)
		for j, v := range a.RawRowView(i) {
			s += v * br[j]
		}
	}
	return s
}
