//go:build !(goexperiment.simd && amd64)

package match

// Without SIMD support the portable kernels in pair.go do all the work; these
// stubs are never called.
const useSIMD = false

func sqDistsSIMD(d2 []float64, w int, rowMin, colMin []float64, p *KDE, i0 int, q *query, j0 int) {}

func expSumsSharedSIMD(d2 []float64, stride int, s, g float64, rowSum, colSum []float64) {}

func expSumsSIMD(d2 []float64, stride int, sRow, sCol float64, rowMin, colMin, rowSum, colSum []float64) {
}

func sumExpBelowSIMD(a []float64, mx float64) float64 { return 0 }
