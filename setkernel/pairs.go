package setkernel

import (
	"gonum.org/v1/gonum/mat"

	"setmatch/internal/par"
)

// A kernel matrix of sets needs V_aᵀV_b for every pair of sets a ≤ b, V
// a set's basis (GDA) or covariance eigenvectors (CDL): blocks of the Gram
// matrix of all the sets' columns side by side (R×R, R up to the frames of
// all the sets). It is not held: the blocks are made a tile of sets
// against a tile of sets at a time (one matrix product each) and handed
// on, so the memory is the columns side by side and one tile's product
// per goroutine. The gallery's kernel matrix (Gallery.Matrix) and the
// method engine's kernel matrices of every p or λ of a grid at once
// (package method) are made from them.

// pairTileCols is about how many columns a tile of sets holds.
const pairTileCols = 256

// columns holds the d×c_j matrices of m sets side by side in one d×R
// matrix: set j's are the columns off[j]:off[j+1] (c_j may be 0).
type columns struct {
	d   int
	all *mat.Dense // d×R; nil when R = 0
	off []int
}

// sideBySide returns the d×c_j matrices vs side by side (an empty
// mat.Dense counts as d×0).
func sideBySide(vs []*mat.Dense, d int) columns {
	m := len(vs)
	c := columns{d: d, off: make([]int, m+1)}
	for j, v := range vs {
		r := 0
		if !v.IsEmpty() {
			_, r = v.Dims()
		}
		c.off[j+1] = c.off[j] + r
	}
	if c.off[m] == 0 {
		return c
	}
	c.all = mat.NewDense(d, c.off[m], nil)
	for j, v := range vs {
		if c.off[j+1] > c.off[j] {
			c.block(j).Copy(v)
		}
	}
	return c
}

// block returns set j's d×c_j columns (c_j ≥ 1), a view.
func (c columns) block(j int) *mat.Dense {
	return c.all.Slice(0, c.d, c.off[j], c.off[j+1]).(*mat.Dense)
}

// GramPairs calls visit(s, t, V_sᵀV_t) for every pair of sets s ≤ t of
// the matrices vs (d×c_j each; c_j may be 0, an empty mat.Dense, and then
// visit is not called for its pairs), from one product per pair of tiles
// of consecutive sets of about 256 columns, on workers goroutines (≤ 0:
// GOMAXPROCS). The entries are those of one product of all columns side by
// side, to the last bit (gonum's products sum each entry in the same order
// whatever the shape). visit may be called from several goroutines at
// once, for distinct pairs; g is valid during the call only.
func GramPairs(vs []*mat.Dense, d, workers int, visit func(s, t int, g *mat.Dense)) {
	sideBySide(vs, d).pairs(workers, visit)
}

// pairs is GramPairs on the columns side by side.
func (c columns) pairs(workers int, visit func(s, t int, g *mat.Dense)) {
	m := len(c.off) - 1
	off := c.off
	if off[m] == 0 {
		return
	}
	// Tiles of consecutive sets of about pairTileCols columns.
	var tiles []int // first set of each tile, then m
	for i := 0; i < m; {
		tiles = append(tiles, i)
		j := i + 1
		for j < m && off[j+1]-off[i] <= pairTileCols {
			j++
		}
		i = j
	}
	tiles = append(tiles, m)
	type job struct{ a, b int }
	var jobs []job
	for a := 0; a+1 < len(tiles); a++ {
		for b := a; b+1 < len(tiles); b++ {
			if off[tiles[a+1]] > off[tiles[a]] && off[tiles[b+1]] > off[tiles[b]] {
				jobs = append(jobs, job{a, b})
			}
		}
	}
	par.For(len(jobs), workers, func(_, j int) {
		ta, tb := jobs[j].a, jobs[j].b
		a0, a1, b0, b1 := tiles[ta], tiles[ta+1], tiles[tb], tiles[tb+1]
		var g mat.Dense
		g.Mul(c.all.Slice(0, c.d, off[a0], off[a1]).T(), c.all.Slice(0, c.d, off[b0], off[b1]))
		for s := a0; s < a1; s++ {
			for t := max(b0, s); t < b1; t++ {
				ra, rb := off[s]-off[a0], off[t]-off[b0]
				ca, cb := off[s+1]-off[s], off[t+1]-off[t]
				if ca == 0 || cb == 0 {
					continue
				}
				visit(s, t, g.Slice(ra, ra+ca, rb, rb+cb).(*mat.Dense))
			}
		}
	})
}
