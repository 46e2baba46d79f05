package eval

import (
	"fmt"
	"sort"

	"gonum.org/v1/gonum/mat"

	"setmatch/kfda"
	"setmatch/match"
	"setmatch/setkernel"
)

// Covariance Discriminative Learning (Wang et al., CVPR 2012) on the
// pool: the log-Euclidean kernel (setkernel) of every pair of sets from
// their covariance spectra and one Gram matrix of all eigenvectors.

func (p *Pool) cdlSpectra() ([]setkernel.Spectrum, []*mat.Dense, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cdlSpec != nil {
		return p.cdlSpec, p.cdlGram, nil
	}
	m := p.Len()
	spec := make([]setkernel.Spectrum, m)
	errs := make([]error, m)
	p.parallel(m, func(i int) {
		var err error
		if spec[i], err = setkernel.NewSpectrum(p.Sets[i]); err != nil {
			errs[i] = fmt.Errorf("set %d: %w", i, err)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	off := cdlOffsets(spec)
	all := mat.NewDense(p.dim, off[m], nil)
	for i, s := range spec {
		all.Slice(0, p.dim, off[i], off[i+1]).(*mat.Dense).Copy(s.V)
	}
	g := cdlGramRows(all, off, p.parallel)
	for i := range spec {
		spec[i].V = nil // only the Gram is needed from now on
	}
	p.cdlSpec, p.cdlGram = spec, g
	return spec, g, nil
}

// cdlOffsets returns off with off[i] the column of set i's first
// eigenvector in the matrix of all of them, off[m] their number.
func cdlOffsets(spec []setkernel.Spectrum) []int {
	off := make([]int, len(spec)+1)
	for i, s := range spec {
		off[i+1] = off[i] + len(s.Sigma)
	}
	return off
}

// cdlGramRows returns the blocks on and above the diagonal of the Gram
// matrix allᵀ·all of the d×R matrix all of every set's eigenvectors (set
// a in columns off[a]…off[a+1]−1): rows[a] is V_aᵀ·[V_a … V_m−1], r_a×
// (R − off[a]), so that V_aᵀV_b (b ≥ a) is its columns off[b]−off[a] …
// off[b+1]−off[a]−1. The kernel needs each pair once, so the blocks below
// the diagonal (the other half of an R×R matrix, R up to the frames of
// the whole pool) are neither computed nor held. Each element is the same
// ascending sum over the d features as in one product of the whole
// matrix, to the last bit (tested).
func cdlGramRows(all *mat.Dense, off []int, parallel func(n int, f func(i int))) []*mat.Dense {
	d, r := all.Dims()
	m := len(off) - 1
	rows := make([]*mat.Dense, m)
	parallel(m, func(a int) {
		ra := off[a+1] - off[a]
		if ra == 0 {
			rows[a] = &mat.Dense{}
			return
		}
		g := mat.NewDense(ra, r-off[a], nil)
		g.Mul(all.Slice(0, d, off[a], off[a+1]).T(), all.Slice(0, d, off[a], r))
		rows[a] = g
	})
	return rows
}

// CDLKernel returns the m×m log-Euclidean kernel matrix of the pool's sets
// with covariances regularised by λ = reg × the median over the training
// sets of tr(C)/d (one λ for all sets, so that the kernel stays one linear
// kernel on log-covariances).
func (p *Pool) CDLKernel(reg float64, train []int) (*mat.SymDense, float64, error) {
	if !(reg > 0) {
		return nil, 0, fmt.Errorf("CDL regulariser must be > 0, got %v", reg)
	}
	spec, g, err := p.cdlSpectra()
	if err != nil {
		return nil, 0, err
	}
	var tr []float64
	for _, s := range train {
		tr = append(tr, spec[s].Trace/float64(p.dim))
	}
	base := match.Median(tr)
	if !(base > 0) {
		return nil, 0, fmt.Errorf("the training sets have no spread: CDL needs sets whose frames differ")
	}
	lambda := reg * base
	m := p.Len()
	off := cdlOffsets(spec)
	lam := make([][]float64, m)
	sum := make([]float64, m)
	for i, s := range spec {
		lam[i], sum[i] = s.LogShift(lambda)
	}
	k := mat.NewSymDense(m, nil)
	p.parallel(m, func(a int) {
		for b := a; b < m; b++ {
			// V_aᵀV_b (every Spectrum has at least one eigenvector)
			v := g[a].Slice(0, off[a+1]-off[a], off[b]-off[a], off[b+1]-off[a])
			k.SetSym(a, b, setkernel.LogEuclideanGram(p.dim, lambda, lam[a], sum[a], lam[b], sum[b], v.(*mat.Dense)))
		}
	})
	return k, lambda, nil
}

// MinEigenvalue returns the smallest eigenvalue of the symmetric matrix k
// and the largest, so callers can report how far a kernel matrix is from
// positive semi-definite relative to its scale.
func MinEigenvalue(k mat.Symmetric) (minimum, maximum float64, err error) {
	var es mat.EigenSym
	if !es.Factorize(k, false) {
		return 0, 0, fmt.Errorf("eigendecomposition did not converge")
	}
	v := es.Values(nil)
	sort.Float64s(v)
	return v[0], v[len(v)-1], nil
}

// SpectrumReport describes the eigenvalues of one divergence kernel matrix
// over a pool's training sets.
type SpectrumReport struct {
	Kernel   string  // "hg", "hl" or "j"
	Width    float64 // s, applied to the raw divergence
	Min, Max float64 // smallest and largest eigenvalue
	Trace    float64
}

// KernelSpectra returns, for k_HG = exp(−s·H2), k_HL = exp(−s·√H2) and
// k_J = exp(−s·J) on the training sets with bandwidth b, the extreme
// eigenvalues for each width s. The exact k_HG and k_HL are positive
// definite (Section 3); their empirical estimates and k_J need not be, and
// a negative Min says by how much they are not.
func (p *Pool) KernelSpectra(b Bandwidth, train []int, widths []float64) ([]SpectrumReport, error) {
	dm, err := p.divMatrix(b, train)
	if err != nil {
		return nil, err
	}
	var out []SpectrumReport
	kernels := map[string]func(div, s float64) float64{"hg": match.KernelHG, "hl": match.KernelHL, "j": match.KernelJ}
	for _, kind := range []string{"hg", "hl", "j"} {
		d := dm.H2
		if kind == "j" {
			d = dm.J
		}
		for _, s := range widths {
			k := subSym(kfda.KernelMatrix(d, s, 1, kernels[kind]), train)
			lo, hi, err := MinEigenvalue(k)
			if err != nil {
				return nil, err
			}
			var tr float64
			for i := range len(train) {
				tr += k.At(i, i)
			}
			out = append(out, SpectrumReport{Kernel: kind, Width: s, Min: lo, Max: hi, Trace: tr})
		}
	}
	return out, nil
}
