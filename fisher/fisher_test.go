package fisher

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// clusters returns classes × setsPer sets of frames n×dim: Gaussian
// clusters around random class means, all with one random anisotropic
// within-class covariance (so that the discriminant differs from the
// principal directions).
func clusters(rng *rand.Rand, classes, setsPer, frames, dim int) ([]*mat.Dense, []int) {
	mix := mat.NewDense(dim, dim, nil)
	for i := range dim {
		for j := range dim {
			mix.Set(i, j, rng.NormFloat64()*(1+float64(j)))
		}
	}
	var sets []*mat.Dense
	var labels []int
	for c := range classes {
		centre := make([]float64, dim)
		for j := range centre {
			centre[j] = 3 * rng.NormFloat64()
		}
		for range setsPer {
			z := mat.NewDense(frames, dim, nil)
			for i := range frames {
				for j := range dim {
					z.Set(i, j, rng.NormFloat64())
				}
			}
			var x mat.Dense
			x.Mul(z, mix)
			for i := range frames {
				for j := range dim {
					x.Set(i, j, x.At(i, j)+centre[j])
				}
			}
			sets = append(sets, &x)
			labels = append(labels, c)
		}
	}
	return sets, labels
}

// scatters returns the within- and between-class scatter sums of the
// frames after (x − mean)·w (w nil: the raw frames, mean nil: the mean
// frame), each frame of its set's class: computed here directly, by
// summing outer products frame by frame.
func scatters(sets []*mat.Dense, labels []int, w *mat.Dense, mean []float64) (sw, sb *mat.Dense, n, classes int) {
	var ys []*mat.Dense
	for _, x := range sets {
		y := mat.DenseCopyOf(x)
		if mean != nil {
			r, c := y.Dims()
			for i := range r {
				for j := range c {
					y.Set(i, j, y.At(i, j)-mean[j])
				}
			}
		}
		if w != nil {
			var p mat.Dense
			p.Mul(y, w)
			y = &p
		}
		ys = append(ys, y)
	}
	_, d := ys[0].Dims()
	sums := map[int][]float64{}
	counts := map[int]int{}
	all := make([]float64, d)
	for k, y := range ys {
		r, _ := y.Dims()
		if sums[labels[k]] == nil {
			sums[labels[k]] = make([]float64, d)
		}
		for i := range r {
			for j := range d {
				sums[labels[k]][j] += y.At(i, j)
				all[j] += y.At(i, j)
			}
		}
		counts[labels[k]] += r
		n += r
	}
	for j := range all {
		all[j] /= float64(n)
	}
	sw, sb = mat.NewDense(d, d, nil), mat.NewDense(d, d, nil)
	for k, y := range ys {
		r, _ := y.Dims()
		m := sums[labels[k]]
		cnt := float64(counts[labels[k]])
		for i := range r {
			for a := range d {
				for b := range d {
					sw.Set(a, b, sw.At(a, b)+(y.At(i, a)-m[a]/cnt)*(y.At(i, b)-m[b]/cnt))
				}
			}
		}
	}
	for c, m := range sums {
		cnt := float64(counts[c])
		for a := range d {
			for b := range d {
				sb.Set(a, b, sb.At(a, b)+cnt*(m[a]/cnt-all[a])*(m[b]/cnt-all[b]))
			}
		}
	}
	return sw, sb, n, len(sums)
}

// cosine returns |⟨a, b⟩|/(|a||b|).
func cosine(a, b mat.Vector) float64 {
	return math.Abs(mat.Dot(a, b)) / (mat.Norm(a, 2) * mat.Norm(b, 2))
}

// TestFisherMatchesDirectEigen checks the discriminant directions and
// their Fisher ratios against an independent computation: the
// eigenvectors of S_w⁻¹S_b in the full feature space (no PCA, reg 0),
// from a general eigensolver. The eigenvalues are distinct, so each
// direction must agree up to sign and scale.
func TestFisherMatchesDirectEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sets, labels := clusters(rng, 4, 2, 15, 6)
	s, err := Solve(sets, labels, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Classes != 4 || s.Discriminant != 3 || s.Rank() != 6 {
		t.Fatalf("classes %d, discriminant %d, rank %d: want 4, 3, 6", s.Classes, s.Discriminant, s.Rank())
	}
	sw, sb, _, _ := scatters(sets, labels, nil, nil)
	var m mat.Dense
	if err := m.Solve(sw, sb); err != nil {
		t.Fatal(err)
	}
	var e mat.Eigen
	if !e.Factorize(&m, mat.EigenRight) {
		t.Fatal("eigen did not converge")
	}
	vals := e.Values(nil)
	var vecs mat.CDense
	e.VectorsTo(&vecs)
	order := make([]int, len(vals))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return real(vals[order[a]]) > real(vals[order[b]]) })
	for k := range 3 {
		i := order[k]
		if math.Abs(imag(vals[i])) > 1e-9 {
			t.Fatalf("eigenvalue %d is complex: %v", k, vals[i])
		}
		if got, want := s.Ratios[k], real(vals[i]); math.Abs(got-want) > 1e-8*want {
			t.Errorf("Fisher ratio %d: %.12g, direct %.12g", k, got, want)
		}
		v := mat.NewVecDense(6, nil)
		for r := range 6 {
			v.SetVec(r, real(vecs.At(r, i)))
		}
		if c := cosine(s.W.ColView(k), v); c < 1-1e-9 {
			t.Errorf("direction %d: |cos| with the direct eigenvector %.12f, want 1", k, c)
		}
	}
	// The remaining eigenvalue is 0 (S_b has rank C−1 = 3).
	if v := real(vals[order[3]]); math.Abs(v) > 1e-9*real(vals[order[0]]) {
		t.Errorf("4th eigenvalue of S_w⁻¹S_b %v, want 0", v)
	}
	// Basis agrees with Solve.
	w, mean, err := Basis(sets, labels, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(w, s.W.Slice(0, 6, 0, 3), 1e-12) || len(mean) != 6 {
		t.Error("Basis(3) is not the first 3 columns of Solve's W")
	}
}

// TestFisherWhitened checks that the projected frames have the identity
// as pooled within-class covariance on every direction (reg 0; with reg
// 1e-3, that covariance plus the regulariser) and a diagonal between-class scatter on the
// discriminant ones, with the Fisher ratios on its diagonal.
func TestFisherWhitened(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sets, labels := clusters(rng, 4, 3, 12, 6)
	for _, reg := range []float64{0, 1e-3} {
		s, err := Solve(sets, labels, reg)
		if err != nil {
			t.Fatal(err)
		}
		r := s.Rank()
		sw, sb, n, c := scatters(sets, labels, s.W, s.Mean)
		sw.Scale(1/float64(n-c), sw)
		sb.Scale(1/float64(n-c), sb)
		if reg > 0 {
			// Here r = D, so the principal directions are a rotation:
			// the regularised covariance S_w + reg·(tr S_w/D)·I of the
			// raw frames is whitened exactly; add W's image of the
			// regulariser, reg·(tr S_w/D)·WᵀW.
			raw, _, _, _ := scatters(sets, labels, nil, nil)
			eps := reg * mat.Trace(raw) / float64(n-c) / float64(r)
			var wtw mat.Dense
			wtw.Mul(s.W.T(), s.W)
			wtw.Scale(eps, &wtw)
			sw.Add(sw, &wtw)
		}
		const tol = 1e-9
		for i := range r {
			for j := range r {
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(sw.At(i, j)-want) > tol {
					t.Errorf("reg %g: within-class covariance [%d,%d] = %.6g, want %g", reg, i, j, sw.At(i, j), want)
				}
			}
		}
		k := s.Discriminant
		for i := range k {
			for j := range k {
				want := 0.0
				if i == j {
					want = s.Ratios[i]
				}
				if math.Abs(sb.At(i, j)-want) > 1e-8*s.Ratios[0] {
					t.Errorf("reg %g: between-class scatter [%d,%d] = %.6g, want %.6g", reg, i, j, sb.At(i, j), want)
				}
			}
		}
	}
}

// TestFisherCompletion checks d > C−1: the extra directions make W of
// full column rank, carry no class-mean differences (the class means of
// the training frames differ only along the discriminant directions), a
// smaller d is a prefix of a larger, and d = r is the most allowed.
func TestFisherCompletion(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sets, labels := clusters(rng, 3, 2, 10, 6)
	w4, mean, err := Basis(sets, labels, 4, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	var svd mat.SVD
	if !svd.Factorize(w4, mat.SVDNone) {
		t.Fatal("svd")
	}
	sv := svd.Values(nil)
	if len(sv) != 4 || !(sv[3] > 1e-6*sv[0]) {
		t.Errorf("singular values of W %v: want 4, none tiny", sv)
	}
	_, sb, _, _ := scatters(sets, labels, w4, mean)
	for j := 2; j < 4; j++ {
		if v := sb.At(j, j); v > 1e-9*sb.At(0, 0) {
			t.Errorf("completion direction %d has between-class scatter %.3g (discriminant: %.3g)", j, v, sb.At(0, 0))
		}
	}
	w2, _, err := Basis(sets, labels, 2, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(w2, w4.Slice(0, 6, 0, 2)) {
		t.Error("Basis(2) is not the first 2 columns of Basis(4)")
	}
	if _, _, err := Basis(sets, labels, 6, 1e-3); err != nil {
		t.Errorf("d = r = 6: %v", err)
	}
}

// TestFisherFewFrames checks the cap of the principal directions at
// N − C with fewer frames than features (pca.All's thin SVD; its agreement
// with the covariance's eigenvectors is pca's test), and that the
// discriminant directions still whiten the within-class covariance and
// diagonalise the between-class scatter, with the Fisher ratios on its
// diagonal.
func TestFisherFewFrames(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	sets, labels := clusters(rng, 3, 2, 5, 40) // N = 30 < D = 40
	sol, err := Solve(sets, labels, 0)
	if err != nil {
		t.Fatal(err)
	}
	if sol.Rank() != 27 {
		t.Fatalf("rank %d, want N − C = 27", sol.Rank())
	}
	if sol.Discriminant != 2 {
		t.Fatalf("%d discriminant directions, want C − 1 = 2", sol.Discriminant)
	}
	sw, sb, n, c := scatters(sets, labels, sol.W, sol.Mean)
	k := sol.Discriminant
	for i := range k {
		for j := range k {
			w, b := 0.0, 0.0
			if i == j {
				w, b = 1, sol.Ratios[i]
			}
			if got := sw.At(i, j) / float64(n-c); math.Abs(got-w) > 1e-6 {
				t.Errorf("within-class covariance [%d,%d] = %.9g, want %g", i, j, got, w)
			}
			if got := sb.At(i, j) / float64(n-c); math.Abs(got-b) > 1e-6*sol.Ratios[0] {
				t.Errorf("between-class scatter [%d,%d] = %.9g, want %.9g", i, j, got, b)
			}
		}
	}
}

// TestFisherErrors checks the errors of bad input (no panics).
func TestFisherErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	sets, labels := clusters(rng, 3, 2, 6, 4)
	nan := mat.DenseCopyOf(sets[1])
	nan.Set(2, 1, math.NaN())
	inf := mat.DenseCopyOf(sets[1])
	inf.Set(0, 0, math.Inf(-1))
	with := func(i int, x *mat.Dense) []*mat.Dense {
		out := append([]*mat.Dense(nil), sets...)
		out[i] = x
		return out
	}
	// Every class's frames equal: no within-class scatter.
	flat := []*mat.Dense{
		mat.NewDense(3, 2, []float64{1, 0, 1, 0, 1, 0}),
		mat.NewDense(3, 2, []float64{0, 1, 0, 1, 0, 1}),
	}
	// The classes vary along the first feature alone and differ along the
	// second alone: the within-class covariance is singular but not 0.
	within1 := []*mat.Dense{
		mat.NewDense(5, 2, []float64{1, 0, 2, 0, 4, 0, 7, 0, 11, 0}),
		mat.NewDense(5, 2, []float64{0, 1, 3, 1, 5, 1, 6, 1, 9, 1}),
	}
	cases := []struct {
		name   string
		sets   []*mat.Dense
		labels []int
		d      int
		reg    float64
		want   string
	}{
		{"one class", sets, []int{0, 0, 0, 0, 0, 0}, 1, 0, "at least 2"},
		{"d 0", sets, labels, 0, 0, "dimension 0"},
		{"d > r", sets, labels, 5, 0, "dimension 5"},
		{"NaN", with(1, nan), labels, 2, 0, "NaN"},
		{"Inf", with(1, inf), labels, 2, 0, "Inf"},
		{"dims", with(3, mat.NewDense(6, 5, nil)), labels, 2, 0, "5 features"},
		{"labels", sets, labels[:5], 2, 0, "5 labels"},
		{"negative label", sets, []int{0, 0, 1, 1, -1, 2}, 2, 0, "label -1"},
		{"negative reg", sets, labels, 2, -1, "regulariser"},
		{"NaN reg", sets, labels, 2, math.NaN(), "regulariser"},
		{"nil set", with(0, nil), labels, 2, 0, "no frames"},
		{"no sets", nil, nil, 1, 0, "no sets"},
		{"frames = classes", []*mat.Dense{mat.NewDense(1, 2, []float64{1, 2}), mat.NewDense(1, 2, []float64{3, 4})}, []int{0, 1}, 1, 0, "more frames than classes"},
		{"singular", flat, []int{0, 1}, 1, 0, "singular"},
		{"singular, not 0", within1, []int{0, 1}, 1, 0, "singular"},
		{"constant", []*mat.Dense{mat.NewDense(2, 2, []float64{1, 1, 1, 1}), mat.NewDense(2, 2, []float64{1, 1, 1, 1})}, []int{0, 1}, 1, 0, "do not vary"},
	}
	for _, c := range cases {
		_, _, err := Basis(c.sets, c.labels, c.d, c.reg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.want)
		}
	}
}

// TestOrthonormal checks Orthonormal: QᵀQ = I, the same span as W (QᵀW
// upper triangular with a positive diagonal and QQᵀW = W), and a
// dependent column completed.
func TestOrthonormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	sets, labels := clusters(rng, 4, 2, 10, 6)
	w, _, err := Basis(sets, labels, 5, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	q := Orthonormal(w)
	var qtq, r, back mat.Dense
	qtq.Mul(q.T(), q)
	if !mat.EqualApprox(&qtq, eye(5), 1e-12) {
		t.Errorf("QᵀQ ≠ I:\n%v", mat.Formatted(&qtq))
	}
	r.Mul(q.T(), w)
	for i := range 5 {
		if !(r.At(i, i) > 0) {
			t.Errorf("R[%d,%d] = %v, want > 0", i, i, r.At(i, i))
		}
		for j := range i {
			if math.Abs(r.At(i, j)) > 1e-10*mat.Norm(w, 2) {
				t.Errorf("R[%d,%d] = %v below the diagonal", i, j, r.At(i, j))
			}
		}
	}
	back.Mul(q, &r)
	if !mat.EqualApprox(&back, w, 1e-10*mat.Norm(w, 2)) {
		t.Error("QR ≠ W: Q does not span W's columns")
	}
	dep := mat.NewDense(3, 2, []float64{1, 2, 0, 0, 0, 0})
	qd := Orthonormal(dep)
	qtq.Reset()
	qtq.Mul(qd.T(), qd)
	if !mat.EqualApprox(&qtq, eye(2), 1e-12) {
		t.Errorf("dependent columns: QᵀQ ≠ I:\n%v", mat.Formatted(&qtq))
	}
	// A column that depends on the one before up to rounding (0.1 times
	// it, in floating point) is completed as one that depends exactly (a
	// zero column), with the first unit vector orthogonal to it: not with
	// the direction of what rounding left of it.
	near := Orthonormal(mat.NewDense(3, 2, []float64{1, 0.1, 2, 0.2, 3, 0.3}))
	exact := Orthonormal(mat.NewDense(3, 2, []float64{1, 0, 2, 0, 3, 0}))
	if !mat.EqualApprox(near, exact, 1e-12) {
		t.Errorf("a column dependent up to rounding is completed as\n%v\nwant as an exactly dependent one\n%v", mat.Formatted(near), mat.Formatted(exact))
	}
}

// TestFisherSigns: every column of W has its entry of largest magnitude
// positive, so that the basis does not depend on the eigensolver's signs.
func TestFisherSigns(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, c := range []struct{ classes, setsPer, frames, dim int }{{4, 2, 10, 6}, {3, 2, 5, 40}} {
		sets, labels := clusters(rng, c.classes, c.setsPer, c.frames, c.dim)
		s, err := Solve(sets, labels, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		rows, cols := s.W.Dims()
		for j := range cols {
			at := 0
			for i := range rows {
				if math.Abs(s.W.At(i, j)) > math.Abs(s.W.At(at, j)) {
					at = i
				}
			}
			if !(s.W.At(at, j) > 0) {
				t.Errorf("%d features: column %d's entry of largest magnitude is %v", c.dim, j, s.W.At(at, j))
			}
		}
	}
}

// TestFisherFramesInSubspace: frames that vary in 3 of 8 dimensions give
// 3 directions, with or without the regulariser: the directions of
// rounding-level variance are not kept (their within-class variance is
// no more than rounding, which the whitening would divide by).
func TestFisherFramesInSubspace(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	sets, labels := clusters(rng, 3, 2, 20, 3)
	q := mat.NewDense(3, 8, nil)
	for i := range 3 {
		for j := range 8 {
			q.Set(i, j, rng.NormFloat64())
		}
	}
	for i, x := range sets {
		var y mat.Dense
		y.Mul(x, q)
		sets[i] = &y
	}
	for _, reg := range []float64{0, 1e-3} {
		s, err := Solve(sets, labels, reg)
		if err != nil {
			t.Errorf("reg %g: %v", reg, err)
			continue
		}
		if s.Rank() != 3 {
			t.Errorf("reg %g: %d directions, want the 3 the frames vary in", reg, s.Rank())
		}
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}
