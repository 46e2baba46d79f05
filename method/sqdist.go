package method

import (
	"gonum.org/v1/gonum/floats"

	"setmatch/internal/par"
)

// gemmBlock is the length of the blocks of features over which a dot
// product of two frames is accumulated, in order: the block of gonum's
// parallel Dgemm, through which these products were once computed, so
// that the distances are those of that computation to the last bit.
const gemmBlock = 64

// tile is the number of frames per side of the square tiles in which the
// squared distances are computed: two tiles of 64 frames of gemmBlock
// features stay in the cache while their products are formed.
const tile = 64

// dot returns a·b accumulated over blocks of gemmBlock features.
func dot(a, b []float64) float64 {
	var c float64
	for k := 0; k < len(a); k += gemmBlock {
		e := min(k+gemmBlock, len(a))
		c += floats.Dot(a[k:e], b[k:e])
	}
	return c
}

// norms returns |x|² of every frame x (dot(x, x)), in dst when it has
// room.
func norms(xs [][]float64, dst []float64) []float64 {
	if cap(dst) < len(xs) {
		dst = make([]float64, len(xs))
	}
	dst = dst[:len(xs)]
	for f, x := range xs {
		dst[f] = dot(x, x)
	}
	return dst
}

// sqDistTile writes |x − y|² = |x|² + |y|² − 2x·y, clamped at 0, for every
// frame x of xs and y of ys into out[a·ld + b] (out holds len(xs) rows of
// stride ld). sqx and sqy are the frames' squared norms. With same, xs and
// ys are the same frames and the diagonal is 0. The products are
// accumulated block of features by block of features, as gonum's Dgemm
// does, so each entry is the same whatever the tiling.
func sqDistTile(out []float64, ld int, xs, ys [][]float64, sqx, sqy []float64, same bool) {
	nx, ny := len(xs), len(ys)
	if nx == 0 || ny == 0 {
		return
	}
	d := len(xs[0])
	for a := range nx {
		clear(out[a*ld : a*ld+ny])
	}
	for k := 0; k < d; k += gemmBlock {
		e := min(k+gemmBlock, d)
		for a, x := range xs {
			row := out[a*ld : a*ld+ny]
			xk := x[k:e]
			for b, y := range ys {
				row[b] += floats.Dot(xk, y[k:e])
			}
		}
	}
	for a := range nx {
		row := out[a*ld : a*ld+ny]
		for b := range row {
			v := sqx[a] + sqy[b] - 2*row[b]
			if v < 0 || same && a == b {
				v = 0
			}
			row[b] = v
		}
	}
}

// sqDistBlock writes the squared distances between the frames xs and ys
// into out (len(xs) rows of stride ld), tile by tile; see sqDistTile.
func sqDistBlock(out []float64, ld int, xs, ys [][]float64, sqx, sqy []float64, same bool) {
	for a := 0; a < len(xs); a += tile {
		ea := min(a+tile, len(xs))
		for b := 0; b < len(ys); b += tile {
			eb := min(b+tile, len(ys))
			sqDistTile(out[a*ld+b:], ld, xs[a:ea], ys[b:eb], sqx[a:ea], sqy[b:eb], same && a == b)
		}
	}
}

// sqDistAll returns the n×n squared distances between all frames xs
// (row-major, symmetric to the last bit, 0 on the diagonal), computing the
// tiles on and above the diagonal on workers goroutines and mirroring them.
func sqDistAll(xs [][]float64, workers int) []float64 {
	n := len(xs)
	sq := norms(xs, nil)
	out := make([]float64, n*n)
	nt := (n + tile - 1) / tile
	type job struct{ a, b int }
	jobs := make([]job, 0, nt*(nt+1)/2)
	for a := range nt {
		for b := a; b < nt; b++ {
			jobs = append(jobs, job{a * tile, b * tile})
		}
	}
	par.For(len(jobs), workers, func(_, j int) {
		a, b := jobs[j].a, jobs[j].b
		ea, eb := min(a+tile, n), min(b+tile, n)
		sqDistTile(out[a*n+b:], n, xs[a:ea], xs[b:eb], sq[a:ea], sq[b:eb], a == b)
		if a == b {
			return
		}
		for x := a; x < ea; x++ {
			for y := b; y < eb; y++ {
				out[y*n+x] = out[x*n+y]
			}
		}
	})
	return out
}
