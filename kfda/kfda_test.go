package kfda

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/stats"
)

// toyClasses returns m points in d dimensions from c Gaussian classes with
// different means and a shared anisotropic covariance.
func toyClasses(rng *rand.Rand, c, per, d int) (*mat.Dense, []int) {
	x := mat.NewDense(c*per, d, nil)
	labels := make([]int, c*per)
	for k := range c {
		for i := range per {
			r := k*per + i
			labels[r] = k
			for j := range d {
				mean := float64((k*7+j*3)%5) - 2
				x.Set(r, j, mean+(1+float64(j))*0.5*rng.NormFloat64())
			}
		}
	}
	return x, labels
}

// lda solves S_b w = λ S_w w on the points directly (d×d problem).
func lda(x *mat.Dense, labels []int, c int) (*mat.Dense, []float64) {
	m, d := x.Dims()
	mean := make([]float64, d)
	cm := make([][]float64, c)
	cnt := make([]float64, c)
	for k := range c {
		cm[k] = make([]float64, d)
	}
	for i := range m {
		for j := range d {
			mean[j] += x.At(i, j) / float64(m)
			cm[labels[i]][j] += x.At(i, j)
		}
		cnt[labels[i]]++
	}
	sb := mat.NewSymDense(d, nil)
	sw := mat.NewSymDense(d, nil)
	for k := range c {
		v := make([]float64, d)
		for j := range d {
			cm[k][j] /= cnt[k]
			v[j] = cm[k][j] - mean[j]
		}
		sb.SymRankOne(sb, cnt[k], mat.NewVecDense(d, v))
	}
	for i := range m {
		v := make([]float64, d)
		for j := range d {
			v[j] = x.At(i, j) - cm[labels[i]][j]
		}
		sw.SymRankOne(sw, 1, mat.NewVecDense(d, v))
	}
	w, vals, err := generalisedEigen(sb, sw)
	if err != nil {
		panic(err)
	}
	return w, vals
}

// principalCosines returns the cosines of the principal angles between the
// column spaces of a and b (same number of rows).
func principalCosines(t *testing.T, a, b *mat.Dense) []float64 {
	t.Helper()
	orth := func(x *mat.Dense) *mat.Dense {
		var svd mat.SVD
		if !svd.Factorize(x, mat.SVDThin) {
			t.Fatal("SVD failed")
		}
		var u mat.Dense
		svd.UTo(&u)
		return &u
	}
	qa, qb := orth(a), orth(b)
	var g mat.Dense
	g.Mul(qa.T(), qb)
	var svd mat.SVD
	if !svd.Factorize(&g, mat.SVDNone) {
		t.Fatal("SVD failed")
	}
	return svd.Values(nil)
}

func TestKFDALinearKernelIsLDA(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const c, per, d = 3, 15, 4
	x, labels := toyClasses(rng, c, per, d)
	var k mat.SymDense
	k.SymOuterK(1, x)
	f, err := Fit(&k, labels, c, 1e-10, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, vals := lda(x, labels, c)
	r := c - 1
	if _, got := f.Alpha.Dims(); got != r {
		t.Fatalf("latent dimension %d, want C−1 = %d", got, r)
	}
	for i := range r {
		if math.Abs(f.Values[i]-vals[i]) > 1e-5*math.Abs(vals[i]) {
			t.Errorf("eigenvalue %d: kFDA %.8g, LDA %.8g", i, f.Values[i], vals[i])
		}
	}
	// The projected points span the same subspace of R^m (up to sign and
	// scale of each direction, after centring).
	var zl mat.Dense
	zl.Mul(stats.Centred(x), w.Slice(0, d, 0, r))
	for i, cs := range principalCosines(t, f.Train, &zl) {
		if cs < 1-1e-6 {
			t.Errorf("principal cosine %d between kFDA and LDA projections = %.9f, want 1", i, cs)
		}
	}
	// Each direction separately agrees up to sign and scale too (distinct
	// eigenvalues).
	for j := range r {
		a := mat.Col(nil, j, f.Train)
		b := mat.Col(nil, j, &zl)
		cs := math.Abs(mat.Dot(mat.NewVecDense(len(a), a), mat.NewVecDense(len(b), b))) / (mat.Norm(mat.NewVecDense(len(a), a), 2) * mat.Norm(mat.NewVecDense(len(b), b), 2))
		if cs < 1-1e-6 {
			t.Errorf("direction %d: |cos| = %.9f between kFDA and LDA", j, cs)
		}
	}
}

func TestGeneralisedEigenSatisfiesEquation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const m = 12
	a := mat.NewSymDense(m, nil)
	b := mat.NewSymDense(m, nil)
	for range 5 {
		v := make([]float64, m)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		a.SymRankOne(a, 1, mat.NewVecDense(m, v))
	}
	for range m + 3 {
		v := make([]float64, m)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		b.SymRankOne(b, 1, mat.NewVecDense(m, v))
	}
	vecs, vals, err := generalisedEigen(a, b)
	if err != nil {
		t.Fatal(err)
	}
	for j := range m {
		if j > 0 && vals[j] > vals[j-1] {
			t.Errorf("eigenvalues not decreasing at %d", j)
		}
		v := mat.NewVecDense(m, mat.Col(nil, j, vecs))
		var av, bv mat.VecDense
		av.MulVec(a, v)
		bv.MulVec(b, v)
		for i := range m {
			if d := av.AtVec(i) - vals[j]*bv.AtVec(i); math.Abs(d) > 1e-8*(1+math.Abs(av.AtVec(i))) {
				t.Fatalf("eigenpair %d row %d: A v − λ B v = %g", j, i, d)
			}
		}
		if n := mat.Dot(v, &bv); math.Abs(n-1) > 1e-8 {
			t.Errorf("eigenvector %d: vᵀBv = %g, want 1", j, n)
		}
	}
}

// TestFitKFDAScatterEquation rebuilds S_b and S_w from the centred kernel
// independently of FitKFDA and checks S_b a = λ (S_w + εI) a.
func TestFitKFDAScatterEquation(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, labels := toyClasses(rng, 4, 6, 3)
	m, _ := x.Dims()
	// A Gaussian kernel on the points: full rank, unlike the linear one.
	k := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			var s float64
			for c := range 3 {
				e := x.At(i, c) - x.At(j, c)
				s += e * e
			}
			k.SetSym(i, j, math.Exp(-s/4))
		}
	}
	f, err := Fit(k, labels, 4, 1e-3, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Centred kernel via H K H.
	h := mat.NewDense(m, m, nil)
	for i := range m {
		for j := range m {
			v := -1 / float64(m)
			if i == j {
				v++
			}
			h.Set(i, j, v)
		}
	}
	var kc, tmp mat.Dense
	tmp.Mul(h, k)
	kc.Mul(&tmp, h)
	// S_w = Σ_i (k_i − μ_y)(k_i − μ_y)ᵀ, S_b = Σ_c n_c μ_c μ_cᵀ with columns.
	sw := mat.NewDense(m, m, nil)
	sb := mat.NewDense(m, m, nil)
	for c := range 4 {
		var idx []int
		for i, l := range labels {
			if l == c {
				idx = append(idx, i)
			}
		}
		mu := make([]float64, m)
		for _, i := range idx {
			for r := range m {
				mu[r] += kc.At(r, i) / float64(len(idx))
			}
		}
		var o mat.Dense
		o.Outer(float64(len(idx)), mat.NewVecDense(m, mu), mat.NewVecDense(m, mu))
		sb.Add(sb, &o)
		for _, i := range idx {
			d := make([]float64, m)
			for r := range m {
				d[r] = kc.At(r, i) - mu[r]
			}
			o.Outer(1, mat.NewVecDense(m, d), mat.NewVecDense(m, d))
			sw.Add(sw, &o)
		}
	}
	for i := range m {
		sw.Set(i, i, sw.At(i, i)+f.Reg)
	}
	_, r := f.Alpha.Dims()
	for j := range r {
		a := mat.NewVecDense(m, mat.Col(nil, j, f.Alpha))
		var l, rr mat.VecDense
		l.MulVec(sb, a)
		rr.MulVec(sw, a)
		scale := mat.Norm(&l, math.Inf(1)) + 1e-300
		for i := range m {
			if d := l.AtVec(i) - f.Values[j]*rr.AtVec(i); math.Abs(d) > 1e-7*scale {
				t.Fatalf("direction %d row %d: S_b a − λ(S_w+εI)a = %g (scale %g)", j, i, d, scale)
			}
		}
	}
	// Transform of the training kernel reproduces the training coordinates.
	z, err := f.Transform(k)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(z, f.Train, 1e-9) {
		t.Error("Transform(K_train) differs from the training coordinates")
	}
}

func TestFitKFDAErrors(t *testing.T) {
	k := mat.NewSymDense(3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
	if _, err := Fit(k, []int{0, 0}, 2, 1e-3, 0); err == nil {
		t.Error("label count mismatch accepted")
	}
	if _, err := Fit(k, []int{0, 0, 0}, 2, 1e-3, 0); err == nil {
		t.Error("single class accepted")
	}
	if _, err := Fit(k, []int{0, 1, 5}, 2, 1e-3, 0); err == nil {
		t.Error("label out of range accepted")
	}
	if _, err := Fit(k, []int{0, 1, 1}, 2, 0, 0); err == nil {
		t.Error("zero regulariser accepted")
	}
	if _, err := Fit(k, []int{0, -1, 1}, 2, 1e-3, 0); err == nil {
		t.Error("negative label accepted")
	}
}

// gaussKernel returns the Gaussian kernel exp(−|x_i − x_j|²/4) of the
// rows of x: full rank, unlike the linear one.
func gaussKernel(x *mat.Dense) *mat.SymDense {
	m, d := x.Dims()
	k := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			var s float64
			for c := range d {
				e := x.At(i, c) - x.At(j, c)
				s += e * e
			}
			k.SetSym(i, j, math.Exp(-s/4))
		}
	}
	return k
}

// BenchmarkFit times one kFDA fit on 40 training sets, 8 classes.
func BenchmarkFit(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	x, labels := toyClasses(rng, 8, 5, 6)
	var k mat.SymDense
	k.SymOuterK(1, x)
	for b.Loop() {
		if _, err := Fit(&k, labels, 8, 1e-2, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLowerTimesSymEqualsMul checks lowerTimesSym against gonum's Mul of
// the same types, which Fit used before, to the last bit.
func TestLowerTimesSymEqualsMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, m := range []int{1, 3, 4, 7, 33} {
		l := mat.NewTriDense(m, mat.Lower, nil)
		a := mat.NewSymDense(m, nil)
		for i := range m {
			for j := 0; j <= i; j++ {
				l.SetTri(i, j, rng.NormFloat64())
				a.SetSym(i, j, rng.NormFloat64()*1e3)
			}
		}
		var want mat.Dense
		want.Mul(l, a)
		got := lowerTimesSym(l, a)
		for i := range m {
			for j := range m {
				if got.At(i, j) != want.At(i, j) {
					t.Fatalf("m=%d: (%d, %d) = %v, Mul %v", m, i, j, got.At(i, j), want.At(i, j))
				}
			}
		}
	}
}

// TestKernelNaN: Jeffrey divergences that overflowed to +Inf between the
// classes, with a width over their median (+Inf too, so the width is 0),
// make kernel values of NaN (0·Inf). Fit says which value is NaN and
// what avoids it, rather than asking for a larger regulariser; Transform
// and TransformRow name the training set whose kernel value is NaN, not
// the first one (the row's mean is NaN, and every value centred with it).
func TestKernelNaN(t *testing.T) {
	inf := math.Inf(1)
	d := mat.NewSymDense(4, []float64{
		0, 2, inf, inf,
		2, 0, inf, inf,
		inf, inf, 0, 3,
		inf, inf, 3, 0,
	})
	kernelJ := func(j, s float64) float64 { return math.Exp(-s * j) }
	med := MedianOffDiag(d, []int{0, 1, 2, 3}, false)
	k := KernelMatrix(d, 1, med, kernelJ)
	_, err := Fit(k, []int{0, 0, 1, 1}, 2, 1e-3, 0)
	var e *KernelNaNError
	if !errors.As(err, &e) || !e.Training || e.Set != 0 || e.Train != 2 || !errors.Is(err, ErrKFDA) ||
		!strings.Contains(err.Error(), "training kernel value (0, 2) is NaN") || !strings.Contains(err.Error(), KernelNaNAdvice) {
		t.Errorf("Fit on a kernel of NaN: %v (%+v), want the KernelNaNError of value (0, 2) with its advice", err, e)
	}

	k = KernelMatrix(d, 1, 1, kernelJ) // the raw divergence: the kernel is 0 where it is +Inf
	f, err := Fit(k, []int{0, 0, 1, 1}, 2, 1e-3, 0)
	if err != nil {
		t.Fatalf("Fit with a raw width: %v", err)
	}
	row := []float64{0.5, 0.4, math.NaN(), 0}
	if _, err := f.Transform(mat.NewDense(1, 4, slices.Clone(row))); !errors.As(err, &e) || e.Training || e.Set != 0 || e.Train != 2 ||
		err.Error() != "set 0: kernel Fisher discriminant: kernel value 2 is NaN: "+KernelNaNAdvice {
		t.Errorf("Transform: %v, want the NaN of set 0's kernel value 2", err)
	}
	if _, err := f.TransformRow(slices.Clone(row)); !errors.As(err, &e) || e.Set != -1 || e.Train != 2 ||
		err.Error() != "kernel Fisher discriminant: kernel value 2 is NaN: "+KernelNaNAdvice {
		t.Errorf("TransformRow: %v, want the NaN of kernel value 2", err)
	}
}

// TestFitScaleOfKernel: the regulariser is relative to tr(S_w)/m, so a
// kernel scaled by c gives the same discriminant: the same eigenvalues
// and training coordinates, with ε scaled by c².
func TestFitScaleOfKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	x, labels := toyClasses(rng, 3, 5, 3)
	k := gaussKernel(x)
	var k100 mat.SymDense
	k100.ScaleSym(100, k)
	f, err := Fit(k, labels, 3, 0.1, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Fit(&k100, labels, 3, 0.1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r := g.Reg / f.Reg; math.Abs(r-1e4) > 1e-8*1e4 {
		t.Errorf("ε of the kernel ×100 is %g times ε, want 10⁴", r)
	}
	for j := range f.Values {
		if math.Abs(g.Values[j]-f.Values[j]) > 1e-9*f.Values[0] {
			t.Errorf("eigenvalue %d: %v of the kernel ×100, %v of the kernel", j, g.Values[j], f.Values[j])
		}
	}
	if !mat.EqualApprox(g.Train, f.Train, 1e-8*mat.Norm(f.Train, math.Inf(1))) {
		t.Error("the training coordinates of the kernel ×100 differ from the kernel's")
	}
}

// TestFitOneSetPerClass: with one training set per class the within-class
// scatter is 0 and the regulariser is relative to the centred kernel's
// mean diagonal instead: the fit still succeeds, and Prepared says so
// (OneEach), which it does not where a class has two sets.
func TestFitOneSetPerClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	x, _ := toyClasses(rng, 4, 1, 3)
	k := gaussKernel(x)
	labels := []int{0, 1, 2, 3}
	p, err := Prepare(k, labels, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !p.OneEach {
		t.Error("one set per class: OneEach is false")
	}
	f, err := p.Fit(1e-3, 0)
	if err != nil {
		t.Fatalf("one set per class: %v", err)
	}
	var diag float64
	for i := range 4 {
		diag += p.kc.At(i, i) / 4
	}
	if math.Abs(f.Reg-1e-3*diag) > 1e-12*diag {
		t.Errorf("ε = %v, want 10⁻³ × the centred kernel's mean diagonal %v", f.Reg, diag)
	}
	if p, err := Prepare(k, []int{0, 1, 2, 2}, 3); err != nil || p.OneEach {
		t.Errorf("a class of two sets: OneEach %v (%v), want false", p != nil && p.OneEach, err)
	}
}

// TestFitDimension: dim ≤ 0 or above C−1 gives C−1 latent dimensions,
// and one in between gives that many, the leading ones.
func TestFitDimension(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	x, labels := toyClasses(rng, 4, 4, 3)
	k := gaussKernel(x)
	all, err := Fit(k, labels, 4, 1e-3, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dim, want int }{{0, 3}, {-1, 3}, {3, 3}, {4, 3}, {10, 3}, {2, 2}, {1, 1}} {
		f, err := Fit(k, labels, 4, 1e-3, c.dim)
		if err != nil {
			t.Fatal(err)
		}
		if _, r := f.Alpha.Dims(); r != c.want || len(f.Values) != c.want {
			t.Errorf("dim %d: %d directions, %d eigenvalues, want %d", c.dim, r, len(f.Values), c.want)
			continue
		}
		if !mat.Equal(f.Alpha, all.Alpha.Slice(0, len(labels), 0, c.want)) {
			t.Errorf("dim %d: the directions are not the leading ones of C−1", c.dim)
		}
	}
}

// TestTruncate: Truncate(r) keeps the first r directions, eigenvalues and
// training coordinates, shares nothing with the discriminant, and refuses
// r outside [1, its dimensions].
func TestTruncate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 10))
	x, labels := toyClasses(rng, 4, 4, 3)
	m := len(labels)
	f, err := Fit(gaussKernel(x), labels, 4, 1e-3, 0)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := f.Truncate(2)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(tr.Alpha, f.Alpha.Slice(0, m, 0, 2)) || !mat.Equal(tr.Train, f.Train.Slice(0, m, 0, 2)) ||
		!slices.Equal(tr.Values, f.Values[:2]) || tr.Reg != f.Reg || tr.AllMean != f.AllMean || !slices.Equal(tr.ColMean, f.ColMean) {
		t.Errorf("Truncate(2) is not the first 2 directions of the discriminant")
	}
	tr.Alpha.Set(0, 0, 42)
	tr.Train.Set(0, 0, 42)
	tr.ColMean[0] = 42
	tr.Values[0] = 42
	if f.Alpha.At(0, 0) == 42 || f.Train.At(0, 0) == 42 || f.ColMean[0] == 42 || f.Values[0] == 42 {
		t.Error("Truncate shares its numbers with the discriminant")
	}
	for _, r := range []int{0, 4} {
		if _, err := f.Truncate(r); err == nil {
			t.Errorf("Truncate(%d) of 3 directions: no error", r)
		}
	}
}

// TestTransformRowMatchesTransform: TransformRow maps a set as Transform
// maps a row of kernel values, centring included, here the training
// sets' own, which give their training coordinates.
func TestTransformRowMatchesTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	x, labels := toyClasses(rng, 3, 4, 3)
	k := gaussKernel(x)
	f, err := Fit(k, labels, 3, 1e-3, 0)
	if err != nil {
		t.Fatal(err)
	}
	z, err := f.Transform(k)
	if err != nil {
		t.Fatal(err)
	}
	for i := range labels {
		row := mat.Row(nil, i, k)
		got, err := f.TransformRow(row)
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range got {
			if math.Abs(v-z.At(i, j)) > 1e-10*(1+math.Abs(z.At(i, j))) || math.Abs(v-f.Train.At(i, j)) > 1e-8*(1+math.Abs(v)) {
				t.Errorf("set %d coordinate %d: TransformRow %v, Transform %v, training %v", i, j, v, z.At(i, j), f.Train.At(i, j))
			}
		}
	}
}

// TestKernelOfNegativeDivergence: an estimated divergence below 0 (the
// estimators can give one between near sets) counts as 0 in the kernel
// matrix, and a kernel distance whose square rounds below 0 is 0, not NaN.
func TestKernelOfNegativeDivergence(t *testing.T) {
	d := mat.NewSymDense(3, []float64{0, -0.01, 2, -0.01, 0, 1, 2, 1, 0})
	kernel := func(div, s float64) float64 { return math.Exp(-s * div) }
	k := KernelMatrix(d, 1, 2, kernel)
	want := [][]float64{{1, 1, math.Exp(-1)}, {1, 1, math.Exp(-0.5)}, {math.Exp(-1), math.Exp(-0.5), 1}}
	for i := range 3 {
		for j := range 3 {
			if k.At(i, j) != want[i][j] {
				t.Errorf("kernel (%d, %d) = %v, want %v", i, j, k.At(i, j), want[i][j])
			}
		}
	}
	if v := KernelDistance(1, 1, 1+1e-15); v != 0 {
		t.Errorf("KernelDistance with a square of −2e−15: %v, want 0", v)
	}
	if v := KernelDistance(1, 2, 0.5); math.Abs(v-math.Sqrt(2)) > 1e-15 {
		t.Errorf("KernelDistance(1, 2, 0.5) = %v, want √2", v)
	}
}
