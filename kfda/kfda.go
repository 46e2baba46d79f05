// Package kfda is the kernel Fisher discriminant of set kernels: fitting it
// on the m×m kernel of the training sets (Fit), and mapping sets, given by
// their kernel values against the training sets, to the latent space
// (Transform); and the kernels of a divergence matrix and the distances a
// kernel induces (kernel.go: KernelMatrix, MedianOffDiag, KernelDistance).
// The method engine (package method, which training and evaluation run),
// the fit of a model's discriminant on its gallery (package deploy) and the
// deployed model's matcher (package model) use it; it does no I/O.
//
// Shapes: m training sets, C classes, r ≤ C−1 latent dimensions, t sets to
// transform.
package kfda

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// KFDA is a fitted kernel Fisher discriminant: a map from the kernel values
// of a set against the m training sets to a point of an r-dimensional
// latent space, r ≤ C−1.
//
// The kernel is centred in feature space with the training means, so that
// constant offsets of the kernel (the log-Euclidean kernel of CDL has a large
// one) do not reach the scatter matrices.
type KFDA struct {
	Alpha   *mat.Dense // m×r expansion coefficients, one direction per column
	Values  []float64  // the r generalised eigenvalues, largest first
	Reg     float64    // ε actually added to the within-class scatter
	ColMean []float64  // len m, mean of each column of the training kernel
	AllMean float64    // mean of all training kernel entries
	Train   *mat.Dense // m×r latent coordinates of the training sets
}

// ErrKFDA reports a kernel Fisher discriminant that cannot be fitted.
var ErrKFDA = errors.New("kernel Fisher discriminant")

// Fit fits kFDA on the m×m training kernel k with labels in
// [0, classes). It solves the generalised symmetric eigenproblem
//
//	S_b a = λ (S_w + εI) a,   ε = reg·tr(S_w)/m
//
// where S_b and S_w are the between- and within-class scatter of the
// (centred) kernel columns, by reducing it with the Cholesky factor
// S_w + εI = L·Lᵀ to the standard problem L⁻¹ S_b L⁻ᵀ v = λ v, a = L⁻ᵀ v
// (gonum has no generalised solver). The directions satisfy
// aᵀ(S_w+εI)a = 1, so the latent space is whitened within classes and
// Euclidean distances in it are meaningful. dim ≤ 0 or > C−1 means C−1.
func Fit(k mat.Symmetric, labels []int, classes int, reg float64, dim int) (*KFDA, error) {
	if !(reg > 0) {
		return nil, fmt.Errorf("%w: regulariser must be > 0, got %v", ErrKFDA, reg)
	}
	p, err := Prepare(k, labels, classes)
	if err != nil {
		return nil, err
	}
	return p.Fit(reg, dim)
}

// Prepared holds what Fit computes from the kernel and the labels before
// the regulariser enters: the centred kernel, its means, and the between-
// and within-class scatter. Fitting it with several regularisers (Fit)
// gives, for each, the discriminant kfda.Fit gives, to the last bit, for
// the cost of the eigenproblem alone.
type Prepared struct {
	kc      *mat.Dense
	colMean []float64
	allMean float64
	sb, sw  *mat.SymDense
	scale   float64 // the regulariser's unit: tr(S_w)/m, or the kernel's when S_w = 0
	present int     // classes with a training set
	// OneEach: every class present has a single training set, so that
	// the within-class scatter is zero: the regularised problem is then
	// S_b a = λ ε a, whose discriminant is the same for every ε up to a
	// scale of the latent space (1/√ε).
	OneEach bool
}

// Prepare checks the m×m training kernel k and the labels (len m, in
// [0, classes)) and computes what Fit needs before the regulariser.
func Prepare(k mat.Symmetric, labels []int, classes int) (*Prepared, error) {
	m := k.SymmetricDim()
	if m != len(labels) {
		return nil, fmt.Errorf("%w: kernel is %d×%d but there are %d labels", ErrKFDA, m, m, len(labels))
	}
	if classes < 2 {
		return nil, fmt.Errorf("%w: need at least 2 classes, got %d", ErrKFDA, classes)
	}
	count := make([]int, classes)
	for i, l := range labels {
		if l < 0 || l >= classes {
			return nil, fmt.Errorf("%w: label %d of set %d outside [0, %d)", ErrKFDA, l, i, classes)
		}
		count[l]++
	}
	present, most := 0, 0
	for _, c := range count {
		if c > 0 {
			present++
		}
		most = max(most, c)
	}
	if present < 2 {
		return nil, fmt.Errorf("%w: training sets cover %d class(es), need 2", ErrKFDA, present)
	}

	p := &Prepared{colMean: make([]float64, m), present: present, OneEach: most == 1}
	// Centre: K̃ = K − 1K/m − K1/m + 1K1/m².
	kc := mat.NewDense(m, m, nil)
	for i := range m {
		row := kc.RawRowView(i)
		for j := range m {
			v := k.At(i, j)
			if math.IsNaN(v) {
				// Else the scatter is NaN, and the Cholesky factor's
				// failure would ask for a larger regulariser.
				return nil, &KernelNaNError{Set: min(i, j), Train: max(i, j), Training: true}
			}
			row[j] = v
			p.colMean[j] += v / float64(m)
		}
	}
	for _, v := range p.colMean {
		p.allMean += v / float64(m)
	}
	for i := range m {
		row := kc.RawRowView(i)
		for j := range m {
			row[j] = row[j] - p.colMean[i] - p.colMean[j] + p.allMean
		}
	}

	// Class means of the kernel columns (each column is a set's feature
	// vector in the span of the training sets).
	mu := mat.NewDense(classes, m, nil)
	for j, l := range labels {
		row := mu.RawRowView(l)
		for i := range m {
			row[i] += kc.At(i, j) / float64(count[l])
		}
	}
	sb := mat.NewSymDense(m, nil)
	sw := mat.NewSymDense(m, nil)
	for c := range classes {
		if count[c] == 0 {
			continue
		}
		// The overall mean of centred columns is 0.
		row := mu.RawRowView(c)
		sb.SymRankOne(sb, float64(count[c]), mat.NewVecDense(m, row))
	}
	dev := make([]float64, m)
	for j, l := range labels {
		row := mu.RawRowView(l)
		for i := range m {
			dev[i] = kc.At(i, j) - row[i]
		}
		sw.SymRankOne(sw, 1, mat.NewVecDense(m, dev))
	}
	var tr float64
	for i := range m {
		tr += sw.At(i, i)
	}
	scale := tr / float64(m)
	if !(scale > 0) {
		// No within-class spread (one set per class): regularise
		// relative to the kernel itself.
		for i := range m {
			scale += kc.At(i, i) / float64(m)
		}
		if !(scale > 0) {
			scale = 1
		}
	}
	p.kc, p.sb, p.sw, p.scale = kc, sb, sw, scale
	return p, nil
}

// Fit fits the prepared discriminant with the regulariser reg (relative to
// tr(S_w)/m, as kfda.Fit) and dim latent dimensions (≤ 0 or > C−1: C−1).
// p is not changed: it can be fitted again.
func (p *Prepared) Fit(reg float64, dim int) (*KFDA, error) {
	if !(reg > 0) {
		return nil, fmt.Errorf("%w: regulariser must be > 0, got %v", ErrKFDA, reg)
	}
	if dim <= 0 || dim > p.present-1 {
		dim = p.present - 1
	}
	m := len(p.colMean)
	f := &KFDA{ColMean: append([]float64(nil), p.colMean...), AllMean: p.allMean}
	f.Reg = reg * p.scale
	sw := mat.NewSymDense(m, nil)
	sw.CopySym(p.sw)
	for i := range m {
		sw.SetSym(i, i, sw.At(i, i)+f.Reg)
	}

	vecs, vals, err := generalisedEigen(p.sb, sw)
	if err != nil {
		return nil, err
	}
	f.Alpha = mat.DenseCopyOf(vecs.Slice(0, m, 0, dim))
	f.Values = vals[:dim]
	f.Train = mat.NewDense(m, dim, nil)
	f.Train.Mul(p.kc, f.Alpha)
	return f, nil
}

// generalisedEigen solves A v = λ B v for symmetric A and symmetric positive
// definite B. It returns the eigenvectors as the columns of an m×m matrix,
// normalised to vᵀBv = 1, and the eigenvalues, both sorted by decreasing λ.
func generalisedEigen(a, b *mat.SymDense) (*mat.Dense, []float64, error) {
	m := a.SymmetricDim()
	var ch mat.Cholesky
	if !ch.Factorize(b) {
		return nil, nil, fmt.Errorf("%w: regularised within-class scatter is not positive definite: increase the regulariser", ErrKFDA)
	}
	var l mat.TriDense
	ch.LTo(&l)
	var linv mat.TriDense
	if err := linv.InverseTri(&l); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrKFDA, err)
	}
	var c mat.Dense
	c.Mul(lowerTimesSym(&linv, a), linv.T())
	cs := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			cs.SetSym(i, j, 0.5*(c.At(i, j)+c.At(j, i)))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(cs, true) {
		return nil, nil, fmt.Errorf("%w: eigendecomposition did not converge", ErrKFDA)
	}
	vals := es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return vals[order[x]] > vals[order[y]] })
	sorted := mat.NewDense(m, m, nil)
	sv := make([]float64, m)
	for k, o := range order {
		sv[k] = vals[o]
		for i := range m {
			sorted.Set(i, k, v.At(i, o))
		}
	}
	var out mat.Dense
	out.Mul(linv.T(), sorted)
	return &out, sv, nil
}

// lowerTimesSym returns L·A for a lower-triangular L and a symmetric A
// (both m×m). Each entry is summed in the order of gonum's Mul for this
// pair of types (a row of L against a column of A, first index first),
// which has no BLAS path for it and calls At for every term: the same
// numbers, without the m³ interface calls, four columns at a time.
func lowerTimesSym(l *mat.TriDense, a *mat.SymDense) *mat.Dense {
	m := a.SymmetricDim()
	full := mat.NewDense(m, m, nil) // the rows of A, both triangles
	for i := range m {
		for j := i; j < m; j++ {
			v := a.At(i, j)
			full.Set(i, j, v)
			full.Set(j, i, v)
		}
	}
	out := mat.NewDense(m, m, nil)
	lr := make([]float64, m)
	for r := range m {
		// Terms beyond the diagonal of L are 0·A and leave a sum as it is.
		for i := 0; i <= r; i++ {
			lr[i] = l.At(r, i)
		}
		row := lr[:r+1]
		o := out.RawRowView(r)
		c := 0
		for ; c+4 <= m; c += 4 {
			a0, a1 := full.RawRowView(c)[:r+1], full.RawRowView(c + 1)[:r+1]
			a2, a3 := full.RawRowView(c + 2)[:r+1], full.RawRowView(c + 3)[:r+1]
			var v0, v1, v2, v3 float64
			for i, e := range row {
				v0 += e * a0[i]
				v1 += e * a1[i]
				v2 += e * a2[i]
				v3 += e * a3[i]
			}
			o[c], o[c+1], o[c+2], o[c+3] = v0, v1, v2, v3
		}
		for ; c < m; c++ {
			ac := full.RawRowView(c)[:r+1]
			var v float64
			for i, e := range row {
				v += e * ac[i]
			}
			o[c] = v
		}
	}
	return out
}

// Transform maps t sets, given by their t×m kernel values against the
// training sets (in training order), to the latent space (t×r).
func (f *KFDA) Transform(k mat.Matrix) (*mat.Dense, error) {
	t, m := k.Dims()
	if m != len(f.ColMean) {
		return nil, fmt.Errorf("%w: kernel has %d columns, model was fitted on %d sets", ErrKFDA, m, len(f.ColMean))
	}
	kc := mat.NewDense(t, m, nil)
	for i := range t {
		mat.Row(kc.RawRowView(i), i, k)
		if err := f.centre(kc.RawRowView(i)); err != nil {
			if e := (*KernelNaNError)(nil); errors.As(err, &e) {
				e.Set = i
			}
			return nil, err
		}
	}
	var z mat.Dense
	z.Mul(kc, f.Alpha)
	return &z, nil
}

// KernelNaNError reports a kernel value that is NaN: that of the set Set
// against the training set Train, by their indices, so that a caller that
// knows the sets' names can say which. Set is a training set too when
// Training is set (a value of Fit's training kernel), else a row of
// Transform's kernel (-1 for TransformRow's one set). It wraps ErrKFDA.
type KernelNaNError struct {
	Set, Train int
	Training   bool
}

// KernelNaNAdvice says where a NaN kernel value comes from and what
// avoids it: KernelNaNError's message ends with it, and a caller that
// words the error its own way can too.
const KernelNaNAdvice = "a kernel on divergences is NaN where a divergence is not a number " +
	"(frames' values too large for their squared distances: scale the features down), " +
	"or is +Inf with a width of 0 (a width over a median divergence that is +Inf too: " +
	"a bounded divergence, such as Hellinger's, or a width not over the median avoids that)"

func (e *KernelNaNError) Error() string {
	var msg string
	switch {
	case e.Training:
		msg = fmt.Sprintf("%v: training kernel value (%d, %d) is NaN", ErrKFDA, e.Set, e.Train)
	case e.Set >= 0:
		msg = fmt.Sprintf("set %d: %v: kernel value %d is NaN", e.Set, ErrKFDA, e.Train)
	default:
		msg = fmt.Sprintf("%v: kernel value %d is NaN", ErrKFDA, e.Train)
	}
	return msg + ": " + KernelNaNAdvice
}

func (e *KernelNaNError) Unwrap() error { return ErrKFDA }

// centre centres one row of kernel values (len m) in place with the
// training means: k̃_j = k_j − mean(k) − ColMean_j + AllMean.
func (f *KFDA) centre(k []float64) error {
	m := len(k)
	var rowMean float64
	for j, v := range k {
		if math.IsNaN(v) {
			// Named here: the row's mean is NaN, and so would be every
			// value centred with it.
			return &KernelNaNError{Set: -1, Train: j}
		}
		rowMean += v / float64(m)
	}
	for j, v := range k {
		c := v - rowMean - f.ColMean[j] + f.AllMean
		if math.IsNaN(c) {
			return &KernelNaNError{Set: -1, Train: j}
		}
		k[j] = c
	}
	return nil
}

// TransformRow maps one set, given by its kernel values k (len m) against
// the training sets, to the latent space and returns the point (len r),
// computed as Transform does. k is centred in place.
func (f *KFDA) TransformRow(k []float64) ([]float64, error) {
	m, r := f.Alpha.Dims()
	if len(k) != m || len(f.ColMean) != m {
		return nil, fmt.Errorf("%w: %d kernel values, the discriminant was fitted on %d sets", ErrKFDA, len(k), m)
	}
	if err := f.centre(k); err != nil {
		return nil, err
	}
	z := make([]float64, r)
	mat.NewVecDense(r, z).MulVec(f.Alpha.T(), mat.NewVecDense(m, k))
	return z, nil
}

// CheckDim returns an error unless 1 ≤ r ≤ the latent dimensions of f
// (the columns of Alpha): the one rule of how many of them a discriminant
// may keep, for Truncate and for the fit a model deploys
// (method.Fitted.Deployable).
func (f *KFDA) CheckDim(r int) error {
	if _, rmax := f.Alpha.Dims(); r < 1 || r > rmax {
		return fmt.Errorf("%w: %d latent dimensions, the discriminant has %d", ErrKFDA, r, rmax)
	}
	return nil
}

// Truncate returns the discriminant restricted to its first r latent
// dimensions (the r largest eigenvalues): Alpha, Values and Train keep
// their first r columns. It shares nothing with f.
func (f *KFDA) Truncate(r int) (*KFDA, error) {
	if err := f.CheckDim(r); err != nil {
		return nil, err
	}
	m, _ := f.Alpha.Dims()
	return &KFDA{
		Alpha:   mat.DenseCopyOf(f.Alpha.Slice(0, m, 0, r)),
		Values:  append([]float64(nil), f.Values[:r]...),
		Reg:     f.Reg,
		ColMean: append([]float64(nil), f.ColMean...),
		AllMean: f.AllMean,
		Train:   mat.DenseCopyOf(f.Train.Slice(0, m, 0, r)),
	}, nil
}
