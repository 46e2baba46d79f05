package setkernel

import (
	"gonum.org/v1/gonum/mat"

	"setmatch/internal/matmul"
	"setmatch/internal/par"
)

// A kernel matrix of sets needs V_aᵀV_b for every pair of sets a ≤ b, V
// a set's basis (GDA) or covariance eigenvectors (CDL): blocks of the Gram
// matrix of all the sets' columns side by side (R×R, R up to the frames of
// all the sets). It is not held: the blocks are made a set against a chunk
// of the sets from it on at a time (one matrix product each, so that no
// block below the diagonal is made) and handed on, so the memory is the
// columns side by side and one product per goroutine, of a set's columns
// against a chunk's (about pairChunkCols, or one set's where a set has
// more). The gallery's kernel matrix (Gallery.Matrix) and the
// method engine's kernel matrices of every p or λ of a grid at once
// (package method) are made from them.

// pairChunkCols is about how many columns a chunk of sets holds.
const pairChunkCols = 2048

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

// against returns vᵀ·[V_lo … V_hi−1], the Gram blocks of the d×r columns
// v against those of the sets lo to hi − 1 side by side (R_lo..hi ≥ 1).
// It is gonum's product (matmul.TMul's AVX2 kernels, to the same bits,
// where v is a *mat.Dense and the build has them).
func (c columns) against(v mat.Matrix, lo, hi int) *mat.Dense {
	var g mat.Dense
	cols := c.all.Slice(0, c.d, c.off[lo], c.off[hi]).(*mat.Dense)
	if vd, ok := v.(*mat.Dense); ok {
		matmul.TMul(&g, vd, cols, 1)
	} else {
		g.Mul(v.T(), cols)
	}
	return &g
}

// of returns set j's r×c_j block of g = c.against(v, lo, hi), a view.
func (c columns) of(g *mat.Dense, lo, j int) *mat.Dense {
	r, _ := g.Dims()
	return g.Slice(0, r, c.off[j]-c.off[lo], c.off[j+1]-c.off[lo]).(*mat.Dense)
}

// GramPairs calls visit(s, t, V_sᵀV_t) for every pair of sets s ≤ t of
// the matrices vs (d×c_j each; c_j may be 0, an empty mat.Dense, and then
// visit is not called for its pairs), from one product per set and chunk
// of the sets from it on of about 2048 columns, on workers goroutines
// (≤ 0: GOMAXPROCS). The entries are those of one product of all columns
// side by side, to the last bit (gonum's products sum each entry in the
// same order whatever the shape). visit may be called from several
// goroutines at once, for distinct pairs; g is valid during the call only.
func GramPairs(vs []*mat.Dense, d, workers int, visit func(s, t int, g *mat.Dense)) {
	sideBySide(vs, d).pairs(pairChunkCols, workers, visit)
}

// pairs is GramPairs on the columns side by side, in chunks of about
// chunkCols columns.
func (c columns) pairs(chunkCols, workers int, visit func(s, t int, g *mat.Dense)) {
	m := len(c.off) - 1
	off := c.off
	if off[m] == 0 {
		return
	}
	// Chunks of consecutive sets of about chunkCols columns (a set
	// of more columns is a chunk alone).
	var chunks []int // first set of each chunk, then m
	for i := 0; i < m; {
		chunks = append(chunks, i)
		j := i + 1
		for j < m && off[j+1]-off[i] <= chunkCols {
			j++
		}
		i = j
	}
	chunks = append(chunks, m)
	// A job: set s against the sets lo ≤ t < hi, s ≤ lo, of a chunk.
	type job struct{ s, lo, hi int }
	var jobs []job
	for s := range m {
		if off[s+1] == off[s] {
			continue
		}
		for k := 0; k+1 < len(chunks); k++ {
			lo, hi := max(chunks[k], s), chunks[k+1]
			if lo < hi && off[hi] > off[lo] {
				jobs = append(jobs, job{s, lo, hi})
			}
		}
	}
	par.For(len(jobs), workers, func(_, j int) {
		jb := jobs[j]
		g := c.against(c.block(jb.s), jb.lo, jb.hi)
		for t := jb.lo; t < jb.hi; t++ {
			if off[t+1] > off[t] {
				visit(jb.s, t, c.of(g, jb.lo, t))
			}
		}
	})
}
