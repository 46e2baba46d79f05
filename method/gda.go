package method

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"setmatch/setkernel"
)

// Grassmann Discriminant Analysis (Hamm & Lee, ICML 2008) on the pool:
// the projection kernel (setkernel) of every pair of set bases.
//
// The kernel of subspace dimension p is ‖A_pᵀB_p‖²_F, A_p the first p
// columns of set A's basis: the top-left p×p block of the Gram matrix
// AᵀB of the bases at the largest p. So every p of a grid comes from one
// Gram block per pair of sets (setkernel.GramPairs: a set against a
// chunk of sets at a time, each block dropped once reduced): the memory is
// the bases and the m×m kernels, not the Gram matrix of all basis
// vectors. The kernels are cached by p, for every fold and candidate that
// asks again.

// gdaBases returns every set's basis of dimension pmax (clamped per set to
// min(n, d)), cached. A set's first p columns are its basis of dimension
// p (one decomposition, pca.All, sliced), so a cache made for a larger
// pmax serves.
func (p *Pool) gdaBases(pmax int) ([]*mat.Dense, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gdaBasesLocked(pmax)
}

func (p *Pool) gdaBasesLocked(pmax int) ([]*mat.Dense, error) {
	if p.gdaB != nil && p.gdaP >= pmax {
		return p.gdaB, nil
	}
	bs := make([]*mat.Dense, p.Len())
	errs := make([]error, p.Len())
	p.parallel(p.Len(), func(i int) {
		n, d := p.Sets[i].Dims()
		bs[i], errs[i] = setkernel.Basis(p.Sets[i], min(pmax, n, d))
	})
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("set %s: %w", p.setName(i), err)
		}
	}
	p.gdaB, p.gdaP = bs, pmax
	return bs, nil
}

// GDAKernel returns the m×m projection-kernel matrix of the pool's sets
// with subspaces of dimension p (clamped to each set's frames), from bases
// of dimension at least pmax.
func (p *Pool) GDAKernel(dim, pmax int) (*mat.SymDense, error) {
	ks, err := p.gdaKernels([]int{dim}, max(pmax, dim))
	if err != nil {
		return nil, err
	}
	return ks[0], nil
}

// gdaKernels returns the projection-kernel matrices for every subspace
// dimension in ps, computing those not cached yet in one pass over the
// pairs of sets.
func (p *Pool) gdaKernels(ps []int, pmax int) ([]*mat.SymDense, error) {
	for _, d := range ps {
		pmax = max(pmax, d)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gdaK == nil {
		p.gdaK = map[int]*mat.SymDense{}
	}
	var todo []int
	for _, d := range ps {
		if _, ok := p.gdaK[d]; !ok && !slices.Contains(todo, d) {
			todo = append(todo, d)
		}
	}
	if len(todo) > 0 {
		bs, err := p.gdaBasesLocked(pmax)
		if err != nil {
			return nil, err
		}
		for i, k := range gdaKernelMatrices(bs, todo, p.dim, p.Workers) {
			p.gdaK[todo[i]] = k
		}
	}
	out := make([]*mat.SymDense, len(ps))
	for i, d := range ps {
		out[i] = p.gdaK[d]
	}
	return out, nil
}

// gdaKernelMatrices returns, for every p of ps, the m×m matrix of
// ‖A_pᵀB_p‖²_F over the bases bs (d×c_i each, A_p the first min(p, c_i)
// columns): setkernel.ProjectionGram of the top-left block of each pair's
// Gram block at the largest p (setkernel.GramPairs).
func gdaKernelMatrices(bs []*mat.Dense, ps []int, d, workers int) []*mat.SymDense {
	m := len(bs)
	ks := make([]*mat.SymDense, len(ps))
	for i := range ks {
		ks[i] = mat.NewSymDense(m, nil)
	}
	setkernel.GramPairs(bs, d, workers, func(s, t int, g *mat.Dense) {
		ca, cb := g.Dims()
		for i, p := range ps {
			ks[i].SetSym(s, t, setkernel.ProjectionGram(g.Slice(0, min(p, ca), 0, min(p, cb)).(*mat.Dense)))
		}
	})
	return ks
}
