package method

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/internal/par"
	"setmatch/match"
)

// BandwidthMode says how the KDE bandwidths of the frames are derived from
// the data before the global scale factor is applied.
type BandwidthMode int

const (
	// Global: one h for every set, the median over the training sets'
	// frames of the distance to the nearest other frame of the same set.
	Global BandwidthMode = iota
	// PerSet: each set its own h, the median nearest-neighbour distance
	// within that set. It uses only the set's own frames, so a probe's
	// bandwidth is computed as the appliance would.
	PerSet
	// Adaptive: each frame its own h, the distance to its K-th nearest
	// other frame of the same set (a variable-bandwidth KDE).
	Adaptive
)

// Bandwidth is one choice of KDE bandwidths: h = Scale × base, the base
// given by Mode.
type Bandwidth struct {
	Mode  BandwidthMode
	Scale float64
	K     int // neighbour rank for Adaptive
}

// String returns the bandwidth as ParseBandwidth reads it:
// "global*1", "set*0.5", "knn3*2".
func (b Bandwidth) String() string {
	s := strconv.FormatFloat(b.Scale, 'g', -1, 64)
	switch b.Mode {
	case PerSet:
		return "set*" + s
	case Adaptive:
		return "knn" + strconv.Itoa(b.K) + "*" + s
	}
	return "global*" + s
}

// ParseBandwidth reads "global*S", "set*S" or "knnK*S" (S > 0 the scale).
func ParseBandwidth(s string) (Bandwidth, error) {
	mode, scale, ok := strings.Cut(strings.TrimSpace(s), "*")
	if !ok {
		scale = "1"
	}
	v, err := strconv.ParseFloat(scale, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return Bandwidth{}, fmt.Errorf("bandwidth %q: scale %q must be a number > 0", s, scale)
	}
	switch {
	case mode == "global":
		return Bandwidth{Mode: Global, Scale: v}, nil
	case mode == "set":
		return Bandwidth{Mode: PerSet, Scale: v}, nil
	case strings.HasPrefix(mode, "knn"):
		k, err := strconv.Atoi(mode[3:])
		if err != nil || k < 1 {
			return Bandwidth{}, fmt.Errorf("bandwidth %q: want knnK with K ≥ 1, e.g. knn3*1", s)
		}
		return Bandwidth{Mode: Adaptive, Scale: v, K: k}, nil
	}
	return Bandwidth{}, fmt.Errorf("bandwidth %q: want global*S, set*S or knnK*S", s)
}

// FrameBandwidths returns the bandwidth of every frame of the pool (len N)
// for b. The global base is computed from the training sets only.
func (p *Pool) FrameBandwidths(b Bandwidth, train []int) ([]float64, error) {
	if !(b.Scale > 0) {
		return nil, fmt.Errorf("bandwidth scale must be > 0, got %v", b.Scale)
	}
	knn := p.neighbours()
	var frames []int
	for _, s := range train {
		for f := p.off[s]; f < p.off[s+1]; f++ {
			frames = append(frames, f)
		}
	}
	base := nnMedian(knn, frames)
	if !(base > 0) || !finite.Is(base) {
		sets := make([]*mat.Dense, len(train))
		for k, s := range train {
			sets[k] = p.Sets[s]
		}
		if why := match.WhyNoSpread(sets...); !errors.Is(why, match.ErrNoSpread) {
			return nil, fmt.Errorf("no bandwidth can be derived: %w", why)
		}
		return nil, errors.New("every training set is one image repeated (a frozen or covered camera?): no bandwidth can be derived; train on sets whose frames differ")
	}
	h := make([]float64, p.Frames())
	for s := range p.Sets {
		lo, hi := p.off[s], p.off[s+1]
		setBase := base
		if b.Mode != Global {
			// A set of one image repeated keeps the global base.
			frames = frames[:0]
			for f := lo; f < hi; f++ {
				frames = append(frames, f)
			}
			if m := nnMedian(knn, frames); m > 0 {
				setBase = m
			}
		}
		for f := lo; f < hi; f++ {
			v := setBase
			if b.Mode == Adaptive {
				// Floor at a tenth of the set's median so that duplicated
				// frames do not get a zero-width kernel.
				v = 0.1 * setBase
				if k := min(b.K, len(knn[f])); k > 0 {
					v = math.Max(knn[f][k-1], v)
				}
			}
			h[f] = b.Scale * v
		}
	}
	return h, nil
}

// nnMedian is match's nn rule (match.NearestNeighbourMedian) over the
// given frames of a pool whose sorted within-set neighbour distances are
// knn: each frame's nearest other frame, and its nearest that differs.
func nnMedian(knn [][]float64, frames []int) float64 {
	nearest := make([]float64, 0, len(frames))
	differing := make([]float64, 0, len(frames))
	for _, f := range frames {
		if len(knn[f]) == 0 {
			continue
		}
		nearest = append(nearest, knn[f][0])
		d := math.Inf(1)
		if i, _ := slices.BinarySearch(knn[f], math.SmallestNonzeroFloat64); i < len(knn[f]) {
			d = knn[f][i] // the first positive distance
		}
		differing = append(differing, d)
	}
	return match.NearestNeighbourMedian(nearest, differing)
}

// DivMatrix holds the symmetric divergences between the sets of a pool,
// both in one array: the squared Hellinger distances above its diagonal,
// the Jeffrey divergences below it (half the memory of two symmetric
// matrices: the pools of many short sets keep many of these). It covers
// every set of the pool, or only some (a fold's training and held-out
// sets: newDivMatrixOn); it is indexed by the pool's set indices either
// way, and asking for a set it does not cover is a bug (it panics).
type DivMatrix struct {
	H2 Divs // m×m squared Hellinger distances (Eq. 10)
	J  Divs // m×m Jeffrey divergences (Eq. 11)
}

// newDivMatrixOn returns a DivMatrix of zeros of a pool of m sets that
// covers the sets of the ascending list sets (nil: every set), holding
// len(sets)² numbers.
func newDivMatrixOn(m int, sets []int) *DivMatrix {
	n := m
	var loc []int32
	if sets != nil {
		n = len(sets)
		loc = make([]int32, m)
		for i := range loc {
			loc[i] = -1
		}
		for k, i := range sets {
			loc[i] = int32(k)
		}
	}
	data := make([]float64, n*n)
	return &DivMatrix{H2: Divs{m: m, n: n, data: data, loc: loc}, J: Divs{m: m, n: n, data: data, lower: true, loc: loc}}
}

// covers reports whether d holds the divergences of every set of sets.
func (d *DivMatrix) covers(sets []int) bool {
	if d.H2.loc == nil {
		return true
	}
	if sets == nil {
		return false
	}
	for _, i := range sets {
		if d.H2.loc[i] < 0 {
			return false
		}
	}
	return true
}

// set stores the divergences of sets i < j.
func (d *DivMatrix) set(i, j int, v match.Divergences) {
	i, j = d.H2.local(i), d.H2.local(j)
	d.H2.data[i*d.H2.n+j] = v.Hellinger2
	d.J.data[j*d.J.n+i] = v.Jeffrey
}

// Of returns the matrix of measure m.
func (d *DivMatrix) Of(m match.Measure) Divs {
	if m == match.Jeffrey {
		return d.J
	}
	return d.H2
}

// Divs is one of the two symmetric matrices of a DivMatrix, 0 on the
// diagonal; it is a mat.Symmetric of the pool's m sets.
type Divs struct {
	m     int       // the pool's sets
	n     int       // the sets covered
	data  []float64 // n×n, shared with the other measure
	lower bool      // the entries below the diagonal (J), else above (H²)
	loc   []int32   // per set of the pool its row, −1 when not covered; nil: every set, in order
}

// local returns the row of set i.
func (d Divs) local(i int) int {
	if d.loc == nil {
		return i
	}
	k := d.loc[i]
	if k < 0 {
		panic(fmt.Sprintf("method: divergences of set %d asked of a matrix that does not cover it", i))
	}
	return int(k)
}

// At returns the divergence between sets i and j.
func (d Divs) At(i, j int) float64 {
	if i == j {
		return 0
	}
	i, j = d.local(i), d.local(j)
	if (i > j) != d.lower {
		i, j = j, i
	}
	return d.data[i*d.n+j]
}

// Dims returns m, m.
func (d Divs) Dims() (int, int) { return d.m, d.m }

// T returns d: it is symmetric.
func (d Divs) T() mat.Matrix { return d }

// SymmetricDim returns m.
func (d Divs) SymmetricDim() int { return d.m }

// Divergences returns the divergences between all pairs of sets when frame
// f's kernel has bandwidth h[f]: set i's KDE is
//
//	p_i(x) = 1/n_i Σ_{f∈i} N(x; x_f, h_f² I).
//
// With one bandwidth per set this is match.Compare of the sets less the
// pool's centre (the origin of the pool's distances). Each set's log
// density is evaluated at its own frames and at those of every other set
// (N² exponentials in all), from the squared distances of the two sets'
// frames, computed pair of sets by pair of sets (pairDivergences).
func (p *Pool) Divergences(h []float64) (*DivMatrix, error) {
	out, err := p.divergencesOf([][]float64{h})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// divergencesOf returns Divergences(h) for every h of hs, from one pass
// over the pairs of sets: each pair's frame distances are computed once
// for all of them.
func (p *Pool) divergencesOf(hs [][]float64) ([]*DivMatrix, error) {
	return p.divergencesOn(hs, make([][]int, len(hs)))
}

// divergencesOn is divergencesOf with the matrix of hs[k] covering only the
// sets of the ascending list sets[k] (nil: every set): only the pairs
// within it are computed for it.
func (p *Pool) divergencesOn(hs [][]float64, sets [][]int) ([]*DivMatrix, error) {
	m := p.Len()
	out := make([]*DivMatrix, len(hs))
	cov := make([][]bool, len(hs))
	need := make([]bool, m)
	for k := range out {
		out[k] = newDivMatrixOn(m, sets[k])
		cov[k] = make([]bool, m)
		if sets[k] == nil {
			for i := range cov[k] {
				cov[k][i] = true
			}
		}
		for _, i := range sets[k] {
			cov[k][i] = true
		}
		for i, c := range cov[k] {
			need[i] = need[i] || c
		}
	}
	err := p.pairDivergences(hs, cov, func(i, j int) bool { return true }, func(k, i, j int, v match.Divergences) {
		out[k].set(i, j, v)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CrossDivergences returns the squared Hellinger distances and Jeffrey
// divergences (each len(rows)×len(cols)) between the sets rows[a] and
// cols[b] of the pool, with the bandwidths of Divergences: entry (a, b) is
// Divergences(h)'s (rows[a], cols[b]), to the last bit. Only the densities
// these pairs need are evaluated: each set's at its own frames and at
// those of the sets it is paired with. For held-out sets against the
// training sets of a fold that is about half of the N² exponentials of
// all pairs.
func (p *Pool) CrossDivergences(h []float64, rows, cols []int) (h2, j *mat.Dense, err error) {
	h2s, js, err := p.crossDivergencesOf([][]float64{h}, rows, cols)
	if err != nil {
		return nil, nil, err
	}
	return h2s[0], js[0], nil
}

// crossDivergencesOf is CrossDivergences for every h of hs, from one pass
// over the pairs of sets.
func (p *Pool) crossDivergencesOf(hs [][]float64, rows, cols []int) (h2s, js []*mat.Dense, err error) {
	inRows, inCols, err := p.marks(rows, cols)
	if err != nil {
		return nil, nil, err
	}
	m := p.Len()
	rowAt, colAt := make([][]int, m), make([][]int, m) // positions of each set in rows, cols
	for a, r := range rows {
		rowAt[r] = append(rowAt[r], a)
	}
	for b, c := range cols {
		colAt[c] = append(colAt[c], b)
	}
	need := make([]bool, m)
	for i := range need {
		need[i] = inRows[i] || inCols[i]
	}
	h2s, js = make([]*mat.Dense, len(hs)), make([]*mat.Dense, len(hs))
	for k := range hs {
		h2s[k], js[k] = mat.NewDense(len(rows), len(cols), nil), mat.NewDense(len(rows), len(cols), nil)
	}
	pair := func(i, j int) bool { return inRows[i] && inCols[j] || inCols[i] && inRows[j] }
	cov := make([][]bool, len(hs))
	for k := range cov {
		cov[k] = need
	}
	err = p.pairDivergences(hs, cov, pair, func(k, i, j int, v match.Divergences) {
		for _, a := range rowAt[i] {
			for _, b := range colAt[j] {
				h2s[k].Set(a, b, v.Hellinger2)
				js[k].Set(a, b, v.Jeffrey)
			}
		}
		for _, a := range rowAt[j] {
			for _, b := range colAt[i] {
				h2s[k].Set(a, b, v.Hellinger2)
				js[k].Set(a, b, v.Jeffrey)
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return h2s, js, nil
}

// coveredSets checks pairDivergences' arguments: every h of hs has one
// valid bandwidth per frame, and the pool holds the frames of every pair
// of sets it computes (Pool.holds). It returns which sets some k covers.
func (p *Pool) coveredSets(hs [][]float64, cov [][]bool, pair func(i, j int) bool) ([]bool, error) {
	n := p.Frames()
	for _, h := range hs {
		if len(h) != n {
			return nil, fmt.Errorf("%d bandwidths for %d frames", len(h), n)
		}
		if err := p.validBandwidths(h); err != nil {
			return nil, err
		}
	}
	need := make([]bool, p.Len())
	for _, c := range cov {
		for i, v := range c {
			need[i] = need[i] || v
		}
	}
	err := p.holds(func(t, i int) bool {
		if t == i || !pair(min(t, i), max(t, i)) {
			return false
		}
		for k := range hs {
			if cov[k][t] && cov[k][i] {
				return true
			}
		}
		return false
	})
	return need, err
}

// pairDivergences computes, for every bandwidth vector h of hs (len N
// each), the divergences of every pair of sets i < j for which pair(i, j)
// and that hs[k] covers (cov[k][i] and cov[k][j]), and hands each to
// put(k, i, j, v), k the index in hs; put may be called from several
// goroutines, never twice for the same (k, i, j). The frames' distances
// of a pair are computed once for every k that covers it. The densities are those of Divergences: set i's log density
// at frame x is
//
//	log p_i(x) = LogSumExp_{f∈i}(−|x − x_f|²/(2h_f²) − d·log h_f) − (d/2)·log 2π − log n_i
//
// over the squared distances of SqDist. Where both sets of a pair have
// one bandwidth for all their frames (a global or a per-set rule), the
// pair's two densities share their exponentials (match.BlockLogSums, the
// matcher's reduction, with the block's row and column minima, its
// offsets, found once for every such bandwidth: match.BlockMins); with a
// bandwidth per frame each row is summed in the order of the whole
// distance matrix, so that the numbers are those of evaluating it from
// that matrix.
// The working memory is a few floats per frame and bandwidth (the sets'
// densities at their own frames) and, per goroutine, the distances of one
// pair of sets and their frames less the pool's centre (Pool.centre).
func (p *Pool) pairDivergences(hs [][]float64, cov [][]bool, pair func(i, j int) bool, put func(k, i, j int, v match.Divergences)) error {
	need, err := p.coveredSets(hs, cov, pair)
	if err != nil {
		return err
	}
	both := func(k, i, j int) bool { return cov[k][i] && cov[k][j] }
	n, m := p.Frames(), p.Len()
	d := float64(p.dim)
	c := -0.5 * d * math.Log(2*math.Pi)
	inv := make([][]float64, len(hs)) // −1/(2h²)
	w := make([][]float64, len(hs))   // −d·log h
	for k, h := range hs {
		inv[k], w[k] = make([]float64, n), make([]float64, n)
		for f, v := range h {
			inv[k][f] = -0.5 / (v * v)
			w[k][f] = -d * math.Log(v)
		}
	}
	// uniform[k][i]: every frame of set i has one bandwidth under hs[k] (a
	// global or a per-set rule), so that a pair's two densities can share
	// their exponentials (match.BlockLogSums).
	uniform := make([][]bool, len(hs))
	for k, h := range hs {
		uniform[k] = make([]bool, m)
		for i := range m {
			f := h[p.off[i]:p.off[i+1]]
			uniform[k][i] = len(f) > 0 && slices.Max(f) == slices.Min(f)
		}
	}
	norm := make([]float64, m)
	maxN := 0
	for i := range m {
		norm[i] = c - math.Log(float64(p.off[i+1]-p.off[i]))
		maxN = max(maxN, p.off[i+1]-p.off[i])
	}
	p.centredNorms() // before the workers, which share them
	// logSelf[k][x]: log p_i(x) for bandwidths k at the frames x of their
	// own set i.
	logSelf := make([][]float64, len(hs))
	for k := range logSelf {
		logSelf[k] = make([]float64, n)
	}
	// density writes, for every frame x of set t (rows of the n_t×n_i
	// block dist, or its columns when byCol), log p_i(x) into out.
	density := func(out []float64, dist []float64, nt, ni int, byCol bool, lo int, invk, wk []float64, normI float64, buf []float64) {
		buf = buf[:ni]
		for x := range nt {
			for y := range ni {
				var v float64
				if byCol {
					v = dist[y*nt+x]
				} else {
					v = dist[x*ni+y]
				}
				buf[y] = v*invk[lo+y] + wk[lo+y]
			}
			out[x] = match.LogSumExp(buf) + normI
		}
	}
	p.parallel(m, func(i int) {
		if !need[i] {
			return
		}
		lo, hi := p.off[i], p.off[i+1]
		ni := hi - lo
		block := make([]float64, ni*ni)
		buf := make([]float64, ni)
		var c centredSet
		p.centre(i, &c)
		setDist(block, &c, &c, true)
		for k := range hs {
			if cov[k][i] {
				density(logSelf[k][lo:hi], block, ni, ni, false, lo, inv[k], w[k], norm[i], buf)
			}
		}
	})
	type scratch struct {
		block, buf, a, b, mins []float64  // mins: the row and column minima of block (match.BlockMins)
		ci, cj                 centredSet // the two sets' frames, centred
	}
	work := make([]scratch, par.Workers(p.Workers))
	for i := range work {
		work[i] = scratch{block: make([]float64, maxN*maxN), buf: make([]float64, maxN), a: make([]float64, maxN), b: make([]float64, maxN), mins: make([]float64, 2*maxN)}
	}
	par.For(m, p.Workers, func(wi, i int) {
		if !need[i] {
			return
		}
		s := &work[wi]
		li, hi := p.off[i], p.off[i+1]
		ni := hi - li
		centred := false // s.ci holds set i
		for j := i + 1; j < m; j++ {
			if !need[j] || !pair(i, j) {
				continue
			}
			any := false
			for k := range hs {
				any = any || both(k, i, j)
			}
			if !any {
				continue
			}
			lj, hj := p.off[j], p.off[j+1]
			nj := hj - lj
			if !centred {
				p.centre(i, &s.ci)
				centred = true
			}
			p.centre(j, &s.cj)
			block := s.block[:ni*nj]
			setDist(block, &s.ci, &s.cj, false)
			rowMin, colMin := s.mins[:ni], s.mins[ni:ni+nj]
			haveMins := false
			for k := range hs {
				if !both(k, i, j) {
					continue
				}
				// log p_j at the frames of i (rows), log p_i at those of j
				// (columns).
				if uniform[k][i] && uniform[k][j] {
					a, b := s.a[:ni], s.b[:nj]
					if !haveMins {
						match.BlockMins(block, rowMin, colMin)
						haveMins = true
					}
					match.BlockLogSums(block, inv[k][lj], inv[k][li], rowMin, colMin, a, b)
					for x := range a {
						a[x] += w[k][lj] + norm[j]
					}
					for y := range b {
						b[y] += w[k][li] + norm[i]
					}
				} else {
					density(s.a[:ni], block, ni, nj, false, lj, inv[k], w[k], norm[j], s.buf)
					density(s.b[:nj], block, nj, ni, true, li, inv[k], w[k], norm[i], s.buf)
				}
				put(k, i, j, match.Symmetric(logSelf[k][li:hi], s.a[:ni], s.b[:nj], logSelf[k][lj:hj]))
			}
		}
	})
	return nil
}

// validBandwidths reports a bandwidth of h (one per frame of the pool)
// that is not a finite number > 0, naming its set (setName) and its frame
// in the set.
func (p *Pool) validBandwidths(h []float64) error {
	for f, v := range h {
		if !(v > 0) || !finite.Is(v) {
			s, _ := slices.BinarySearch(p.off, f+1)
			s--
			return fmt.Errorf("set %s frame %d: %w (got %v)", p.setName(s), f-p.off[s], match.ErrBandwidth, v)
		}
	}
	return nil
}
