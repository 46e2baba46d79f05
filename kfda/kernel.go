package kfda

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/stats"
)

// KernelMatrix returns the m×m kernel kernel(max(δ_ij, 0), s/scale) of the
// m×m divergence matrix d, for one of the set kernels match.KernelHG,
// match.KernelHL or match.KernelJ.
func KernelMatrix(d mat.Symmetric, s, scale float64, kernel func(div, s float64) float64) *mat.SymDense {
	m := d.SymmetricDim()
	k := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			k.SetSym(i, j, kernel(math.Max(d.At(i, j), 0), s/scale))
		}
	}
	return k
}

// MedianOffDiag returns the median of max(δ_ij, 0) (its square root when
// sqrt is set) over the distinct pairs i < j of the sets idx (indices
// into d) of the m×m divergence matrix d; 0 when there is no pair. It is the scale of a
// kernel width given relative to the data ("s/median").
func MedianOffDiag(d mat.Symmetric, idx []int, sqrt bool) float64 {
	var v []float64
	for a, i := range idx {
		for _, j := range idx[a+1:] {
			x := math.Max(d.At(i, j), 0)
			if sqrt {
				x = math.Sqrt(x)
			}
			v = append(v, x)
		}
	}
	return stats.Median(v)
}

// KernelDistance returns the distance a kernel induces between two sets,
// √(k(a,a) + k(b,b) − 2k(a,b)), from their kernels with themselves (kaa,
// kbb) and with each other (kab); rounding below 0 counts as 0.
func KernelDistance(kaa, kbb, kab float64) float64 {
	return math.Sqrt(math.Max(0, kaa+kbb-2*kab))
}

// KernelDistances returns the m×m distances KernelDistance gives between
// the sets of the m×m kernel matrix k.
func KernelDistances(k mat.Symmetric) *mat.SymDense {
	m := k.SymmetricDim()
	d := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i + 1; j < m; j++ {
			d.SetSym(i, j, KernelDistance(k.At(i, i), k.At(j, j), k.At(i, j)))
		}
	}
	return d
}
