package method

import (
	"fmt"
	"sort"

	"gonum.org/v1/gonum/mat"

	"setmatch/kfda"
)

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
	Kernel   Kernel  // KernelHG, KernelHL or KernelJ
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
	dm, err := p.divMatrix(b, train, train)
	if err != nil {
		return nil, err
	}
	var out []SpectrumReport
	for _, kind := range []Kernel{KernelHG, KernelHL, KernelJ} {
		d := dm.Of(kind.Measure())
		for _, s := range widths {
			k := kfda.KernelMatrix(subSym(d, train), s, 1, kind.Func())
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
