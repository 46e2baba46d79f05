package eval

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

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
	if !(base > 0) {
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

// DivMatrix holds the symmetric divergences between all sets of a pool,
// both in one m×m array: the squared Hellinger distances above its
// diagonal, the Jeffrey divergences below it (half the memory of two
// symmetric matrices: the pools of many short sets keep many of these).
type DivMatrix struct {
	H2 Divs // m×m squared Hellinger distances (Eq. 10)
	J  Divs // m×m Jeffrey divergences (Eq. 11)
}

// newDivMatrix returns an m×m DivMatrix of zeros.
func newDivMatrix(m int) *DivMatrix {
	data := make([]float64, m*m)
	return &DivMatrix{H2: Divs{m: m, data: data}, J: Divs{m: m, data: data, lower: true}}
}

// set stores the divergences of sets i < j.
func (d *DivMatrix) set(i, j int, v match.Divergences) {
	d.H2.data[i*d.H2.m+j] = v.Hellinger2
	d.J.data[j*d.J.m+i] = v.Jeffrey
}

// Of returns the matrix of measure m.
func (d *DivMatrix) Of(m match.Measure) Divs {
	if m == match.Jeffrey {
		return d.J
	}
	return d.H2
}

// Divs is one of the two symmetric matrices of a DivMatrix, 0 on the
// diagonal; it is a mat.Symmetric.
type Divs struct {
	m     int
	data  []float64 // m×m, shared with the other measure
	lower bool      // the entries below the diagonal (J), else above (H²)
}

// At returns the divergence between sets i and j.
func (d Divs) At(i, j int) float64 {
	if i == j {
		return 0
	}
	if (i > j) != d.lower {
		i, j = j, i
	}
	return d.data[i*d.m+j]
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
// With one bandwidth per set this is exactly match.Compare. Each set's log
// density is evaluated once at every frame of the pool (N² exponentials in
// all, from the cached squared distances); the pairwise work is then the
// combination of those vectors only.
func (p *Pool) Divergences(h []float64) (*DivMatrix, error) {
	m := p.Len()
	all := make([]bool, m)
	for i := range all {
		all[i] = true
	}
	logp, err := p.logDensities(h, all, all)
	if err != nil {
		return nil, err
	}
	dm := newDivMatrix(m)
	p.parallel(m, func(i int) {
		for j := i + 1; j < m; j++ {
			dm.set(i, j, p.pair(logp, i, j))
		}
	})
	return dm, nil
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
	inRows, inCols, err := p.marks(rows, cols)
	if err != nil {
		return nil, nil, err
	}
	logp, err := p.logDensities(h, inRows, inCols)
	if err != nil {
		return nil, nil, err
	}
	h2, j = mat.NewDense(len(rows), len(cols), nil), mat.NewDense(len(rows), len(cols), nil)
	p.parallel(len(rows), func(a int) {
		for b, c := range cols {
			if rows[a] == c {
				continue // a set against itself: 0
			}
			v := p.pair(logp, rows[a], c)
			h2.Set(a, b, v.Hellinger2)
			j.Set(a, b, v.Jeffrey)
		}
	})
	return h2, j, nil
}

// pair returns the divergences of sets i and j from their log densities
// (logDensities) at each other's frames and their own.
func (p *Pool) pair(logp [][]float64, i, j int) match.Divergences {
	li, hi := p.off[i], p.off[i+1]
	lj, hj := p.off[j], p.off[j+1]
	return match.Symmetric(logp[i][li:hi], logp[j][li:hi], logp[i][lj:hj], logp[j][lj:hj])
}

// logDensities returns logp[i][x] = log p_i(x) (see Divergences) for every
// set i of the pool that is in rows or cols, at its own frames x and at the
// frames of the sets it is paired with: cols for a set in rows, rows for a
// set in cols. The other entries are not computed (0), and logp[i] is nil
// for a set in neither.
func (p *Pool) logDensities(h []float64, rows, cols []bool) ([][]float64, error) {
	n := p.Frames()
	if len(h) != n {
		return nil, fmt.Errorf("%d bandwidths for %d frames", len(h), n)
	}
	for f, v := range h {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("frame %d: %w (got %v)", f, match.ErrBandwidth, v)
		}
	}
	need := func(i, t int) bool {
		return (rows[i] || cols[i]) && (t == i || rows[i] && cols[t] || cols[i] && rows[t])
	}
	if err := p.holds(func(t, i int) bool { return need(i, t) }); err != nil {
		return nil, err
	}
	dist := p.dists()
	m := p.Len()
	d := float64(p.dim)
	logp := make([][]float64, m)
	inv := make([]float64, n) // −1/(2h²)
	w := make([]float64, n)   // −d·log h
	for f, v := range h {
		inv[f] = -0.5 / (v * v)
		w[f] = -d * math.Log(v)
	}
	c := -0.5 * d * math.Log(2*math.Pi)
	p.parallel(m, func(i int) {
		if !rows[i] && !cols[i] {
			return
		}
		lo, hi := p.off[i], p.off[i+1]
		norm := c - math.Log(float64(hi-lo))
		out := make([]float64, n)
		buf := make([]float64, hi-lo)
		for t := range m {
			if !need(i, t) {
				continue
			}
			for x := p.off[t]; x < p.off[t+1]; x++ {
				row := dist(t, x, i)
				for k, v := range row {
					buf[k] = v*inv[lo+k] + w[lo+k]
				}
				out[x] = match.LogSumExp(buf) + norm
			}
		}
		logp[i] = out
	})
	return logp, nil
}
