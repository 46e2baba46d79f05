package pca

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/internal/scaleadvice"
	"setmatch/internal/stats"
)

// TooLarge returns, for the n×d set x whose subspace or covariance could
// not be computed (setkernel's, or Leading's principal directions), the
// error that says its values are too large for one, and what to do, where
// they are: the squares a scatter or covariance sums
// (n·d of the largest square bounds its trace) overflow a float64, as
// they do for features around 1e153 and above. Else it returns nil.
func TooLarge(x *mat.Dense) error {
	n, d := x.Dims()
	big := stats.MaxAbs(x)
	if finite.Is(float64(n*d) * big * big) {
		return nil
	}
	return fmt.Errorf("its values, up to %.3g, are too large for a covariance or subspace: their squares, summed over its frames, overflow a float64 (%.3g at most); %s", big, math.MaxFloat64, scaleadvice.Down(big))
}
