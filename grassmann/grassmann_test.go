package grassmann_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
	"setmatch/grassmann/grassmanntest"
)

func TestRetractKeepsOrthonormality(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, shape := range [][2]int{{10, 3}, {400, 20}, {50, 50}} {
		D, d := shape[0], shape[1]
		w := grassmanntest.RandomPoint(rng, D, d)
		if e := grassmann.OrthoError(w); e > 1e-12 {
			t.Errorf("%d×%d start: |WᵀW − I| = %g", D, d, e)
		}
		for _, step := range []float64{1e-8, 0.1, 1, 100} {
			z := grassmanntest.RandomPoint(rng, D, d) // any matrix; project it
			eta := grassmann.ProjectTangent(nil, w, z)
			var wte mat.Dense
			wte.Mul(w.T(), eta)
			if n := mat.Norm(&wte, math.Inf(1)); n > 1e-12 {
				t.Errorf("tangent projection: |Wᵀη| = %g", n)
			}
			wn := grassmann.Retract(w, eta, step)
			if e := grassmann.OrthoError(wn); e > 1e-12 {
				t.Errorf("%d×%d step %g: |WᵀW − I| = %g", D, d, step, e)
			}
			// Retract(W, η, 0) is W itself (R has positive diagonal).
			w0 := grassmann.Retract(w, eta, 0)
			if !mat.EqualApprox(w0, w, 1e-12) {
				t.Errorf("%d×%d: zero step moved W", D, d)
			}
		}
	}
}

func TestPrincipalAngles(t *testing.T) {
	// span(e1, e2) against span(e1, cos θ e2 + sin θ e3): angles 0 and θ.
	const th = 0.3
	a := mat.NewDense(4, 2, []float64{1, 0, 0, 1, 0, 0, 0, 0})
	b := mat.NewDense(4, 2, []float64{1, 0, 0, math.Cos(th), 0, math.Sin(th), 0, 0})
	ang, err := grassmann.PrincipalAngles(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ang[0]) > 1e-7 || math.Abs(ang[1]-th) > 1e-12 {
		t.Errorf("angles %v, want [0 %v]", ang, th)
	}
}

// MinimizeCG on the Rayleigh quotient −tr(WᵀAW) finds the top-d eigenspace
// of a symmetric A, a problem with a known optimum.
func TestMinimizeCGRayleigh(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const D, d = 30, 4
	q := grassmanntest.RandomPoint(rng, D, D)
	eig := make([]float64, D)
	for i := range eig {
		eig[i] = float64(D - i) // well separated
	}
	var a mat.Dense
	a.Mul(q, mat.NewDiagDense(D, eig))
	a.Mul(&a, q.T())
	f := func(w, grad *mat.Dense) (float64, error) {
		var aw mat.Dense
		aw.Mul(&a, w)
		if grad != nil {
			grad.Scale(-2, &aw)
		}
		return -grassmann.FrobDot(w, &aw), nil
	}
	res, err := grassmann.MinimizeCG(f, grassmanntest.RandomPoint(rng, D, d), grassmann.CGOptions{MaxIter: 500, GradTol: 1e-8, CostRelTol: 1e-15})
	if err != nil {
		t.Fatal(err)
	}
	truth := q.Slice(0, D, 0, d).(*mat.Dense)
	ang, _ := grassmann.PrincipalAngles(res.W, truth)
	if ang[d-1] > 1e-5 {
		t.Errorf("largest principal angle to the top eigenspace %g rad after %d iterations (%s)", ang[d-1], res.Iterations, res.Stop)
	}
	if want := -(30.0 + 29 + 28 + 27); math.Abs(res.Cost-want) > 1e-9 {
		t.Errorf("cost %v, want %v", res.Cost, want)
	}
	grassmanntest.CheckMonotone(t, res.History)
	if e := grassmann.OrthoError(res.W); e > 1e-12 {
		t.Errorf("|WᵀW − I| = %g", e)
	}
}

func TestMinimizeCGStopsOnGradTol(t *testing.T) {
	// A constant cost has zero gradient: stop at once.
	f := func(w, grad *mat.Dense) (float64, error) {
		if grad != nil {
			grad.Zero()
		}
		return 1, nil
	}
	rng := rand.New(rand.NewPCG(1, 2))
	res, err := grassmann.MinimizeCG(f, grassmanntest.RandomPoint(rng, 5, 2), grassmann.CGOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations != 0 || res.Stop != "gradient norm below tolerance" {
		t.Errorf("%d iterations, stop %q", res.Iterations, res.Stop)
	}
}

func TestMinimizeCGRefusesWideW(t *testing.T) {
	f := func(w, grad *mat.Dense) (float64, error) { return 0, nil }
	if _, err := grassmann.MinimizeCG(f, mat.NewDense(2, 3, nil), grassmann.CGOptions{}); err == nil || !strings.Contains(err.Error(), "d ≤ D") {
		t.Errorf("2×3 start: err = %v", err)
	}
}

// The defaults are what MinimizeCG runs with when the options are zero.
func TestCGDefaults(t *testing.T) {
	got := grassmann.CGOptions{}.WithDefaults(7, 3)
	want := grassmann.CGOptions{MaxIter: grassmann.DefaultMaxIter, GradTol: grassmann.DefaultGradTol, CostRelTol: grassmann.DefaultCostRelTol,
		MinStep: grassmann.DefaultMinStep, RestartEvery: 21, InitialStep: grassmann.DefaultInitialStep}
	if got.MaxIter != want.MaxIter || got.GradTol != want.GradTol || got.CostRelTol != want.CostRelTol ||
		got.MinStep != want.MinStep || got.RestartEvery != want.RestartEvery || got.InitialStep != want.InitialStep {
		t.Errorf("defaults %+v, want %+v", got, want)
	}
	set := grassmann.CGOptions{MaxIter: 3, GradTol: 1, CostRelTol: 2, MinStep: 3, RestartEvery: 4, InitialStep: 5}
	if g := set.WithDefaults(7, 3); g.MaxIter != 3 || g.GradTol != 1 || g.CostRelTol != 2 || g.MinStep != 3 || g.RestartEvery != 4 || g.InitialStep != 5 {
		t.Errorf("set options were replaced: %+v", g)
	}
}

// TestNoFinalGradient: with CGOptions.NoFinalGradient a run stopped by
// the iteration cap, by the cost's change or by the step ends at the
// same W (entry for entry), cost and iteration as without it, having
// evaluated the gradient once fewer, with a NaN gradient norm at the end;
// a run that goes on past an iteration is the same run.
func TestNoFinalGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const D, d = 20, 3
	a := spreadSymmetric(rng, D)
	w0 := grassmanntest.RandomPoint(rng, D, d)
	for _, c := range []struct {
		name string
		opt  grassmann.CGOptions
		stop string
	}{
		{"iteration cap", grassmann.CGOptions{MaxIter: 7, CostRelTol: 1e-15}, "iteration limit"},
		{"cost change", grassmann.CGOptions{MaxIter: 500, CostRelTol: 1e-3}, "relative cost change below tolerance"},
		{"step", grassmann.CGOptions{MaxIter: 500, CostRelTol: 1e-15, MinStep: 0.05}, "step below minimum"},
	} {
		grads := 0
		f := func(w, grad *mat.Dense) (float64, error) {
			var aw mat.Dense
			aw.Mul(a, w)
			if grad != nil {
				grads++
				grad.Scale(-2, &aw)
			}
			return -grassmann.FrobDot(w, &aw), nil
		}
		ref, err := grassmann.MinimizeCG(f, w0, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		refGrads := grads
		grads = 0
		opt := c.opt
		opt.NoFinalGradient = true
		res, err := grassmann.MinimizeCG(f, w0, opt)
		if err != nil {
			t.Fatal(err)
		}
		if ref.Stop != c.stop || res.Stop != c.stop {
			t.Errorf("%s: stops %q and %q, want %q", c.name, ref.Stop, res.Stop, c.stop)
		}
		if !mat.Equal(res.W, ref.W) || res.Cost != ref.Cost || res.Iterations != ref.Iterations || len(res.History) != len(ref.History) {
			t.Errorf("%s: W, cost %v, %d iterations, %d entries, want %v, %d, %d", c.name, res.Cost, res.Iterations, len(res.History), ref.Cost, ref.Iterations, len(ref.History))
		}
		if grads != refGrads-1 || !math.IsNaN(res.GradNorm) || !math.IsNaN(res.History[len(res.History)-1].GradNorm) {
			t.Errorf("%s: %d gradients (without the option %d), gradient norm %v", c.name, grads, refGrads, res.GradNorm)
		}
		for i, h := range res.History[:len(res.History)-1] {
			if r := ref.History[i]; h.Cost != r.Cost || h.GradNorm != r.GradNorm || h.Step != r.Step {
				t.Errorf("%s: iteration %d differs", c.name, i)
			}
		}
	}
}

// TestOrthonormalizeIllConditioned: columns that are nearly dependent
// (apart by 10⁻⁹ of their length) still come out orthonormal to rounding,
// which one pass of classical Gram–Schmidt does not give; the span of
// the first column is kept.
func TestOrthonormalizeIllConditioned(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const D, d = 50, 4
	q := mat.NewDense(D, d, nil)
	for i := range D {
		v := rng.NormFloat64()
		for j := range d {
			q.Set(i, j, v+1e-9*rng.NormFloat64())
		}
	}
	first := mat.Col(nil, 0, q)
	grassmann.Orthonormalize(q)
	if e := grassmann.OrthoError(q); !(e <= 1e-14) {
		t.Errorf("|QᵀQ − I| = %g", e)
	}
	var n float64
	for i, v := range first {
		n += v * q.At(i, 0)
	}
	if math.Abs(n-mat.Norm(mat.NewVecDense(D, first), 2)) > 1e-12*math.Abs(n) {
		t.Errorf("the first column is not the first input column normalised")
	}
}

// TestOrthonormalizeRankDeficient: zero columns (what is left of a
// column after the orthogonalisation is exactly 0) are completed with
// the first unit vectors orthogonal to the columns before: the result is
// orthonormal and finite.
func TestOrthonormalizeRankDeficient(t *testing.T) {
	q := mat.NewDense(4, 3, []float64{
		1, 0, 0,
		1, 0, 0,
		0, 0, 0,
		0, 0, 0,
	})
	grassmann.Orthonormalize(q)
	s := 1 / math.Sqrt2
	want := mat.NewDense(4, 3, []float64{
		s, s, 0,
		s, -s, 0,
		0, 0, 1,
		0, 0, 0,
	})
	if !mat.EqualApprox(q, want, 1e-15) {
		t.Errorf("Q =\n%v\nwant\n%v", mat.Formatted(q), mat.Formatted(want))
	}
}

// TestPrincipalAnglesOfItself: the principal angles between a subspace
// and itself, in the same basis or in another, are 0, never NaN: the
// cosines, which rounding can put just above 1, are clamped.
func TestPrincipalAnglesOfItself(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, shape := range [][2]int{{5, 2}, {10, 3}, {40, 8}, {100, 20}} {
		for range 5 {
			w := grassmanntest.RandomPoint(rng, shape[0], shape[1])
			var wr mat.Dense
			wr.Mul(w, grassmanntest.RandomPoint(rng, shape[1], shape[1]))
			for _, b := range []*mat.Dense{w, &wr} {
				ang, err := grassmann.PrincipalAngles(w, b)
				if err != nil {
					t.Fatal(err)
				}
				for i, a := range ang {
					if !(a <= 1e-7) {
						t.Fatalf("%d×%d: angle %d of a subspace with itself = %v, want 0", shape[0], shape[1], i, a)
					}
				}
			}
		}
	}
}

// TestMinimizeCGOrthonormalizesStart: a start whose columns are not
// orthonormal (any full-rank D×d) is orthonormalised first: the
// objective only ever sees points of the manifold.
func TestMinimizeCGOrthonormalizesStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	const D, d = 12, 3
	worst := 0.0
	r := rayleigh(descending(D), nil)
	f := func(w, grad *mat.Dense) (float64, error) {
		worst = max(worst, grassmann.OrthoError(w))
		return r(w, grad)
	}
	w0 := mat.NewDense(D, d, nil)
	for i := range D {
		for j := range d {
			w0.Set(i, j, 3*rng.NormFloat64())
		}
	}
	res, err := grassmann.MinimizeCG(f, w0, grassmann.CGOptions{MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !(worst <= 1e-12) {
		t.Errorf("the objective saw a W with |WᵀW − I| = %g", worst)
	}
	grassmanntest.CheckMonotone(t, res.History)
}

// TestMinimizeCGGradTolAtTheCap: a run whose last allowed iteration
// brings the gradient norm to the tolerance says so, not "iteration
// limit".
func TestMinimizeCGGradTolAtTheCap(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	const D, d = 10, 2
	f := rayleigh(descending(D), nil)
	w0 := grassmanntest.RandomPoint(rng, D, d)
	// Tolerances of the cost's change and the step that never stop it.
	opt := grassmann.CGOptions{MaxIter: 500, GradTol: 1e-4, CostRelTol: 1e-300, MinStep: 1e-300}
	free, err := grassmann.MinimizeCG(f, w0, opt)
	if err != nil {
		t.Fatal(err)
	}
	if free.Stop != "gradient norm below tolerance" || free.Iterations < 2 {
		t.Fatalf("uncapped run: %d iterations, stop %q: want a stop on the gradient", free.Iterations, free.Stop)
	}
	opt.MaxIter = free.Iterations
	capped, err := grassmann.MinimizeCG(f, w0, opt)
	if err != nil {
		t.Fatal(err)
	}
	if capped.Iterations != free.Iterations || capped.Stop != "gradient norm below tolerance" {
		t.Errorf("capped at %d iterations: %d, stop %q, want the gradient's stop", opt.MaxIter, capped.Iterations, capped.Stop)
	}
	opt.MaxIter = free.Iterations - 1
	if short, err := grassmann.MinimizeCG(f, w0, opt); err != nil || short.Stop != "iteration limit" {
		t.Errorf("capped one short: stop %q (%v), want \"iteration limit\"", short.Stop, err)
	}
}

// TestConjugate: the next direction is −ξ_new + β·P(η) with P the
// projection onto the tangent space at the new point and β Polak–Ribière+
// (max(0, ⟨ξ_new, ξ_new − P(ξ)⟩/|ξ|²)), 0 on a restart; it is a tangent
// vector at the new point.
func TestConjugate(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	const D, d = 9, 3
	w := grassmanntest.RandomPoint(rng, D, d)
	tangent := func(at *mat.Dense) *mat.Dense {
		return grassmann.ProjectTangent(nil, at, grassmanntest.RandomPoint(rng, D, d))
	}
	xi, eta := tangent(w), tangent(w)
	wNew := grassmann.Retract(w, eta, 0.3)
	gn := mat.Norm(xi, 2)
	pxi := grassmann.ProjectTangent(nil, wNew, xi)
	half := mat.DenseCopyOf(pxi)
	half.Scale(0.5, half) // ⟨ξ_new, ξ_new − P(ξ)⟩ = −|P(ξ)|²/4 < 0
	for _, c := range []struct {
		name    string
		xiNew   *mat.Dense
		restart bool
	}{
		{"PR+ positive", tangent(wNew), false},
		{"PR+ clipped at 0", half, false},
		{"restart", tangent(wNew), true},
	} {
		var diff mat.Dense
		diff.Sub(c.xiNew, pxi)
		beta := grassmann.FrobDot(c.xiNew, &diff) / (gn * gn)
		if c.name == "PR+ positive" && !(beta > 0) {
			t.Fatalf("%s: β = %v: the test data are wrong", c.name, beta)
		}
		if c.name == "PR+ clipped at 0" && !(beta < 0) {
			t.Fatalf("%s: β = %v: the test data are wrong", c.name, beta)
		}
		if beta < 0 || c.restart {
			beta = 0
		}
		want := grassmann.ProjectTangent(nil, wNew, eta)
		want.Scale(beta, want)
		want.Sub(want, c.xiNew)
		got := mat.DenseCopyOf(eta)
		grassmann.Conjugate(got, xi, c.xiNew, wNew, gn, c.restart)
		if !mat.EqualApprox(got, want, 1e-12) {
			t.Errorf("%s: direction\n%v\nwant\n%v", c.name, mat.Formatted(got), mat.Formatted(want))
		}
		var wtg mat.Dense
		wtg.Mul(wNew.T(), got)
		if n := mat.Norm(&wtg, math.Inf(1)); n > 1e-12 {
			t.Errorf("%s: |W_newᵀη| = %g, want a tangent vector", c.name, n)
		}
	}
}

// descending returns the D×D diagonal matrix diag(D, D−1, …, 1).
func descending(D int) *mat.Dense {
	a := mat.NewDense(D, D, nil)
	for i := range D {
		a.Set(i, i, float64(D-i))
	}
	return a
}

// rayleigh returns the cost −tr(WᵀAW) of the symmetric a and its
// Euclidean gradient −2AW; it calls seen, if not nil, with W and the
// gradient where the gradient is asked for.
func rayleigh(a mat.Matrix, seen func(w, grad *mat.Dense)) grassmann.Objective {
	return func(w, grad *mat.Dense) (float64, error) {
		var aw mat.Dense
		aw.Mul(a, w)
		if grad != nil {
			grad.Scale(-2, &aw)
			if seen != nil {
				seen(mat.DenseCopyOf(w), mat.DenseCopyOf(grad))
			}
		}
		return -grassmann.FrobDot(w, &aw), nil
	}
}

// TestMinimizeCGArmijo: a first trial step that lowers the cost, but by
// less than Armijo's sufficient decrease, is not taken. On Gr(1, 2) with
// the cost −cos²θ of the point (cos θ, sin θ), from θ = 0.3 the first
// trial (along −ξ, of length InitialStep) lands at θ ≈ −0.3 + 10⁻⁶, a
// decrease of 6·10⁻⁷, where Armijo asks 4·10⁻⁵.
func TestMinimizeCGArmijo(t *testing.T) {
	a := mat.NewDiagDense(2, []float64{1, 0})
	const th = 0.3
	w0 := mat.NewDense(2, 1, []float64{math.Cos(th), math.Sin(th)})
	res, err := grassmann.MinimizeCG(rayleigh(a, nil), w0, grassmann.CGOptions{MaxIter: 1, InitialStep: math.Tan(2*th - 1e-6)})
	if err != nil {
		t.Fatal(err)
	}
	h0, h1 := res.History[0], res.History[1]
	// Along η = −ξ the slope is −|ξ|², so t·slope = −step·|ξ|.
	if need := 1e-4 * h1.Step * h0.GradNorm; !(h0.Cost-h1.Cost >= need) {
		t.Errorf("step %v lowered the cost by %.3g, Armijo's condition asks %.3g", h1.Step, h0.Cost-h1.Cost, need)
	}
}

// TestMinimizeCGStepDoubles: a step accepted at the first trial is
// doubled for the next iteration's first trial (the adaptive line search):
// from a small InitialStep, far from the minimum, the steps double.
func TestMinimizeCGStepDoubles(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const D, d = 8, 2
	a := mat.NewDiagDense(D, []float64{8, 7, 6, 5, 4, 3, 2, 1})
	res, err := grassmann.MinimizeCG(rayleigh(a, nil), grassmanntest.RandomPoint(rng, D, d), grassmann.CGOptions{MaxIter: 4, InitialStep: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(res.History); i++ {
		h := res.History[i]
		if h.Evals != 2 {
			t.Fatalf("iteration %d: %d evaluations, want the first trial and the gradient", i, h.Evals)
		}
		if want := 1e-4 * math.Pow(2, float64(i-1)); math.Abs(h.Step-want) > 1e-12*want {
			t.Errorf("iteration %d: step %v, want %v", i, h.Step, want)
		}
	}
}

// TestMinimizeCGRestartEvery: with RestartEvery 1 every direction is −ξ,
// so each point lies in the span of the columns of the point before and
// of its gradient (W + tη = W − t(G − WWᵀG), then a QR); with the default
// the conjugate directions leave that span.
func TestMinimizeCGRestartEvery(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	const D, d = 20, 3
	a := spreadSymmetric(rng, D)
	w0 := grassmanntest.RandomPoint(rng, D, d)
	// offSpan returns the largest distance over the run of a point from
	// the span of the point before and its gradient.
	offSpan := func(every int) float64 {
		var ws, gs []*mat.Dense
		_, err := grassmann.MinimizeCG(rayleigh(a, func(w, g *mat.Dense) { ws, gs = append(ws, w), append(gs, g) }), w0,
			grassmann.CGOptions{MaxIter: 15, RestartEvery: every, CostRelTol: 1e-15})
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for k := 1; k < len(ws); k++ {
			b := mat.NewDense(D, 2*d, nil)
			b.Slice(0, D, 0, d).(*mat.Dense).Copy(ws[k-1])
			b.Slice(0, D, d, 2*d).(*mat.Dense).Copy(gs[k-1])
			grassmann.Orthonormalize(b)
			var c, r mat.Dense
			c.Mul(b.T(), ws[k])
			r.Mul(b, &c)
			r.Sub(ws[k], &r)
			worst = max(worst, mat.Norm(&r, 2))
		}
		return worst
	}
	if e := offSpan(1); e > 1e-10 {
		t.Errorf("RestartEvery 1: a point %g from the span of the point before and its gradient", e)
	}
	if e := offSpan(0); !(e > 1e-3) {
		t.Errorf("default RestartEvery: every point within %g of that span: the test cannot tell a restart", e)
	}
}

// spreadSymmetric returns a random symmetric D×D matrix Q·diag(λ)·Qᵀ with
// eigenvalues λ_i = D − i + U(0, 1): distinct, about one apart.
func spreadSymmetric(rng *rand.Rand, D int) *mat.Dense {
	q := grassmanntest.RandomPoint(rng, D, D)
	eig := make([]float64, D)
	for i := range eig {
		eig[i] = float64(D-i) + rng.Float64()
	}
	var a mat.Dense
	a.Mul(q, mat.NewDiagDense(D, eig))
	a.Mul(&a, q.T())
	return &a
}

// TestContinue: a run stopped by its iteration cap and continued (once,
// or twice) to a larger cap gives what one run to that cap gives, bit
// for bit, with and without NoFinalGradient, with a restart of the
// direction at the iteration it continues from, and where the longer run
// stops before its cap (the cost's change); progress sees the History it
// returns; the run continued is not changed by it, and its W is not the
// continuation's.
func TestContinue(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	const D, d = 20, 3
	f := rayleigh(spreadSymmetric(rng, D), nil)
	w0 := grassmanntest.RandomPoint(rng, D, d)
	for _, c := range []struct {
		name string
		opt  grassmann.CGOptions
		caps []int // the first run's cap, then each continuation's
		stop string
	}{
		{"cap", grassmann.CGOptions{CostRelTol: 1e-15}, []int{5, 12}, "iteration limit"},
		{"cap, twice", grassmann.CGOptions{CostRelTol: 1e-15}, []int{3, 7, 12}, "iteration limit"},
		{"cap, at a restart", grassmann.CGOptions{CostRelTol: 1e-15, RestartEvery: 4}, []int{4, 12}, "iteration limit"},
		{"cap, same cap", grassmann.CGOptions{CostRelTol: 1e-15}, []int{5, 5}, "iteration limit"},
		{"cost change", grassmann.CGOptions{CostRelTol: 1e-4}, []int{3, 500}, "relative cost change below tolerance"},
	} {
		for _, noFinal := range []bool{false, true} {
			opt := c.opt
			opt.NoFinalGradient = noFinal
			opt.MaxIter = c.caps[len(c.caps)-1]
			ref, err := grassmann.MinimizeCG(f, w0, opt)
			if err != nil {
				t.Fatal(err)
			}
			if ref.Stop != c.stop || ref.Iterations <= c.caps[0] && c.caps[0] < opt.MaxIter {
				t.Fatalf("%s: the run to the last cap stops (%q) after %d iterations: the case does not test what it says", c.name, ref.Stop, ref.Iterations)
			}
			opt.MaxIter = c.caps[0]
			res, err := grassmann.MinimizeCG(f, w0, opt)
			if err != nil {
				t.Fatal(err)
			}
			first, firstLen := res, len(res.History)
			var seen []grassmann.IterStats
			for _, n := range c.caps[1:] {
				seen = nil
				if res, err = res.Continue(f, n, func(s grassmann.IterStats) { seen = append(seen, s) }); err != nil {
					t.Fatal(err)
				}
			}
			name := c.name
			if noFinal {
				name += ", no final gradient"
			}
			if !sameCG(res, ref) {
				t.Errorf("%s: continued: %d iterations, cost %v, gradient %v, %q; in one run: %d, %v, %v, %q", name, res.Iterations, res.Cost, res.GradNorm, res.Stop, ref.Iterations, ref.Cost, ref.GradNorm, ref.Stop)
			}
			if len(seen) != len(res.History) || (len(seen) > 0 && !sameIter(seen[len(seen)-1], res.History[len(res.History)-1])) {
				t.Errorf("%s: progress saw %d iterations of %d", name, len(seen), len(res.History))
			}
			again, err := first.Continue(f, c.caps[len(c.caps)-1], nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(first.History) != firstLen || !sameCG(again, ref) {
				t.Errorf("%s: the run continued changed by continuing it", name)
			}
			if again.W == first.W || res.W == first.W {
				t.Errorf("%s: the run continued and its continuation share their W", name)
			}
		}
	}
}

// TestContinueSeconds: the iteration a run under NoFinalGradient stopped
// in, without the gradient at its end, and that Continue finishes, takes
// the wall time of its line search in the run and of its end in
// Continue, not the time between the two (here a pause of 50 ms, which
// is not synchronisation: the bound checked holds however long it is).
func TestContinueSeconds(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	const D, d = 20, 3
	f := rayleigh(spreadSymmetric(rng, D), nil)
	opt := grassmann.CGOptions{MaxIter: 3, CostRelTol: 1e-15, NoFinalGradient: true}
	r, err := grassmann.MinimizeCG(f, grassmanntest.RandomPoint(rng, D, d), opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != "iteration limit" || !math.IsNaN(r.GradNorm) {
		t.Fatalf("the run stops (%q) with gradient norm %v: nothing pending to finish", r.Stop, r.GradNorm)
	}
	lineSearch := r.History[len(r.History)-1].Seconds
	time.Sleep(50 * time.Millisecond)
	t0 := time.Now()
	c, err := r.Continue(f, 6, nil)
	took := time.Since(t0).Seconds()
	if err != nil {
		t.Fatal(err)
	}
	if s := c.History[r.Iterations].Seconds; !(s <= lineSearch+took) {
		t.Errorf("iteration %d took %.4fs: more than its line search (%.4fs) and the whole of Continue (%.4fs)", r.Iterations, s, lineSearch, took)
	}
}

// sameCG reports whether two runs reached the same W, cost, gradient
// norm, iterations and stop, through the same History but its Seconds,
// bit for bit.
func sameCG(a, b *grassmann.CGResult) bool {
	if !sameBits(a.W.RawMatrix().Data, b.W.RawMatrix().Data) || !sameBits([]float64{a.Cost, a.GradNorm}, []float64{b.Cost, b.GradNorm}) ||
		a.Iterations != b.Iterations || a.Stop != b.Stop || len(a.History) != len(b.History) {
		return false
	}
	for i, h := range a.History {
		if !sameIter(h, b.History[i]) {
			return false
		}
	}
	return true
}

// sameIter reports whether two iterations are the same but their Seconds.
func sameIter(a, b grassmann.IterStats) bool {
	a.Seconds, b.Seconds = 0, 0
	return a.Iteration == b.Iteration && a.Evals == b.Evals && a.Restart == b.Restart &&
		sameBits([]float64{a.Cost, a.GradNorm, a.Step}, []float64{b.Cost, b.GradNorm, b.Step})
}

// sameBits reports whether a and b hold the same numbers bit for bit.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
