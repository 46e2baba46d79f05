package deploy

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/kfda"
	"setmatch/match"
	"setmatch/method"
	"setmatch/model"
)

// FitKFDA fits a kernel Fisher discriminant on the gallery sets of m with
// a kernel on their divergences and makes it m's decision: FitTerms with
// the one term {kernel, width, widthScale} (kernel method.KernelHG,
// method.KernelHL or method.KernelJ; widthScale method.WidthRaw or
// method.WidthMedian, as model.Term holds them). It also sets m.Divergence to the
// kernel's measure. It returns FitTerms' training kernel: s×s for the s
// gallery sets of m.
func FitKFDA(m *model.Model, kernel string, width float64, widthScale string, reg float64, dim, workers int) (*mat.SymDense, error) {
	if !method.Kernel(kernel).OnDivergences() {
		return nil, fmt.Errorf("kfda: unknown kernel %q (want hg, hl or j)", kernel)
	}
	t := model.Term{Kernel: kernel, Width: width, Scale: 1, WidthScale: widthScale}
	old := m.Divergence
	m.Divergence = t.Measure()
	km, err := FitTerms(m, []model.Term{t}, reg, dim, workers)
	if err != nil {
		m.Divergence = old
	}
	return km, err
}

// FitSetKernel is FitKFDA for a set kernel: GDA's projection kernel on
// the gallery sets' top-p subspaces (p ≥ 1, lambda 0) or CDL's
// log-Euclidean kernel on their covariances regularised by lambda (> 0,
// p 0), both of the projected samples (setmatch train deploys them with
// W = I and a zero mean). It returns FitTerms' training kernel: s×s for
// the s gallery sets of m.
func FitSetKernel(m *model.Model, kernel string, p int, lambda, reg float64, dim, workers int) (*mat.SymDense, error) {
	if !method.Kernel(kernel).OnSets() {
		return nil, fmt.Errorf("kfda: %q is not a set kernel (want gda or cdl)", kernel)
	}
	return FitTerms(m, []model.Term{{Kernel: kernel, Width: 1, Scale: 1, WidthScale: string(method.WidthRaw), P: p, Lambda: lambda}}, reg, dim, workers)
}

// FitTerms fits a kernel Fisher discriminant on the gallery sets of m and
// makes it m's decision. The kernel is the one term given, or the sum of
// two or more: each term's m×m kernel between the gallery sets
// (termMatrix: a term on divergences with widthScale method.WidthMedian gets its
// Scale there), weighted by 1 / the mean of its diagonal, so that the
// terms weigh alike whatever their units (the weights given are
// ignored). kfda.Fit with the regulariser reg, restricted to dim latent
// dimensions (≤ 0: C−1). Terms on divergences must use m.Divergence. It
// sets m.Discriminant, and Selection.Method when it is empty ("kfda-"+kernel,
// the set kernel's name or "kfda-mix"), and returns the m×m training
// kernel (for the open-set threshold). workers ≤ 0 means GOMAXPROCS.
func FitTerms(m *model.Model, terms []model.Term, reg float64, dim, workers int) (*mat.SymDense, error) {
	if len(terms) == 0 || len(terms) > model.MaxTerms {
		return nil, fmt.Errorf("kfda: %d kernels (want 1 to %d)", len(terms), model.MaxTerms)
	}
	if len(m.Sets) < 2 {
		return nil, fmt.Errorf("kfda: %d gallery set(s); a kFDA model needs sets of at least 2 classes: enrol another class, or use a nearest-neighbour method (nn-h)", len(m.Sets))
	}
	terms = append([]model.Term(nil), terms...)
	var km *mat.SymDense
	divs := map[match.Measure]*mat.SymDense{}
	for i := range terms {
		t := &terms[i]
		if t.Kind() == method.KernelSum {
			return nil, errors.New("kfda: a sum cannot hold a sum")
		}
		t.Weight = 0 // set below for a sum
		if err := t.Validate(m.Divergence); err != nil {
			return nil, fmt.Errorf("kfda: %w", err)
		}
		k, err := termMatrix(m, t, divs, true, workers)
		if err != nil {
			return nil, fmt.Errorf("kfda: %s kernel: %w", t.Kernel, err)
		}
		if len(terms) == 1 {
			km = k
			break
		}
		var diag float64
		for j := range m.Sets {
			diag += k.At(j, j)
		}
		diag /= float64(len(m.Sets))
		if !(diag > 0) || math.IsInf(diag, 0) {
			return nil, fmt.Errorf("kfda: %s kernel: mean diagonal %v over the gallery sets, want a finite number > 0", t.Kernel, diag)
		}
		t.Weight = 1 / diag
		if km == nil {
			km = mat.NewSymDense(len(m.Sets), nil)
		}
		k.ScaleSym(t.Weight, k)
		km.AddSym(km, k)
	}
	labels, classes := model.ClassIndex(m.Labels())
	f, err := kfda.Fit(km, labels, len(classes), reg, 0)
	if err != nil {
		return nil, err
	}
	top, sum, name := terms[0], []model.Term(nil), method.OfKernel(terms[0].Kind())
	if len(terms) > 1 {
		top, sum, name = model.Term{Kernel: string(method.KernelSum)}, terms, method.KFDAMix
	}
	if _, all := f.Alpha.Dims(); dim <= 0 {
		dim = all
	}
	sol, err := f.Truncate(dim)
	if err != nil {
		return nil, err
	}
	k := &model.Discriminant{Term: top, Terms: sum, OpenSet: model.OpenSetKernel, Reg: reg, Solution: *sol}
	if err := k.Validate(len(m.Sets), len(classes), m.Divergence); err != nil {
		return nil, fmt.Errorf("kfda: %w", err)
	}
	m.Discriminant = k
	if m.Selection.Method == "" {
		m.Selection.Method = name
	}
	return km, nil
}

// GalleryKernel returns the m×m kernel between the gallery sets of m of
// the kernels given, as they are (widths and scales as stored, a sum
// weighted by their weights; one kernel alone counts once): the kernel of
// a fitted model (Discriminant.Kernels) on other sets than those it was fitted on.
func GalleryKernel(m *model.Model, terms []model.Term, workers int) (*mat.SymDense, error) {
	km := mat.NewSymDense(len(m.Sets), nil)
	divs := map[match.Measure]*mat.SymDense{}
	for _, t := range terms {
		k, err := termMatrix(m, &t, divs, false, workers)
		if err != nil {
			return nil, fmt.Errorf("%s kernel: %w", t.Kernel, err)
		}
		w := t.Weight
		if len(terms) == 1 {
			w = 1
		}
		k.ScaleSym(w, k)
		km.AddSym(km, k)
	}
	return km, nil
}

// termMatrix returns the m×m kernel t between the gallery sets of m. For
// a term on divergences it computes (or takes from divs, by measure) the
// divergence matrix (match.DivergenceMatrix, with the sets' bandwidths)
// and, with rescale, sets t.Scale from it: 1, or for method.WidthMedian
// the median divergence between distinct gallery sets (of √H² for hl).
func termMatrix(m *model.Model, t *model.Term, divs map[match.Measure]*mat.SymDense, rescale bool, workers int) (*mat.SymDense, error) {
	if t.Kind().OnSets() {
		g, err := m.TermGallery(*t, workers)
		if err != nil {
			return nil, err
		}
		return g.Matrix(workers), nil
	}
	d := divs[t.Measure()]
	if d == nil {
		var err error
		if d, err = divergencesBy(m, t.Measure(), workers); err != nil {
			return nil, err
		}
		divs[t.Measure()] = d
	}
	if !rescale {
		return kfda.KernelMatrix(d, t.Width, t.Scale, t.Shape()), nil
	}
	t.Scale = 1
	if t.WidthScale == string(method.WidthMedian) {
		all := make([]int, len(m.Sets))
		for i := range all {
			all[i] = i
		}
		t.Scale = kfda.MedianOffDiag(d, all, t.Kind().Root())
		if !(t.Scale > 0) {
			return nil, errors.New("the gallery sets' divergences have median 0: use a raw width")
		}
	}
	return kfda.KernelMatrix(d, t.Width, t.Scale, t.Shape()), nil
}
