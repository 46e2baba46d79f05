package features

import (
	"fmt"
	"image"
)

// LBPBins is the length of one uniform-LBP histogram: 58 uniform patterns
// and one bin for all others.
const LBPBins = 59

// lbpOffsets lists the 8 neighbours (dx, dy) of a pixel in bit order:
// bit p of the code compares neighbour p with the centre. They start east
// and go anticlockwise as displayed (y grows downwards).
var lbpOffsets = [8][2]int{
	{1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}, {0, 1}, {1, 1},
}

// uniformBin maps each 8-bit LBP code to its histogram bin: the 58 uniform
// codes (at most two 0/1 transitions around the circle) get bins 0..57 in
// increasing order of code value, every other code bin 58.
var uniformBin = func() [256]uint8 {
	var t [256]uint8
	next := uint8(0)
	for c := 0; c < 256; c++ {
		if lbpTransitions(uint8(c)) <= 2 {
			t[c] = next
			next++
		} else {
			t[c] = LBPBins - 1
		}
	}
	return t
}()

// lbpTransitions counts the 0/1 changes between circularly adjacent bits.
func lbpTransitions(c uint8) int {
	r := c>>1 | c<<7 // rotate right by one
	n := 0
	for x := c ^ r; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// LBP is the uniform local-binary-pattern feature: the LBP(8,1) code of
// every interior pixel, i.e. all but the one-pixel border (bit p is 1 when
// neighbour p of lbpOffsets is at least as bright as the centre), is
// mapped to one of 59 uniform bins (uniformBin), and they are histogrammed
// over a GridX×GridY grid of cells. Pixel (x, y) of a w×h image belongs
// to cell (⌊x·GridX/w⌋, ⌊y·GridY/h⌋). Each cell's histogram is divided by the
// number of interior pixels in the cell (so it sums to 1; all zeros for a
// cell without interior pixels), and the cells are concatenated row by row:
// dimension GridX·GridY·59.
//
// When W and H are positive the image is first resized to W×H (see
// Resize; codes compare the exact resized values, without rounding).
type LBP struct {
	GridX, GridY int
	W, H         int // resize first when > 0
}

// Name returns the spec of f, e.g. "lbp:4x4" or "lbp:4x4@64x64".
func (f LBP) Name() string {
	return fmt.Sprintf("lbp:%dx%d", f.GridX, f.GridY) + sizeSuffix(f.W, f.H)
}

// Dim returns GridX·GridY·59, after checking that an imageW×imageH image
// (or the resize target) is usable.
func (f LBP) Dim(imageW, imageH int) (int, error) {
	w, h := imageW, imageH
	if f.W > 0 {
		w, h = f.W, f.H
	}
	if err := f.check(w, h); err != nil {
		return 0, err
	}
	return f.GridX * f.GridY * LBPBins, nil
}

func (f LBP) check(w, h int) error {
	if f.W != 0 || f.H != 0 {
		if err := checkSize(f.W, f.H); err != nil {
			return err
		}
	}
	if err := f.checkGrid(); err != nil {
		return err
	}
	resize := fmt.Sprintf("resize the frames with e.g. lbp:%dx%d@64x64", f.GridX, f.GridY)
	if w < 3 || h < 3 {
		return fmt.Errorf("features: lbp needs images of at least 3x3 pixels, got %dx%d (%s)", w, h, resize)
	}
	if f.GridX > w-2 || f.GridY > h-2 {
		return fmt.Errorf("features: lbp grid %dx%d is finer than the %dx%d interior pixels of a %dx%d image (%s, or take a coarser grid)", f.GridX, f.GridY, w-2, h-2, w, h, resize)
	}
	return nil
}

// checkGrid checks the grid alone: its bounds and the dimension it gives,
// whatever the image size.
func (f LBP) checkGrid() error {
	if f.GridX < 1 || f.GridY < 1 || f.GridX > MaxGrid || f.GridY > MaxGrid {
		return fmt.Errorf("features: lbp grid %dx%d: cells per side must be between 1 and %d", f.GridX, f.GridY, MaxGrid)
	}
	if d := f.GridX * f.GridY * LBPBins; d > MaxDim {
		gx, gy := shrinkGrid(f.GridX, f.GridY, MaxDim/LBPBins)
		return dimErr(f.Name(), d, fmt.Sprintf("take fewer cells (GX×GY at most %d, e.g. lbp:%dx%d%s)", MaxDim/LBPBins, gx, gy, sizeSuffix(f.W, f.H)))
	}
	return nil
}

// MaxGrid bounds the cells per side of LBP grids.
const MaxGrid = 64

// Extract returns the concatenated cell histograms of img.
func (f LBP) Extract(img *image.Gray) ([]float64, error) {
	p, err := prepareChecked(img, f.W, f.H, f.check)
	if err != nil {
		return nil, err
	}
	w, h := p.w, p.h
	out := make([]float64, f.GridX*f.GridY*LBPBins)
	count := make([]int, f.GridX*f.GridY)
	var off [8]int
	for k, o := range lbpOffsets {
		off[k] = o[1]*w + o[0]
	}
	colCell := make([]int, w)
	for x := range colCell {
		colCell[x] = x * f.GridX / w
	}
	if p.pix != nil {
		lbpCount(out, count, p.pix, w, h, f.GridX, f.GridY, &off, colCell)
	} else {
		lbpCount(out, count, p.num, w, h, f.GridX, f.GridY, &off, colCell)
	}
	for cell, n := range count {
		if n > 0 {
			s := 1 / float64(n)
			for k := range LBPBins {
				out[cell*LBPBins+k] *= s
			}
		}
	}
	return out, nil
}

// lbpCount adds the uniform code of every interior pixel of the w×h image
// v to its cell's histogram in out and counts it in count.
func lbpCount[T uint8 | int64](out []float64, count []int, v []T, w, h, gx, gy int, off *[8]int, colCell []int) {
	for y := 1; y < h-1; y++ {
		cy := y * gy / h
		for x := 1; x < w-1; x++ {
			i := y*w + x
			c := v[i]
			var code uint8
			for k, d := range off {
				if v[i+d] >= c {
					code |= 1 << k
				}
			}
			cell := cy*gx + colCell[x]
			out[cell*LBPBins+int(uniformBin[code])]++
			count[cell]++
		}
	}
}

func sizeSuffix(w, h int) string {
	if w <= 0 {
		return ""
	}
	return fmt.Sprintf("@%dx%d", w, h)
}
