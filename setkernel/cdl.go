package setkernel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/internal/stats"
	"setmatch/pca"
)

// CDL: each set is its regularised covariance C + λI, mapped to the flat
// space of symmetric matrices by the principal matrix logarithm and
// compared with the linear (log-Euclidean) kernel
// k(A, B) = tr(log(A) log(B)).
//
// A d×d logarithm per set is not needed: with the thin SVD of the centred
// frames, C = V diag(σ) Vᵀ with r ≤ n−1 non-zero σ, and
//
//	log(C + λI) = log λ · I + V diag(log(σ+λ) − log λ) Vᵀ,
//
// so with Λ_a = log(σ_a+λ) − log λ and G = V_aᵀ V_b,
//
//	tr(log A log B) = d·log²λ + log λ·(ΣΛ_a + ΣΛ_b) + Σ_ij Λ_a,i Λ_b,j G_ij².

// Spectrum is the non-zero spectrum of a set's sample covariance.
type Spectrum struct {
	Sigma []float64  // r eigenvalues, decreasing (r ≥ 1; {0} when all frames are equal)
	V     *mat.Dense // d×r eigenvectors
	Trace float64    // tr(C)
}

// NewSpectrum returns the spectrum of the sample covariance (n−1 in the
// denominator) of the n×d set x, n ≥ 2: the eigenvalues above 1e-12 of
// the trace.
func NewSpectrum(x *mat.Dense) (Spectrum, error) {
	n, d := x.Dims()
	if n < 2 {
		return Spectrum{}, fmt.Errorf("a covariance needs at least 2 frames, the set has %d", n)
	}
	v, s, err := pca.All(stats.Centred(x)) // s: the squared singular values
	if err != nil {
		if big := pca.TooLarge(x); big != nil {
			err = big
		}
		return Spectrum{}, fmt.Errorf("a %d×%d set: %w", n, d, err)
	}
	var tr float64
	for _, sv := range s {
		tr += sv / float64(n-1)
	}
	if !finite.Is(tr) {
		err := pca.TooLarge(x)
		if err == nil {
			err = fmt.Errorf("its covariance has trace %v", tr)
		}
		return Spectrum{}, fmt.Errorf("a %d×%d set: %w", n, d, err)
	}
	r := 0
	for _, sv := range s {
		if sv/float64(n-1) > 1e-12*tr {
			r++
		}
	}
	if r == 0 {
		// All frames equal: C = 0, log(C+λI) = log λ·I.
		return Spectrum{Sigma: []float64{0}, V: mat.NewDense(d, 1, nil)}, nil
	}
	sig := make([]float64, r)
	for k := range r {
		sig[k] = s[k] / float64(n-1)
	}
	return Spectrum{Sigma: sig, V: mat.DenseCopyOf(v.Slice(0, d, 0, r)), Trace: tr}, nil
}

// LogShift returns Λ_k = log(σ_k+λ) − log λ of the spectrum s and their
// sum.
func (s Spectrum) LogShift(lambda float64) (lam []float64, sum float64) {
	l := math.Log(lambda)
	lam = make([]float64, len(s.Sigma))
	for k, v := range s.Sigma {
		lam[k] = math.Log(v+lambda) - l
		sum += lam[k]
	}
	return lam, sum
}

// LogEuclideanGram returns tr(log(A+λI) log(B+λI)) in dimension d from
// the log-shifted spectra (la, sumA) and (lb, sumB) of A and B (LogShift)
// and the r_a×r_b Gram matrix g = V_aᵀ V_b of their eigenvectors.
func LogEuclideanGram(d int, lambda float64, la []float64, sumA float64, lb []float64, sumB float64, g mat.RawMatrixer) float64 {
	l := math.Log(lambda)
	raw := g.RawMatrix()
	var s float64
	for i, a := range la {
		row := raw.Data[i*raw.Stride : i*raw.Stride+len(lb)]
		for j, b := range lb {
			s += a * b * row[j] * row[j]
		}
	}
	return float64(d)*l*l + l*(sumA+sumB) + s
}

// LogEuclidean returns tr(log(A+λI) log(B+λI)) for the covariances whose
// spectra are a and b.
func LogEuclidean(a, b Spectrum, lambda float64) float64 {
	d, _ := a.V.Dims()
	la, sa := a.LogShift(lambda)
	lb, sb := b.LogShift(lambda)
	var g mat.Dense
	g.Mul(a.V.T(), b.V)
	return LogEuclideanGram(d, lambda, la, sa, lb, sb, &g)
}
