package method

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
)

// divMatrix returns the pool's divergence matrix for bandwidth b (its
// global base from the sets train), covering at least the sets of sets
// (nil: every set), cached.
func (p *Pool) divMatrix(b Bandwidth, train, sets []int) (*DivMatrix, error) {
	h, err := p.FrameBandwidths(b, train)
	if err != nil {
		return nil, err
	}
	sets = sortedSets(sets)
	key := divKey(b, h)
	if dm := p.cachedDiv(key, sets); dm != nil {
		return dm, nil
	}
	dms, err := p.divergencesOn([][]float64{h}, [][]int{sets})
	if err != nil {
		return nil, err
	}
	p.storeDiv([]string{key}, dms)
	return dms[0], nil
}

// storeDiv adds the matrices dms to the cache under their keys.
func (p *Pool) storeDiv(keys []string, dms []*DivMatrix) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.divCache == nil {
		p.divCache = map[string][]*DivMatrix{}
	}
	for k, key := range keys {
		p.divCache[key] = append(p.divCache[key], dms[k])
	}
}

// cachedDiv returns a cached matrix of key that covers sets, or nil.
func (p *Pool) cachedDiv(key string, sets []int) *DivMatrix {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, dm := range p.divCache[key] {
		if dm.covers(sets) {
			return dm
		}
	}
	return nil
}

// sortedSets returns the distinct sets of sets in ascending order (nil
// stays nil: every set).
func sortedSets(sets []int) []int {
	if sets == nil {
		return nil
	}
	out := slices.Clone(sets)
	slices.Sort(out)
	return slices.Compact(out)
}

// divSets returns the sets whose divergences a method run on t looks at:
// its training and test sets, and the halves of its training sets when
// the pool holds them (withHalves).
func (t *Task) divSets() []int {
	out := append(append([]int(nil), t.Train...), t.Test...)
	for _, h := range t.halves {
		for _, j := range h {
			if j >= 0 {
				out = append(out, j)
			}
		}
	}
	return sortedSets(out)
}

// divKey is the cache key of the divergences of bandwidth b with the
// frames' bandwidths h. The divergences depend on the bandwidths only;
// which of them depend on the training sets varies (the global base,
// and the fallback of a set whose frames are mostly identical), so the
// key is all of them.
func divKey(b Bandwidth, h []float64) string {
	hash := fnv.New64a()
	var buf [8]byte
	for _, v := range h {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
		hash.Write(buf[:])
	}
	return fmt.Sprintf("%s/%x", b, hash.Sum64())
}

// divRequest asks prefetch for the divergences of the sets sets (nil:
// every set) with the global base of the sets train.
type divRequest struct {
	train, sets []int
}

// prefetch computes the divergence matrices of every bandwidth of bws for
// every request of reqs that the cache does not hold yet, in one pass over
// the pairs of sets (divergencesOn): the frames' distances, the costly
// part, once for all. It is only a head start: a bandwidth that cannot be
// derived is left out, for divMatrix to report when it is asked for.
func (p *Pool) prefetch(bws []Bandwidth, reqs []divRequest) {
	var hs [][]float64
	var keys []string
	var sets [][]int
	for _, r := range reqs {
		s := sortedSets(r.sets)
		for _, b := range bws {
			h, err := p.FrameBandwidths(b, r.train)
			if err != nil || p.validBandwidths(h) != nil {
				continue
			}
			key := divKey(b, h)
			if p.cachedDiv(key, s) != nil {
				continue
			}
			// Requests of the same key (a bandwidth per set does not
			// depend on the training sets): one matrix over their union.
			if k := slices.Index(keys, key); k >= 0 {
				if sets[k] != nil {
					sets[k] = sortedSets(append(sets[k], s...))
				}
				if s == nil {
					sets[k] = nil
				}
				continue
			}
			hs, keys, sets = append(hs, h), append(keys, key), append(sets, s)
		}
	}
	if len(hs) == 0 {
		return
	}
	dms, err := p.divergencesOn(hs, sets)
	if err != nil {
		return
	}
	p.storeDiv(keys, dms)
}
