package match

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/internal/kde"
	"setmatch/internal/par"
	"setmatch/internal/scaleadvice"
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
	// ErrNoSpread is the error of a bandwidth rule on a set whose frames
	// are all the same.
	ErrNoSpread    = errors.New("every frame of the set is the same image (a frozen or covered camera?)")
	ErrDimMismatch = errors.New("sets have different feature dimensions")
	ErrBandwidth   = errors.New("bandwidth must be a finite number > 0")
	ErrNotFinite   = errors.New("set contains NaN or Inf")
	// ErrTooLarge is the error of a set with a frame whose squared norm
	// is beyond MaxSqNorm.
	ErrTooLarge = errors.New("values too large for the squared distances of a KDE")
)

// MaxSqNorm bounds the squared norm |x|² of a KDE's frame: with both
// squared norms at most MaxSqNorm, |a|² + |b|² + 2|a·b| ≤ 4·MaxSqNorm is a
// float64, so that every squared distance |a|² + |b|² − 2a·b is a number
// (kde.SqDist). Features around 1e154 and above pass it.
const MaxSqNorm = math.MaxFloat64 / 4

// NewKDE returns the KDE of the n×d set x with bandwidth h.
// It fails if x is empty, has a NaN or Inf or a frame whose squared norm is
// beyond MaxSqNorm (ErrTooLarge), or h is not finite and positive.
func NewKDE(x *mat.Dense, h float64) (*KDE, error) {
	if x == nil || x.IsEmpty() {
		return nil, ErrEmptySet
	}
	if !(h > 0) || math.IsInf(h, 0) {
		return nil, fmt.Errorf("%w (got %v)", ErrBandwidth, h)
	}
	n, d := x.Dims()
	k := &KDE{x: x, h: h, sqNorm: make([]float64, n), logNorm: kde.LogNorm(n, d, h)}
	if err := k.setNorms(); err != nil {
		return nil, err
	}
	return k, nil
}

// setNorms sets the squared norms of k's samples, failing as NewKDE does
// on a NaN or Inf, or a squared norm beyond MaxSqNorm: after the samples
// changed in place (PairKDEs centres them), k is the KDE NewKDE would give
// of them with its bandwidth.
func (k *KDE) setNorms() error {
	for i := range k.sqNorm {
		s, err := sqNorm(k.x, i)
		if err != nil {
			return err
		}
		k.sqNorm[i] = s
	}
	return nil
}

// CheckFrames returns the error NewKDE gives a set of x's frames: a NaN or
// Inf (ErrNotFinite), or a squared norm beyond MaxSqNorm (ErrTooLarge),
// naming the frame; nil where x has none. The projections of frames that
// pass onto orthonormal columns have squared norms no larger (|Wᵀx| ≤ |x|,
// up to rounding), whatever the columns: learn checks its training frames
// so before it learns W.
func CheckFrames(x *mat.Dense) error {
	r, _ := x.Dims()
	for i := range r {
		if _, err := sqNorm(x, i); err != nil {
			return err
		}
	}
	return nil
}

// sqNorm returns the squared norm of frame i of x, or NewKDE's error of it.
func sqNorm(x *mat.Dense, i int) (float64, error) {
	var s float64
	for _, v := range x.RawRowView(i) {
		if !finite.Is(v) {
			return 0, fmt.Errorf("%w: frame %d", ErrNotFinite, i)
		}
		s += v * v
	}
	if !(s <= MaxSqNorm) {
		big := mat.Norm(x.RowView(i), math.Inf(1))
		return 0, fmt.Errorf("%w: frame %d: its values, up to %.3g, make its squared norm %.3g, beyond %.3g, past which the squared distances between frames can overflow a float64; %s",
			ErrTooLarge, i, big, s, MaxSqNorm, scaleadvice.Down(big))
	}
	return s, nil
}

// NewKDERule returns the KDE of the n×d set x with its bandwidth chosen by
// rule (from x's own frames, or fixed).
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
// room (len m), else in a new slice. It works through the m×n block of
// squared distances one tile at a time, so its memory beyond dst is a fixed
// tile whatever m and n.
func (k *KDE) LogDensity(at *mat.Dense, dst []float64) ([]float64, error) {
	return k.logDensity(context.Background(), at, dst, 1)
}

// Tiles of LogDensity: ldRows points × ldCols samples (variables so that
// tests can force many tiles).
var ldRows, ldCols = 256, 2048

// logDensity is LogDensity on workers goroutines (0: GOMAXPROCS), one tile
// row at a time each; it returns ctx's error if ctx ends first.
func (k *KDE) logDensity(ctx context.Context, at *mat.Dense, dst []float64, workers int) ([]float64, error) {
	m, d := at.Dims()
	if d != k.Dim() {
		return nil, fmt.Errorf("%w: %d and %d", ErrDimMismatch, k.Dim(), d)
	}
	if cap(dst) < m {
		dst = make([]float64, m)
	}
	dst = dst[:m]
	sqAt := rowSqNorms(at, nil)
	n := k.Len()
	tr, tc := min(m, ldRows), min(n, ldCols)
	rowTiles := (m + tr - 1) / tr
	w := min(par.Workers(workers), rowTiles)
	type scratch struct {
		cross    []float64 // tr×tc products a·x_i of one tile
		buf      []float64 // tc exponents of one row of the tile
		off, acc []float64 // tr running maximum and sum of each row
	}
	scr := make([]*scratch, w)
	scale := kde.Scale(k.h)
	var cancelled atomic.Bool
	par.For(rowTiles, w, func(wk, t int) {
		if ctx.Err() != nil {
			cancelled.Store(true)
			return
		}
		s := scr[wk]
		if s == nil {
			s = &scratch{cross: make([]float64, tr*tc), buf: make([]float64, tc), off: make([]float64, tr), acc: make([]float64, tr)}
			scr[wk] = s
		}
		a0, a1 := t*tr, min((t+1)*tr, m)
		rows := a1 - a0
		for r := range rows {
			s.off[r], s.acc[r] = math.Inf(-1), 0
		}
		for b0 := 0; b0 < n; b0 += tc {
			b1 := min(b0+tc, n)
			cols := b1 - b0
			// Squared distances come from one product: |a|² + |b|² − 2a·b.
			cross := mat.NewDense(rows, cols, s.cross[:rows*cols])
			cross.Mul(at.Slice(a0, a1, 0, d), k.x.Slice(b0, b1, 0, d).T())
			for r := range rows {
				row := cross.RawRowView(r)
				buf := s.buf[:cols]
				for i := range cols {
					buf[i] = scale * kde.SqDist(sqAt[a0+r], k.sqNorm[b0+i], row[i])
				}
				mx, sum := logSumExpParts(buf)
				mergeMax(&s.off[r], &s.acc[r], mx, sum)
			}
		}
		for r := range rows {
			if math.IsInf(s.off[r], 0) {
				dst[a0+r] = s.off[r] + k.logNorm
			} else {
				dst[a0+r] = s.off[r] + math.Log(s.acc[r]) + k.logNorm
			}
		}
	})
	if cancelled.Load() {
		return nil, ctx.Err()
	}
	return dst, nil
}

// logSumExpParts returns the largest value mx of a and Σ exp(a_i − mx):
// log Σ exp(a_i) = mx + log(sum). For mx = ±Inf sum is 0.
func logSumExpParts(a []float64) (mx, sum float64) {
	mx = math.Inf(-1)
	for _, v := range a {
		mx = max(mx, v)
	}
	if math.IsInf(mx, 0) {
		return mx, 0
	}
	for _, v := range a {
		sum += math.Exp(v - mx)
	}
	return mx, sum
}

// mergeMax adds the parts (mx, sum) of one tile to a row's running
// (maximum, sum), keeping the larger maximum as the offset. The first tile
// is taken as it is, so that one tile gives exactly LogSumExp of the row.
func mergeMax(off, acc *float64, mx, sum float64) {
	switch {
	case math.IsInf(mx, -1):
		// no term
	case math.IsInf(mx, 1) || math.IsInf(*off, 1):
		*off, *acc = math.Inf(1), 0
	case math.IsInf(*off, -1):
		*off, *acc = mx, sum
	case mx > *off:
		*acc = *acc*math.Exp(*off-mx) + sum
		*off = mx
	default:
		*acc += sum * math.Exp(mx-*off)
	}
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
	return mx + math.Log(sumExpBelow(a, mx))
}

// sumExpBelow returns Σ e^{a_i − mx} for mx ≥ every a_i, with the fast
// exponential of the matcher (four lanes at a time where the CPU has
// AVX2): eval's divergence matrices spend most of their time here.
func sumExpBelow(a []float64, mx float64) float64 {
	var s float64
	i := 0
	if useSIMD && len(a) >= 8 {
		s, i = sumExpBelowSIMD(a, mx), len(a)&^3
	}
	for _, v := range a[i:] {
		s += kde.ExpNonPos(v - mx)
	}
	return s
}
