package model

import (
	"fmt"
	"math"

	"setmatch/match"
	"setmatch/method"
)

// Term is one kernel between two sets. On divergences (method.KernelHG,
// method.KernelHL, method.KernelJ) it is kernel(max(δ, 0), Width/Scale), δ the divergence of the
// batch's KDE and a gallery set's (with the model's bandwidths, of √H² for
// hl). On the sets (method.KernelGDA, method.KernelCDL) it compares the projected frames:
// P is GDA's subspace dimension and Lambda CDL's regulariser λ, in the
// units of the projected frames' covariance; Width and Scale are then 1
// and WidthScale method.WidthRaw. Weight is the term's weight in a sum, 0 for the
// kernel of a single-kernel Discriminant. A Term names a kernel as a model stores
// it; the engine's fit of one (method.FittedTerm) holds the whole fitted
// method, which deploy turns into a Term.
type Term struct {
	Kernel     string  // a method.Kernel: KernelHG, KernelHL, KernelJ, KernelGDA or KernelCDL (KernelSum: see Discriminant)
	Width      float64 // s as chosen, > 0
	Scale      float64 // the kernel's width is Width/Scale; > 0
	WidthScale string  // a method.WidthScale, how Scale was set: WidthRaw (1) or WidthMedian (median divergence between gallery sets, of √H² for hl)
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
	switch t.Kind() {
	case method.KernelGDA:
		return fmt.Sprintf("gda (projection kernel of %d-dimensional set subspaces)", t.P)
	case method.KernelCDL:
		return fmt.Sprintf("cdl (log-Euclidean kernel of set covariances + λI, λ = %.4g)", t.Lambda)
	}
	if t.WidthScale == string(method.WidthMedian) {
		return fmt.Sprintf("%s, width %g/median = %.4g", t.Kernel, t.Width, t.Width/t.Scale)
	}
	return fmt.Sprintf("%s, width %g", t.Kernel, t.Width)
}

// Kind returns t's kernel as the method.Kernel it names.
func (t Term) Kind() method.Kernel { return method.Kernel(t.Kernel) }

// OnDivergences reports whether t is a kernel on KDE divergences.
func (t Term) OnDivergences() bool { return t.Kind().OnDivergences() }

// Measure returns the divergence a term on divergences is built on
// (Kernel.Measure: Hellinger for the other kernels, which use none).
func (t Term) Measure() match.Measure { return t.Kind().Measure() }

// KernelFunc returns a term on divergences as a function of the
// divergence: match.KernelHG, match.KernelHL or match.KernelJ of
// max(δ, 0) at width Width/Scale, as kfda.KernelMatrix computes it.
func (t Term) KernelFunc() func(div float64) float64 {
	f := t.Shape()
	s := t.Width / t.Scale
	return func(div float64) float64 { return f(math.Max(div, 0), s) }
}

// Shape returns the kernel function of a term on divergences, of the
// divergence and the width (Kernel.Func: match.KernelHG, match.KernelHL
// or match.KernelJ; match.KernelHG for a set kernel, which has none).
func (t Term) Shape() func(div, s float64) float64 { return t.Kind().Func() }

// Validate checks t's kind and parameters (not its weight) for a model
// whose divergence is div.
func (t Term) Validate(div match.Measure) error {
	switch t.Kind() {
	case method.KernelHG, method.KernelHL, method.KernelJ:
		if t.P != 0 || t.Lambda != 0 {
			return fmt.Errorf("kernel %s has no subspace dimension or covariance regulariser (p %d, lambda %v)", t.Kernel, t.P, t.Lambda)
		}
	case method.KernelGDA:
		if t.P < 1 || t.Lambda != 0 {
			return fmt.Errorf("kernel gda: subspace dimension p = %d (want ≥ 1), lambda %v (want none)", t.P, t.Lambda)
		}
	case method.KernelCDL:
		if !(t.Lambda > 0) || math.IsInf(t.Lambda, 0) || t.P != 0 {
			return fmt.Errorf("kernel cdl: regulariser lambda = %v (want a finite number > 0), p %d (want none)", t.Lambda, t.P)
		}
	default:
		return fmt.Errorf("unknown kernel %q (want hg, hl, j, gda or cdl)", t.Kernel)
	}
	if t.OnDivergences() && t.Measure() != div {
		return fmt.Errorf("kernel %s is built on %s but the model's divergence is %s", t.Kernel, t.Measure(), div)
	}
	for _, f := range []struct {
		what string
		v    float64
	}{{"width", t.Width}, {"scale", t.Scale}} { // in order, not a map's
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s is %v, want a finite number > 0", f.what, f.v)
		}
	}
	if !(t.Width/t.Scale > 0) || math.IsInf(t.Width/t.Scale, 0) {
		return fmt.Errorf("width/scale = %v/%v is not a finite number > 0", t.Width, t.Scale)
	}
	if ws := method.WidthScale(t.WidthScale); ws != method.WidthRaw && ws != method.WidthMedian {
		return fmt.Errorf("width scale %q (want raw or median)", t.WidthScale)
	}
	return nil
}
