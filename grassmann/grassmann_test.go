package grassmann_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

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
	q := grassmanntest.RandomPoint(rng, D, D)
	eig := make([]float64, D)
	for i := range eig {
		eig[i] = float64(D-i) + rng.Float64()
	}
	var a mat.Dense
	a.Mul(q, mat.NewDiagDense(D, eig))
	a.Mul(&a, q.T())
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
			aw.Mul(&a, w)
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
