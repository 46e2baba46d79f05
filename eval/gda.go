package eval

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"setmatch/setkernel"
)

// Grassmann Discriminant Analysis (Hamm & Lee, ICML 2008) on the pool:
// the projection kernel (setkernel) of every pair of set bases.

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
		bs[i], errs[i] = setkernel.Basis(p.Sets[i], min(pmax, n, d))
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
			k.SetSym(i, j, setkernel.Projection(sub[i], sub[j]))
		}
	})
	return k, nil
}
