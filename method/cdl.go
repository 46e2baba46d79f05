package method

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/scaleadvice"
	"setmatch/internal/stats"
	"setmatch/setkernel"
)

// Covariance Discriminative Learning (Wang et al., CVPR 2012) on the
// pool: the log-Euclidean kernel (setkernel) of every pair of sets from
// their covariance spectra.
//
// The kernel of a pair needs V_aᵀV_b, a block of the Gram matrix of all
// the sets' eigenvectors (R×R, R up to the frames of the pool). It is not
// held: the kernels of every regulariser asked for at once are made from
// one pass over the pairs of sets (setkernel.GramPairs), and cached by
// λ.

// cdlSpectra returns every set's covariance spectrum (with its
// eigenvectors), cached.
func (p *Pool) cdlSpectra() ([]setkernel.Spectrum, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cdlSpectraLocked()
}

func (p *Pool) cdlSpectraLocked() ([]setkernel.Spectrum, error) {
	if p.cdlSpec != nil {
		return p.cdlSpec, nil
	}
	m := p.Len()
	spec := make([]setkernel.Spectrum, m)
	errs := make([]error, m)
	p.parallel(m, func(i int) {
		var err error
		if spec[i], err = setkernel.NewSpectrum(p.Sets[i]); err != nil {
			errs[i] = fmt.Errorf("set %s: %w", p.setName(i), err)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	p.cdlSpec = spec
	return spec, nil
}

// minNormal is the smallest normal float64, 2^−1022: below it a float64
// keeps fewer digits the smaller it is.
const minNormal = 0x1p-1022

// cdlLambda returns the absolute regulariser λ = reg × the median over the
// sets train of tr(C)/d. That median must be a normal float64: below, the
// squares the covariances sum have lost their digits (they underflow, at
// features around 1e-154 and below), and the kernel is of the rounding,
// not of the sets; the error says so, and to scale the features up (by
// the power of ten that brings the frames' largest deviation from their
// mean to between 1 and 10, scaleadvice's).
// Where the sets' frames do not differ at all, it says they have no
// spread.
func (p *Pool) cdlLambda(reg float64, train []int) (float64, error) {
	if !(reg > 0) {
		return 0, fmt.Errorf("CDL regulariser must be > 0, got %v", reg)
	}
	spec, err := p.cdlSpectra()
	if err != nil {
		return 0, err
	}
	var tr []float64
	for _, s := range train {
		tr = append(tr, spec[s].Trace/float64(p.dim))
	}
	base := stats.Median(tr)
	if base >= minNormal {
		return reg * base, nil
	}
	// How far the frames of the sets whose variance underflowed vary
	// about their mean: 0 where none varies at all.
	dev := 0.0
	for k, s := range train {
		if tr[k] >= minNormal {
			continue
		}
		dev = max(dev, stats.MaxAbs(stats.Centred(p.Sets[s])))
	}
	if dev == 0 {
		return 0, fmt.Errorf("the training sets have no spread: CDL needs sets whose frames differ")
	}
	return 0, fmt.Errorf("the training sets' covariances underflow: their median variance per feature, %.3g, is below the smallest normal float64 (%.3g), where the squares they sum lose their digits (their frames vary about their mean by up to %.3g); %s",
		base, minNormal, dev, scaleadvice.Up(dev))
}

// CDLKernel returns the m×m log-Euclidean kernel matrix of the pool's sets
// with covariances regularised by λ = reg × the median over the training
// sets of tr(C)/d (one λ for all sets, so that the kernel stays one linear
// kernel on log-covariances).
func (p *Pool) CDLKernel(reg float64, train []int) (mat.Symmetric, float64, error) {
	lambda, err := p.cdlLambda(reg, train)
	if err != nil {
		return nil, 0, err
	}
	ks, err := p.cdlKernels([]float64{lambda}, [][]int{nil})
	if err != nil {
		return nil, 0, err
	}
	return ks[0], lambda, nil
}

// cdlEntry is a cached CDL kernel: of every set (sets nil, k a SymDense)
// or of some (a setKernel).
type cdlEntry struct {
	sets []int
	k    mat.Symmetric
}

func (e cdlEntry) covers(sets []int) bool {
	if e.sets == nil {
		return true
	}
	if sets == nil {
		return false
	}
	return e.k.(*setKernel).covers(sets)
}

// cdlKernels returns the log-Euclidean kernel matrices of the absolute
// regularisers lambdas[k], each covering the ascending sets sets[k] (nil:
// every set), making those not cached in one pass over the pairs of sets.
func (p *Pool) cdlKernels(lambdas []float64, sets [][]int) ([]mat.Symmetric, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	spec, err := p.cdlSpectraLocked()
	if err != nil {
		return nil, err
	}
	if p.cdlK == nil {
		p.cdlK = map[float64][]cdlEntry{}
	}
	find := func(l float64, s []int) mat.Symmetric {
		for _, e := range p.cdlK[l] {
			if e.covers(s) {
				return e.k
			}
		}
		return nil
	}
	m := p.Len()
	// What to make: per λ the union of the sets asked for.
	var todo []float64
	cover := map[float64][]int{}
	whole := map[float64]bool{}
	for k, l := range lambdas {
		if find(l, sets[k]) != nil {
			continue
		}
		if !slices.Contains(todo, l) {
			todo = append(todo, l)
		}
		if sets[k] == nil {
			whole[l] = true
		} else {
			cover[l] = append(cover[l], sets[k]...)
		}
	}
	if len(todo) > 0 {
		cov := make([][]bool, len(todo))
		ks := make([]*mat.SymDense, len(todo))
		loc := make([][]int32, len(todo))
		idx := make([][]int, len(todo))
		lam := make([][][]float64, len(todo))
		sum := make([][]float64, len(todo))
		need := make([]bool, m)
		for k, l := range todo {
			cov[k] = make([]bool, m)
			if whole[l] {
				for i := range cov[k] {
					cov[k][i] = true
				}
			} else {
				for _, i := range cover[l] {
					cov[k][i] = true
				}
			}
			loc[k] = make([]int32, m)
			for i, c := range cov[k] {
				loc[k][i] = -1
				if c {
					loc[k][i] = int32(len(idx[k]))
					idx[k] = append(idx[k], i)
					need[i] = true
				}
			}
			ks[k] = mat.NewSymDense(len(idx[k]), nil)
			lam[k], sum[k] = make([][]float64, m), make([]float64, m)
			for i, s := range spec {
				if cov[k][i] {
					lam[k][i], sum[k][i] = s.LogShift(l)
				}
			}
		}
		vs := make([]*mat.Dense, m)
		for i, s := range spec {
			vs[i] = &mat.Dense{}
			if need[i] {
				vs[i] = s.V
			}
		}
		setkernel.GramPairs(vs, p.dim, p.Workers, func(a, b int, g *mat.Dense) {
			for k, l := range todo {
				if cov[k][a] && cov[k][b] {
					ks[k].SetSym(int(loc[k][a]), int(loc[k][b]), setkernel.LogEuclideanGram(p.dim, l, lam[k][a], sum[k][a], lam[k][b], sum[k][b], g))
				}
			}
		})
		for k, l := range todo {
			e := cdlEntry{k: ks[k]}
			if !whole[l] {
				e = cdlEntry{sets: idx[k], k: &setKernel{m: m, loc: loc[k], k: ks[k]}}
			}
			p.cdlK[l] = append(p.cdlK[l], e)
		}
	}
	out := make([]mat.Symmetric, len(lambdas))
	for k, l := range lambdas {
		out[k] = find(l, sets[k])
	}
	return out, nil
}
