package match

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
)

// withTiles runs f with the tile sizes of the distance blocks and of
// LogDensity set to the given values.
func withTiles(rows, cols, ldr, ldc int, f func()) {
	r, c, lr, lc := tileRows, tileCols, ldRows, ldCols
	tileRows, tileCols, ldRows, ldCols = rows, cols, ldr, ldc
	defer func() { tileRows, tileCols, ldRows, ldCols = r, c, lr, lc }()
	f()
}

// tiledAgainstWhole computes the divergences of q to the gallery of sets
// and q's log density at the frames of sets[0], once with every block in
// one tile and once with tiles of rows×cols (ldr×ldc in LogDensity); it
// fails t, naming the case name, where the two differ by more than 1e-12
// relative (the divergences: or 1e-15 absolute), and returns the tiled
// divergences.
func tiledAgainstWhole(t *testing.T, name string, sets []*KDE, q *KDE, rows, cols, ldr, ldc int) []Divergences {
	t.Helper()
	compare := func() ([]Divergences, []float64) {
		div := galleryCompare(t, sets, q)
		ld, err := q.LogDensity(sets[0].Samples(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return div, ld
	}
	var whole, tiled []Divergences
	var ldWhole, ldTiled []float64
	withTiles(1<<20, 1<<20, 1<<20, 1<<20, func() { whole, ldWhole = compare() })
	withTiles(rows, cols, ldr, ldc, func() { tiled, ldTiled = compare() })
	for k := range whole {
		if !close(tiled[k].Hellinger2, whole[k].Hellinger2, 1e-12, 1e-15) ||
			!close(tiled[k].Jeffrey, whole[k].Jeffrey, 1e-12, 1e-15) ||
			!close(tiled[k].Bhattacharyya, whole[k].Bhattacharyya, 1e-12, 1e-15) {
			t.Errorf("%s, set %d: tiled %+v, whole %+v", name, k, tiled[k], whole[k])
		}
	}
	for i := range ldWhole {
		if !close(ldTiled[i], ldWhole[i], 1e-12, 0) {
			t.Errorf("%s, log density %d: tiled %v, whole %v", name, i, ldTiled[i], ldWhole[i])
		}
	}
	return tiled
}

// TestTiledEqualsWhole compares a gallery and log densities computed with
// tiny tiles (many tiles per block, partial tiles at every edge) with the
// same computed with every block in one tile: the carried log-sum-exp must
// agree to 1e-12 relative, on both the one-exponential path (equal
// bandwidths) and the two-exponential one, with the kernels of this build
// (AVX2 under GOEXPERIMENT=simd).
func TestTiledEqualsWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, c := range []struct{ m, n, nq, d int }{{6, 30, 37, 5}, {4, 70, 129, 20}, {3, 9, 3, 400}, {5, 40, 64, 2}} {
		// Half the sets share the query's bandwidth (one-exponential path).
		sets := halfAtBandwidth(t, randGallery(t, rng, c.m, c.n, c.d), 0.9)
		// A query with a far-away cluster, so that tiles differ in their
		// offsets by a lot.
		x := testutil.RandSet(rng, c.nq, c.d, 0.5, 1)
		for i := range c.nq / 3 {
			for j := range c.d {
				x.Set(i, j, x.At(i, j)+6)
			}
		}
		q := mustKDE(t, x, 0.9)
		tiledAgainstWhole(t, fmt.Sprintf("%+v", c), sets, q, 3, 8, 5, 7)
	}
}

// TestQueryMemoryLinear checks that the memory a query allocates grows
// linearly with its frames, not with their square: four times the frames
// may cost at most about four times the bytes (plus the fixed tiles).
func TestQueryMemoryLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	g, err := NewGallery(randGallery(t, rng, 4, 50, 8))
	if err != nil {
		t.Fatal(err)
	}
	g.Workers = 2
	alloc := func(nq int) uint64 {
		q := mustKDE(t, testutil.RandSet(rng, nq, 8, 0, 1), 1)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := g.Compare(q, nil); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(2000), alloc(8000)
	const fixed = 16 << 20 // tiles: LogDensity's and one per worker
	if large > 5*small+fixed {
		t.Errorf("a query of 8000 frames allocated %d bytes, one of 2000 frames %d: more than linear growth", large, small)
	}
	if b := g.ScratchBytes(100000); b > 64<<20 {
		t.Errorf("ScratchBytes(100000) = %d, want a fixed tile plus O(n)", b)
	}
}

// smallGalleryQuery draws from rng a gallery of 3 random sets of 20
// frames in 4 features, then the KDE of a query of nq frames.
func smallGalleryQuery(t *testing.T, rng *rand.Rand, nq int) (*Gallery, *KDE) {
	t.Helper()
	g, err := NewGallery(randGallery(t, rng, 3, 20, 4))
	if err != nil {
		t.Fatal(err)
	}
	return g, mustKDE(t, testutil.RandSet(rng, nq, 4, 0, 1), 1)
}

// TestCompareContextCancelled checks that a cancelled query stops with the
// context's error instead of finishing.
func TestCompareContextCancelled(t *testing.T) {
	g, q := smallGalleryQuery(t, rand.New(rand.NewPCG(45, 46)), 50)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.CompareContext(ctx, q, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("CompareContext with a cancelled context: err = %v, want context.Canceled", err)
	}
	if _, err := g.CompareContext(context.Background(), q, nil); err != nil {
		t.Errorf("CompareContext: %v", err)
	}
}

// TestCompareCancelledWhileComparing: a query whose context ends after
// its own density is computed, while the gallery sets are compared,
// fails with the context's error and gives no divergences: a set left
// uncompared must not read as a divergence of 0, the nearest there is.
func TestCompareCancelledWhileComparing(t *testing.T) {
	g, q := smallGalleryQuery(t, rand.New(rand.NewPCG(47, 48)), 10)
	qp, err := prepareQuery(context.Background(), q, g.Workers)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if div, err := g.compare(ctx, qp, -1, nil); !errors.Is(err, context.Canceled) || div != nil {
		t.Errorf("compare with a context ended: %v, %v; want no divergences and context.Canceled", div, err)
	}
}

// TestComparePanicIsAnError: a panic while a worker compares the query
// with a gallery set is the query's error, not a crash of the process
// and not a divergence of 0 for the set.
func TestComparePanicIsAnError(t *testing.T) {
	g, q := smallGalleryQuery(t, rand.New(rand.NewPCG(49, 50)), 10)
	qp, err := prepareQuery(context.Background(), q, g.Workers)
	if err != nil {
		t.Fatal(err)
	}
	qp.self = qp.self[:1:1] // shorter than the query: the sums index past it
	div, err := g.compare(context.Background(), qp, -1, nil)
	if err == nil || !strings.Contains(err.Error(), "internal error") || div != nil {
		t.Errorf("a worker that panics: %v, %v; want no divergences and an internal error", div, err)
	}
}

// TestTiledFarFrames: a gallery set and a query each holding frames near
// one another and frames so far from them (e^−1600 apart) that no tile's
// largest kernel term can be scaled onto another's: with tiles that split
// the near frames from the far ones, every row's and column's log-sum-exp
// carried from tile to tile must keep the larger term as its offset, stay
// finite, and agree with the whole block, in the gallery's divergences
// and in LogDensity.
func TestTiledFarFrames(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	// Blocks of near, far (+40 in each of 2 features: a squared distance
	// of 3200, e^−1600 at bandwidth 1) and near frames.
	frames := func(block int) *mat.Dense {
		x := testutil.RandSet(rng, 3*block, 2, 0, 1)
		for i := block; i < 2*block; i++ {
			x.Set(i, 0, x.At(i, 0)+40)
			x.Set(i, 1, x.At(i, 1)+40)
		}
		return x
	}
	p, q := mustKDE(t, frames(4), 1), mustKDE(t, frames(8), 1)
	g := tiledAgainstWhole(t, "far frames", []*KDE{p}, q, 4, 8, 4, 4)[0]
	for _, v := range []float64{g.Hellinger2, g.Jeffrey, g.Bhattacharyya} {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			t.Errorf("tiled: %+v, want finite divergences", g)
		}
	}
}
