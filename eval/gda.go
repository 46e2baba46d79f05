package eval

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Grassmann Discriminant Analysis (Hamm & Lee, ICML 2008): each set is the
// span of its top-p right singular vectors (uncentred frames, as in the
// original), compared with the projection kernel k(A, B) = ‖AᵀB‖_F², and
// classified with kFDA.

// SetBasis returns the d×p orthonormal basis of the top-p right singular
// vectors of the n×d set x (p ≤ min(n, d)).
func SetBasis(x *mat.Dense, p int) (*mat.Dense, error) {
	n, d := x.Dims()
	if p < 1 || p > min(n, d) {
		return nil, fmt.Errorf("subspace dimension p=%d: want 1 ≤ p ≤ min(frames, features) = %d", p, min(n, d))
	}
	var svd mat.SVD
	if !svd.Factorize(x, mat.SVDThin) {
		return nil, fmt.Errorf("SVD of a %d×%d set did not converge", n, d)
	}
	var v mat.Dense
	svd.VTo(&v) // d×min(n,d), singular values in decreasing order
	return mat.DenseCopyOf(v.Slice(0, d, 0, p)), nil
}

// ProjectionKernel returns ‖AᵀB‖_F² for d×p bases A and B.
func ProjectionKernel(a, b *mat.Dense) float64 {
	var g mat.Dense
	g.Mul(a.T(), b)
	var s float64
	r, c := g.Dims()
	for i := range r {
		for j := range c {
			v := g.At(i, j)
			s += v * v
		}
	}
	return s
}

// gdaBases returns every set's basis of dimension pmax (clamped per set to
// min(n, d)), cached.
func (p *Pool) gdaBases(pmax int) ([]*mat.Dense, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gdaB != nil {
		_, c := p.gdaB[0].Dims()
		if c >= pmax {
			return p.gdaB, nil
		}
	}
	bs := make([]*mat.Dense, p.Len())
	errs := make([]error, p.Len())
	p.parallel(p.Len(), func(i int) {
		n, d := p.Sets[i].Dims()
		bs[i], errs[i] = SetBasis(p.Sets[i], min(pmax, n, d))
	})
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("set %d: %w", i, err)
		}
	}
	p.gdaB = bs
	return bs, nil
}

// GDAKernel returns the m×m projection-kernel matrix of the pool's sets
// with subspaces of dimension p (clamped to each set's frames).
func (p *Pool) GDAKernel(dim, pmax int) (*mat.SymDense, error) {
	bs, err := p.gdaBases(pmax)
	if err != nil {
		return nil, err
	}
	m := p.Len()
	sub := make([]*mat.Dense, m)
	for i, b := range bs {
		r, c := b.Dims()
		sub[i] = b.Slice(0, r, 0, min(c, dim)).(*mat.Dense)
	}
	k := mat.NewSymDense(m, nil)
	p.parallel(m, func(i int) {
		for j := i; j < m; j++ {
			k.SetSym(i, j, ProjectionKernel(sub[i], sub[j]))
		}
	})
	return k, nil
}
