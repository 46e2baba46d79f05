package method

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Frame halves. A method's own cross-validation (bandwidth, kernel width,
// regulariser, latent dimension, subspace dimension) needs two sets of a
// class to hold one out. Where a class has a single training set (every
// class in the pooled layout, or in a fold's training part when every
// class has two; some classes where others have more), the even and odd
// frames of that set stand in for them: they join the pool (withHalves),
// the choice is cross-validated on them (the even half against the odd
// one and back, beside the sets of the other classes in their folds),
// and the method is then fitted on the whole training sets with the
// chosen values. Without them every value would be the first of its grid,
// unvalidated, where every class has one set, and chosen on the other
// classes alone where some have more.

// MinHalvedFrames is the fewest frames a set needs for FrameHalves to
// halve it: two a half.
const MinHalvedFrames = 4

// TooShortToHalve returns the error for the set named name, of n frames,
// fewer than MinHalvedFrames: it says what is wrong, and the caller adds
// what it was halved for and what to do.
func TooShortToHalve(name string, n int) error {
	return fmt.Errorf("set %s has %d frames, too few to halve (%d or more are needed)", name, n, MinHalvedFrames)
}

// needsPairs reports whether learning W with p needs within-class pairs
// of sets (or of their frame halves): conjugate gradient's affinity does;
// the start of W (p.Start: the PCA or Fisher basis) does not.
func needsPairs(p LearnParams) bool { return !p.Start }

// tooShortForHalves returns the error of learning W on the frame halves
// of sets that are one a class when every set is too short to halve (the
// affinity then has no within-class pair): TooShortToHalve of the set
// named name, of n frames, and what to do.
func tooShortForHalves(name string, n int) error {
	return fmt.Errorf("%w, as is every set, for learning W on the halves of sets that are one a class: give the sets more frames", TooShortToHalve(name, n))
}

// Halvable reports whether FrameHalves halves x: x has MinHalvedFrames
// frames or more. It copies nothing.
func Halvable(x *mat.Dense) bool {
	n, _ := x.Dims()
	return n >= MinHalvedFrames
}

// FrameHalves returns the even and the odd frames of the n×d set x, or
// nil when x has fewer than MinHalvedFrames frames (Halvable).
func FrameHalves(x *mat.Dense) []*mat.Dense {
	if !Halvable(x) {
		return nil
	}
	n, d := x.Dims()
	hs := make([]*mat.Dense, 2)
	for part := range 2 {
		h := mat.NewDense((n-part+1)/2, d, nil)
		for r := part; r < n; r += 2 {
			h.SetRow(r/2, x.RawRowView(r))
		}
		hs[part] = h
	}
	return hs
}

// halves splits every set into its even and odd frames (FrameHalves);
// sets too short to halve are kept whole.
func halves(sets []*mat.Dense, labels []int) ([]*mat.Dense, []int) {
	var out []*mat.Dense
	var lab []int
	for k, x := range sets {
		hs := FrameHalves(x)
		if hs == nil {
			hs = []*mat.Dense{x}
		}
		for _, h := range hs {
			out, lab = append(out, h), append(lab, labels[k])
		}
	}
	return out, lab
}

// halvesOf returns the frame halves of the pool's set j (FrameHalves; nil
// when it is too short to halve).
func (p *Pool) halvesOf(j int) []*mat.Dense {
	return FrameHalves(p.Sets[j])
}

// withHalvesOf returns a pool holding p's sets followed by the even and
// odd frames of the sets train[k] for which want(k), and per position k
// the pool indices of its halves, −1 where not wanted or too short to
// halve (FrameHalves). The pool is nil when no set was halved or when the
// frames would pass MaxPoolFrames. Its frame distances, computed when
// needed, are those of p's frames but for rounding (the halves are copies
// of them; its mean frame, the origin of its distances, counts them
// twice).
func (p *Pool) withHalvesOf(train []int, want func(k int) bool) (*Pool, [][2]int, error) {
	sets := append([]*mat.Dense(nil), p.Sets...)
	var names []string
	if p.Names != nil {
		names = make([]string, len(p.Sets), len(p.Sets)+2*len(train))
		for i := range p.Sets {
			names[i] = p.setName(i)
		}
	}
	frames := p.Frames()
	idx := make([][2]int, len(train))
	any := false
	for k, j := range train {
		idx[k] = [2]int{-1, -1}
		if !want(k) {
			continue
		}
		hs := p.halvesOf(j)
		if hs == nil {
			continue
		}
		idx[k] = [2]int{len(sets), len(sets) + 1}
		sets = append(sets, hs...)
		if names != nil {
			names = append(names, p.halfName(j, 0), p.halfName(j, 1))
		}
		frames += p.off[j+1] - p.off[j]
		any = true
	}
	if !any || frames > MaxPoolFrames {
		return nil, nil, nil
	}
	q, err := NewPool(sets, p.Workers)
	if err != nil {
		return nil, nil, fmt.Errorf("frame halves of the training sets: %w", err)
	}
	q.Names = names
	return q, idx, nil
}

// halfTask holds the pool of a task with the halves of its training sets
// appended, computed once per pool and training sets (Pool.halfCache) and
// shared by every method and copy of the task.
type halfTask struct {
	once   sync.Once
	pool   *Pool
	halves [][2]int // per position of Train: the pool indices of its halves, −1 if it has fewer than 4 frames
	err    error
}

// withHalves returns t on a pool that also holds the even and odd frames
// of every training set of at least 4 frames that is the single training
// set of its class (of every set, when every class has one); where no
// class has a single set, or no such set can be halved, t itself. Train
// and Test keep their indices. The pool's frames grow by those of the
// halved sets: when that passes MaxPoolFrames, t itself too (its method
// then cross-validates on the classes of two sets or more, or where
// every class has one takes the first value of each list, as without
// halves).
func withHalves(t *Task) (*Task, error) {
	if t.halves != nil || singleSetClasses(t.Labels) == 0 {
		return t, nil
	}
	pool, halves, err := t.singleHalves()
	if err != nil {
		return nil, err
	}
	if pool == nil {
		return t, nil
	}
	tt := *t
	tt.Pool, tt.halves = pool, halves
	return &tt, nil
}

// singleHalves returns t's pool with the even and odd frames of every
// training set that is the single one of its class appended, and per
// position of Train the pool indices of its halves (Pool.withHalvesOf),
// made once per pool and training sets: withHalves and Task.halveSingles
// (Choose's outer folds, then the fit of the method chosen on the same
// sets) share it, with the matrices computed on it.
func (t *Task) singleHalves() (*Pool, [][2]int, error) {
	count := classSizes(t.Labels)
	one := func(k int) bool { return count[t.Labels[k]] == 1 }
	return t.Pool.cachedHalves("singles "+fmt.Sprint(t.Train), t.Train, one)
}

// cachedHalves returns p.withHalvesOf(train, want), computed once per key
// (Pool.halfCache) and shared by every caller that asks for it, whatever
// the method or the copy of the task.
func (p *Pool) cachedHalves(key string, train []int, want func(k int) bool) (*Pool, [][2]int, error) {
	p.mu.Lock()
	if p.halfCache == nil {
		p.halfCache = map[string]*halfTask{}
	}
	h := p.halfCache[key]
	if h == nil {
		h = new(halfTask)
		p.halfCache[key] = h
	}
	p.mu.Unlock()
	h.once.Do(func() { h.pool, h.halves, h.err = p.withHalvesOf(train, want) })
	return h.pool, h.halves, h.err
}

// DropHalves forgets the pools of frame halves withHalves and the outer
// folds of Choose made from p, for the garbage collector: each holds a
// copy of the frames it halved, and its own divergence and kernel
// matrices.
func (p *Pool) DropHalves() {
	p.mu.Lock()
	p.halfCache = nil
	p.mu.Unlock()
}

// cv returns the sets, labels and folds of t's own cross-validation: its
// training sets in k stratified folds, a class of one set by the halves
// of it (withHalves): the even half in fold 0, the odd one in fold 1. A
// class of one set that has no halves (too short) is left out. fold is
// nil when nothing can be held out.
func (t *Task) cv(k int) (train, labels, fold []int) {
	bySet := folds(t.Labels, k, t.Seed) // nil where every class has one set
	if t.halves == nil {
		return t.Train, t.Labels, bySet
	}
	for p, hv := range t.halves {
		if hv[0] < 0 {
			if bySet != nil && bySet[p] >= 0 {
				train, labels, fold = append(train, t.Train[p]), append(labels, t.Labels[p]), append(fold, bySet[p])
			}
			continue
		}
		for part, j := range hv {
			train, labels, fold = append(train, j), append(labels, t.Labels[p]), append(fold, part)
		}
	}
	return train, labels, fold
}
