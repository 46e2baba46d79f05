package method

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/stats"
	"setmatch/internal/testutil"
	"setmatch/match"
)

// TestCrossDivergencesEqualAllPairs checks that the divergences of some
// sets against others are those of all pairs, to the last bit, for
// disjoint rows and columns (a fold), overlapping ones and a set against
// itself, with one bandwidth per frame.
func TestCrossDivergencesEqualAllPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sets := make([]*mat.Dense, 7)
	for i := range sets {
		sets[i] = testutil.RandSet(rng, 5+i, 3, float64(i%3), 1)
	}
	p, err := NewPool(sets, 2)
	if err != nil {
		t.Fatal(err)
	}
	h := make([]float64, p.Frames())
	for f := range h {
		h[f] = 0.5 + rng.Float64()
	}
	all, err := p.Divergences(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ rows, cols []int }{
		{[]int{1, 4}, []int{0, 2, 3, 5, 6}},
		{[]int{6, 0, 3}, []int{3, 1}},
		{[]int{2}, []int{2, 5}},
	} {
		h2, j, err := p.CrossDivergences(h, c.rows, c.cols)
		if err != nil {
			t.Fatal(err)
		}
		for a, r := range c.rows {
			for b, q := range c.cols {
				if h2.At(a, b) != all.H2.At(r, q) || j.At(a, b) != all.J.At(r, q) {
					t.Errorf("rows %v cols %v: (%d, %d) = %v, %v; all pairs %v, %v", c.rows, c.cols, r, q, h2.At(a, b), j.At(a, b), all.H2.At(r, q), all.J.At(r, q))
				}
			}
		}
	}
	if _, _, err := p.CrossDivergences(h, []int{7}, []int{0}); err == nil {
		t.Error("a set outside the pool gave no error")
	}
	if _, _, err := p.CrossDivergences(h[1:], []int{1}, []int{0}); err == nil {
		t.Error("too few bandwidths gave no error")
	}
}

// gemmSqDist is the squared distances as SqDist computed them through
// gonum's Dgemm before they had a kernel of their own: Gram matrix rows in
// blocks of 256 frames, |a|² + |b|² − 2a·b clamped at 0, then symmetrised.
func gemmSqDist(sets []*mat.Dense) *mat.Dense {
	var all mat.Dense
	for _, s := range sets {
		if all.IsEmpty() {
			all.CloneFrom(s)
			continue
		}
		var next mat.Dense
		next.Stack(&all, s)
		all = next
	}
	n, d := all.Dims()
	g := mat.NewDense(n, n, nil)
	for lo := 0; lo < n; lo += 256 {
		hi := min(lo+256, n)
		g.Slice(lo, hi, 0, n).(*mat.Dense).Mul(all.Slice(lo, hi, 0, d), all.T())
	}
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
	for i := range n {
		for j := i + 1; j < n; j++ {
			v := 0.5 * (g.At(i, j) + g.At(j, i))
			g.Set(i, j, v)
			g.Set(j, i, v)
		}
	}
	return g
}

// TestSqDistEqualsGemm checks that the tiled squared distances are those
// that gonum's Dgemm gives of the frames less their mean frame, to the
// last bit, with fewer and more features than a block of Dgemm's (64) and
// frame counts that are not multiples of a tile.
func TestSqDistEqualsGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, d := range []int{3, 64, 150} {
		sets := make([]*mat.Dense, 9)
		for i := range sets {
			sets[i] = testutil.RandSet(rng, 17+11*i, d, float64(i%4), 1+0.1*float64(i))
		}
		p, err := NewPool(sets, 2)
		if err != nil {
			t.Fatal(err)
		}
		mean := stats.MedianOfMeans(sets...)
		centred := make([]*mat.Dense, len(sets))
		for i, s := range sets {
			centred[i] = mat.DenseCopyOf(s)
			stats.SubtractFrame(centred[i], mean)
		}
		got, want := p.SqDist(), gemmSqDist(centred)
		n := p.Frames()
		bad := 0
		for i := range n {
			for j := range n {
				if got.At(i, j) != want.At(i, j) {
					if bad++; bad <= 3 {
						t.Errorf("d=%d: (%d, %d) = %v, Dgemm %v", d, i, j, got.At(i, j), want.At(i, j))
					}
				}
			}
		}
		if bad > 0 {
			t.Errorf("d=%d: %d of %d entries differ", d, bad, n*n)
		}
		// The distances of one set's frames, or of two sets', as the
		// divergences and bandwidths compute them (setDist, in tiles):
		// the same numbers, also past a tile's 64 frames.
		for i := range sets {
			for _, j := range []int{i, (i + 1) % len(sets)} {
				var ci, cj centredSet
				p.centre(i, &ci)
				p.centre(j, &cj)
				ni, nj := len(ci.rows), len(cj.rows)
				block := make([]float64, ni*nj)
				setDist(block, &ci, &cj, i == j)
				bad := 0
				for x := range ni {
					for y := range nj {
						if block[x*nj+y] != got.At(p.off[i]+x, p.off[j]+y) {
							bad++
						}
					}
				}
				if bad > 0 {
					t.Errorf("d=%d: sets %d and %d: %d of %d distances differ from SqDist's", d, i, j, bad, ni*nj)
				}
			}
		}
	}
}

// TestCrossPoolEqualsAllPairs checks that a pool made by NewCrossPool,
// which holds the frame distances of the pairs it was made for only, gives
// the bandwidths and cross divergences of a whole pool to the last bit,
// and an error, not wrong numbers, for a pair it does not hold.
func TestCrossPoolEqualsAllPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, d := range []int{4, 100} {
		sets := make([]*mat.Dense, 8)
		for i := range sets {
			sets[i] = testutil.RandSet(rng, 20+13*i, d, float64(i%3), 1)
		}
		whole, err := NewPool(sets, 2)
		if err != nil {
			t.Fatal(err)
		}
		rows, cols := []int{1, 5, 6}, []int{0, 2, 3, 4, 7}
		cross, err := NewCrossPool(sets, 2, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		for _, bw := range []Bandwidth{{Mode: Global, Scale: 1}, {Mode: PerSet, Scale: 0.5}} {
			hw, err := whole.FrameBandwidths(bw, cols)
			if err != nil {
				t.Fatal(err)
			}
			hc, err := cross.FrameBandwidths(bw, cols)
			if err != nil {
				t.Fatal(err)
			}
			for f := range hw {
				if hw[f] != hc[f] {
					t.Fatalf("d=%d %v: frame %d bandwidth %v, whole pool %v", d, bw, f, hc[f], hw[f])
				}
			}
			for _, c := range []struct{ rows, cols []int }{{rows, cols}, {[]int{5}, []int{7, 0}}} {
				h2w, jw, err := whole.CrossDivergences(hw, c.rows, c.cols)
				if err != nil {
					t.Fatal(err)
				}
				h2c, jc, err := cross.CrossDivergences(hc, c.rows, c.cols)
				if err != nil {
					t.Fatal(err)
				}
				if !mat.Equal(h2w, h2c) || !mat.Equal(jw, jc) {
					t.Errorf("d=%d %v rows %v cols %v: cross pool\n%v\nwhole pool\n%v", d, bw, c.rows, c.cols, mat.Formatted(h2c), mat.Formatted(h2w))
				}
			}
			if _, _, err := cross.CrossDivergences(hc, []int{0}, []int{2}); err == nil {
				t.Errorf("d=%d: a pair the cross pool does not hold (training against training) gave no error", d)
			}
		}
	}
	if _, err := NewCrossPool([]*mat.Dense{testutil.RandSet(rng, 3, 2, 0, 1)}, 1, []int{0}, []int{1}); err == nil {
		t.Error("a set outside the pool gave no error")
	}
}

// refDivergences is Divergences as it was computed from the whole N×N
// matrix of frame distances (SqDist), every set's log density at every
// frame of the pool: the reference of the pair-by-pair computation.
func refDivergences(p *Pool, h []float64) *DivMatrix {
	d2 := p.SqDist()
	n, m := p.Frames(), p.Len()
	d := float64(p.dim)
	c := -0.5 * d * math.Log(2*math.Pi)
	logp := make([][]float64, m)
	for i := range m {
		lo, hi := p.off[i], p.off[i+1]
		norm := c - math.Log(float64(hi-lo))
		logp[i] = make([]float64, n)
		buf := make([]float64, hi-lo)
		for x := range n {
			row := d2.RawRowView(x)[lo:hi]
			for k, v := range row {
				buf[k] = v*(-0.5/(h[lo+k]*h[lo+k])) + -d*math.Log(h[lo+k])
			}
			logp[i][x] = match.LogSumExp(buf) + norm
		}
	}
	dm := newDivMatrixOn(m, nil)
	for i := range m {
		for j := i + 1; j < m; j++ {
			li, hi := p.off[i], p.off[i+1]
			lj, hj := p.off[j], p.off[j+1]
			dm.set(i, j, match.Symmetric(logp[i][li:hi], logp[j][li:hi], logp[i][lj:hj], logp[j][lj:hj]))
		}
	}
	return dm
}

// TestDivergencesEqualWholeMatrix checks that the divergences computed
// pair of sets by pair of sets, for several bandwidths in one pass, are
// those computed from the whole matrix of frame distances: to the last
// bit with one bandwidth per frame, and within rounding with a global one,
// whose two densities of a pair share their exponentials
// (match.BlockLogSums) where the reference offsets each row by its own
// largest term.
func TestDivergencesEqualWholeMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	sets := make([]*mat.Dense, 9)
	for i := range sets {
		sets[i] = testutil.RandSet(rng, 4+3*i, 70, float64(i%3), 1+0.1*float64(i))
	}
	p, err := NewPool(sets, 2)
	if err != nil {
		t.Fatal(err)
	}
	perFrame := make([]float64, p.Frames())
	for f := range perFrame {
		perFrame[f] = 2 + rng.Float64()
	}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7, 8}
	global, err := p.FrameBandwidths(Bandwidth{Mode: Global, Scale: 1}, all)
	if err != nil {
		t.Fatal(err)
	}
	hs := [][]float64{perFrame, global}
	got, err := p.divergencesOf(hs)
	if err != nil {
		t.Fatal(err)
	}
	for k, h := range hs {
		want := refDivergences(p, h)
		for i := range sets {
			for j := range sets {
				tol := 0.0
				if k == 1 {
					tol = 1e-12
				}
				if !within(got[k].H2.At(i, j), want.H2.At(i, j), tol) || !within(got[k].J.At(i, j), want.J.At(i, j), tol) {
					t.Fatalf("bandwidths %d, sets %d, %d: %v, %v; from the whole matrix %v, %v", k, i, j, got[k].H2.At(i, j), got[k].J.At(i, j), want.H2.At(i, j), want.J.At(i, j))
				}
			}
		}
	}
}

// TestDivergencesOfEachAlone checks that the divergences of several
// bandwidths computed in one pass, which find each pair's row and column
// minima of its frame distances once for all of them (match.BlockMins),
// are those of each bandwidth alone, to the last bit: global ones (one
// exponential an entry where the shared offset is safe, two where a small
// bandwidth makes it unsafe) and one per set.
func TestDivergencesOfEachAlone(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	sets := make([]*mat.Dense, 7)
	for i := range sets {
		sets[i] = testutil.RandSet(rng, 3+2*i, 6, float64(i%3), 1+0.2*float64(i))
	}
	p, err := NewPool(sets, 2)
	if err != nil {
		t.Fatal(err)
	}
	all := []int{0, 1, 2, 3, 4, 5, 6}
	var hs [][]float64
	for _, b := range []Bandwidth{{Mode: Global, Scale: 1}, {Mode: Global, Scale: 0.01}, {Mode: PerSet, Scale: 1}, {Mode: Global, Scale: 4}} {
		h, err := p.FrameBandwidths(b, all)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	got, err := p.divergencesOf(hs)
	if err != nil {
		t.Fatal(err)
	}
	for k, h := range hs {
		want, err := p.Divergences(h)
		if err != nil {
			t.Fatal(err)
		}
		for i := range sets {
			for j := range sets {
				if !within(got[k].H2.At(i, j), want.H2.At(i, j), 0) || !within(got[k].J.At(i, j), want.J.At(i, j), 0) {
					t.Fatalf("bandwidths %d, sets %d, %d: %v, %v in one pass, %v, %v alone", k, i, j, got[k].H2.At(i, j), got[k].J.At(i, j), want.H2.At(i, j), want.J.At(i, j))
				}
			}
		}
	}
}

// within reports whether a and b differ by at most tol relative to the
// larger of them (tol 0: equal).
func within(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*max(math.Abs(a), math.Abs(b))
}
