package learn

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
)

// PrefixCache remembers the first iterations of the trainings given it
// (TrainOptions.Prefixes): the first ⌈MaxIter/2⌉ iterations of a
// training's first CG run, so that trainings that begin alike compute
// them once. A training at global*0.25 begins with ⌈MaxIter/2⌉
// iterations at global*1, its warm start (TrainOptions.WarmScale), and
// these are the first iterations of the training at global*1 on the
// same sets, to the bit: cross-validation, which learns W at both scales
// on the same sets, computes them once. A training takes the iterations
// of another only where the two run the same CG from the same start on
// the same cost: the same sets (by the identity of their matrices, which
// must not change afterwards) and labels, start and mean, affinity pairs,
// bandwidths, divergence, dimension and stop rules; its result is what
// it gives without the cache, bit for bit. It keeps the last few entries
// only. The zero value is ready to use; it is safe for concurrent use.
type PrefixCache struct {
	c keyedOnce[*prefixEntry]
}

// prefixEntry is the first iterations of a training: what they are run
// from (the start, the mean, the affinity pairs and the bandwidths; the
// rest is in the key) and where they stopped.
type prefixEntry struct {
	w0, mean, h []float64
	pairs       []PairWeight
	cg          *grassmann.CGResult
}

// run returns grassmann.MinimizeCG(f, w0, o) for the first CG run of a
// training on sets (with labels) under opt, whose first prefix iterations
// (at most o.MaxIter) it takes from the cache or puts in it; f is the
// cost of that training, of pairs and bandwidths h, after subtracting
// mean. o's Progress is called for every iteration in turn, those taken
// from the cache at once.
func (c *PrefixCache) run(sets []*mat.Dense, labels []int, mean []float64, w0 *mat.Dense, pairs []PairWeight, h []float64, opt TrainOptions, prefix int, f grassmann.Objective, o grassmann.CGOptions) (*grassmann.CGResult, error) {
	e := &prefixEntry{w0: mat.DenseCopyOf(w0).RawMatrix().Data, mean: slices.Clone(mean), h: slices.Clone(h), pairs: slices.Clone(pairs)}
	key := setsKey(sets, labels)
	fmt.Fprintf(key, "|%v d=%d prefix=%d cg=%g,%g,%g,%d,%g,%t|%x", opt.Divergence, opt.Dim, prefix,
		o.GradTol, o.CostRelTol, o.MinStep, o.RestartEvery, o.InitialStep, o.NoFinalGradient, e.digest())
	got, err := c.c.do(key.String(), sets, func() (*prefixEntry, error) {
		po := o
		po.MaxIter, po.Progress = prefix, nil
		cg, err := grassmann.MinimizeCG(f, w0, po)
		e.cg = cg
		return e, err
	})
	if err != nil {
		return nil, err
	}
	if !got.from(e) {
		// Another start under the same key (a collision of the digest).
		return grassmann.MinimizeCG(f, w0, o)
	}
	return got.cg.Continue(f, o.MaxIter, o.Progress)
}

// digest is a hash of the numbers e's iterations are run from.
func (e *prefixEntry) digest() uint64 {
	h := fnv.New64a()
	put := func(v float64) { h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))) }
	for _, x := range [][]float64{e.w0, e.mean, e.h} {
		for _, v := range x {
			put(v)
		}
	}
	for _, p := range e.pairs {
		put(float64(p.I))
		put(float64(p.J))
		put(p.A)
	}
	return h.Sum64()
}

// from reports whether e's iterations are run from the numbers of f, bit
// for bit.
func (e *prefixEntry) from(f *prefixEntry) bool {
	same := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
	}
	if !same(e.w0, f.w0) || !same(e.mean, f.mean) || !same(e.h, f.h) || len(e.pairs) != len(f.pairs) {
		return false
	}
	for i, p := range e.pairs {
		q := f.pairs[i]
		if p.I != q.I || p.J != q.J || math.Float64bits(p.A) != math.Float64bits(q.A) {
			return false
		}
	}
	return true
}
