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
	record := func(s IterStats) {
		res.History = append(res.History, s)
		if opt.Progress != nil {
			opt.Progress(s)
		}
	}
	record(IterStats{Cost: cost, GradNorm: gn, Seconds: time.Since(start).Seconds()})

	eta := mat.NewDense(D, d, nil)
	eta.Scale(-1, xi)
	stepLen := opt.InitialStep
	stop := "iteration limit"
	iter := 0
	for iter < opt.MaxIter {
		if gn <= opt.GradTol {
			stop = "gradient norm below tolerance"
			break
		}
		t0 := time.Now()
		restart := false
		slope := frobDot(xi, eta)
		if !(slope < 0) {
			eta.Scale(-1, xi)
			slope = -gn * gn
			restart = true
		}
		var (
			wNew   *mat.Dense
			t, c   float64
			evals  int
			accept bool
		)
		for attempt := 0; attempt < 2 && !accept; attempt++ {
			var n int
			wNew, t, c, n, err = backtrack(f, w, eta, cost, slope, stepLen/mat.Norm(eta, 2))
			evals += n
			if err != nil {
				return nil, err
			}
			accept = wNew != nil
			if accept || restart {
				break
			}
			// A conjugate direction that gives no decrease: retry along −ξ.
			eta.Scale(-1, xi)
			slope = -gn * gn
			restart = true
		}
		if !accept {
			stop = "line search found no decrease"
			break
		}
		iter++
		step := t * mat.Norm(eta, 2)
		if evals == 1 {
			stepLen = 2 * step
		} else {
			stepLen = step
		}
		if opt.NoFinalGradient {
			// The stop rules (converged), decided before the gradient: the cost at
			// wNew is the line search's c, the same evaluation.
			why := opt.converged(cost, c, step)
			if why == "" && iter >= opt.MaxIter {
				why = "iteration limit"
			}
			if why != "" {
				w, cost, gn, stop = wNew, c, math.NaN(), why
				record(IterStats{Iteration: iter, Cost: cost, GradNorm: gn, Step: step,
					Seconds: time.Since(t0).Seconds(), Evals: evals, Restart: restart})
				break
			}
		}

		gNew := mat.NewDense(D, d, nil)
		cAcc, err := f(wNew, gNew)
		if err != nil {
			return nil, err
		}
		xiNew := ProjectTangent(nil, wNew, gNew)
		gnNew := mat.Norm(xiNew, 2)

		conjugate(eta, xi, xiNew, wNew, gn, iter%opt.RestartEvery == 0)

		prev := cost
		w, cost, xi, gn = wNew, cAcc, xiNew, gnNew
		record(IterStats{Iteration: iter, Cost: cost, GradNorm: gn, Step: step,
			Seconds: time.Since(t0).Seconds(), Evals: evals + 1, Restart: restart})

		if why := opt.converged(prev, cost, step); why != "" {
			stop = why
			break
		}
	}
	if iter >= opt.MaxIter && stop == "iteration limit" && gn <= opt.GradTol {
		stop = "gradient norm below tolerance"
	}
	res.W, res.Cost, res.GradNorm, res.Iterations, res.Stop = w, cost, gn, iter, stop
	return res, nil
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
