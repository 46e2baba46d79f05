package model

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"
)

// Geometry of the Grassmann manifold Gr(d, D), the set of d-dimensional
// subspaces of R^D, with points represented by D×d matrices W with
// orthonormal columns (WᵀW = I), and a Riemannian conjugate-gradient method
// on it in the style of Manopt's conjugategradient with linesearch_adaptive.
//
// Tangent vectors at W are the D×d matrices Z with WᵀZ = 0; the metric is
// the Frobenius inner product. Nothing here forms a D×D matrix.

// ProjectTangent returns (I − WWᵀ)Z, computed as Z − W(WᵀZ), the projection
// of the D×d matrix z onto the tangent space at w. It is the Riemannian
// gradient when z is the Euclidean gradient of a cost invariant to W → WR,
// and the vector transport of z to w. The result goes into dst if not nil.
func ProjectTangent(dst, w, z *mat.Dense) *mat.Dense {
	_, d := w.Dims()
	var wtz mat.Dense
	wtz.Mul(w.T(), z) // d×d
	var corr mat.Dense
	corr.Mul(w, &wtz) // D×d
	if dst == nil {
		dst = mat.NewDense(z.RawMatrix().Rows, d, nil)
	}
	dst.Sub(z, &corr)
	return dst
}

// Retract returns the QR retraction qf(W + tη): the Q factor of the thin QR
// decomposition of W + tη with the signs chosen so that diag(R) > 0, which
// makes it unique. It is computed by classical Gram–Schmidt applied twice
// ("twice is enough"), so that QᵀQ = I to rounding.
func Retract(w, eta *mat.Dense, t float64) *mat.Dense {
	r, c := w.Dims()
	q := mat.NewDense(r, c, nil)
	q.Scale(t, eta)
	q.Add(q, w)
	orthonormalize(q)
	return q
}

// orthonormalize replaces the columns of the D×d matrix q, in place, by the
// Gram–Schmidt orthonormalisation of them (R with positive diagonal). It
// works on a transposed copy so that every column is contiguous.
func orthonormalize(q *mat.Dense) {
	r, c := q.Dims()
	qt := mat.DenseCopyOf(q.T()) // c×r, row j = column j
	for j := range c {
		v := qt.RawRowView(j)
		for pass := 0; pass < 2; pass++ {
			for k := range j {
				u := qt.RawRowView(k)
				dot := 0.0
				for i, x := range u {
					dot += x * v[i]
				}
				for i, x := range u {
					v[i] -= dot * x
				}
			}
		}
		nrm := 0.0
		for _, x := range v {
			nrm += x * x
		}
		nrm = math.Sqrt(nrm)
		if nrm == 0 {
			// A rank-deficient input: complete with a unit vector that is
			// orthogonal to the previous columns (never happens for W + tη
			// with WᵀW = I, since Wᵀ(W + tη) = I).
			for e := range r {
				clear(v)
				v[e] = 1
				for k := range j {
					u := qt.RawRowView(k)
					dot := u[e]
					for i, x := range u {
						v[i] -= dot * x
					}
				}
				nrm = 0
				for _, x := range v {
					nrm += x * x
				}
				if nrm = math.Sqrt(nrm); nrm > 0.5 {
					break
				}
			}
		}
		for i := range v {
			v[i] /= nrm
		}
	}
	q.Copy(qt.T())
}

// PrincipalAngles returns the principal angles (radians, ascending) between
// the subspaces spanned by the orthonormal columns of a (D×d) and b (D×d):
// the arccosines of the singular values of aᵀb.
func PrincipalAngles(a, b *mat.Dense) ([]float64, error) {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb {
		return nil, fmt.Errorf("principal angles: %d and %d rows", ra, rb)
	}
	var m mat.Dense
	m.Mul(a.T(), b)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDNone) {
		return nil, errors.New("principal angles: SVD did not converge")
	}
	s := svd.Values(nil) // descending
	ang := make([]float64, min(ca, cb))
	for i := range ang {
		ang[i] = math.Acos(math.Max(-1, math.Min(1, s[i])))
	}
	return ang, nil
}

// Objective evaluates a cost at W (D×d, orthonormal columns). If grad is not
// nil it also writes the Euclidean gradient ∂L/∂W (D×d) into grad. The cost
// must be invariant to W → WR for orthogonal R.
type Objective func(w, grad *mat.Dense) (float64, error)

// CGOptions controls MinimizeCG. Zero values select the defaults.
type CGOptions struct {
	MaxIter      int     // iteration cap (default 100)
	GradTol      float64 // stop when the Riemannian gradient norm ≤ GradTol (default 1e-6)
	CostRelTol   float64 // stop when |L_k − L_{k+1}| ≤ CostRelTol·max(|L_k|, |L_{k+1}|) (default 1e-6)
	MinStep      float64 // stop when the accepted step length ‖tη‖ ≤ MinStep (default 1e-10)
	RestartEvery int     // reset the direction to −grad every so many iterations (default D·d)
	InitialStep  float64 // first trial step length ‖tη‖ (default 1)
	Progress     func(IterStats)
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

// MinimizeCG minimises f over the Grassmann manifold from w0 by Riemannian
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
	if opt.MaxIter <= 0 {
		opt.MaxIter = 100
	}
	if opt.GradTol <= 0 {
		opt.GradTol = 1e-6
	}
	if opt.CostRelTol <= 0 {
		opt.CostRelTol = 1e-6
	}
	if opt.MinStep <= 0 {
		opt.MinStep = 1e-10
	}
	if opt.RestartEvery <= 0 {
		opt.RestartEvery = D * d
	}
	if opt.InitialStep <= 0 {
		opt.InitialStep = 1
	}

	start := time.Now()
	w := mat.DenseCopyOf(w0)
	orthonormalize(w)
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
			cNew   float64
			t      float64
			evals  int
			accept bool
		)
		for attempt := 0; attempt < 2 && !accept; attempt++ {
			etaNorm := mat.Norm(eta, 2)
			t = stepLen / etaNorm
			for b := 0; b < lsMaxBacktracks; b++ {
				wNew = Retract(w, eta, t)
				cNew, err = f(wNew, nil)
				evals++
				if err != nil {
					return nil, err
				}
				if cNew <= cost+armijoC1*t*slope {
					accept = true
					break
				}
				t *= lsContraction
			}
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

		gNew := mat.NewDense(D, d, nil)
		cAcc, err := f(wNew, gNew)
		if err != nil {
			return nil, err
		}
		xiNew := ProjectTangent(nil, wNew, gNew)
		gnNew := mat.Norm(xiNew, 2)

		// Polak–Ribière+ with transport by projection.
		xiOldT := ProjectTangent(nil, wNew, xi)
		diff := mat.NewDense(D, d, nil)
		diff.Sub(xiNew, xiOldT)
		beta := math.Max(0, frobDot(xiNew, diff)/(gn*gn))
		if iter%opt.RestartEvery == 0 {
			beta = 0
		}
		etaT := ProjectTangent(nil, wNew, eta)
		eta.Scale(beta, etaT)
		eta.Sub(eta, xiNew)

		prev := cost
		w, cost, xi, gn = wNew, cAcc, xiNew, gnNew
		record(IterStats{Iteration: iter, Cost: cost, GradNorm: gn, Step: step,
			Seconds: time.Since(t0).Seconds(), Evals: evals + 1, Restart: restart})

		if math.Abs(prev-cost) <= opt.CostRelTol*math.Max(math.Abs(prev), math.Abs(cost)) {
			stop = "relative cost change below tolerance"
			break
		}
		if step <= opt.MinStep {
			stop = "step below minimum"
			break
		}
	}
	if iter >= opt.MaxIter && stop == "iteration limit" && gn <= opt.GradTol {
		stop = "gradient norm below tolerance"
	}
	res.W, res.Cost, res.GradNorm, res.Iterations, res.Stop = w, cost, gn, iter, stop
	return res, nil
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
