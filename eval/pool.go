package eval

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/par"
	"setmatch/setkernel"
)

// Pool holds the m sets of one evaluation split (gallery and probe sets
// together) and caches what every method computes from them: the squared
// distances between all frames, each set's subspace and covariance
// spectrum. Methods only ever look at the entries their protocol allows
// (probe against gallery, never probe labels).
//
// The squared distances do not depend on the bandwidth, so once they are
// computed a divergence matrix for any choice of bandwidths costs one
// exponential per frame pair: this is what makes choosing the bandwidth by
// cross-validation cheap.
type Pool struct {
	Sets    []*mat.Dense // m sets, each n_i×d
	Workers int          // goroutines; 0 means GOMAXPROCS

	off []int // off[i] = index of set i's first frame; off[m] = N
	dim int

	mu      sync.Mutex
	d2      *mat.Dense // N×N squared distances between all frames
	knn     [][]float64
	gdaB    []*mat.Dense
	cdlSpec []setkernel.Spectrum
	cdlGram []*mat.Dense // rows of the Gram of every set's eigenvectors, on and above the diagonal (cdlGramRows)

	// cross, for a pool made by NewCrossPool: cross[t][i] says that the
	// distances between the frames of sets t and i are held, in part[t][i]
	// (n_t×n_i, row-major); d2 is then not needed.
	cross [][]bool
	part  [][][]float64

	// parent and alias: every frame f of this pool is frame alias[f] of
	// parent, whose distances SqDist then copies instead of computing
	// them again (the pool of frame halves, withHalves).
	parent *Pool
	alias  []int

	divCache  map[string]*DivMatrix
	halfCache map[string]*halfTask // by training sets, see withHalves
}

// MaxPoolFrames bounds the number of frames of a pool: the all-pairs
// distance cache holds N² float64.
const MaxPoolFrames = 16000

// FrameBudget returns the most frames the sets of an evaluation or a
// training run may hold for every path of the cross-validation to fit
// the cache, when the smallest class has minSets training (gallery) sets:
// MaxPoolFrames, or half of it for minSets ≤ 2, where the frame halves of
// the training sets join them in one pool (one set per class, or a class
// with two: see withHalves and the outer folds of Choose).
func FrameBudget(minSets int) int {
	if minSets <= 2 {
		return MaxPoolFrames / 2
	}
	return MaxPoolFrames
}

// NewPool checks the sets (same dimension, at least 2 frames each, finite
// values) and returns a pool over them. The sets are not copied.
func NewPool(sets []*mat.Dense, workers int) (*Pool, error) {
	if len(sets) == 0 {
		return nil, errors.New("no sets to evaluate")
	}
	p := &Pool{Sets: sets, Workers: workers, off: make([]int, len(sets)+1)}
	for i, s := range sets {
		if s == nil || s.IsEmpty() {
			return nil, fmt.Errorf("set %d has no frames", i)
		}
		n, d := s.Dims()
		if i == 0 {
			p.dim = d
		} else if d != p.dim {
			return nil, fmt.Errorf("set %d has %d features, set 0 has %d: all sets need the same features", i, d, p.dim)
		}
		if n < 2 {
			return nil, fmt.Errorf("set %d has %d frame: sets need at least 2 frames", i, n)
		}
		for r := range n {
			for _, v := range s.RawRowView(r) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("set %d frame %d holds NaN or Inf", i, r)
				}
			}
		}
		p.off[i+1] = p.off[i] + n
	}
	if p.off[len(sets)] > MaxPoolFrames {
		return nil, fmt.Errorf("%d frames in all: at most %d fit the evaluation cache (use fewer or shorter sets)", p.off[len(sets)], MaxPoolFrames)
	}
	return p, nil
}

// Len returns the number of sets m.
func (p *Pool) Len() int { return len(p.Sets) }

// Dim returns the feature dimension d.
func (p *Pool) Dim() int { return p.dim }

// Frames returns the total number of frames N.
func (p *Pool) Frames() int { return p.off[len(p.Sets)] }

// parallel runs f(i) for i in [0, n) on the pool's workers.
func (p *Pool) parallel(n int, f func(i int)) {
	par.For(n, p.Workers, func(_, i int) { f(i) })
}

// SqDist returns the N×N matrix of squared Euclidean distances between all
// frames of all sets (frames in set order), computing it on first use:
// |a|² + |b|² − 2a·b, clamped at 0, symmetric to the last bit. A pool
// made by NewCrossPool computes it whole here too, but does not need it.
func (p *Pool) SqDist() *mat.Dense {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.d2 != nil {
		return p.d2
	}
	n := p.Frames()
	if p.parent != nil {
		src := p.parent.SqDist()
		g := mat.NewDense(n, n, nil)
		p.parallel(n, func(i int) {
			row, from := g.RawRowView(i), src.RawRowView(p.alias[i])
			for j, a := range p.alias {
				row[j] = from[a]
			}
		})
		p.d2 = g
		return g
	}
	p.d2 = mat.NewDense(n, n, sqDistAll(p.frameRows(), p.Workers))
	return p.d2
}

// frameRows returns the N frames of the pool, in set order.
func (p *Pool) frameRows() [][]float64 {
	xs := make([][]float64, 0, p.Frames())
	for _, s := range p.Sets {
		n, _ := s.Dims()
		for r := range n {
			xs = append(xs, s.RawRowView(r))
		}
	}
	return xs
}

// NewCrossPool is NewPool for a pool that is only asked for the
// divergences of the sets rows against the sets cols (CrossDivergences
// with those rows and cols, or fewer) and for its frames' bandwidths
// (FrameBandwidths): it computes and holds the squared frame distances
// within every set and between every set of rows and every set of cols,
// not all N² of them. For the held-out sets of a fold against its
// training sets that is about half of the distances, and of the memory.
// They are those of SqDist to the last bit.
func NewCrossPool(sets []*mat.Dense, workers int, rows, cols []int) (*Pool, error) {
	p, err := NewPool(sets, workers)
	if err != nil {
		return nil, err
	}
	m := p.Len()
	p.cross = make([][]bool, m)
	for i := range p.cross {
		p.cross[i] = make([]bool, m)
		p.cross[i][i] = true
	}
	if _, _, err := p.marks(rows, cols); err != nil {
		return nil, err
	}
	for _, r := range rows {
		for _, c := range cols {
			p.cross[r][c], p.cross[c][r] = true, true
		}
	}
	return p, nil
}

// marks returns which of the pool's sets are in rows and in cols, or an
// error naming an index outside the pool.
func (p *Pool) marks(rows, cols []int) (inRows, inCols []bool, err error) {
	m := p.Len()
	inRows, inCols = make([]bool, m), make([]bool, m)
	for _, idx := range [][]int{rows, cols} {
		for _, i := range idx {
			if i < 0 || i >= m {
				return nil, nil, fmt.Errorf("set %d is not in the pool: its sets are 0 to %d", i, m-1)
			}
		}
	}
	for _, i := range rows {
		inRows[i] = true
	}
	for _, i := range cols {
		inCols[i] = true
	}
	return inRows, inCols, nil
}

// blocks computes, once, the distance blocks of a pool made by
// NewCrossPool: part[t][i], n_t×n_i row-major, for the pairs of sets in
// cross (each pair once, the other way round mirrored).
func (p *Pool) blocks() [][][]float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.part != nil {
		return p.part
	}
	m := p.Len()
	xs := p.frameRows()
	sq := norms(xs)
	part := make([][][]float64, m)
	type pair struct{ t, i int }
	var jobs []pair
	for t := range m {
		part[t] = make([][]float64, m)
		for i := t; i < m; i++ {
			if p.cross[t][i] {
				jobs = append(jobs, pair{t, i})
			}
		}
	}
	p.parallel(len(jobs), func(j int) {
		t, i := jobs[j].t, jobs[j].i
		lt, ht, li, hi := p.off[t], p.off[t+1], p.off[i], p.off[i+1]
		nt, ni := ht-lt, hi-li
		b := make([]float64, nt*ni)
		sqDistBlock(b, ni, xs[lt:ht], xs[li:hi], sq[lt:ht], sq[li:hi], t == i)
		part[t][i] = b
		if t == i {
			return
		}
		c := make([]float64, ni*nt)
		for x := range nt {
			for y := range ni {
				c[y*nt+x] = b[x*ni+y]
			}
		}
		part[i][t] = c
	})
	p.part = part
	return part
}

// distFunc returns the squared distances of frame x, of set t, to the
// frames of set i, for every pair (t, i) the pool holds: from SqDist, or
// from the blocks of a pool made by NewCrossPool.
type distFunc func(t, x, i int) []float64

// dists computes the pool's frame distances if needed and returns their
// accessor. Every pool holds the distances within each set; a pool made
// by NewCrossPool holds the other pairs only if holds says so.
func (p *Pool) dists() distFunc {
	if p.cross == nil {
		d2 := p.SqDist()
		return func(t, x, i int) []float64 {
			return d2.RawRowView(x)[p.off[i]:p.off[i+1]]
		}
	}
	part := p.blocks()
	return func(t, x, i int) []float64 {
		ni := p.off[i+1] - p.off[i]
		k := (x - p.off[t]) * ni
		return part[t][i][k : k+ni]
	}
}

// holds returns an error if the pool does not hold the frame distances of
// a pair of sets (t, i) for which need(t, i): only a pool made by
// NewCrossPool lacks some.
func (p *Pool) holds(need func(t, i int) bool) error {
	if p.cross == nil {
		return nil
	}
	for t := range p.cross {
		for i := range p.cross[t] {
			if need(t, i) && !p.cross[t][i] {
				return fmt.Errorf("sets %d and %d: this pool holds only the frame distances of the sets it was made for by NewCrossPool; make it with those sets among its rows and columns, or with NewPool", t, i)
			}
		}
	}
	return nil
}

// neighbours returns, for every frame f, the sorted distances to the other
// frames of its set: knn[f][k-1] is the distance to its k-th nearest
// neighbour within the set (n_i−1 values).
func (p *Pool) neighbours() [][]float64 {
	dist := p.dists()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.knn != nil {
		return p.knn
	}
	knn := make([][]float64, p.Frames())
	for s := range p.Sets {
		lo, hi := p.off[s], p.off[s+1]
		for f := lo; f < hi; f++ {
			row := dist(s, f, s)
			ds := make([]float64, 0, hi-lo-1)
			for g := lo; g < hi; g++ {
				if g != f {
					ds = append(ds, math.Sqrt(row[g-lo]))
				}
			}
			sort.Float64s(ds)
			knn[f] = ds
		}
	}
	p.knn = knn
	return knn
}
