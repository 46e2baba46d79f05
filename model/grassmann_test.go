package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
)

func TestRetractKeepsOrthonormality(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, shape := range [][2]int{{10, 3}, {400, 20}, {50, 50}} {
		D, d := shape[0], shape[1]
		w := randomOrthonormal(rng, D, d)
		if e := orthoError(w); e > 1e-12 {
			t.Errorf("%d×%d start: |WᵀW − I| = %g", D, d, e)
		}
		for _, step := range []float64{1e-8, 0.1, 1, 100} {
			z := randomOrthonormal(rng, D, d) // any matrix; project it
			eta := ProjectTangent(nil, w, z)
			var wte mat.Dense
			wte.Mul(w.T(), eta)
			if n := mat.Norm(&wte, math.Inf(1)); n > 1e-12 {
				t.Errorf("tangent projection: |Wᵀη| = %g", n)
			}
			wn := Retract(w, eta, step)
			if e := orthoError(wn); e > 1e-12 {
				t.Errorf("%d×%d step %g: |WᵀW − I| = %g", D, d, step, e)
			}
			// Retract(W, η, 0) is W itself (R has positive diagonal).
			w0 := Retract(w, eta, 0)
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
	ang, err := PrincipalAngles(a, b)
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
	q := randomOrthonormal(rng, D, D)
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
		return -frobDot(w, &aw), nil
	}
	res, err := MinimizeCG(f, randomOrthonormal(rng, D, d), CGOptions{MaxIter: 500, GradTol: 1e-8, CostRelTol: 1e-15})
	if err != nil {
		t.Fatal(err)
	}
	truth := q.Slice(0, D, 0, d).(*mat.Dense)
	ang, _ := PrincipalAngles(res.W, truth)
	if ang[d-1] > 1e-5 {
		t.Errorf("largest principal angle to the top eigenspace %g rad after %d iterations (%s)", ang[d-1], res.Iterations, res.Stop)
	}
	if want := -(30.0 + 29 + 28 + 27); math.Abs(res.Cost-want) > 1e-9 {
		t.Errorf("cost %v, want %v", res.Cost, want)
	}
	checkMonotone(t, res.History)
	if e := orthoError(res.W); e > 1e-12 {
		t.Errorf("|WᵀW − I| = %g", e)
	}
}

func checkMonotone(t *testing.T, h []IterStats) {
	t.Helper()
	for i := 1; i < len(h); i++ {
		if h[i].Cost > h[i-1].Cost {
			t.Errorf("iteration %d: cost rose from %.17g to %.17g", h[i].Iteration, h[i-1].Cost, h[i].Cost)
		}
		if !(h[i].Step > 0) {
			t.Errorf("iteration %d: step %v", h[i].Iteration, h[i].Step)
		}
	}
}

// CG on the training cost: every accepted step decreases it.
func TestMinimizeCGMonotoneOnCost(t *testing.T) {
	for _, meas := range []match.Measure{match.Hellinger, match.Jeffrey} {
		rng := rand.New(rand.NewPCG(21, uint64(meas)))
		const m, D, d = 8, 12, 3
		sets := randomSets(rng, m, 10, 20, D)
		c, err := NewCost(sets, randomPairs(rng, m), randomBandwidths(rng, m), meas, d, 2)
		if err != nil {
			t.Fatal(err)
		}
		res, err := MinimizeCG(c.Eval, randomOrthonormal(rng, D, d), CGOptions{MaxIter: 40})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.History) < 3 {
			t.Fatalf("%v: only %d iterations (%s)", meas, len(res.History)-1, res.Stop)
		}
		checkMonotone(t, res.History)
		if !(res.Cost < res.History[0].Cost) {
			t.Errorf("%v: cost did not decrease: %v -> %v", meas, res.History[0].Cost, res.Cost)
		}
		if e := orthoError(res.W); e > 1e-12 {
			t.Errorf("|WᵀW − I| = %g", e)
		}
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
	res, err := MinimizeCG(f, randomOrthonormal(rng, 5, 2), CGOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations != 0 || res.Stop != "gradient norm below tolerance" {
		t.Errorf("%d iterations, stop %q", res.Iterations, res.Stop)
	}
}
