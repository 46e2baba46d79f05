package method

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/internal/par"
	"setmatch/internal/stats"
	"setmatch/setkernel"
)

// Pool holds the m sets of one evaluation split (gallery and probe sets
// together) and caches what every method computes from them: the
// divergence matrices of the bandwidths asked for, each set's subspace
// and covariance spectrum, GDA's kernels. Methods only ever look at the
// entries their protocol allows (probe against gallery, never probe
// labels).
//
// Memory. The pool holds no matrix of frames against frames: the squared
// distances between the frames of two sets are computed when a
// divergence needs them, one pair of sets at a time (pairDivergences),
// and every divergence matrix asked for at once (prefetch: the
// bandwidths of a grid, for the training sets of every fold) comes from
// one pass over the pairs, so that the distances, which cost D times more
// than the exponentials, are computed once for all of them. What grows
// faster than the frames is only what is m×m: the divergence and kernel
// matrices.
//
// Origin. The frame distances are |x|² + |y|² − 2x·y of the frames less
// the pool's centre, the median of its sets' mean frames feature by
// feature (stats.MedianOfMeans), not of the frames as given: a distance
// does not depend on the origin, but the expansion keeps only the digits
// that the norms leave, and a feature far from 0 (1e8 on every frame)
// would take them all. The median, not the mean of all frames, so that a
// few sets far from the others (a camera's faulty burst) cost only their
// own distances their digits, not every set's. Each set is centred when its
// distances are computed, into a worker's scratch of two sets' frames, so
// the pool holds no centred copy of the frames; the set kernels (GDA's
// subspaces, CDL's covariances) take the frames as given.
type Pool struct {
	Sets    []*mat.Dense // m sets, each n_i×d
	Workers int          // goroutines; 0 means GOMAXPROCS
	// Names, if not nil, names each set in errors, as its user knows it
	// ("class/set"); without it, or where a name is empty, a set is
	// named by its index. The pools a method makes of frame halves name
	// them after their set.
	Names []string

	off  []int // off[i] = index of set i's first frame; off[m] = N
	dim  int
	mean []float64 // the pool's centre (stats.MedianOfMeans of its sets), subtracted before any frame distance (centre)

	sqOnce sync.Once
	sq     []float64 // |x − mean|² of every frame (centredNorms)

	mu      sync.Mutex
	knn     [][]float64
	gdaB    []*mat.Dense
	gdaP    int                    // the dimension gdaB was made for
	gdaK    map[int]*mat.SymDense  // GDA's kernel matrices by subspace dimension (gdaKernels)
	cdlSpec []setkernel.Spectrum   // every set's covariance spectrum, eigenvectors kept
	cdlK    map[float64][]cdlEntry // CDL's kernel matrices by λ, each covering some sets (cdlKernels)

	// cross, for a pool made by NewCrossPool: cross[t][i] says that the
	// divergences of sets t and i may be asked for.
	cross [][]bool

	divCache  map[string][]*DivMatrix // by divKey, each covering some sets
	halfCache map[string]*halfTask    // by training sets, see withHalves
}

// MaxPoolFrames bounds the number of frames of a pool. The pool's memory
// is linear in the frames (it holds no frame × frame matrix), so the bound
// is one of time: the divergences of all pairs cost N² exponentials and
// N²D/2 products.
const MaxPoolFrames = 200000

// FrameBudget returns the most frames the sets of an evaluation or a
// training run may hold for every path of the cross-validation to fit
// a pool, when the smallest class has minSets training (gallery) sets:
// MaxPoolFrames, or half of it for minSets ≤ 2, where the frame halves of
// the training sets join them in one pool (one set per class, or a class
// with two: see withHalves and the outer folds of Choose).
func FrameBudget(minSets int) int {
	if minSets <= 2 {
		return MaxPoolFrames / 2
	}
	return MaxPoolFrames
}

// SetError is what is wrong with one of the sets given to NewPool, by its
// index, so that a caller that knows the sets' names can say which.
type SetError struct {
	Set     int    // index in the sets given
	Problem string // e.g. "has 1 frame: sets need at least 2 frames"
}

func (e *SetError) Error() string { return fmt.Sprintf("set %d %s", e.Set, e.Problem) }

// setName returns how errors name set i: Names[i], or its index.
func (p *Pool) setName(i int) string {
	if i < len(p.Names) && p.Names[i] != "" {
		return p.Names[i]
	}
	return strconv.Itoa(i)
}

// halfName returns the name of the frame half part (0: the even frames,
// 1: the odd ones, FrameHalves) of set j, for a pool of halves; "" where
// the pool names no set.
func (p *Pool) halfName(j, part int) string {
	if p.Names == nil {
		return ""
	}
	return p.setName(j) + [2]string{", even frames", ", odd frames"}[part]
}

// NewPool checks the sets (n_i×D each: the same D, n_i ≥ 2 frames, finite
// values) and returns a pool over them; a set that fails a check is a
// *SetError. The sets are not copied.
func NewPool(sets []*mat.Dense, workers int) (*Pool, error) {
	p, err := newPoolAnySize(sets, workers)
	if err != nil {
		return nil, err
	}
	if p.off[len(sets)] > MaxPoolFrames {
		return nil, fmt.Errorf("%d frames in all: at most %d fit an evaluation (use fewer or shorter sets)", p.off[len(sets)], MaxPoolFrames)
	}
	return p, nil
}

// newPoolAnySize is NewPool without the bound of MaxPoolFrames, for work
// that compares each set's frames with its own alone (the bandwidths a
// deployed gallery's sets take, SetBandwidthsOn), whose time is linear in
// the sets.
func newPoolAnySize(sets []*mat.Dense, workers int) (*Pool, error) {
	if len(sets) == 0 {
		return nil, errors.New("no sets to evaluate")
	}
	p := &Pool{Sets: sets, Workers: workers, off: make([]int, len(sets)+1)}
	for i, s := range sets {
		if s == nil || s.IsEmpty() {
			return nil, &SetError{i, "has no frames"}
		}
		n, d := s.Dims()
		if i == 0 {
			p.dim = d
		} else if d != p.dim {
			return nil, &SetError{i, fmt.Sprintf("has %d features, set 0 has %d: all sets need the same features", d, p.dim)}
		}
		if n < 2 {
			return nil, &SetError{i, fmt.Sprintf("has %d frame: sets need at least 2 frames", n)}
		}
		for r := range n {
			for _, v := range s.RawRowView(r) {
				if !finite.Is(v) {
					return nil, &SetError{i, fmt.Sprintf("frame %d holds NaN or Inf", r)}
				}
			}
		}
		p.off[i+1] = p.off[i] + n
	}
	p.mean = stats.MedianOfMeans(sets...)
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
// frames of all sets (frames in set order): |a|² + |b|² − 2a·b of the
// frames less the pool's centre, clamped at 0, symmetric to the last
// bit. It is computed on every call and not kept (the pool computes the
// distances of two sets when it needs them, to the same numbers:
// sqDistTile); beside the N×N result it holds a centred copy of the
// frames while it runs.
func (p *Pool) SqDist() *mat.Dense {
	xs := make([][]float64, 0, p.Frames())
	for s := range p.Sets {
		var c centredSet
		p.centre(s, &c)
		xs = append(xs, c.rows...)
	}
	return mat.NewDense(p.Frames(), p.Frames(), sqDistAll(xs, p.Workers))
}

// centredSet is the frames of one of the pool's sets less the pool's
// centre, with their squared norms: what its frame distances are computed
// from. Its memory is reused from set to set.
type centredSet struct {
	buf  []float64   // n×D, row-major
	rows [][]float64 // the n frames, rows of buf
	sq   []float64   // |x|² of every frame x of rows (a slice of Pool.sq)
}

// centre writes the frames of set s less the pool's centre into c,
// with their squared norms.
func (p *Pool) centre(s int, c *centredSet) {
	p.centreRows(s, c)
	c.sq = p.centredNorms()[p.off[s]:p.off[s+1]]
}

// centreRows is centre without the norms.
func (p *Pool) centreRows(s int, c *centredSet) {
	x := p.Sets[s]
	n, d := x.Dims()
	if cap(c.buf) < n*d {
		c.buf = make([]float64, n*d)
	}
	xc := mat.NewDense(n, d, c.buf[:n*d])
	stats.SubtractFrameTo(xc, x, p.mean)
	c.rows = c.rows[:0]
	for r := range n {
		c.rows = append(c.rows, xc.RawRowView(r))
	}
}

// centredNorms returns |x − mean|² of every frame of the pool (len N),
// computed on the first call.
func (p *Pool) centredNorms() []float64 {
	p.sqOnce.Do(func() {
		p.sq = make([]float64, p.Frames())
		p.parallel(len(p.Sets), func(s int) {
			var c centredSet
			p.centreRows(s, &c)
			norms(c.rows, p.sq[p.off[s]:p.off[s+1]])
		})
	})
	return p.sq
}

// NewCrossPool is NewPool (sets n_i×D) for a pool that is only asked for
// the divergences of the sets rows against the sets cols (indices into
// sets) (CrossDivergences
// with those rows and cols, or fewer) and for its frames' bandwidths
// (FrameBandwidths): asked for another pair, it reports an error.
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

// setDist writes the squared distances between the frames of two sets,
// a and b centred by Pool.centre, into out (n_a×n_b, row-major): the
// numbers of SqDist. same says that a and b are the same set.
func setDist(out []float64, a, b *centredSet, same bool) {
	sqDistBlock(out, len(b.rows), a.rows, b.rows, a.sq, b.sq, same)
}

// holds returns an error if the pool may not be asked for the
// divergences of a pair of sets (t, i) for which need(t, i): only a pool
// made by NewCrossPool refuses some.
func (p *Pool) holds(need func(t, i int) bool) error {
	if p.cross == nil {
		return nil
	}
	for t := range p.cross {
		for i := range p.cross[t] {
			if need(t, i) && !p.cross[t][i] {
				return fmt.Errorf("sets %d and %d: this pool was made by NewCrossPool for other pairs of sets; make it with those sets among its rows and columns, or with NewPool", t, i)
			}
		}
	}
	return nil
}

// neighbours returns, for every frame f, the sorted distances to the other
// frames of its set: knn[f][k-1] is the distance to its k-th nearest
// neighbour within the set (n_i−1 values).
func (p *Pool) neighbours() [][]float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.knn != nil {
		return p.knn
	}
	p.centredNorms() // before the workers, which share them
	knn := make([][]float64, p.Frames())
	p.parallel(len(p.Sets), func(s int) {
		lo, hi := p.off[s], p.off[s+1]
		n := hi - lo
		block := make([]float64, n*n)
		var c centredSet
		p.centre(s, &c)
		setDist(block, &c, &c, true)
		for f := lo; f < hi; f++ {
			row := block[(f-lo)*n : (f-lo+1)*n]
			ds := make([]float64, 0, n-1)
			for g := lo; g < hi; g++ {
				if g != f {
					ds = append(ds, math.Sqrt(row[g-lo]))
				}
			}
			sort.Float64s(ds)
			knn[f] = ds
		}
	})
	p.knn = knn
	return knn
}
