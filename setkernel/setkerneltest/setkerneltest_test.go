package setkerneltest

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestLogSPDByHand(t *testing.T) {
	a := mat.NewSymDense(2, []float64{2, 0, 0, 5})
	l, err := LogSPD(a)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(l.At(0, 0)-math.Log(2)) > 1e-12 || math.Abs(l.At(1, 1)-math.Log(5)) > 1e-12 || math.Abs(l.At(0, 1)) > 1e-12 {
		t.Errorf("log diag(2,5) = %v", mat.Formatted(l))
	}
	// Rotated: log(R D Rᵀ) = R log(D) Rᵀ.
	c, s := math.Cos(0.3), math.Sin(0.3)
	r := mat.NewDense(2, 2, []float64{c, -s, s, c})
	var rd, rdr mat.Dense
	rd.Mul(r, mat.NewDiagDense(2, []float64{2, 5}))
	rdr.Mul(&rd, r.T())
	sym := mat.NewSymDense(2, []float64{rdr.At(0, 0), rdr.At(0, 1), rdr.At(0, 1), rdr.At(1, 1)})
	l2, _ := LogSPD(sym)
	var w, w2 mat.Dense
	w.Mul(r, mat.NewDiagDense(2, []float64{math.Log(2), math.Log(5)}))
	w2.Mul(&w, r.T())
	if !mat.EqualApprox(l2, &w2, 1e-12) {
		t.Errorf("log of rotated matrix %v, want %v", mat.Formatted(l2), mat.Formatted(&w2))
	}
	if _, err := LogSPD(mat.NewSymDense(2, []float64{1, 0, 0, -1})); err == nil {
		t.Error("indefinite matrix accepted")
	}
}
