package match

import (
	"context"
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/par"
)

// SetError is the error of one of the sets given to DivergenceMatrix, by
// its index, so that a caller that knows the sets' names can say which.
type SetError struct {
	Set int
	Err error
}

func (e *SetError) Error() string { return fmt.Sprintf("set %d: %v", e.Set, e.Err) }

func (e *SetError) Unwrap() error { return e.Err }

// DivergenceMatrix returns the m×m symmetric matrix of the divergence meas
// between the sets y_i (n_i×d, rows = frames) with bandwidths h_i, zero on
// the diagonal. Each unordered pair is computed once, by the kernels of
// Gallery, on workers goroutines (≤ 0 means GOMAXPROCS); the result does not
// depend on the number of workers. The sets are not copied. The error of
// one set is a *SetError.
func DivergenceMatrix(y []*mat.Dense, h []float64, meas Measure, workers int) (*mat.SymDense, error) {
	if len(y) == 0 {
		return nil, errors.New("divergence matrix: no sets")
	}
	if len(h) != len(y) {
		return nil, fmt.Errorf("divergence matrix: %d bandwidths for %d sets", len(h), len(y))
	}
	kdes := make([]*KDE, len(y))
	maxN := 0
	for i, s := range y {
		k, err := NewKDE(s, h[i])
		if err != nil {
			return nil, &SetError{Set: i, Err: err}
		}
		if i > 0 && k.Dim() != kdes[0].Dim() {
			return nil, fmt.Errorf("set %d: %w: %d, set 0 has %d", i, ErrDimMismatch, k.Dim(), kdes[0].Dim())
		}
		kdes[i] = k
		maxN = max(maxN, k.Len())
	}
	// Every set is the query of the pairs with the sets before it; its own
	// log density (computed once, in prepareQuery) serves both roles.
	queries := make([]*query, len(kdes))
	errs := make([]error, len(kdes))
	par.For(len(kdes), workers, func(_, i int) { queries[i], errs[i] = prepareQuery(context.Background(), kdes[i], 1) })
	maxStride := 0
	for i, err := range errs {
		if err != nil {
			return nil, &SetError{Set: i, Err: err}
		}
		maxStride = max(maxStride, queries[i].stride)
	}
	m := len(kdes)
	type ij struct{ i, j int }
	pairs := make([]ij, 0, m*(m-1)/2)
	for i := range m {
		for j := i + 1; j < m; j++ {
			pairs = append(pairs, ij{i, j})
		}
	}
	scratch := make([]*pairScratch, min(par.Workers(workers), max(len(pairs), 1)))
	vals := make([]float64, len(pairs))
	par.For(len(pairs), workers, func(w, k int) {
		if scratch[w] == nil {
			scratch[w] = newPairScratch(maxN, maxStride)
		}
		p := pairs[k]
		d, _ := scratch[w].compare(context.Background(), kdes[p.i], queries[p.i].self, queries[p.j])
		vals[k] = d.Of(meas)
	})
	out := mat.NewSymDense(m, nil)
	for k, p := range pairs {
		out.SetSym(p.i, p.j, vals[k])
	}
	return out, nil
}
