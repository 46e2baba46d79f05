package pca

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
)

// TestTopEigenMatchesEigenSym checks the k leading eigenpairs of topEigen
// against gonum's EigenSym on covariances with distinct, clustered and
// zero eigenvalues (fewer frames than features): the same eigenvalues,
// orthonormal vectors with small residuals, and the same subspace of the
// leading eigenvalues that stand apart from the next.
func TestTopEigenMatchesEigenSym(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		name     string
		frames   int
		dim, k   int
		spectrum func(j int) float64
	}{
		{"distinct", 300, 60, 12, func(j int) float64 { return 10 / float64(j+1) }},
		{"flat tail", 400, 80, 20, func(j int) float64 {
			if j < 5 {
				return 20 - float64(j)
			}
			return 0.05
		}},
		{"rank deficient", 30, 90, 29, func(j int) float64 { return 1 + float64(j%7) }},
		{"tiny", 5, 3, 3, func(j int) float64 { return 1 }},
	} {
		x := mat.NewDense(c.frames, c.dim, nil)
		for i := range c.frames {
			for j := range c.dim {
				x.Set(i, j, rng.NormFloat64()*math.Sqrt(c.spectrum(j)))
			}
		}
		a := mat.NewSymDense(c.dim, nil)
		a.SymOuterK(1, x.T())
		v, vals, err := topEigen(a, c.k)
		if err != nil {
			t.Fatal(err)
		}
		var es mat.EigenSym
		if !es.Factorize(a, true) {
			t.Fatal("EigenSym failed")
		}
		want := es.Values(nil)
		sort.Sort(sort.Reverse(sort.Float64Slice(want)))
		var vecs mat.Dense
		es.VectorsTo(&vecs)
		scale := want[0]
		for j := range c.k {
			if math.Abs(vals[j]-want[j]) > 1e-10*scale {
				t.Errorf("%s: eigenvalue %d %v, EigenSym %v", c.name, j, vals[j], want[j])
			}
			// Residual ‖Av − λv‖.
			var av mat.VecDense
			av.MulVec(a, v.ColView(j))
			av.AddScaledVec(&av, -vals[j], v.ColView(j))
			if r := mat.Norm(&av, 2); r > 1e-9*scale {
				t.Errorf("%s: eigenvector %d residual %g (scale %g)", c.name, j, r, scale)
			}
		}
		var vtv mat.Dense
		vtv.Mul(v.T(), v)
		for i := range c.k {
			for j := range c.k {
				w := 0.0
				if i == j {
					w = 1
				}
				if math.Abs(vtv.At(i, j)-w) > 1e-9 {
					t.Fatalf("%s: VᵀV[%d,%d] = %v", c.name, i, j, vtv.At(i, j))
				}
			}
		}
		// The subspace of the leading eigenvalues up to a clear gap.
		for g := c.k; g >= 1; g-- {
			if g < c.dim && want[g-1]-want[g] > 1e-3*scale {
				order := make([]int, c.dim)
				all := es.Values(nil)
				for i := range order {
					order[i] = i
				}
				sort.Slice(order, func(p, q int) bool { return all[order[p]] > all[order[q]] })
				ref := mat.NewDense(c.dim, g, nil)
				for j := range g {
					ref.SetCol(j, mat.Col(nil, order[j], &vecs))
				}
				ang, _ := grassmann.PrincipalAngles(mat.DenseCopyOf(v.Slice(0, c.dim, 0, g)), ref)
				if ang[g-1] > 1e-7 {
					t.Errorf("%s: the leading %d eigenvectors %g rad from EigenSym's", c.name, g, ang[g-1])
				}
				break
			}
		}
		// Fewer columns: the same first columns.
		v2, _, err := topEigen(a, max(1, c.k/2))
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(v2, v.Slice(0, c.dim, 0, max(1, c.k/2))) {
			t.Errorf("%s: the first %d of %d eigenvectors differ from the %d alone", c.name, c.k/2, c.k, c.k/2)
		}
	}
}

// BenchmarkTopEigen: the 40 leading eigenvectors of a 944×944 covariance
// (LBP features), against every eigenvector (EigenSym).
func BenchmarkTopEigen(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, frames = 944, 1000
	x := mat.NewDense(frames, n, nil)
	for i := range frames {
		for j := range n {
			x.Set(i, j, rng.NormFloat64()*(1+float64(j%17)))
		}
	}
	a := mat.NewSymDense(n, nil)
	a.SymOuterK(1, x.T())
	b.Run("top40", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := topEigen(a, 40); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("eigensym", func(b *testing.B) {
		for b.Loop() {
			var es mat.EigenSym
			es.Factorize(a, true)
		}
	})
}

// TestLeadingAtExtremeScales: frames of a scale far from 1 (features of
// 1e80, or 1e-65: scatter entries beyond what gonum's Dsterf rescales
// without panicking) give the directions of the same frames at scale 1,
// and the variances times the scale squared; training panicked on them.
func TestLeadingAtExtremeScales(t *testing.T) {
	frames := func(c float64) *mat.Dense {
		rng := rand.New(rand.NewPCG(1, 2))
		x := mat.NewDense(40, 6, nil)
		for i := range 40 {
			for j := range 6 {
				x.Set(i, j, c*rng.NormFloat64()*float64(j+1))
			}
		}
		return x
	}
	want, wantVar, err := Leading(frames(1), 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []float64{1e-65, 1e80} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("scale %g: panic: %v", c, r)
				}
			}()
			got, vars, err := Leading(frames(c), 3, 1)
			if err != nil {
				t.Fatalf("scale %g: %v", c, err)
			}
			for j := range 3 {
				if d := math.Abs(math.Abs(mat.Dot(got.ColView(j), want.ColView(j))) - 1); d > 1e-9 {
					t.Errorf("scale %g: direction %d is %g off the one at scale 1", c, j, d)
				}
				if r := vars[j] / (c * c) / wantVar[j]; math.Abs(r-1) > 1e-9 {
					t.Errorf("scale %g: variance %d is %g times the one at scale 1 times c²", c, j, r)
				}
			}
		}()
	}
}
