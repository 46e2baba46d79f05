package model

import (
	"gonum.org/v1/gonum/mat"

	"setmatch/setkernel"
)

// Kernels of a kFDA model on the sets themselves rather than on KDE
// divergences: the baselines' set kernels (package setkernel), computed on
// the projected frames (setmatch train deploys them in the full space:
// W = I and a zero mean, so that GDA's uncentred subspaces are those it
// was chosen with).
const (
	KernelGDA = "gda" // ‖AᵀB‖²_F of the sets' top-P right singular vectors
	KernelCDL = "cdl" // tr(log(C_a+λI) log(C_b+λI)) of the sets' covariances
)

// IsSetKernel reports whether kind is a kernel on the sets (KernelGDA,
// KernelCDL) rather than on their divergences.
func IsSetKernel(kind string) bool { return kind == KernelGDA || kind == KernelCDL }

// Gallery returns the gallery form of the set kernel t (KernelGDA with
// its P, KernelCDL with its Lambda) of the n_j×d sets, which gives the
// kernel of a batch against every set (setkernel.Gallery).
func (t Term) Gallery(sets []*mat.Dense, workers int) (*setkernel.Gallery, error) {
	if t.Kernel == KernelGDA {
		return setkernel.NewGDAGallery(t.P, sets, workers)
	}
	return setkernel.NewCDLGallery(t.Lambda, sets, workers)
}
