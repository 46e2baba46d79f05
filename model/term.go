package model

import (
	"fmt"
	"math"

	"setmatch/match"
)

// Kernel kinds of a kFDA model: set kernels on the divergences between
// KDEs (match.KernelHG, match.KernelHL, match.KernelJ), on the sets
// themselves (KernelGDA, KernelCDL in setkernel.go), and their sum.
const (
	KernelHG = "hg" // exp(−s·H²), Gaussian on the squared Hellinger distance
	KernelHL = "hl" // exp(−s·H), Laplace on the Hellinger distance
	KernelJ  = "j"  // exp(−s·J), Gaussian on the Jeffrey divergence
	// KernelSum adds the kernels of Discriminant.Terms, each times its weight.
	KernelSum = "sum"
)

// Term is one kernel between two sets. On divergences (KernelHG, KernelHL,
// KernelJ) it is kernel(max(δ, 0), Width/Scale), δ the divergence of the
// batch's KDE and a gallery set's (with the model's bandwidths, of √H² for
// hl). On the sets (KernelGDA, KernelCDL) it compares the projected frames:
// P is GDA's subspace dimension and Lambda CDL's regulariser λ, in the
// units of the projected frames' covariance; Width and Scale are then 1
// and WidthScale "raw". Weight is the term's weight in a sum, 0 for the
// kernel of a single-kernel Discriminant. A Term names a kernel as a model stores
// it; the engine's fit of one (method.FittedTerm) holds the whole fitted
// method, which deploy turns into a Term.
type Term struct {
	Kernel     string  // KernelHG, KernelHL, KernelJ, KernelGDA or KernelCDL (KernelSum: see Discriminant)
	Width      float64 // s as chosen, > 0
	Scale      float64 // the kernel's width is Width/Scale; > 0
	WidthScale string  // how Scale was set: "raw" (1) or "median" (median divergence between gallery sets, of √H² for hl)
	P          int
	Lambda     float64
	Weight     float64
}

// Describe names the kernel and its parameters, e.g. "hg, width
// 1/median = 0.0123", "gda (projection kernel of 5-dimensional set
// subspaces)", "cdl (log-Euclidean kernel of set covariances + λI, λ =
// 0.01)". Every description of a kFDA kernel (train, inspect, enroll)
// comes from here.
func (t Term) Describe() string {
	switch t.Kernel {
	case KernelGDA:
		return fmt.Sprintf("gda (projection kernel of %d-dimensional set subspaces)", t.P)
	case KernelCDL:
		return fmt.Sprintf("cdl (log-Euclidean kernel of set covariances + λI, λ = %.4g)", t.Lambda)
	}
	if t.WidthScale == "median" {
		return fmt.Sprintf("%s, width %g/median = %.4g", t.Kernel, t.Width, t.Width/t.Scale)
	}
	return fmt.Sprintf("%s, width %g", t.Kernel, t.Width)
}

// OnDivergences reports whether t is a kernel on KDE divergences.
func (t Term) OnDivergences() bool {
	return t.Kernel == KernelHG || t.Kernel == KernelHL || t.Kernel == KernelJ
}

// Measure returns the divergence a term on divergences is built on
// (Hellinger for the other kernels, which use none).
func (t Term) Measure() match.Measure {
	if t.Kernel == KernelJ {
		return match.Jeffrey
	}
	return match.Hellinger
}

// KernelFunc returns a term on divergences as a function of the
// divergence: match.KernelHG, match.KernelHL or match.KernelJ of
// max(δ, 0) at width Width/Scale, as kfda.KernelMatrix computes it.
func (t Term) KernelFunc() func(div float64) float64 {
	f := t.Shape()
	s := t.Width / t.Scale
	return func(div float64) float64 { return f(math.Max(div, 0), s) }
}

// Shape returns the kernel function of a term on divergences, of the
// divergence and the width: match.KernelHG, match.KernelHL or
// match.KernelJ (match.KernelHG for a set kernel, which has none).
func (t Term) Shape() func(div, s float64) float64 {
	switch t.Kernel {
	case KernelHL:
		return match.KernelHL
	case KernelJ:
		return match.KernelJ
	}
	return match.KernelHG
}

// Validate checks t's kind and parameters (not its weight) for a model
// whose divergence is div.
func (t Term) Validate(div match.Measure) error {
	switch t.Kernel {
	case KernelHG, KernelHL, KernelJ:
		if t.P != 0 || t.Lambda != 0 {
			return fmt.Errorf("kernel %s has no subspace dimension or covariance regulariser (p %d, lambda %v)", t.Kernel, t.P, t.Lambda)
		}
	case KernelGDA:
		if t.P < 1 || t.Lambda != 0 {
			return fmt.Errorf("kernel gda: subspace dimension p = %d (want ≥ 1), lambda %v (want none)", t.P, t.Lambda)
		}
	case KernelCDL:
		if !(t.Lambda > 0) || math.IsInf(t.Lambda, 0) || t.P != 0 {
			return fmt.Errorf("kernel cdl: regulariser lambda = %v (want a finite number > 0), p %d (want none)", t.Lambda, t.P)
		}
	default:
		return fmt.Errorf("unknown kernel %q (want hg, hl, j, gda or cdl)", t.Kernel)
	}
	if t.OnDivergences() && t.Measure() != div {
		return fmt.Errorf("kernel %s is built on %s but the model's divergence is %s", t.Kernel, t.Measure(), div)
	}
	for what, v := range map[string]float64{"width": t.Width, "scale": t.Scale} {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%s is %v, want a finite number > 0", what, v)
		}
	}
	if !(t.Width/t.Scale > 0) || math.IsInf(t.Width/t.Scale, 0) {
		return fmt.Errorf("width/scale = %v/%v is not a finite number > 0", t.Width, t.Scale)
	}
	if t.WidthScale != "raw" && t.WidthScale != "median" {
		return fmt.Errorf("width scale %q (want raw or median)", t.WidthScale)
	}
	return nil
}
