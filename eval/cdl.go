package eval

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
)

// Covariance Discriminative Learning (Wang et al., CVPR 2012): each set is
// its regularised covariance C + λI, mapped to the flat space of symmetric
// matrices by the principal matrix logarithm and compared with the linear
// (log-Euclidean) kernel k(A, B) = tr(log(A) log(B)), then classified with
// kFDA.
//
// A d×d logarithm per set is not needed: with the thin SVD of the centred
// frames, C = V diag(σ) Vᵀ with r ≤ n−1 non-zero σ, and
//
//	log(C + λI) = log λ · I + V diag(log(σ+λ) − log λ) Vᵀ,
//
// so with Λ_a = log(σ_a+λ) − log λ and G = V_aᵀ V_b,
//
//	tr(log A log B) = d·log²λ + log λ·(ΣΛ_a + ΣΛ_b) + Σ_ij Λ_a,i Λ_b,j G_ij².

// cdlSpectrum is the non-zero covariance spectrum of one set.
type cdlSpectrum struct {
	sigma []float64  // r eigenvalues of the sample covariance, decreasing
	v     *mat.Dense // d×r eigenvectors
	trace float64    // tr(C)
}

// Covariance returns the d×d sample covariance (n−1 in the denominator) of
// the n×d set x.
func Covariance(x *mat.Dense) *mat.SymDense {
	n, d := x.Dims()
	xc := Centred(x)
	c := mat.NewSymDense(d, nil)
	c.SymOuterK(1/float64(n-1), xc.T())
	return c
}

// Centred returns a copy of the n×d set x with its mean frame subtracted.
func Centred(x *mat.Dense) *mat.Dense {
	n, d := x.Dims()
	mean := match.ColumnMeans(x)
	xc := mat.NewDense(n, d, nil)
	for i := range n {
		row := xc.RawRowView(i)
		for j, v := range x.RawRowView(i) {
			row[j] = v - mean[j]
		}
	}
	return xc
}

// LogSPD returns the principal logarithm of the symmetric positive definite
// matrix a, from its eigendecomposition. It is the reference for the
// low-rank computation of the CDL kernel.
func LogSPD(a mat.Symmetric) (*mat.SymDense, error) {
	var es mat.EigenSym
	if !es.Factorize(a, true) {
		return nil, fmt.Errorf("eigendecomposition did not converge")
	}
	vals := es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	n := len(vals)
	out := mat.NewSymDense(n, nil)
	for k, l := range vals {
		if !(l > 0) {
			return nil, fmt.Errorf("matrix is not positive definite (eigenvalue %g): increase the regulariser", l)
		}
		col := mat.Col(nil, k, &v)
		out.SymRankOne(out, math.Log(l), mat.NewVecDense(n, col))
	}
	return out, nil
}

// LogEuclideanKernel returns tr(log(A) log(B)) for SPD a and b, computed
// densely. Use the pool's CDLKernel for many sets.
func LogEuclideanKernel(a, b mat.Symmetric) (float64, error) {
	la, err := LogSPD(a)
	if err != nil {
		return 0, err
	}
	lb, err := LogSPD(b)
	if err != nil {
		return 0, err
	}
	n := la.SymmetricDim()
	var s float64
	for i := range n {
		for j := range n {
			s += la.At(i, j) * lb.At(j, i)
		}
	}
	return s, nil
}

func (p *Pool) cdlSpectra() ([]cdlSpectrum, *mat.Dense, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cdlSpec != nil {
		return p.cdlSpec, p.cdlGram, nil
	}
	m := p.Len()
	spec := make([]cdlSpectrum, m)
	errs := make([]error, m)
	p.parallel(m, func(i int) {
		x := p.Sets[i]
		n, d := x.Dims()
		var svd mat.SVD
		if !svd.Factorize(Centred(x), mat.SVDThin) {
			errs[i] = fmt.Errorf("set %d: SVD did not converge", i)
			return
		}
		s := svd.Values(nil)
		var v mat.Dense
		svd.VTo(&v)
		var tr float64
		for _, sv := range s {
			tr += sv * sv / float64(n-1)
		}
		r := 0
		for _, sv := range s {
			if sv*sv/float64(n-1) > 1e-12*tr {
				r++
			}
		}
		sig := make([]float64, r)
		for k := range r {
			sig[k] = s[k] * s[k] / float64(n-1)
		}
		if r == 0 {
			// All frames equal: C = 0, log(C+λI) = log λ·I.
			spec[i] = cdlSpectrum{v: mat.NewDense(d, 1, nil), sigma: []float64{0}}
			return
		}
		spec[i] = cdlSpectrum{sigma: sig, v: mat.DenseCopyOf(v.Slice(0, d, 0, r)), trace: tr}
	})
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	// One Gram matrix of all eigenvectors gives every V_aᵀV_b block.
	off := make([]int, m+1)
	for i, s := range spec {
		off[i+1] = off[i] + len(s.sigma)
	}
	all := mat.NewDense(p.dim, off[m], nil)
	for i, s := range spec {
		all.Slice(0, p.dim, off[i], off[i+1]).(*mat.Dense).Copy(s.v)
	}
	g := mat.NewDense(off[m], off[m], nil)
	const blk = 256
	nb := (off[m] + blk - 1) / blk
	p.parallel(nb, func(b int) {
		lo, hi := b*blk, min((b+1)*blk, off[m])
		g.Slice(lo, hi, 0, off[m]).(*mat.Dense).Mul(all.Slice(0, p.dim, lo, hi).T(), all)
	})
	for i := range spec {
		spec[i].v = nil // only the Gram is needed from now on
	}
	p.cdlSpec, p.cdlGram = spec, g
	return spec, g, nil
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
		tr = append(tr, spec[s].trace/float64(p.dim))
	}
	base := median(tr)
	if !(base > 0) {
		return nil, 0, fmt.Errorf("the training sets have no spread: CDL needs sets whose frames differ")
	}
	lambda := reg * base
	l := math.Log(lambda)
	m := p.Len()
	off := make([]int, m+1)
	lam := make([][]float64, m)
	sum := make([]float64, m)
	for i, s := range spec {
		off[i+1] = off[i] + len(s.sigma)
		lam[i] = make([]float64, len(s.sigma))
		for k, v := range s.sigma {
			lam[i][k] = math.Log(v+lambda) - l
			sum[i] += lam[i][k]
		}
	}
	d := float64(p.dim)
	k := mat.NewSymDense(m, nil)
	p.parallel(m, func(a int) {
		for b := a; b < m; b++ {
			var s float64
			for i, la := range lam[a] {
				row := g.RawRowView(off[a] + i)[off[b]:off[b+1]]
				for j, lb := range lam[b] {
					s += la * lb * row[j] * row[j]
				}
			}
			k.SetSym(a, b, d*l*l+l*(sum[a]+sum[b])+s)
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
			k := subSym(divKernel(d, s, 1, kernels[kind]), train)
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
