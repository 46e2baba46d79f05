package setkernel

import (
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
)

// TestGramPairsEqualWholeGram: the blocks GramPairs hands on, made a set
// against a chunk of sets at a time, are those of one product of all the
// columns side by side, to the last bit, for every pair s ≤ t once, with
// one chunk and with chunks of a few sets (a set wider than a chunk
// alone), empty matrices (whose pairs are not visited) and a d large
// enough that the products are blocked, serially and in parallel.
func TestGramPairsEqualWholeGram(t *testing.T) {
	testutil.CPUs(t, 8) // several workers on any machine
	rng := rand.New(rand.NewPCG(3, 4))
	const d = 300
	widths := []int{40, 0, 1, 130, 65, 3, 0, 200, 9, 33}
	vs := make([]*mat.Dense, len(widths))
	for j, c := range widths {
		vs[j] = &mat.Dense{}
		if c > 0 {
			vs[j] = testutil.RandSet(rng, d, c, 0, 1)
		}
	}
	cols := sideBySide(vs, d)
	var whole mat.Dense
	whole.Mul(cols.all.T(), cols.all)
	for _, chunk := range []int{pairChunkCols, 100} {
		for _, workers := range []int{1, 3} {
			var mu sync.Mutex
			seen := map[[2]int]int{}
			cols.pairs(chunk, workers, func(s, u int, g *mat.Dense) {
				want := whole.Slice(cols.off[s], cols.off[s+1], cols.off[u], cols.off[u+1])
				if !mat.Equal(g, want) {
					t.Errorf("chunks of %d columns, workers %d, sets %d and %d: the block differs from the whole Gram's", chunk, workers, s, u)
				}
				mu.Lock()
				seen[[2]int{s, u}]++
				mu.Unlock()
			})
			for s := range vs {
				for u := range vs {
					want := 0
					if s <= u && widths[s] > 0 && widths[u] > 0 {
						want = 1
					}
					if got := seen[[2]int{s, u}]; got != want {
						t.Errorf("chunks of %d columns, workers %d: pair (%d, %d) visited %d times, want %d", chunk, workers, s, u, got, want)
					}
				}
			}
		}
	}
	GramPairs([]*mat.Dense{{}, {}}, d, 2, func(s, u int, _ *mat.Dense) {
		t.Errorf("pair (%d, %d) of empty matrices visited", s, u)
	})
}
