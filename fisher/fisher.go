// Package fisher computes Fisher's linear discriminant of labelled image
// sets: a projection W under which the frames of a class lie close
// together and the classes apart, used as a fixed W by the nn-h-lda
// method and, made orthonormal (Orthonormal), as the Fisher start of
// learning W on the Grassmann manifold (package learn).
// Every frame takes the class of its set; the sets themselves play no
// other part.
//
// The computation: subtract the mean frame; keep the r principal
// directions in which the frames vary (eigenvalues above PCATol × the
// largest, at most N − C of them, so that the within-class scatter can be
// inverted); in those r dimensions form the pooled within-class covariance
// S_w (regularised as S_w + reg·(tr S_w / r)·I) and the between-class
// scatter S_b of the class means weighted by their frame counts, both
// divided by N − C; whiten by S_w^{-1/2} (from its eigendecomposition) and
// take the eigenvectors of the whitened S_b, largest first: the K =
// min(C−1, r) discriminant directions, which solve S_b v = λ S_w v. The
// remaining r − K directions are the principal directions of the whitened
// frames in the orthogonal complement of those, largest first. W maps a
// frame x to (x − mean)·W; on every direction of W the projected frames
// have unit pooled within-class variance (exactly for reg = 0) and are
// uncorrelated: the whitened LDA space, as scikit-learn's
// LinearDiscriminantAnalysis.transform gives it up to sign and rotation.
//
// Shapes: D features per frame, N frames in all, C classes, r the
// principal directions kept, d ≤ r the output dimension. A set is n_i×D,
// W is D×d, a projected set n_i×d. The first k columns of the D×d basis
// are the D×k basis: a smaller d is a prefix of a larger.
//
// The package does no I/O.
package fisher

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
	"setmatch/internal/finite"
	"setmatch/internal/stats"
	"setmatch/pca"
)

// PCATol is the relative tolerance of the principal directions: a
// direction is kept when its variance is above PCATol × the largest.
const PCATol = 1e-10

// Reg is the regulariser of the within-class covariance, relative to its
// mean eigenvalue (Solve's reg), with which nn-h-lda and the Fisher start
// of learning W solve: small, only so that directions in which the frames
// of a class barely vary are not stretched without bound by the
// whitening.
const Reg = 1e-3

// singularTol is the smallest eigenvalue of the (regularised) within-class
// covariance, relative to its largest, that Solve inverts.
const singularTol = 1e-12

// Solution is Fisher's discriminant of a set of labelled frames, with
// every direction the frames vary in: the discriminant directions first,
// then the completion.
type Solution struct {
	// W is D×r: columns 0..K−1 are the discriminant directions, Fisher
	// ratio largest first, and the others complete them (see the package
	// comment). Basis(d) is its first d columns.
	W *mat.Dense
	// Mean is the mean frame (len D), subtracted before projecting.
	Mean []float64
	// Classes is C, the number of distinct labels.
	Classes int
	// Discriminant is K = min(C−1, r), the number of discriminant
	// directions.
	Discriminant int
	// Ratios are the K Fisher ratios λ of the discriminant directions
	// (S_b v = λ S_w v), largest first.
	Ratios []float64
}

// Rank returns r, the number of directions of s (columns of W).
func (s *Solution) Rank() int {
	_, r := s.W.Dims()
	return r
}

// Basis returns the D×d projection: the first d columns of s.W (a copy).
// It fails unless 1 ≤ d ≤ r.
func (s *Solution) Basis(d int) (*mat.Dense, error) {
	bigD, r := s.W.Dims()
	if d < 1 || d > r {
		return nil, fmt.Errorf("fisher: dimension %d: want 1 ≤ d ≤ %d, the directions the frames vary in (at most frames − classes)", d, r)
	}
	return mat.DenseCopyOf(s.W.Slice(0, bigD, 0, d)), nil
}

// centre returns the mean frame of the sets (n frames of bigD features in
// all), the frames less it (n×bigD, set by set), and the class of each
// frame (cls: of each set).
func centre(sets []*mat.Dense, cls []int, n, bigD int) (mean []float64, xc *mat.Dense, frameClass []int) {
	mean = stats.MeanFrame(sets...)
	xc = mat.NewDense(n, bigD, nil)
	frameClass = make([]int, 0, n)
	row := 0
	for k, x := range sets {
		r, _ := x.Dims()
		for i := range r {
			copy(xc.RawRowView(row), x.RawRowView(i))
			frameClass = append(frameClass, cls[k])
			row++
		}
	}
	stats.SubtractFrame(xc, mean)
	return mean, xc, frameClass
}

// Solve computes the Fisher discriminant of the n_i×D sets (labels as in
// Basis) with every direction the frames vary in (see the package
// comment).
func Solve(sets []*mat.Dense, labels []int, reg float64) (*Solution, error) {
	bigD, n, cls, nc, err := check(sets, labels, reg)
	if err != nil {
		return nil, err
	}
	nClass := len(nc)
	mean, xc, frameClass := centre(sets, cls, n, bigD)
	dof := float64(n - nClass)

	p, err := principal(xc, n-nClass)
	if err != nil {
		return nil, err
	}
	_, r := p.Dims()
	var z mat.Dense
	z.Mul(xc, p) // N×r, mean 0

	// Class means in the r dimensions, and the frames less their class
	// mean.
	mu := mat.NewDense(nClass, r, nil)
	for f := range n {
		floats(mu.RawRowView(frameClass[f])).add(z.RawRowView(f))
	}
	for c := range nClass {
		floats(mu.RawRowView(c)).scale(1 / float64(nc[c]))
	}
	zw := mat.DenseCopyOf(&z)
	for f := range n {
		floats(zw.RawRowView(f)).sub(mu.RawRowView(frameClass[f]))
	}
	sw := mat.NewSymDense(r, nil)
	sw.SymOuterK(1/dof, zw.T())
	// S_b = Σ_c n_c μ_c μ_cᵀ / (N − C): the weighted class means.
	wm := mat.DenseCopyOf(mu)
	for c := range nClass {
		floats(wm.RawRowView(c)).scale(math.Sqrt(float64(nc[c]) / dof))
	}
	sb := mat.NewSymDense(r, nil)
	sb.SymOuterK(1, wm.T())

	// Regularised within-class covariance and its inverse square root.
	swReg := mat.NewSymDense(r, nil)
	swReg.CopySym(sw)
	if reg > 0 {
		add := reg * mat.Trace(sw) / float64(r)
		for i := range r {
			swReg.SetSym(i, i, swReg.At(i, i)+add)
		}
	}
	vals, vecs, err := pca.Eigen(swReg)
	if err != nil {
		return nil, fmt.Errorf("fisher: within-class covariance: %w", err)
	}
	if !(vals[0] > 0) || !(vals[r-1] > singularTol*vals[0]) {
		return nil, fmt.Errorf("fisher: the within-class covariance is singular (eigenvalues %.3g to %.3g): give reg > 0", vals[r-1], vals[0])
	}
	is := mat.NewDense(r, r, nil) // S_w^{-1/2} = U Λ^{-1/2} Uᵀ
	{
		scaled := mat.DenseCopyOf(vecs)
		for j := range r {
			s := 1 / math.Sqrt(vals[j])
			for i := range r {
				scaled.Set(i, j, scaled.At(i, j)*s)
			}
		}
		is.Mul(scaled, vecs.T())
	}

	// The whitened between-class scatter and its eigenvectors.
	bw := sandwich(is, sb)
	bVals, bVecs, err := pca.Eigen(bw)
	if err != nil {
		return nil, fmt.Errorf("fisher: whitened between-class scatter: %w", err)
	}
	k := min(nClass-1, r)
	g := mat.NewDense(r, r, nil) // the orthonormal directions in the whitened space
	g.Slice(0, r, 0, k).(*mat.Dense).Copy(bVecs.Slice(0, r, 0, k))
	if k < r {
		// The complement: the principal directions of the whitened frames
		// (covariance is·(S_w + S_b)·is, unregularised S_w) orthogonal to
		// the discriminant ones.
		total := mat.NewSymDense(r, nil)
		total.AddSym(sw, sb)
		tw := sandwich(is, total)
		rest := bVecs.Slice(0, r, k, r)
		var tr, m mat.Dense
		tr.Mul(tw, rest)
		m.Mul(rest.T(), &tr)
		ms := symmetric(&m)
		_, cVecs, err := pca.Eigen(ms)
		if err != nil {
			return nil, fmt.Errorf("fisher: whitened frames: %w", err)
		}
		var f mat.Dense
		f.Mul(rest, cVecs)
		g.Slice(0, r, k, r).(*mat.Dense).Copy(&f)
	}
	var a, w mat.Dense
	a.Mul(is, g)
	w.Mul(p, &a)
	signs(&w)
	return &Solution{W: &w, Mean: mean, Classes: nClass, Discriminant: k, Ratios: slices.Clone(bVals[:k])}, nil
}

// check validates the input and returns D, the number of frames N, each
// set's class index (0..C−1, in the order of the sorted labels) and the
// frame count of every class.
func check(sets []*mat.Dense, labels []int, reg float64) (bigD, n int, cls, nc []int, err error) {
	if len(sets) == 0 {
		return 0, 0, nil, nil, errors.New("fisher: no sets")
	}
	if len(labels) != len(sets) {
		return 0, 0, nil, nil, fmt.Errorf("fisher: %d sets but %d labels", len(sets), len(labels))
	}
	if !finite.Is(reg) || reg < 0 {
		return 0, 0, nil, nil, fmt.Errorf("fisher: regulariser %v: want a finite number ≥ 0", reg)
	}
	for i, x := range sets {
		if x == nil || x.IsEmpty() {
			return 0, 0, nil, nil, fmt.Errorf("fisher: set %d has no frames", i)
		}
		r, c := x.Dims()
		if i == 0 {
			bigD = c
		} else if c != bigD {
			return 0, 0, nil, nil, fmt.Errorf("fisher: set %d has %d features, set 0 has %d", i, c, bigD)
		}
		for f := range r {
			for j, v := range x.RawRowView(f) {
				if !finite.Is(v) {
					return 0, 0, nil, nil, fmt.Errorf("fisher: set %d frame %d feature %d is %v", i, f, j, v)
				}
			}
		}
		n += r
		if labels[i] < 0 {
			return 0, 0, nil, nil, fmt.Errorf("fisher: set %d has label %d: want labels ≥ 0", i, labels[i])
		}
	}
	distinct := slices.Clone(labels)
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	if len(distinct) < 2 {
		return 0, 0, nil, nil, fmt.Errorf("fisher: %d class: a discriminant needs at least 2", len(distinct))
	}
	if n <= len(distinct) {
		return 0, 0, nil, nil, fmt.Errorf("fisher: %d frames in %d classes: the within-class scatter needs more frames than classes", n, len(distinct))
	}
	cls = make([]int, len(sets))
	nc = make([]int, len(distinct))
	for i, l := range labels {
		c, _ := slices.BinarySearch(distinct, l)
		cls[i] = c
		r, _ := sets[i].Dims()
		nc[c] += r
	}
	return bigD, n, cls, nc, nil
}

// principal returns the D×r principal directions of the centred N×D
// frames xc, largest variance first (pca.All, accurate also for the
// directions of small variance down to PCATol, which the whitening by S_w
// divides by): every
// direction whose variance is above PCATol × the largest, at most limit
// of them.
func principal(xc *mat.Dense, limit int) (*mat.Dense, error) {
	_, bigD := xc.Dims()
	vecs, vals, err := pca.All(xc)
	if err != nil {
		return nil, fmt.Errorf("fisher: %w", err)
	}
	if len(vals) == 0 || !(vals[0] > 0) {
		return nil, errors.New("fisher: the frames do not vary: every frame is the mean frame")
	}
	r := 0
	for r < len(vals) && vals[r] > PCATol*vals[0] {
		r++
	}
	r = min(r, limit)
	return mat.DenseCopyOf(vecs.Slice(0, bigD, 0, r)), nil
}

// sandwich returns a·s·a for the symmetric r×r a and s, symmetrised.
func sandwich(a *mat.Dense, s *mat.SymDense) *mat.SymDense {
	var t, u mat.Dense
	t.Mul(s, a)
	u.Mul(a, &t)
	return symmetric(&u)
}

// symmetric returns (m + mᵀ)/2 of the square m.
func symmetric(m *mat.Dense) *mat.SymDense {
	r, _ := m.Dims()
	s := mat.NewSymDense(r, nil)
	for i := range r {
		for j := i; j < r; j++ {
			s.SetSym(i, j, (m.At(i, j)+m.At(j, i))/2)
		}
	}
	return s
}

// signs flips every column of w whose entry of largest magnitude is
// negative, so that the basis does not depend on the eigensolver's signs.
func signs(w *mat.Dense) {
	rows, cols := w.Dims()
	for j := range cols {
		big, at := 0.0, 0
		for i := range rows {
			if v := math.Abs(w.At(i, j)); v > big {
				big, at = v, i
			}
		}
		if w.At(at, j) < 0 {
			for i := range rows {
				w.Set(i, j, -w.At(i, j))
			}
		}
	}
}

// Orthonormal returns the Q of the thin QR decomposition of the D×d w
// (d ≤ D): D×d with orthonormal columns spanning the columns of w, the
// diagonal of R positive. It is grassmann's Gram–Schmidt applied twice
// (grassmann.OrthonormalizeTol); a column that depends on the ones
// before (what is left of it is at most 10⁻¹²‖w‖₂) is replaced by a unit
// vector orthogonal to them. As a start on the Grassmann manifold it
// spans the same subspace as w, which is all a point there is.
func Orthonormal(w *mat.Dense) *mat.Dense {
	bigD, d := w.Dims()
	if d > bigD {
		panic(fmt.Sprintf("fisher: Orthonormal of a %d×%d matrix: more columns than rows", bigD, d))
	}
	q := mat.DenseCopyOf(w)
	grassmann.OrthonormalizeTol(q, 1e-12*mat.Norm(w, 2))
	return q
}

// floats are the small vector helpers.
type floats []float64

func (a floats) add(b []float64) {
	for i, v := range b {
		a[i] += v
	}
}

func (a floats) sub(b []float64) {
	for i, v := range b {
		a[i] -= v
	}
}

func (a floats) scale(s float64) {
	for i := range a {
		a[i] *= s
	}
}
