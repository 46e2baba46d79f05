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
// Gram block per pair of sets, and the blocks are made from the bases
// side by side, a tile of sets against a tile of sets at a time (one
// matrix product each), and dropped once reduced: the memory is the bases
// and the m×m kernels, not the Gram matrix of all basis vectors. The
// kernels are cached by p, for every fold and candidate that asks again.

// gdaTileCols is about how many basis vectors a tile of sets holds.
const gdaTileCols = 256

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
			return nil, fmt.Errorf("set %d: %w", i, err)
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
		for i, k := range gdaKernelMatrices(bs, todo, p.dim, p.parallel) {
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
// columns), each entry summed row by row of the p×p block as
// setkernel.ProjectionGram sums it.
func gdaKernelMatrices(bs []*mat.Dense, ps []int, d int, parallel func(n int, f func(i int))) []*mat.SymDense {
	m := len(bs)
	ks := make([]*mat.SymDense, len(ps))
	for i := range ks {
		ks[i] = mat.NewSymDense(m, nil)
	}
	gramPairs(bs, d, parallel, func(s, t int, g *mat.Dense) {
		ca, cb := g.Dims()
		raw := g.RawMatrix()
		for i, p := range ps {
			pa, pb := min(p, ca), min(p, cb)
			var v float64
			for r := range pa {
				for _, x := range raw.Data[r*raw.Stride : r*raw.Stride+pb] {
					v += x * x
				}
			}
			ks[i].SetSym(s, t, v)
		}
	})
	return ks
}

// gramPairs calls visit(s, t, V_sᵀV_t) for every pair of sets s ≤ t of
// the matrices vs (d×c_i each; c_i may be 0, and then visit is not called
// for its pairs), from one product per pair of tiles of consecutive sets
// of about gdaTileCols columns: the memory is the columns side by side
// and one tile's product per goroutine, not the Gram matrix of all
// columns. The entries are those of one product of all columns side by
// side, to the last bit (gonum's products sum each entry in the same
// order whatever the shape: TestCDLKernelsEqualWholeGram). visit may be
// called from several goroutines at once, for distinct pairs.
func gramPairs(vs []*mat.Dense, d int, parallel func(n int, f func(i int)), visit func(s, t int, g *mat.Dense)) {
	m := len(vs)
	off := make([]int, m+1)
	for i, b := range vs {
		c := 0
		if !b.IsEmpty() {
			_, c = b.Dims()
		}
		off[i+1] = off[i] + c
	}
	if off[m] == 0 {
		return
	}
	all := mat.NewDense(d, off[m], nil)
	for i, b := range vs {
		if off[i+1] > off[i] {
			all.Slice(0, d, off[i], off[i+1]).(*mat.Dense).Copy(b)
		}
	}
	// Tiles of consecutive sets of about gdaTileCols columns.
	var tiles []int // first set of each tile, then m
	for i := 0; i < m; {
		tiles = append(tiles, i)
		j := i + 1
		for j < m && off[j+1]-off[i] <= gdaTileCols {
			j++
		}
		i = j
	}
	tiles = append(tiles, m)
	type job struct{ a, b int }
	var jobs []job
	for a := 0; a+1 < len(tiles); a++ {
		for b := a; b+1 < len(tiles); b++ {
			if off[tiles[a+1]] > off[tiles[a]] && off[tiles[b+1]] > off[tiles[b]] {
				jobs = append(jobs, job{a, b})
			}
		}
	}
	parallel(len(jobs), func(j int) {
		ta, tb := jobs[j].a, jobs[j].b
		a0, a1, b0, b1 := tiles[ta], tiles[ta+1], tiles[tb], tiles[tb+1]
		var g mat.Dense
		g.Mul(all.Slice(0, d, off[a0], off[a1]).T(), all.Slice(0, d, off[b0], off[b1]))
		for s := a0; s < a1; s++ {
			for t := max(b0, s); t < b1; t++ {
				ra, rb := off[s]-off[a0], off[t]-off[b0]
				ca, cb := off[s+1]-off[s], off[t+1]-off[t]
				if ca == 0 || cb == 0 {
					continue
				}
				visit(s, t, g.Slice(ra, ra+ca, rb, rb+cb).(*mat.Dense))
			}
		}
	})
}
