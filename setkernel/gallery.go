package setkernel

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/internal/par"
)

// Gallery holds what a set kernel needs of the m gallery sets: every
// set's basis (GDA) or covariance eigenvectors (CDL) side by side in one
// d×R matrix, so that a batch's kernel vector is one product with it.
type Gallery struct {
	kind   string  // "gda" or "cdl"
	p      int     // GDA subspace dimension (per set at most min(n, d))
	lambda float64 // CDL regulariser
	d      int
	cols   columns // every set's d×r_j columns side by side (r_j ≥ 1)
	lam    [][]float64
	sum    []float64 // CDL: log-shifted spectra (Spectrum.LogShift)
}

// SetError is the error of one gallery set, by its index in the sets
// given, so that a caller that knows the sets' names can say which.
type SetError struct {
	Set int
	Err error
}

func (e *SetError) Error() string { return fmt.Sprintf("gallery set %d: %v", e.Set, e.Err) }

func (e *SetError) Unwrap() error { return e.Err }

// NewGDAGallery returns GDA's gallery of the n_j×d sets: their top-p
// right singular vectors (p ≥ 1; per set at most min(n_j, d)), computed
// with workers goroutines (≤ 0: GOMAXPROCS).
func NewGDAGallery(p int, sets []*mat.Dense, workers int) (*Gallery, error) {
	return newGallery(gda, p, 0, sets, workers)
}

// NewCDLGallery returns CDL's gallery of the n_j×d sets: the eigenpairs
// of their covariances with the eigenvalues shifted by lambda (> 0) and
// logged, computed with workers goroutines (≤ 0: GOMAXPROCS).
func NewCDLGallery(lambda float64, sets []*mat.Dense, workers int) (*Gallery, error) {
	if !(lambda > 0) || math.IsInf(lambda, 1) {
		return nil, fmt.Errorf("cdl kernel: regulariser λ = %v, want a finite number > 0", lambda)
	}
	return newGallery(cdl, 0, lambda, sets, workers)
}

// The kinds of a Gallery, as its errors name them.
const (
	gda = "gda"
	cdl = "cdl"
)

// newGallery computes the bases or spectra of the n_j×d sets.
func newGallery(kind string, p int, lambda float64, sets []*mat.Dense, workers int) (*Gallery, error) {
	m := len(sets)
	g := &Gallery{kind: kind, p: p, lambda: lambda}
	if m == 0 {
		return nil, fmt.Errorf("%s kernel: no gallery sets", kind)
	}
	_, g.d = sets[0].Dims()
	vs := make([]*mat.Dense, m)
	errs := make([]error, m)
	if kind == cdl {
		g.lam, g.sum = make([][]float64, m), make([]float64, m)
	}
	par.For(m, workers, func(_, j int) {
		v, lam, sum, err := g.of(sets[j])
		vs[j], errs[j] = v, err
		if kind == cdl {
			g.lam[j], g.sum[j] = lam, sum
		}
	})
	for j, err := range errs {
		if err != nil {
			return nil, &SetError{Set: j, Err: err}
		}
	}
	g.cols = sideBySide(vs, g.d)
	return g, nil
}

// of returns the set x's d×r basis (GDA) or covariance eigenvectors with
// their log-shifted eigenvalues (CDL).
func (g *Gallery) of(x *mat.Dense) (*mat.Dense, []float64, float64, error) {
	n, d := x.Dims()
	if d != g.d {
		return nil, nil, 0, fmt.Errorf("%d features, the gallery has %d", d, g.d)
	}
	if g.kind == gda {
		b, err := Basis(x, min(g.p, n, d))
		return b, nil, 0, err
	}
	s, err := NewSpectrum(x)
	if err != nil {
		return nil, nil, 0, err
	}
	lam, sum := s.LogShift(g.lambda)
	return s.V, lam, sum, nil
}

// spectrum returns gallery set j's log-shifted eigenvalues and their sum
// (CDL; nil and 0 for GDA).
func (g *Gallery) spectrum(j int) ([]float64, float64) {
	if g.lam == nil {
		return nil, 0
	}
	return g.lam[j], g.sum[j]
}

// kernel returns k(a, b) from the r_a×r_b block gb = V_aᵀ V_b.
func (g *Gallery) kernel(gb *mat.Dense, la []float64, sa float64, lb []float64, sb float64) float64 {
	if g.kind == gda {
		return ProjectionGram(gb)
	}
	return LogEuclideanGram(g.d, g.lambda, la, sa, lb, sb, gb)
}

// tile is the number of gallery sets a batch is compared with between two
// checks of the context.
const tile = 64

// self returns the kernel of a set with itself from its basis or
// eigenvectors v (d×r) and, for CDL, its log-shifted spectrum.
func (g *Gallery) self(v mat.Matrix, l []float64, s float64) float64 {
	var vv mat.Dense
	vv.Mul(v.T(), v)
	return g.kernel(&vv, l, s, l, s)
}

// Diag returns the kernel of every gallery set with itself (len m), as
// Matrix computes it.
func (g *Gallery) Diag(workers int) []float64 {
	m := len(g.cols.off) - 1
	k := make([]float64, m)
	par.For(m, workers, func(_, j int) {
		l, s := g.spectrum(j)
		k[j] = g.self(g.cols.block(j), l, s)
	})
	return k
}

// Vector returns the kernel of the n×d set x against every gallery set
// (len m), checking ctx between tiles of gallery sets, and the kernel of
// x with itself. workers ≤ 0 means GOMAXPROCS.
func (g *Gallery) Vector(ctx context.Context, x *mat.Dense, workers int) ([]float64, float64, error) {
	v, la, sa, err := g.of(x)
	if err != nil {
		return nil, 0, err
	}
	m := len(g.cols.off) - 1
	k := make([]float64, m)
	nt := (m + tile - 1) / tile
	errs := make([]error, nt)
	par.For(nt, workers, func(_, t int) {
		if errs[t] = ctx.Err(); errs[t] != nil {
			return
		}
		lo, hi := t*tile, min((t+1)*tile, m)
		g.against(v, la, sa, lo, hi, k[lo:hi])
	})
	for _, err := range errs {
		if err != nil {
			return nil, 0, err
		}
	}
	for j, v := range k {
		if !finite.Is(v) {
			return nil, 0, fmt.Errorf("%s kernel against gallery set %d is %v", g.kind, j, v)
		}
	}
	return k, g.self(v, la, sa), nil
}

// Matrix returns the m×m kernel between the gallery sets, from the Gram
// blocks V_aᵀV_b of every pair a ≤ b as GramPairs makes them (a set
// against a chunk of the sets from it on at a time), the blocks the
// method engine's kernel matrices are made from. workers ≤ 0 means
// GOMAXPROCS.
func (g *Gallery) Matrix(workers int) *mat.SymDense {
	k := mat.NewSymDense(len(g.cols.off)-1, nil)
	g.cols.pairs(pairChunkCols, workers, func(a, b int, gb *mat.Dense) {
		la, sa := g.spectrum(a)
		lb, sb := g.spectrum(b)
		k.SetSym(a, b, g.kernel(gb, la, sa, lb, sb))
	})
	return k
}

// against sets k[j−lo] to the kernel of a set and gallery set j for
// lo ≤ j < hi, from one product of the set's d×r basis or eigenvectors v
// (with, for CDL, its log-shifted spectrum la and its sum sa) and the
// columns of those gallery sets.
func (g *Gallery) against(v mat.Matrix, la []float64, sa float64, lo, hi int, k []float64) {
	gb := g.cols.against(v, lo, hi)
	for j := lo; j < hi; j++ {
		lb, sb := g.spectrum(j)
		k[j-lo] = g.kernel(g.cols.of(gb, lo, j), la, sa, lb, sb)
	}
}
