package model

import "gonum.org/v1/gonum/mat"

// The fits that make the fixtures of these tests (goldenModel, hgModel,
// setKernelModel, sumModel) are package deploy's, which imports this
// package: fits_test.go, in package model_test, hands them over with
// SetFits before the tests run.
var (
	fitKFDA      func(m *Model, kernel string, width float64, widthScale string, reg float64, dim, workers int) (*mat.SymDense, error)
	fitSetKernel func(m *Model, kernel string, p int, lambda, reg float64, dim, workers int) (*mat.SymDense, error)
	fitTerms     func(m *Model, terms []Term, reg float64, dim, workers int) (*mat.SymDense, error)
)

// SetFits sets the fits of the fixtures: deploy.FitKFDA,
// deploy.FitSetKernel and deploy.FitTerms.
func SetFits(
	kfda func(m *Model, kernel string, width float64, widthScale string, reg float64, dim, workers int) (*mat.SymDense, error),
	setKernel func(m *Model, kernel string, p int, lambda, reg float64, dim, workers int) (*mat.SymDense, error),
	terms func(m *Model, terms []Term, reg float64, dim, workers int) (*mat.SymDense, error),
) {
	fitKFDA, fitSetKernel, fitTerms = kfda, setKernel, terms
}
