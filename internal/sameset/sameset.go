// Package sameset finds a set of frames given twice: the same frames in
// any order, each value equal to within a rounding of its feature's scale
// (Index). setmatch train refuses a burst given twice among its data
// sets, and enroll one the gallery holds already.
//
// Computation only: no I/O.
package sameset

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// sameTol is how near two frames' values must be, relative to the largest
// magnitude of their feature in the two sets, for Index to hold them the
// same: far above
// the rounding of a gallery's frames moved onto a new mean (x−m)W − μ
// against the same burst projected anew, far below what tells two bursts
// apart.
const sameTol = 1e-9

// Index finds a set given twice among n×D sets added one by one: the
// same frames in any order (a set's density, and every score of it, does
// not depend on the order of its frames), each value equal to within a
// relative 1e-9 of its feature's largest magnitude. The rows of a set are
// taken in the order of their projection on a fixed direction, and only
// sets of one shape whose first projections are as near as two copies'
// can be are compared: a search in a sorted list, not every pair.
type Index struct {
	sets    []indexedSet
	byShape map[[2]int][]int // per shape, sets by increasing key
}

// indexedSet is a set with its rows' order, each feature's largest
// magnitude, its key (the projection of its first row in that order) and
// how far a copy's key may be from it (slack).
type indexedSet struct {
	x          *mat.Dense
	order      []int
	scale      []float64
	key, slack float64
}

// New returns an empty index.
func New() *Index {
	return &Index{byShape: map[[2]int][]int{}}
}

// Add adds x, the index-th set added (from 0), and returns the index of
// an earlier set of the same frames, or -1 (x is added either way).
func (ix *Index) Add(x *mat.Dense) int {
	r, c := x.Dims()
	shape := [2]int{r, c}
	e := newIndexedSet(x)
	ix.sets = append(ix.sets, e)
	if math.IsNaN(e.key) {
		return -1 // a NaN is no value: the same as no set
	}
	list := ix.byShape[shape]
	same := -1
	from := sort.Search(len(list), func(k int) bool { return ix.sets[list[k]].key >= e.key-e.slack })
	for k := from; k < len(list) && ix.sets[list[k]].key <= e.key+e.slack; k++ {
		if o := list[k]; sameIndexed(ix.sets[o], e) && (same < 0 || o < same) {
			same = o // the earliest of several
		}
	}
	// After the equal keys: they stay in the order they were added.
	at := sort.Search(len(list), func(k int) bool { return ix.sets[list[k]].key > e.key })
	ix.byShape[shape] = slices.Insert(list, at, len(ix.sets)-1)
	return same
}

// newIndexedSet orders the rows of x by their projection on the direction
// w_j = 1 + frac((j+1)φ) (ties by their values), which rounding does not
// reorder but for frames nearer than sameTol on it.
func newIndexedSet(x *mat.Dense) indexedSet {
	r, c := x.Dims()
	w := make([]float64, c)
	for j := range w {
		_, f := math.Modf(float64(j+1) * 0.6180339887498949)
		w[j] = 1 + f
	}
	proj := make([]float64, r)
	e := indexedSet{x: x, order: make([]int, r), scale: make([]float64, c)}
	for i := range r {
		e.order[i] = i
		for j, v := range x.RawRowView(i) {
			proj[i] += w[j] * v
			e.scale[j] = max(e.scale[j], math.Abs(v))
		}
	}
	slices.SortStableFunc(e.order, func(a, b int) int {
		if c := cmp.Compare(proj[a], proj[b]); c != 0 {
			return c
		}
		return slices.Compare(x.RawRowView(a), x.RawRowView(b))
	})
	if r > 0 {
		// A copy's first row is within sameTol of each feature's scale
		// (its own or this set's, at most 1+1e-9 apart): its projection
		// within twice the sum, with room for the sums' own rounding.
		e.key = proj[e.order[0]]
		for j, v := range e.scale {
			e.slack += w[j] * v
		}
		e.slack *= 4 * sameTol
	}
	return e
}

// sameIndexed reports whether a and b hold the same frames in any order:
// the same shape, and their rows, each set's in its order, equal to
// within sameTol of the larger of the two scales of their feature.
func sameIndexed(a, b indexedSet) bool {
	ra, ca := a.x.Dims()
	rb, cb := b.x.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for k := range a.order {
		ya, yb := a.x.RawRowView(a.order[k]), b.x.RawRowView(b.order[k])
		for j := range ya {
			if !(math.Abs(ya[j]-yb[j]) <= sameTol*max(a.scale[j], b.scale[j])) { // a NaN is no value
				return false
			}
		}
	}
	return true
}
