package deploy

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/method"
	"setmatch/model"
)

// fitTerms are the kernels of the fit tests: hg relative to the median
// divergence, gda with p = 2 and cdl with λ = 0.01.
func fitTerms() []model.Term {
	return []model.Term{
		{Kernel: string(method.KernelHG), Width: 0.5, Scale: 1, WidthScale: "median"},
		{Kernel: string(method.KernelGDA), Width: 1, Scale: 1, WidthScale: "raw", P: 2},
		{Kernel: string(method.KernelCDL), Width: 1, Scale: 1, WidthScale: "raw", Lambda: 0.01},
	}
}

// TestFitRefuses: kernels that are not well formed, or a gallery too
// small, are refused, and the model keeps no discriminant.
func TestFitRefuses(t *testing.T) {
	raw, labels, names := ringSets(3, 2, 3, 0.5, 7)
	m := galleryModel(t, raw, labels, names, true)
	for name, terms := range map[string][]model.Term{
		"none":      nil,
		"nested":    {{Kernel: string(method.KernelSum)}, fitTerms()[1]},
		"jeffrey":   {{Kernel: string(method.KernelJ), Width: 1, Scale: 1, WidthScale: "raw"}, fitTerms()[1]},
		"bad gda":   {{Kernel: string(method.KernelGDA), Width: 1, Scale: 1, WidthScale: "raw"}, fitTerms()[2]},
		"too many":  make([]model.Term, model.MaxTerms+1),
		"bad width": {{Kernel: string(method.KernelHG), Width: -1, Scale: 1, WidthScale: "raw"}, fitTerms()[2]},
	} {
		if _, err := FitTerms(m, terms, 1e-2, 0, 1); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := FitKFDA(m, string(method.KernelGDA), 1, "raw", 1e-2, 0, 1); err == nil {
		t.Error("FitKFDA with a set kernel: no error")
	}
	if _, err := FitSetKernel(m, string(method.KernelHG), 0, 0, 1e-2, 0, 1); err == nil {
		t.Error("FitSetKernel with a kernel on divergences: no error")
	}
	one := *m
	one.Sets = m.Sets[:1]
	if _, err := FitTerms(&one, fitTerms(), 1e-2, 0, 1); err == nil {
		t.Error("one gallery set: no error")
	}
	if m.Discriminant != nil {
		t.Error("a refused fit left a discriminant")
	}
}

// TestGalleryKernelOfFit: the kernel GalleryKernel computes with the
// kernels of a fitted model (scales and weights as the fit set them) is
// the training kernel the fit returned, for one kernel and for a sum.
func TestGalleryKernelOfFit(t *testing.T) {
	raw, labels, names := ringSets(3, 3, 3, 0.5, 8)
	for _, terms := range [][]model.Term{fitTerms()[:1], fitTerms()[2:], fitTerms()} {
		m := galleryModel(t, raw, labels, names, true)
		km, err := FitTerms(m, terms, 1e-2, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		got, err := GalleryKernel(m, m.Discriminant.Kernels(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(got, km, 1e-12) {
			t.Errorf("%s: the gallery kernel differs from the fit's", m.Discriminant.Describe())
		}
		if want := m.Selection.Method; len(terms) > 1 && want != "kfda-mix" {
			t.Errorf("a sum's method is %q, want kfda-mix", want)
		}
	}
}
