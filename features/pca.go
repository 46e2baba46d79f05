package features

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/internal/stats"
	"setmatch/pca"
)

// PCA is a principal component analysis fitted on n×D training data.
type PCA struct {
	// Mean is the column mean of the training data, length D.
	Mean []float64
	// Components is D×d with orthonormal columns, the principal directions
	// in order of decreasing variance. Each column's sign is fixed so that
	// its entry of largest magnitude (the first one on ties) is positive.
	Components *mat.Dense
	// Variances holds the d variances along the components (eigenvalues of
	// the sample covariance, normalised by n−1), decreasing.
	Variances []float64
	// Total is the total variance of the training data (trace of the sample
	// covariance); sum(Variances)/Total is the fraction kept.
	Total float64
}

// FitPCA fits a d-component PCA to the rows of x (n×D, n ≥ 2): the d
// leading principal directions of the centred rows (pca.Leading: of the
// sample covariance, of the Gram matrix of the rows when there are fewer
// rows than features, or by a subspace iteration from a fixed seed above
// pca.CovarianceMaxDim features). d must be between 1 and the rank of the
// centred data (pca.Rank).
func FitPCA(x *mat.Dense, d int) (*PCA, error) {
	if x == nil || x.IsEmpty() {
		return nil, fmt.Errorf("features: pca: no training data")
	}
	n, D := x.Dims()
	if n < 2 {
		return nil, fmt.Errorf("features: pca: need at least 2 training frames, got %d", n)
	}
	if d < 1 || d > D {
		return nil, fmt.Errorf("features: pca: %d components requested from %d-dimensional data: want 1 to %d", d, D, D)
	}
	mean := stats.MeanFrame(x)
	for _, v := range mean {
		if !finite.Is(v) {
			return nil, fmt.Errorf("features: pca: training data contain NaN or infinite values")
		}
	}
	xc := mat.DenseCopyOf(x)
	stats.SubtractFrame(xc, mean)
	var total float64
	for i := range n {
		for _, v := range xc.RawRowView(i) {
			total += v * v
		}
	}
	if !(total > 0) {
		return nil, fmt.Errorf("features: pca: training data have zero variance (all %d frames are identical)", n)
	}
	comp, vals, err := pca.Leading(xc, d, pcaSeed)
	if err != nil {
		return nil, fmt.Errorf("features: %w", err)
	}
	if rank := pca.Rank(vals, n, D); rank < d {
		if rank == 0 {
			return nil, fmt.Errorf("features: pca: training data have zero variance (all %d frames are identical)", n)
		}
		return nil, fmt.Errorf("features: pca: %d components requested but the %d training frames span only %d dimensions after centring: choose at most %d",
			d, n, rank, rank)
	}
	for k := range vals {
		vals[k] /= float64(n - 1)
	}
	return &PCA{Mean: mean, Components: comp, Variances: vals, Total: total / float64(n-1)}, nil
}

// pcaSeed is the seed of pca.Leading's subspace iteration (used only
// above pca.CovarianceMaxDim features): fixed, so that the same frames
// give the same stage.
const pcaSeed = 1

// InputDim returns D.
func (p *PCA) InputDim() int { return len(p.Mean) }

// Dim returns d, the number of components.
func (p *PCA) Dim() int { _, d := p.Components.Dims(); return d }

// Transform returns (x − Mean)·Components, n×d, for x n×D. It panics
// with mat.ErrShape if x does not have D columns, like gonum's own
// operations: check InputDim first for untrusted input.
func (p *PCA) Transform(x *mat.Dense) *mat.Dense {
	n, D := x.Dims()
	if D != len(p.Mean) {
		panic(mat.ErrShape)
	}
	xc := mat.NewDense(n, D, nil)
	for i := range n {
		row := xc.RawRowView(i)
		for j, v := range x.RawRowView(i) {
			row[j] = v - p.Mean[j]
		}
	}
	var out mat.Dense
	out.Mul(xc, p.Components)
	return &out
}

// TransformVec projects one frame (length D) into dst (length d, allocated
// when nil) and returns it.
func (p *PCA) TransformVec(dst, x []float64) ([]float64, error) {
	D, d := p.Components.Dims()
	if len(x) != D {
		return nil, fmt.Errorf("features: pca: frame has %d values, want %d", len(x), D)
	}
	if dst == nil {
		dst = make([]float64, d)
	} else if len(dst) != d {
		return nil, fmt.Errorf("features: pca: destination has length %d, want %d", len(dst), d)
	}
	clear(dst)
	for j, v := range x {
		c := v - p.Mean[j]
		row := p.Components.RawRowView(j)
		for k := range dst {
			dst[k] += c * row[k]
		}
	}
	return dst, nil
}

// Whiten divides each column j of y (n×d, as returned by Transform) by the
// standard deviation √Variances[j] in place, so that the principal
// components of the training data have unit variance. Components of zero
// variance are left as they are. It panics with mat.ErrShape if y does not
// have d columns.
func (p *PCA) Whiten(y *mat.Dense) {
	n, d := y.Dims()
	if d != len(p.Variances) {
		panic(mat.ErrShape)
	}
	for r := range n {
		row := y.RawRowView(r)
		for j := range row {
			if v := p.Variances[j]; v > 0 {
				row[j] /= math.Sqrt(v)
			}
		}
	}
}

// PCASets fits a k-component PCA on the frames of the sets sets[i], i in
// fit, stacked in that order, and returns every set of sets projected onto
// it (each n_i×D becomes n_i×k), whitened if whiten. Sets must all have D
// columns; typically fit lists the gallery sets of an evaluation split, so
// that probe sets play no part in the fit.
func PCASets(sets []*mat.Dense, fit []int, k int, whiten bool) ([]*mat.Dense, error) {
	if len(fit) == 0 {
		return nil, fmt.Errorf("features: pca: no sets to fit on")
	}
	rows := 0
	for _, g := range fit {
		n, _ := sets[g].Dims()
		rows += n
	}
	_, dim := sets[fit[0]].Dims()
	all := mat.NewDense(rows, dim, nil)
	r := 0
	for _, g := range fit {
		n, _ := sets[g].Dims()
		all.Slice(r, r+n, 0, dim).(*mat.Dense).Copy(sets[g])
		r += n
	}
	pca, err := FitPCA(all, k)
	if err != nil {
		return nil, err
	}
	out := make([]*mat.Dense, len(sets))
	for i, s := range sets {
		out[i] = pca.Transform(s)
		if whiten {
			pca.Whiten(out[i])
		}
	}
	return out, nil
}
