package pca

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
	"setmatch/internal/stats"
)

// frames returns n×D centred frames whose variance falls off with the
// feature index and is 25 times larger in the first k features.
func frames(rng *rand.Rand, n, dim, k int) *mat.Dense {
	x := mat.NewDense(n, dim, nil)
	for i := range n {
		for j := range dim {
			sd := float64(dim-j) / float64(dim)
			if j < k {
				sd *= 5
			}
			x.Set(i, j, rng.NormFloat64()*sd)
		}
	}
	return stats.Centred(x)
}

// angle returns the largest principal angle between the first k columns
// of a and b.
func angle(a, b *mat.Dense, k int) float64 {
	r, _ := a.Dims()
	ang, _ := grassmann.PrincipalAngles(mat.DenseCopyOf(a.Slice(0, r, 0, k)), mat.DenseCopyOf(b.Slice(0, r, 0, k)))
	return ang[k-1]
}

// checkSigns fails unless every column's entry of largest magnitude (the
// first on ties, as floats.MaxIdx finds it) is positive.
func checkSigns(t *testing.T, name string, w *mat.Dense) {
	t.Helper()
	_, c := w.Dims()
	for k := range c {
		col := mat.Col(nil, k, w)
		mag := make([]float64, len(col))
		for j, v := range col {
			mag[j] = math.Abs(v)
		}
		if col[floats.MaxIdx(mag)] < 0 {
			t.Errorf("%s: column %d's largest entry is negative", name, k)
		}
	}
}

// TestPathsAgree: every way of computing the leading directions — the
// scatter, the Gram matrix (fewer frames than features), the subspace
// iteration (large D), and All's thin SVD and full eigendecomposition —
// gives the same subspace and the same eigenvalues, with the signs of the
// package comment.
func TestPathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const k = 5
	for _, c := range []struct{ n, dim int }{{200, 60}, {40, 120}} {
		x := frames(rng, c.n, c.dim, k)
		svdW, svdV, err := all(x, true)
		if err != nil {
			t.Fatal(err)
		}
		eigW, eigV, err := all(x, false)
		if err != nil {
			t.Fatal(err)
		}
		scW, scV, err := scatter(x, k)
		if err != nil {
			t.Fatal(err)
		}
		subW, subV, err := subspace(x, k, 3)
		if err != nil {
			t.Fatal(err)
		}
		leadW, leadV, err := Leading(x, k, 1)
		if err != nil {
			t.Fatal(err)
		}
		if c.n < c.dim {
			gW, gV, err := gram(x, k)
			if err != nil {
				t.Fatal(err)
			}
			if a := angle(gW, svdW, k); a > 1e-6 {
				t.Errorf("%d×%d: Gram path %g rad from the SVD", c.n, c.dim, a)
			}
			for j := range k {
				if math.Abs(gV[j]-svdV[j]) > 1e-9*svdV[0] {
					t.Errorf("%d×%d: Gram eigenvalue %d = %v, SVD %v", c.n, c.dim, j, gV[j], svdV[j])
				}
			}
		}
		for _, p := range []struct {
			name string
			w    *mat.Dense
			v    []float64
			tol  float64
		}{{"eigendecomposition", eigW, eigV, 1e-6}, {"scatter", scW, scV, 1e-6}, {"subspace", subW, subV, 1e-4}, {"Leading", leadW, leadV, 1e-6}} {
			if a := angle(p.w, svdW, k); a > p.tol {
				t.Errorf("%d×%d: %s %g rad from the SVD", c.n, c.dim, p.name, a)
			}
			for j := range k {
				if math.Abs(p.v[j]-svdV[j]) > p.tol*svdV[0] {
					t.Errorf("%d×%d: %s eigenvalue %d = %v, SVD %v", c.n, c.dim, p.name, j, p.v[j], svdV[j])
				}
			}
			if e := grassmann.OrthoError(p.w); !(e <= 1e-10) {
				t.Errorf("%d×%d: %s: max |WᵀW − I| = %g", c.n, c.dim, p.name, e)
			}
		}
		checkSigns(t, "All", svdW)
		checkSigns(t, "Leading", leadW)
		// Where the eigenvalues stand apart, the columns themselves agree,
		// signs included.
		for j := range k {
			var dot float64
			for i := range c.dim {
				dot += leadW.At(i, j) * svdW.At(i, j)
			}
			if dot < 1-1e-8 {
				t.Errorf("%d×%d: column %d of Leading and All: cosine %v", c.n, c.dim, j, dot)
			}
		}
	}
}

// TestLeadingAboveRank: more directions than the frames span. The Gram
// path refuses them and the scatter gives them; Rank counts the ones of
// variance.
func TestLeadingAboveRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := frames(rng, 10, 30, 3) // rank 9 after centring
	w, vals, err := Leading(x, 12, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r := Rank(vals, 10, 30); r != 9 {
		t.Errorf("Rank = %d, want 9 (eigenvalues %v)", r, vals)
	}
	if e := grassmann.OrthoError(w); !(e <= 1e-10) {
		t.Errorf("max |WᵀW − I| = %g", e)
	}
	ref, _, _ := All(x)
	if a := angle(w, ref, 9); a > 1e-6 {
		t.Errorf("the 9 directions of variance are %g rad from All's", a)
	}
}

// TestErrors: bad requests fail with a message (no panics).
func TestErrors(t *testing.T) {
	x := frames(rand.New(rand.NewPCG(1, 1)), 5, 4, 1)
	for _, k := range []int{0, 5} {
		if _, _, err := Leading(x, k, 1); err == nil {
			t.Errorf("k = %d: no error", k)
		}
	}
	if r := Rank(nil, 3, 3); r != 0 {
		t.Errorf("Rank of nothing = %d", r)
	}
	if r := Rank([]float64{0, 0}, 3, 3); r != 0 {
		t.Errorf("Rank of zeros = %d", r)
	}
}

// TestLeadingLargeD: above CovarianceMaxDim features Leading takes the
// seeded subspace iteration, and still finds the directions of the
// thin SVD where their variances stand apart; the same seed gives the
// same basis.
func TestLeadingLargeD(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, dim, k = 40, CovarianceMaxDim + 100, 4
	x := frames(rng, n, dim, k)
	// In 2100 features, 40 frames' noise alone has sample variances near
	// the 4 strong directions' own: make those stand well apart.
	for i := range n {
		for j := range k {
			x.Set(i, j, 10*x.At(i, j))
		}
	}
	w, vals, err := Leading(x, k, 7)
	if err != nil {
		t.Fatal(err)
	}
	ref, refVals, err := All(x)
	if err != nil {
		t.Fatal(err)
	}
	if a := angle(w, ref, k); a > 1e-4 {
		t.Errorf("%g rad from the SVD's directions", a)
	}
	for j := range k {
		if math.Abs(vals[j]-refVals[j]) > 1e-6*refVals[0] {
			t.Errorf("eigenvalue %d = %v, SVD %v", j, vals[j], refVals[j])
		}
	}
	checkSigns(t, "Leading", w)
	again, _, _ := Leading(x, k, 7)
	if !mat.Equal(w, again) {
		t.Error("the same seed gave another basis")
	}
}

// TestAllClampsEigenvalues: frames that vary in fewer directions than
// their features (two features are combinations of others), with more
// frames than features (All's eigendecomposition of the scatter): the
// eigenvalues of no variance, which rounding can put below 0, are 0.
func TestAllClampsEigenvalues(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := frames(rng, 50, 6, 2)
	for i := range 50 {
		x.Set(i, 5, x.At(i, 0)+x.At(i, 1))
		x.Set(i, 4, 2*x.At(i, 2))
	}
	_, vals, err := All(x)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range vals {
		if !(v >= 0) {
			t.Errorf("eigenvalue %d = %v, want ≥ 0", j, v)
		}
	}
	if r := Rank(vals, 50, 6); r != 4 {
		t.Errorf("Rank = %d, want 4 (eigenvalues %v)", r, vals)
	}
}

// TestFixSignsTie: a column whose entries of largest magnitude tie is
// signed by the first of them, as the package comment says.
func TestFixSignsTie(t *testing.T) {
	w := mat.NewDense(3, 3, []float64{
		-1, 1, 0.5,
		1, -1, -0.5,
		0, 0.5, -0.25,
	})
	fixSigns(w)
	want := mat.NewDense(3, 3, []float64{
		1, 1, 0.5,
		-1, -1, -0.5,
		0, 0.5, -0.25,
	})
	if !mat.Equal(w, want) {
		t.Errorf("fixSigns gave\n%v\nwant\n%v", mat.Formatted(w), mat.Formatted(want))
	}
}

// TestAllRefusesOverflow: frames whose scatter overflows (values of
// 1e200, more frames than features: the eigendecomposition path) give an
// error, not directions of NaN; the same frames scaled down are taken.
func TestAllRefusesOverflow(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1e200, 0, -1e200, 1e200, 3e200, -2e200})
	if _, _, err := All(x); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("frames of 1e200: %v, want an error", err)
	}
	x.Scale(1e-195, x)
	if _, _, err := All(x); err != nil {
		t.Errorf("frames of 1e5: %v", err)
	}
}

// constructed returns n×D centred frames x = U·diag(s)·Vᵀ, U (n×r) and
// V (D×r) random with orthonormal columns, U's centred, and V: the
// principal directions of x are V's columns and the scatter's eigenvalues
// s², by construction, an oracle independent of every path of the
// package.
func constructed(rng *rand.Rand, n, dim int, s []float64) (x, v *mat.Dense) {
	r := len(s)
	u := mat.NewDense(n, r, nil)
	v = mat.NewDense(dim, r, nil)
	for j := range r {
		var mean float64
		for i := range n {
			u.Set(i, j, rng.NormFloat64())
			mean += u.At(i, j) / float64(n)
		}
		for i := range n {
			u.Set(i, j, u.At(i, j)-mean)
		}
		for i := range dim {
			v.Set(i, j, rng.NormFloat64())
		}
	}
	grassmann.Orthonormalize(u) // combinations of centred columns stay centred
	grassmann.Orthonormalize(v)
	for j, sj := range s {
		for i := range n {
			u.Set(i, j, sj*u.At(i, j))
		}
	}
	x = mat.NewDense(n, dim, nil)
	x.Mul(u, v.T())
	return x, v
}

// checkDirections fails unless the first len(s) columns of w are the
// columns of v up to sign, to a distance of tol (about the angle), and
// vals are s² to tol × s₁².
func checkDirections(t *testing.T, name string, w, v *mat.Dense, vals, s []float64, tol float64) {
	t.Helper()
	dim, _ := v.Dims()
	for j := range s {
		var minus, plus float64
		for i := range dim {
			minus += (w.At(i, j) - v.At(i, j)) * (w.At(i, j) - v.At(i, j))
			plus += (w.At(i, j) + v.At(i, j)) * (w.At(i, j) + v.At(i, j))
		}
		if d := math.Sqrt(min(minus, plus)); !(d <= tol) {
			t.Errorf("%s: direction %d is %.3g from the constructed one", name, j, d)
		}
		if want := s[j] * s[j]; !(math.Abs(vals[j]-want) <= tol*s[0]*s[0]) {
			t.Errorf("%s: eigenvalue %d = %v, constructed %v", name, j, vals[j], want)
		}
	}
}

// TestPathsFindConstructedDirections checks every path of Leading (the
// Gram matrix, the scatter, the subspace iteration) and of All (the thin
// SVD, the eigendecomposition of the scatter) against frames built from
// known directions and variances. The variances fall slowly (the 5th is
// 6/7 of the 4th), so the subspace iteration finds the 4 leading
// directions only with the oversampling of its block.
func TestPathsFindConstructedDirections(t *testing.T) {
	s := make([]float64, 20)
	for j, v := range []float64{100, 90, 80, 70, 60, 50, 45, 40, 35, 30, 25, 20, 15, 10} {
		s[j] = math.Sqrt(v)
	}
	for j := 14; j < len(s); j++ {
		s[j] = math.Pow(0.5, float64(j-14))
	}
	const k = 4
	for _, c := range []struct {
		name   string
		n, dim int
		all    bool
		tol    float64
	}{
		{"Leading, Gram matrix", 40, 120, false, 1e-9},
		{"Leading, scatter", 200, 60, false, 1e-9},
		{"Leading, subspace iteration", 40, CovarianceMaxDim + 100, false, 1e-9},
		{"All, thin SVD", 40, 120, true, 1e-9},
		{"All, eigendecomposition", 200, 60, true, 1e-9},
	} {
		x, v := constructed(rand.New(rand.NewPCG(uint64(c.n), uint64(c.dim))), c.n, c.dim, s)
		if c.all {
			w, vals, err := All(x)
			if err != nil {
				t.Fatal(err)
			}
			checkDirections(t, c.name, w, v, vals, s, c.tol)
			continue
		}
		w, vals, err := Leading(x, k, 1)
		if err != nil {
			t.Fatal(err)
		}
		checkDirections(t, c.name, w, v, vals, s[:k], c.tol)
	}
}

// TestAllSmallVariance checks how exactly All finds a direction of small
// variance, as its comment says. With fewer frames than features (the
// thin SVD) one of variance 1e-16 of the largest is found, where the
// scatter's eigendecomposition would lose it (about 0.7 away): the
// frames' own rounding moves it by about 1e-16/1e-8 towards the
// directions of no variance, hence a tolerance of 1e-6. With more frames
// than features (the scatter's eigendecomposition, whose rounding is of
// the largest variance) one of variance 1e-10 of the largest is found to
// about 1e-6 (measured: under 1e-6 over five draws of each shape).
func TestAllSmallVariance(t *testing.T) {
	for _, c := range []struct {
		name   string
		n, dim int
		s      []float64
		tol    float64
	}{
		{"thin SVD", 10, 30, []float64{1, 1e-2, 1e-8}, 1e-6},
		{"eigendecomposition", 200, 60, []float64{1, 1e-1, 1e-2, 1e-5}, 1e-5},
	} {
		x, v := constructed(rand.New(rand.NewPCG(9, 9)), c.n, c.dim, c.s)
		w, vals, err := All(x)
		if err != nil {
			t.Fatal(err)
		}
		checkDirections(t, c.name, w, v, vals, c.s, c.tol)
		last := len(c.s) - 1
		if want := c.s[last] * c.s[last]; !(math.Abs(vals[last]-want) <= c.tol*want) {
			t.Errorf("%s: eigenvalue %d = %v, constructed %v", c.name, last, vals[last], want)
		}
	}
}

// TestLeadingSeedOnlyAboveCovarianceMaxDim checks that the seed changes
// Leading's basis (the subspace iteration's random start) only above
// CovarianceMaxDim features: up to it, fewer frames than features take
// the exact Gram path, whatever the seed.
func TestLeadingSeedOnlyAboveCovarianceMaxDim(t *testing.T) {
	s := []float64{3, 2, 1}
	for _, c := range []struct {
		dim   int
		seeds bool
	}{{CovarianceMaxDim, false}, {CovarianceMaxDim + 1, true}} {
		x, _ := constructed(rand.New(rand.NewPCG(2, 2)), 12, c.dim, s)
		a, _, err := Leading(x, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := Leading(x, 2, 2)
		if err != nil {
			t.Fatal(err)
		}
		if differ := !mat.Equal(a, b); differ != c.seeds {
			t.Errorf("%d features: seeds 1 and 2 give different bases: %v, want %v", c.dim, differ, c.seeds)
		}
	}
}

// TestTooLarge: frames whose squares summed over the set overflow are
// refused with the factor that brings their largest value to 1…10;
// frames whose squares sum to a number are not.
func TestTooLarge(t *testing.T) {
	for _, c := range []struct {
		name string
		x    *mat.Dense
		want string // "" for no error
	}{
		{"squares overflow", mat.NewDense(2, 2, []float64{1, -3e200, 2, 4}), "up to 3e+200, are too large for a covariance or subspace: their squares, summed over its frames, overflow a float64 (1.8e+308 at most); scale the features down, e.g. divide them by 1e+200"},
		{"the largest float64", mat.NewDense(1, 2, []float64{math.MaxFloat64, 1}), "divide them by 1e+308"},
		{"squares sum to a number", mat.NewDense(2, 2, []float64{1e150, -1e150, 1, 2}), ""},
	} {
		err := TooLarge(c.x)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
