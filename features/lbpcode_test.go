package features

import "image"

// UniformLBPBin returns the histogram bin (0..58) of an 8-bit LBP code.
func UniformLBPBin(code uint8) int { return int(uniformBin[code]) }

// LBPCode, the reference for LBP in its tests, returns the LBP(8,1) code of the pixel at (x, y) of img, which
// must not lie on the border: bit p (p = 0..7) is 1 when neighbour p is at
// least as bright as the centre. Neighbours are the 8 adjacent pixels
// (square neighbourhood, no interpolation) in the order east, north-east,
// north, north-west, west, south-west, south, south-east (y downwards).
func LBPCode(img *image.Gray, x, y int) uint8 {
	c := img.GrayAt(x, y).Y
	var code uint8
	for p, o := range lbpOffsets {
		if img.GrayAt(x+o[0], y+o[1]).Y >= c {
			code |= 1 << p
		}
	}
	return code
}
