package stats

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// SetIndex finds a set given twice among n×D sets added one by one: the
// same frames in any order (a set's density, and every score of it, does
// not depend on the order of its frames). Each set is keyed once by a
// hash free of that order, and only sets of one key are compared.
type SetIndex struct {
	seed  maphash.Seed
	sets  []*mat.Dense
	byKey map[uint64][]int
}

// NewSetIndex returns an empty index.
func NewSetIndex() *SetIndex {
	return &SetIndex{seed: maphash.MakeSeed(), byKey: map[uint64][]int{}}
}

// Add adds x, the index-th set added (from 0), and returns the index of
// an earlier set of the same frames, or -1 (x is added either way).
func (ix *SetIndex) Add(x *mat.Dense) int {
	key := framesKey(x, ix.seed)
	same := -1
	for _, o := range ix.byKey[key] {
		if sameFrames(ix.sets[o], x) {
			same = o
			break
		}
	}
	ix.byKey[key] = append(ix.byKey[key], len(ix.sets))
	ix.sets = append(ix.sets, x)
	return same
}

// sameFrames reports whether the n×D sets a and b hold the same frames in
// any order: the same shape, and every row of one equal to a row of the
// other as often.
func sameFrames(a, b *mat.Dense) bool {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	ia, ib := sortedRows(a), sortedRows(b)
	for k := range ia {
		if slices.Compare(a.RawRowView(ia[k]), b.RawRowView(ib[k])) != 0 {
			return false
		}
	}
	return true
}

// framesKey returns a hash of the n×D set x that does not depend on the
// order of its frames: sets that sameFrames holds alike have one key
// (under one seed).
func framesKey(x *mat.Dense, seed maphash.Seed) uint64 {
	r, c := x.Dims()
	key := uint64(r)*0x9e3779b97f4a7c15 ^ uint64(c)
	var b [8]byte
	for i := range r {
		var h maphash.Hash
		h.SetSeed(seed)
		for _, v := range x.RawRowView(i) {
			if v == 0 {
				v = 0 // −0 and +0 are equal frames
			}
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
		key += h.Sum64() // a sum: the same whatever the order of the rows
	}
	return key
}

// sortedRows returns the indices of x's rows in lexicographic order.
func sortedRows(x *mat.Dense) []int {
	r, _ := x.Dims()
	idx := make([]int, r)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int { return slices.Compare(x.RawRowView(i), x.RawRowView(j)) })
	return idx
}
