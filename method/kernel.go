package method

import "setmatch/match"

// Kernel names a kernel between two sets as the kFDA methods choose it and
// a model file stores it (model.Term.Kernel holds it as a string, the
// file's field): on the divergences between the sets' KDEs (KernelHG,
// KernelHL, KernelJ: match.KernelHG, match.KernelHL, match.KernelJ), on
// the sets themselves (KernelGDA, KernelCDL: package setkernel), or the
// weighted sum of several (KernelSum). The one definition of these names.
type Kernel string

// The kernels.
const (
	KernelHG  Kernel = "hg"  // exp(−s·H²), Gaussian on the squared Hellinger distance
	KernelHL  Kernel = "hl"  // exp(−s·H), Laplace on the Hellinger distance
	KernelJ   Kernel = "j"   // exp(−s·J), Gaussian on the Jeffrey divergence
	KernelGDA Kernel = "gda" // ‖AᵀB‖²_F of the sets' top-P right singular vectors
	KernelCDL Kernel = "cdl" // tr(log(C_a+λI) log(C_b+λI)) of the sets' covariances
	// KernelSum adds the kernels of a model's terms, each times its weight.
	KernelSum Kernel = "sum"
)

// OnDivergences reports whether k is a kernel on KDE divergences
// (KernelHG, KernelHL, KernelJ).
func (k Kernel) OnDivergences() bool {
	return k == KernelHG || k == KernelHL || k == KernelJ
}

// OnSets reports whether k is a kernel on the sets themselves (KernelGDA,
// KernelCDL) rather than on their divergences.
func (k Kernel) OnSets() bool { return k == KernelGDA || k == KernelCDL }

// Measure returns the divergence a kernel on divergences is built on:
// match.Jeffrey for KernelJ, match.Hellinger for KernelHG and KernelHL
// (and for the other kernels, which use none).
func (k Kernel) Measure() match.Measure {
	if k == KernelJ {
		return match.Jeffrey
	}
	return match.Hellinger
}

// Func returns a kernel on divergences as a function of the divergence
// (H² or J) and the width s: match.KernelHG, match.KernelHL or
// match.KernelJ (match.KernelHG for the other kernels, which have none).
func (k Kernel) Func() func(div, s float64) float64 {
	switch k {
	case KernelHL:
		return match.KernelHL
	case KernelJ:
		return match.KernelJ
	}
	return match.KernelHG
}

// Root reports whether k is a kernel on the square root of its
// divergence (KernelHL, on the Hellinger distance H = √H²), whose width
// a median of the root scales (kfda.MedianOffDiag's sqrt).
func (k Kernel) Root() bool { return k == KernelHL }

// WidthScale says how the width of a kernel on divergences is scaled, as
// a grid tries it (Grid.WidthScale) and a model records it
// (model.Term.WidthScale, a string there): the divergence as it is
// (WidthRaw), or over its median between the training sets (WidthMedian);
// a grid may try both (WidthBoth). The one definition of these names.
type WidthScale string

// The width scales.
const (
	WidthRaw    WidthScale = "raw"
	WidthMedian WidthScale = "median"
	WidthBoth   WidthScale = "both" // a grid only: try raw and median
)
