package features

import "image"

// Equalize, the reference for Hist's equalisation in its tests, returns the histogram-equalised img: level v becomes
// round(255·(c(v) − c_min)/(N − c_min)) with c, c_min and N as for Hist
// (halves rounded up); a constant image becomes all zeros.
func Equalize(img *image.Gray) *image.Gray {
	g := ToGray(img)
	b := g.Bounds()
	var levels [256]int64
	for _, v := range g.Pix {
		levels[v]++
	}
	n := int64(len(g.Pix))
	cdf := cumulative(&levels)
	cmin := minCount(&levels)
	var lut [256]uint8
	if n > cmin {
		for v := range lut {
			if cdf[v] >= cmin {
				lut[v] = uint8((2*255*(cdf[v]-cmin) + (n - cmin)) / (2 * (n - cmin)))
			}
		}
	}
	pix := make([]uint8, len(g.Pix))
	for i, v := range g.Pix {
		pix[i] = lut[v]
	}
	return grayFromPix(pix, b.Dx(), b.Dy())
}
