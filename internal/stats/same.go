package stats

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// SameFrames reports whether the n×D sets a and b hold the same frames in
// any order: the same shape, and every row of one equal to a row of the
// other as often. A set's density, and every score of it, does not depend
// on the order of its frames, so such sets are one set twice.
func SameFrames(a, b *mat.Dense) bool {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	ia, ib := sortedRows(a), sortedRows(b)
	for k := range ia {
		if compareRows(a.RawRowView(ia[k]), b.RawRowView(ib[k])) != 0 {
			return false
		}
	}
	return true
}

// FramesKey returns a hash of the n×D set x that does not depend on the
// order of its frames: sets that SameFrames holds alike have one key
// (under one seed), so that only sets of one key need comparing.
func FramesKey(x *mat.Dense, seed maphash.Seed) uint64 {
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
	slices.SortFunc(idx, func(i, j int) int { return compareRows(x.RawRowView(i), x.RawRowView(j)) })
	return idx
}

// compareRows compares two rows of one length value by value.
func compareRows(p, q []float64) int {
	for k := range p {
		switch {
		case p[k] < q[k]:
			return -1
		case p[k] > q[k]:
			return 1
		}
	}
	return 0
}
