//go:build !(goexperiment.simd && amd64)

package matmul

// Without SIMD support gonum does all the work; these stubs are never
// called.
const useSIMD = false

func mulT(dst []float64, ldd int, x []float64, ldx int, groups [][4][]float64, n, d, D, runLen int) {
	panic("matmul: no AVX2 kernels in this build")
}

func tmul(dst []float64, ldd int, b []float64, ldb int, x []float64, ldx int, n, d, cols, upper int) {
	panic("matmul: no AVX2 kernels in this build")
}

func mul(dst []float64, ldd int, x []float64, ldx int, w []float64, ldw int, n, d, D int) {
	panic("matmul: no AVX2 kernels in this build")
}
