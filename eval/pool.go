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
	cdlGram *mat.Dense

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
// frames of all sets (frames in set order), computing it on first use from
// one Gram matrix: |a|² + |b|² − 2a·b, clamped at 0.
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
	all := mat.NewDense(n, p.dim, nil)
	for i, s := range p.Sets {
		all.Slice(p.off[i], p.off[i+1], 0, p.dim).(*mat.Dense).Copy(s)
	}
	g := mat.NewDense(n, n, nil)
	// Row blocks in parallel: gonum's own parallelism is not guaranteed.
	const blk = 256
	nb := (n + blk - 1) / blk
	p.parallel(nb, func(b int) {
		lo, hi := b*blk, min((b+1)*blk, n)
		g.Slice(lo, hi, 0, n).(*mat.Dense).Mul(all.Slice(lo, hi, 0, p.dim), all.T())
	})
	sq := make([]float64, n)
	for i := range n {
		sq[i] = g.At(i, i)
	}
	for i := range n {
		row := g.RawRowView(i)
		for j := range row {
			v := sq[i] + sq[j] - 2*row[j]
			if v < 0 || i == j {
				v = 0
			}
			row[j] = v
		}
	}
	// Symmetrise exactly: the two products can differ in the last bit.
	for i := range n {
		for j := i + 1; j < n; j++ {
			v := 0.5 * (g.At(i, j) + g.At(j, i))
			g.Set(i, j, v)
			g.Set(j, i, v)
		}
	}
	p.d2 = g
	return g
}

// neighbours returns, for every frame f, the sorted distances to the other
// frames of its set: knn[f][k-1] is the distance to its k-th nearest
// neighbour within the set (n_i−1 values).
func (p *Pool) neighbours() [][]float64 {
	d2 := p.SqDist()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.knn != nil {
		return p.knn
	}
	knn := make([][]float64, p.Frames())
	for s := range p.Sets {
		lo, hi := p.off[s], p.off[s+1]
		for f := lo; f < hi; f++ {
			row := d2.RawRowView(f)
			ds := make([]float64, 0, hi-lo-1)
			for g := lo; g < hi; g++ {
				if g != f {
					ds = append(ds, math.Sqrt(row[g]))
				}
			}
			sort.Float64s(ds)
			knn[f] = ds
		}
	}
	p.knn = knn
	return knn
}

// median returns the median of x (x is sorted in place); 0 if empty.
func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	sort.Float64s(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return 0.5 * (x[n/2-1] + x[n/2])
}
