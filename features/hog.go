package features

import (
	"fmt"
	"image"
	"math"
	"strings"
)

// HOG constants: 9 unsigned orientation bins of 20°, blocks of 2×2 cells,
// L2-Hys clipping at 0.2.
const (
	HOGBins  = 9
	hogBlock = 2
	hogClip  = 0.2
	hogEps   = 1e-5 // keeps the block norm away from 0; intensities are in [0, 1]
)

// HOG is a histogram-of-oriented-gradients feature in the style of Dalal
// and Triggs:
//
//   - Intensities I in [0, 1] (resized to W×H first when W, H > 0, see
//     Resize). Gradients gx = I(x+1, y) − I(x−1, y), gy = I(x, y+1) −
//     I(x, y−1) at every pixel, with coordinates clamped to the image at the
//     border (edge pixels repeated). y grows downwards.
//   - Magnitude m = √(gx²+gy²); unsigned orientation θ = atan2(gy, gx)
//     folded into [0°, 180°): θ = 0° is a horizontal gradient, i.e. a
//     vertical edge.
//   - 9 orientation bins whose centres are 0°, 20°, …, 160°. Each pixel
//     votes m split linearly between the two nearest centres, wrapping from
//     160° to 180° ≡ 0°: with f = θ/20°, bin ⌊f⌋ mod 9 gets m·(1−(f−⌊f⌋)) and
//     bin (⌊f⌋+1) mod 9 gets m·(f−⌊f⌋). No spatial interpolation.
//   - Cells of Cell×Cell pixels tiled from the top-left corner; the
//     ⌊w/Cell⌋×⌊h/Cell⌋ whole cells are used, leftover pixels on the right
//     and bottom are ignored. At least 2×2 cells are needed.
//   - Blocks of 2×2 cells with a stride of one cell. Each block's 36 values
//     (cells top-left, top-right, bottom-left, bottom-right, 9 bins each)
//     are L2-Hys normalised: v ← v/√(‖v‖²+ε²), clip at 0.2,
//     v ← v/√(‖v‖²+ε²), with ε = 1e-5.
//   - Blocks concatenated row by row: dimension
//     (⌊w/Cell⌋−1)·(⌊h/Cell⌋−1)·36.
type HOG struct {
	Cell int
	W, H int // resize first when > 0
}

// MaxCell bounds the HOG cell size.
const MaxCell = 256

// Name returns the spec of f, e.g. "hog:8" or "hog:8@64x64".
func (f HOG) Name() string {
	return fmt.Sprintf("hog:%d", f.Cell) + sizeSuffix(f.W, f.H)
}

// Dim returns the feature length for an imageW×imageH input.
func (f HOG) Dim(imageW, imageH int) (int, error) {
	w, h := imageW, imageH
	if f.W > 0 {
		w, h = f.W, f.H
	}
	if err := f.check(w, h); err != nil {
		return 0, err
	}
	return hogDim(f.Cell, w, h), nil
}

func (f HOG) check(w, h int) error {
	if f.W != 0 || f.H != 0 {
		if err := checkSize(f.W, f.H); err != nil {
			return err
		}
	}
	if f.Cell < 1 || f.Cell > MaxCell {
		return fmt.Errorf("features: hog cell size %d must be between 1 and %d pixels", f.Cell, MaxCell)
	}
	if w/f.Cell < hogBlock || h/f.Cell < hogBlock {
		n := hogBlock * f.Cell
		// Smaller cells only where some fit the image.
		smaller := ""
		if c := min(w, h) / hogBlock; c >= 1 && c < f.Cell {
			smaller = fmt.Sprintf(", or take smaller cells, e.g. hog:%d", c)
		}
		return fmt.Errorf("features: hog with %dx%d-pixel cells needs images of at least %dx%d pixels, got %dx%d (resize them with e.g. hog:%d@%dx%d%s)",
			f.Cell, f.Cell, n, n, w, h, f.Cell, max(n, 64), max(n, 64), smaller)
	}
	if d := hogDim(f.Cell, w, h); d > MaxDim {
		return f.dimErr(w, h, d)
	}
	return nil
}

// hogDim is the length of a HOG vector of a w×h image with cell-pixel cells.
func hogDim(cell, w, h int) int {
	return (w/cell - 1) * (h/cell - 1) * hogBlock * hogBlock * HOGBins
}

// dimErr says that f on a w×h image gives d > MaxDim features, and
// suggests larger cells or a smaller size that give at most MaxDim.
func (f HOG) dimErr(w, h, d int) error {
	what := f.Name()
	if f.W == 0 {
		what = fmt.Sprintf("%s on a %dx%d image", what, w, h)
	}
	var hints []string
	for c := f.Cell + 1; c <= MaxCell; c++ {
		if w/c >= hogBlock && h/c >= hogBlock && hogDim(c, w, h) <= MaxDim {
			hints = append(hints, fmt.Sprintf("larger cells (e.g. hog:%d%s)", c, sizeSuffix(f.W, f.H)))
			break
		}
	}
	// The most blocks (cells−1 per side) that keep the dimension in bounds.
	bx, by := shrinkGrid(w/f.Cell-1, h/f.Cell-1, MaxDim/(hogBlock*hogBlock*HOGBins))
	hints = append(hints, fmt.Sprintf("a smaller size (e.g. hog:%d@%dx%d)", f.Cell, (bx+1)*f.Cell, (by+1)*f.Cell))
	return dimErr(what, d, "take "+strings.Join(hints, " or "))
}

// Extract returns the HOG descriptor of img.
func (f HOG) Extract(img *image.Gray) ([]float64, error) {
	p, err := prepareChecked(img, f.W, f.H, f.check)
	if err != nil {
		return nil, err
	}
	w, h := p.w, p.h
	cells := hogCells(p, f.Cell)
	ncx, ncy := w/f.Cell, h/f.Cell
	const blockLen = hogBlock * hogBlock * HOGBins
	out := make([]float64, 0, (ncx-1)*(ncy-1)*blockLen)
	for by := 0; by < ncy-1; by++ {
		for bx := 0; bx < ncx-1; bx++ {
			start := len(out)
			for dy := range hogBlock {
				for dx := range hogBlock {
					c := (by+dy)*ncx + bx + dx
					out = append(out, cells[c*HOGBins:(c+1)*HOGBins]...)
				}
			}
			l2hys(out[start:])
		}
	}
	return out, nil
}

// hogCells returns the 9-bin orientation histograms of the ⌊w/cell⌋×⌊h/cell⌋
// cells of p, row by row.
func hogCells(p plane, cell int) []float64 {
	w, h := p.w, p.h
	ncx, ncy := w/cell, h/cell
	hist := make([]float64, ncx*ncy*HOGBins)
	// The intensities of rows y-1, y and y+1, each computed once into one
	// of three row buffers: all of them at once would cost 8 bytes per
	// pixel of the frame.
	var buf [3][]float64
	tag := [3]int{-1, -1, -1}
	row := func(r int) []float64 {
		k := r % 3
		if tag[k] != r {
			if buf[k] == nil {
				buf[k] = make([]float64, w)
			}
			for x := range buf[k] {
				buf[k][x] = p.intensity(r*w + x)
			}
			tag[k] = r
		}
		return buf[k]
	}
	for y := 0; y < ncy*cell; y++ {
		up, cur, down := row(max(y-1, 0)), row(y), row(min(y+1, h-1))
		for x := 0; x < ncx*cell; x++ {
			left, right := max(x-1, 0), min(x+1, w-1)
			gx := cur[right] - cur[left]
			gy := down[x] - up[x]
			m := math.Hypot(gx, gy)
			if m == 0 {
				continue
			}
			b0, b1, frac := hogVote(gx, gy)
			c := ((y/cell)*ncx + x/cell) * HOGBins
			hist[c+b0] += m * (1 - frac)
			hist[c+b1] += m * frac
		}
	}
	return hist
}

// hogVote returns the two orientation bins a gradient (gx, gy) votes for
// and the fraction of its magnitude going to b1 (the rest goes to b0).
func hogVote(gx, gy float64) (b0, b1 int, frac float64) {
	const binWidth = 180.0 / HOGBins
	theta := math.Atan2(gy, gx) * (180 / math.Pi)
	if theta < 0 {
		theta += 180
	}
	if theta >= 180 {
		theta -= 180
	}
	f := theta / binWidth
	k0 := math.Floor(f)
	b0 = int(k0) % HOGBins
	return b0, (b0 + 1) % HOGBins, f - k0
}

// l2hys normalises v in place: L2, clip at 0.2, L2 again.
func l2hys(v []float64) {
	l2 := func() {
		var ss float64
		for _, x := range v {
			ss += x * x
		}
		s := 1 / math.Sqrt(ss+hogEps*hogEps)
		for i := range v {
			v[i] *= s
		}
	}
	l2()
	for i, x := range v {
		if x > hogClip {
			v[i] = hogClip
		}
	}
	l2()
}
