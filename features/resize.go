package features

import (
	"fmt"
	"image"
)

// plane is a grey image held exactly: pixel i has grey level at(i)/den on
// the 0..255 scale (intensity at(i)/(255·den) in [0, 1]). Resizing keeps
// integer numerators and one common denominator, so resized images are
// bit-for-bit identical on every architecture and comparisons between
// pixels (LBP) are exact.
//
// An image as decoded (den 1) keeps its 8-bit grey levels in pix, one byte
// per pixel, usually the decoded image's own pixels; only a resized plane,
// whose numerators need more bits, holds them as int64 in num, and it has
// the size of the feature's @WxH, not of the frame.
type plane struct {
	w, h int
	pix  []uint8 // grey levels when den is 1 and not resized, else nil
	num  []int64 // numerators of a resized plane, else nil
	den  int64
}

// planeOf returns g as a plane, sharing g's pixels when its rows are
// contiguous.
func planeOf(g *image.Gray) plane {
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	p := plane{w: w, h: h, den: 1}
	if g.Stride == w {
		off := g.PixOffset(b.Min.X, b.Min.Y)
		p.pix = g.Pix[off : off+w*h : off+w*h]
		return p
	}
	p.pix = make([]uint8, w*h)
	for y := 0; y < h; y++ {
		copy(p.pix[y*w:(y+1)*w], g.Pix[g.PixOffset(b.Min.X, b.Min.Y+y):])
	}
	return p
}

// at returns the numerator of pixel i.
func (p plane) at(i int) int64 {
	if p.pix != nil {
		return int64(p.pix[i])
	}
	return p.num[i]
}

// len returns the number of pixels.
func (p plane) len() int { return p.w * p.h }

// intensity returns pixel i in [0, 1].
func (p plane) intensity(i int) float64 {
	return float64(p.at(i)) / (255 * float64(p.den))
}

// level8 returns pixel i rounded to the nearest 8-bit grey level (halves up).
func (p plane) level8(i int) uint8 {
	return uint8((2*p.at(i) + p.den) / (2 * p.den))
}

// MaxResize bounds the width and height a feature may resize to.
const MaxResize = 4096

// tap is one source pixel's integer weight in an output pixel.
type tap struct {
	src int
	w   int64
}

// axisTaps returns, for each of the dst output positions along one axis of
// length src, its source taps; the weights of every output sum to den.
//
//   - dst < src (shrinking): area average. Output j covers the source
//     interval [j·src/dst, (j+1)·src/dst); each source pixel is weighted by
//     its overlap with it. In units of 1/dst pixel all overlaps are
//     integers and den = src.
//   - dst > src (enlarging): linear interpolation with pixel centres
//     aligned: output j samples source position (j+½)·src/dst − ½, clamped
//     to [0, src−1]. Weights are multiples of 1/(2·dst), den = 2·dst.
//   - dst = src: identity, den = 1.
func axisTaps(src, dst int) ([][]tap, int64) {
	taps := make([][]tap, dst)
	switch {
	case dst == src:
		for j := range taps {
			taps[j] = []tap{{j, 1}}
		}
		return taps, 1
	case dst < src:
		S, D := int64(src), int64(dst)
		for j := range taps {
			lo, hi := int64(j)*S, int64(j+1)*S // in units of 1/D source pixel
			for i := lo / D; i*D < hi; i++ {
				ov := min((i+1)*D, hi) - max(i*D, lo)
				if ov > 0 {
					taps[j] = append(taps[j], tap{int(i), ov})
				}
			}
		}
		return taps, S
	default:
		S, D := int64(src), int64(dst)
		for j := range taps {
			num := int64(2*j+1)*S - D // source position × 2D
			switch {
			case num <= 0:
				taps[j] = []tap{{0, 2 * D}}
			case num >= (S-1)*2*D:
				taps[j] = []tap{{src - 1, 2 * D}}
			default:
				i0 := num / (2 * D)
				f := num - i0*2*D
				taps[j] = []tap{{int(i0), 2*D - f}}
				if f > 0 {
					taps[j] = append(taps[j], tap{int(i0) + 1, f})
				}
			}
		}
		return taps, 2 * D
	}
}

// resize resizes p to w×h separably (rows, then columns) with axisTaps.
func (p plane) resize(w, h int) plane {
	if w == p.w && h == p.h {
		return p
	}
	tx, dx := axisTaps(p.w, w)
	ty, dy := axisTaps(p.h, h)
	tmp := make([]int64, w*p.h)
	if p.pix != nil {
		resizeRows(tmp, p.pix, p.w, p.h, tx)
	} else {
		resizeRows(tmp, p.num, p.w, p.h, tx)
	}
	out := plane{w: w, h: h, num: make([]int64, w*h), den: p.den * dx * dy}
	for i, ts := range ty {
		for x := 0; x < w; x++ {
			var s int64
			for _, t := range ts {
				s += t.w * tmp[t.src*w+x]
			}
			out.num[i*w+x] = s
		}
	}
	return out
}

// resizeRows applies the taps tx to each of the h rows of width sw of src
// and writes the len(tx)-wide results to tmp.
func resizeRows[T uint8 | int64](tmp []int64, src []T, sw, h int, tx [][]tap) {
	w := len(tx)
	for y := 0; y < h; y++ {
		row := src[y*sw : (y+1)*sw]
		for j, ts := range tx {
			var s int64
			for _, t := range ts {
				s += t.w * int64(row[t.src])
			}
			tmp[y*w+j] = s
		}
	}
}

// Resize returns img resized to w×h: area average along an axis that
// shrinks, linear interpolation (centres aligned, edges clamped) along an
// axis that grows, computed exactly and rounded to the nearest grey level.
// These are the resizing rules of every feature in this package.
func Resize(img *image.Gray, w, h int) (*image.Gray, error) {
	if err := checkSize(w, h); err != nil {
		return nil, err
	}
	if img.Bounds().Empty() {
		return nil, fmt.Errorf("features: cannot resize an empty image")
	}
	p := planeOf(img).resize(w, h)
	pix := make([]uint8, w*h)
	for i := range pix {
		pix[i] = p.level8(i)
	}
	return grayFromPix(pix, w, h), nil
}

func checkSize(w, h int) error {
	if w < 1 || h < 1 || w > MaxResize || h > MaxResize {
		return fmt.Errorf("features: resize to %dx%d: width and height must be between 1 and %d", w, h, MaxResize)
	}
	return nil
}

// prepareChecked is prepare after check has accepted the size the plane
// will have (w×h when w > 0, else img's own).
func prepareChecked(img *image.Gray, w, h int, check func(w, h int) error) (plane, error) {
	pw, ph := img.Bounds().Dx(), img.Bounds().Dy()
	if w > 0 {
		pw, ph = w, h
	}
	if err := check(pw, ph); err != nil {
		return plane{}, err
	}
	return prepare(img, w, h)
}

// prepare converts img to a plane, resized to w×h when w > 0.
func prepare(img *image.Gray, w, h int) (plane, error) {
	if img == nil || img.Bounds().Empty() {
		return plane{}, fmt.Errorf("features: empty image")
	}
	b := img.Bounds()
	if int64(b.Dx())*int64(b.Dy()) > MaxPixels {
		return plane{}, fmt.Errorf("features: image is %dx%d, more than %d pixels", b.Dx(), b.Dy(), MaxPixels)
	}
	p := planeOf(img)
	if w > 0 {
		p = p.resize(w, h)
	}
	return p, nil
}
