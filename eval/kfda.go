package eval

import (
	"gonum.org/v1/gonum/mat"

	"setmatch/kfda"
)

// KFDA is a fitted kernel Fisher discriminant (package kfda holds the
// math; the deployed model's matcher uses the same code).
type KFDA = kfda.KFDA

// ErrKFDA reports a kernel Fisher discriminant that cannot be fitted.
var ErrKFDA = kfda.ErrKFDA

// FitKFDA fits kFDA on the m×m training kernel k with labels in
// [0, classes): kfda.Fit.
func FitKFDA(k mat.Symmetric, labels []int, classes int, reg float64, dim int) (*KFDA, error) {
	return kfda.Fit(k, labels, classes, reg, dim)
}
