package match

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/kde"
)

// KDE is a Gaussian kernel density estimate of one set with isotropic
// bandwidth S = h²I. It keeps the samples (not copied: do not modify them
// afterwards) and what the estimators need of them beyond the samples.
type KDE struct {
	x       *mat.Dense // n×d samples, one frame per row
	h       float64    // bandwidth (standard deviation of each kernel)
	sqNorm  []float64  // |x_i|², len n
	logNorm float64    // −log n − (d/2)·log(2πh²)
}

// Errors that callers can test for with errors.Is.
var (
	ErrEmptySet     = errors.New("set has no frames")
	ErrTooFewFrames = errors.New("set needs at least 2 frames")
	ErrDimMismatch  = errors.New("sets have different feature dimensions")
	ErrBandwidth    = errors.New("bandwidth must be a finite number > 0")
	ErrNotFinite    = errors.New("set contains NaN or Inf")
)

// NewKDE returns the KDE of the n×d set x with bandwidth h.
// It fails if x is empty, has a NaN or Inf, or h is not finite and positive.
func NewKDE(x *mat.Dense, h float64) (*KDE, error) {
	if x == nil || x.IsEmpty() {
		return nil, ErrEmptySet
	}
	if !(h > 0) || math.IsInf(h, 0) {
		return nil, fmt.Errorf("%w (got %v)", ErrBandwidth, h)
	}
	n, d := x.Dims()
	sq := make([]float64, n)
	for i := range n {
		row := x.RawRowView(i)
		var s float64
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: frame %d", ErrNotFinite, i)
			}
			s += v * v
		}
		sq[i] = s
	}
	return &KDE{
		x:       x,
		h:       h,
		sqNorm:  sq,
		logNorm: kde.LogNorm(n, d, h),
	}, nil
}

// NewKDERule returns the KDE of x with its bandwidth chosen by rule.
func NewKDERule(x *mat.Dense, rule BandwidthRule) (*KDE, error) {
	h, err := rule.Bandwidth(x)
	if err != nil {
		return nil, err
	}
	return NewKDE(x, h)
}

// Samples returns the n×d sample matrix.
func (k *KDE) Samples() *mat.Dense { return k.x }

// Bandwidth returns h.
func (k *KDE) Bandwidth() float64 { return k.h }

// Len returns the number of samples n.
func (k *KDE) Len() int { r, _ := k.x.Dims(); return r }

// Dim returns the feature dimension d.
func (k *KDE) Dim() int { _, c := k.x.Dims(); return c }

// LogDensity returns log p at each row of the m×d matrix at, in dst if it has
// room (len m), else in a new slice.
func (k *KDE) LogDensity(at *mat.Dense, dst []float64) ([]float64, error) {
	m, d := at.Dims()
	if d != k.Dim() {
		return nil, fmt.Errorf("%w: %d and %d", ErrDimMismatch, k.Dim(), d)
	}
	if cap(dst) < m {
		dst = make([]float64, m)
	}
	dst = dst[:m]
	sqAt := rowSqNorms(at, nil)
	// Squared distances come from one product: |a|² + |b|² − 2a·b.
	n := k.Len()
	var cross mat.Dense
	cross.Mul(at, k.x.T()) // m×n
	scale := kde.Scale(k.h)
	buf := make([]float64, n)
	for j := range m {
		row := cross.RawRowView(j)
		for i := range n {
			buf[i] = scale * kde.SqDist(sqAt[j], k.sqNorm[i], row[i])
		}
		dst[j] = LogSumExp(buf) + k.logNorm
	}
	return dst, nil
}

// rowSqNorms returns the squared Euclidean norm of each row of x.
func rowSqNorms(x *mat.Dense, dst []float64) []float64 {
	n, _ := x.Dims()
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	for i := range n {
		var s float64
		for _, v := range x.RawRowView(i) {
			s += v * v
		}
		dst[i] = s
	}
	return dst
}

// LogSumExp returns log Σ exp(a_i), without overflow or underflow of the
// largest term. It returns −Inf for an empty slice.
func LogSumExp(a []float64) float64 {
	if len(a) == 0 {
		return math.Inf(-1)
	}
	mx := a[0]
	for _, v := range a[1:] {
		if v > mx {
			mx = v
		}
	}
	if math.IsInf(mx, 0) {
		return mx
	}
	var s float64
	for _, v := range a {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s)
}
