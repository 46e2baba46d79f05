package model

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"setmatch/features"
	"setmatch/kfda"
	"setmatch/match"
)

// Selection records which method a model deploys and how it was chosen:
// the method's name as `setmatch eval` reports it ("nn-h", "nn-j",
// "nn-h-dr", "nn-j-dr", "kfda-hg", "kfda-hl", "kfda-j", …), its
// hyper-parameters, and the cross-validated accuracy of it and of every
// candidate that was scored. The zero Selection (models of format 1) means
// nearest neighbour under Divergence, described by Model.MethodName.
type Selection struct {
	Method string
	// Params are the chosen hyper-parameters, e.g. "dim": "20",
	// "width": "0.5/median".
	Params map[string]string
	// CVAccuracy is the fraction in [0, 1] of held-out training sets the
	// chosen method decided right in cross-validation; NaN when the method
	// was given rather than chosen and nothing was cross-validated.
	CVAccuracy float64
	// Candidates is every candidate scored, in the order scored.
	Candidates []Candidate
}

// Candidate is one method scored by cross-validation while choosing.
type Candidate struct {
	Name       string  // method, as Selection.Method
	Params     string  // its parameters, free text
	CVAccuracy float64 // fraction in [0, 1]; NaN if it could not be scored
	Seconds    float64 // time spent scoring it
}

// Kernel kinds of a kFDA model: set kernels on the divergences between
// KDEs (match.KernelHG, match.KernelHL, match.KernelJ).
const (
	KernelHG = "hg" // exp(−s·H²), Gaussian on the squared Hellinger distance
	KernelHL = "hl" // exp(−s·H), Laplace on the Hellinger distance
	KernelJ  = "j"  // exp(−s·J), Gaussian on the Jeffrey divergence
)

// KFDA is a kernel Fisher discriminant solution held by a model. A batch's
// divergences δ_j to the m gallery sets (Model.Sets, in order, with the
// model's bandwidths) give the kernel vector k_j = kernel(max(δ_j, 0),
// Width/Scale) (for a set kernel, KernelGDA or KernelCDL, k_j is the
// kernel of the projected batch and gallery set j); centred with ColMean and AllMean and multiplied by Alpha it
// is the batch's latent point, compared with the gallery's Latent rows in
// Euclidean distance. Model.Threshold is then a latent distance.
type KFDA struct {
	Kernel     string  // KernelHG, KernelHL, KernelJ, KernelGDA or KernelCDL
	Width      float64 // s as chosen, > 0
	Scale      float64 // the kernel's width is Width/Scale; > 0
	WidthScale string  // how Scale was set: "raw" (1) or "median" (median training divergence, of √H² for hl)
	Reg        float64 // regulariser as chosen (relative to tr(S_w)/m)
	Epsilon    float64 // ε added to the within-class scatter
	ColMean    []float64
	AllMean    float64
	Values     []float64  // the r generalised eigenvalues, largest first
	Alpha      *mat.Dense // m×r expansion coefficients
	Latent     *mat.Dense // m×r latent coordinates of the gallery sets
	// The set kernels (IsSetKernel) have no width and no divergence:
	// P is GDA's subspace dimension and Lambda CDL's regulariser λ, in
	// the units of the projected frames' covariance; Width and Scale are
	// then 1 and WidthScale "raw".
	P      int
	Lambda float64
}

// NewKFDA returns the model form of the discriminant f fitted on the
// kernel kernel(δ, width/scale) of the gallery sets (in gallery order),
// restricted to its first r latent dimensions (r ≤ 0: all of them).
func NewKFDA(kernel string, width, scale float64, widthScale string, reg float64, f *kfda.KFDA, r int) (*KFDA, error) {
	if f == nil || f.Alpha == nil {
		return nil, errors.New("kfda: no fitted discriminant")
	}
	if _, rmax := f.Alpha.Dims(); r <= 0 {
		r = rmax
	}
	t, err := f.Truncate(r)
	if err != nil {
		return nil, err
	}
	return &KFDA{
		Kernel: kernel, Width: width, Scale: scale, WidthScale: widthScale,
		Reg: reg, Epsilon: t.Reg, ColMean: t.ColMean, AllMean: t.AllMean,
		Values: t.Values, Alpha: t.Alpha, Latent: t.Train,
	}, nil
}

// Discriminant returns the kfda form of k, for kfda's Transform.
func (k *KFDA) Discriminant() *kfda.KFDA {
	return &kfda.KFDA{Alpha: k.Alpha, Values: k.Values, Reg: k.Epsilon, ColMean: k.ColMean, AllMean: k.AllMean, Train: k.Latent}
}

// Describe names the kernel and its parameters, e.g. "kernel hg, width
// 1/median", "kernel gda, p = 5".
func (k *KFDA) Describe() string {
	switch k.Kernel {
	case KernelGDA:
		return fmt.Sprintf("kernel gda, p = %d", k.P)
	case KernelCDL:
		return fmt.Sprintf("kernel cdl, lambda = %.4g", k.Lambda)
	}
	return fmt.Sprintf("kernel %s, width %g/%s", k.Kernel, k.Width, k.WidthScale)
}

// Dim returns r, the latent dimension.
func (k *KFDA) Dim() int {
	if k == nil || k.Alpha == nil {
		return 0
	}
	_, r := k.Alpha.Dims()
	return r
}

// Measure returns the divergence the kernel is built on (Hellinger for
// the set kernels, which use none).
func (k *KFDA) Measure() match.Measure {
	if k.Kernel == KernelJ {
		return match.Jeffrey
	}
	return match.Hellinger
}

// KernelFunc returns the set kernel of k as a function of the divergence:
// match.KernelHG, match.KernelHL or match.KernelJ of max(δ, 0) at width
// Width/Scale, as kfda.KernelMatrix computes it.
func (k *KFDA) KernelFunc() func(div float64) float64 {
	f := kernelOf(k.Kernel)
	s := k.Width / k.Scale
	return func(div float64) float64 { return f(math.Max(div, 0), s) }
}

func kernelOf(kind string) func(div, s float64) float64 {
	switch kind {
	case KernelHL:
		return match.KernelHL
	case KernelJ:
		return match.KernelJ
	}
	return match.KernelHG
}

// validate checks k against a gallery of m sets with the model's
// divergence.
func (k *KFDA) validate(m, classes int, div match.Measure) error {
	switch k.Kernel {
	case KernelHG, KernelHL, KernelJ:
		if k.P != 0 || k.Lambda != 0 {
			return fmt.Errorf("kernel %s has no subspace dimension or covariance regulariser (p %d, lambda %v)", k.Kernel, k.P, k.Lambda)
		}
	case KernelGDA:
		if k.P < 1 || k.Lambda != 0 {
			return fmt.Errorf("kernel gda: subspace dimension p = %d (want ≥ 1), lambda %v (want none)", k.P, k.Lambda)
		}
	case KernelCDL:
		if !(k.Lambda > 0) || math.IsInf(k.Lambda, 0) || k.P != 0 {
			return fmt.Errorf("kernel cdl: regulariser lambda = %v (want a finite number > 0), p %d (want none)", k.Lambda, k.P)
		}
	default:
		return fmt.Errorf("unknown kernel %q (want hg, hl, j, gda or cdl)", k.Kernel)
	}
	if !IsSetKernel(k.Kernel) && k.Measure() != div {
		return fmt.Errorf("kernel %s is built on %s but the model's divergence is %s", k.Kernel, k.Measure(), div)
	}
	for what, v := range map[string]float64{"width": k.Width, "scale": k.Scale} {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%s is %v, want a finite number > 0", what, v)
		}
	}
	if !(k.Width/k.Scale > 0) || math.IsInf(k.Width/k.Scale, 0) {
		return fmt.Errorf("width/scale = %v/%v is not a finite number > 0", k.Width, k.Scale)
	}
	if k.WidthScale != "raw" && k.WidthScale != "median" {
		return fmt.Errorf("width scale %q (want raw or median)", k.WidthScale)
	}
	for what, v := range map[string]float64{"regulariser": k.Reg, "epsilon": k.Epsilon, "all mean": k.AllMean} {
		if !finite(v) || (what != "all mean" && v < 0) {
			return fmt.Errorf("%s is %v", what, v)
		}
	}
	if k.Alpha == nil || k.Alpha.IsEmpty() || k.Latent == nil || k.Latent.IsEmpty() {
		return errors.New("coefficients or latent coordinates missing")
	}
	am, r := k.Alpha.Dims()
	lm, lr := k.Latent.Dims()
	if am != m || lm != m || lr != r {
		return fmt.Errorf("coefficients are %d×%d and latent coordinates %d×%d, want %d×r for the %d gallery sets", am, r, lm, lr, m, m)
	}
	if r > classes-1 {
		return fmt.Errorf("%d latent dimensions for %d classes (at most %d)", r, classes, classes-1)
	}
	if len(k.ColMean) != m {
		return fmt.Errorf("%d column means for %d gallery sets", len(k.ColMean), m)
	}
	if len(k.Values) != r {
		return fmt.Errorf("%d eigenvalues for %d latent dimensions", len(k.Values), r)
	}
	for i, v := range k.ColMean {
		if !finite(v) {
			return fmt.Errorf("column mean %d is %v", i, v)
		}
	}
	for i, v := range k.Values {
		if !finite(v) {
			return fmt.Errorf("eigenvalue %d is %v", i, v)
		}
	}
	if err := finiteMatrix("coefficients", k.Alpha); err != nil {
		return err
	}
	return finiteMatrix("latent coordinates", k.Latent)
}

// validate checks the selection: valid UTF-8, accuracies in [0, 1] or NaN,
// non-negative finite times.
func (s *Selection) validate() error {
	if !utf8.ValidString(s.Method) {
		return errors.New("method is not valid UTF-8")
	}
	for k, v := range s.Params {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return fmt.Errorf("parameter %q is not valid UTF-8", k)
		}
	}
	if !validAccuracy(s.CVAccuracy) {
		return fmt.Errorf("CV accuracy is %v, want a fraction in [0, 1] (or NaN: not cross-validated)", s.CVAccuracy)
	}
	for i, c := range s.Candidates {
		if !utf8.ValidString(c.Name) || !utf8.ValidString(c.Params) {
			return fmt.Errorf("candidate %d: name or parameters not valid UTF-8", i)
		}
		if !validAccuracy(c.CVAccuracy) {
			return fmt.Errorf("candidate %d (%s): CV accuracy is %v", i, c.Name, c.CVAccuracy)
		}
		if !(c.Seconds >= 0) || math.IsInf(c.Seconds, 0) {
			return fmt.Errorf("candidate %d (%s): time is %v s", i, c.Name, c.Seconds)
		}
	}
	return nil
}

func validAccuracy(v float64) bool { return math.IsNaN(v) || (v >= 0 && v <= 1) }

// validateFeatures checks that the recorded pipeline is fitted and gives
// the model's D features per frame.
func validateFeatures(f *features.Fitted, bigD int) error {
	if _, err := features.NewFitted(f.Pipeline, f.PCA); err != nil {
		return err
	}
	if out, ok := f.OutputDim(); ok && out != bigD {
		return fmt.Errorf("pipeline %s gives %d features per frame, the model takes %d", f.Name(), out, bigD)
	}
	return nil
}

// IsKFDA reports whether the model decides by kernel Fisher discriminant.
func (m *Model) IsKFDA() bool { return m.KFDA != nil }

// MethodName returns the method the model decides by: Selection.Method,
// or for a model that does not record it (format 1), "nn-h" or "nn-j" by
// its divergence, with "-dr" when W reduces the dimension.
func (m *Model) MethodName() string {
	if m.Selection.Method != "" {
		return m.Selection.Method
	}
	name := "nn-h"
	if m.Divergence == match.Jeffrey {
		name = "nn-j"
	}
	if m.Dim() < m.InputDim() {
		name += "-dr"
	}
	return name
}

// validateMethod checks the v2 parts of m: the selection, the pipeline and
// the kFDA solution, and that the method name agrees with the presence of
// a kFDA solution.
func (m *Model) validateMethod() error {
	if err := m.Selection.validate(); err != nil {
		return fmt.Errorf("selection: %w", err)
	}
	isK := strings.HasPrefix(m.Selection.Method, "kfda") || IsSetKernel(m.Selection.Method)
	switch {
	case m.KFDA != nil && m.Selection.Method != "" && !isK:
		return fmt.Errorf("method %q is not a kFDA method but the model holds a kFDA solution", m.Selection.Method)
	case m.KFDA == nil && isK:
		return fmt.Errorf("method %q needs a kFDA solution, the model has none", m.Selection.Method)
	}
	if m.Features != nil {
		if err := validateFeatures(m.Features, m.InputDim()); err != nil {
			return fmt.Errorf("feature pipeline: %w", err)
		}
	}
	if m.KFDA != nil {
		if err := m.KFDA.validate(len(m.Sets), len(m.Classes()), m.Divergence); err != nil {
			return fmt.Errorf("kfda: %w", err)
		}
	}
	return nil
}

// FitKFDA fits a kernel Fisher discriminant on the model's gallery sets
// and makes it the model's decision: the m×m divergences between the
// gallery sets (match.DivergenceMatrix, with the sets' bandwidths, under the
// kernel's measure), the kernel kernel(δ, width/scale) with scale 1
// (widthScale "raw") or the median divergence between distinct gallery sets
// ("median"; of √H² for hl), and kfda.Fit with the regulariser reg,
// restricted to dim latent dimensions (≤ 0: C−1). It sets m.KFDA and
// m.Divergence, and Selection.Method to "kfda-"+kernel when it is empty,
// and returns the m×m training kernel (for learn.KFDAOpenSetThreshold).
// workers ≤ 0 means GOMAXPROCS.
func (m *Model) FitKFDA(kernel string, width float64, widthScale string, reg float64, dim, workers int) (*mat.SymDense, error) {
	k := &KFDA{Kernel: kernel, Width: width, Scale: 1, WidthScale: widthScale}
	switch kernel {
	case KernelHG, KernelHL, KernelJ:
	default:
		return nil, fmt.Errorf("kfda: unknown kernel %q (want hg, hl or j)", kernel)
	}
	if !(width > 0) || math.IsInf(width, 0) {
		return nil, fmt.Errorf("kfda: width %v, want a finite number > 0", width)
	}
	if len(m.Sets) < 2 {
		return nil, fmt.Errorf("kfda: %d gallery sets, need at least 2 classes", len(m.Sets))
	}
	ys := m.samples()
	labels, classes := m.classIDs()
	hs := make([]float64, len(m.Sets))
	all := make([]int, len(m.Sets))
	for i, s := range m.Sets {
		hs[i], all[i] = s.Bandwidth, i
	}
	d, err := match.DivergenceMatrix(ys, hs, k.Measure(), workers)
	if err != nil {
		return nil, fmt.Errorf("kfda: %w", err)
	}
	switch widthScale {
	case "raw":
	case "median":
		k.Scale = kfda.MedianOffDiag(d, all, kernel == KernelHL)
		if !(k.Scale > 0) {
			return nil, errors.New("kfda: the gallery sets' divergences have median 0: use a raw width")
		}
	default:
		return nil, fmt.Errorf("kfda: width scale %q (want raw or median)", widthScale)
	}
	km := kfda.KernelMatrix(d, width, k.Scale, kernelOf(kernel))
	f, err := kfda.Fit(km, labels, classes, reg, 0)
	if err != nil {
		return nil, err
	}
	fk, err := NewKFDA(kernel, width, k.Scale, widthScale, reg, f, dim)
	if err != nil {
		return nil, err
	}
	m.KFDA, m.Divergence = fk, fk.Measure()
	if m.Selection.Method == "" {
		m.Selection.Method = "kfda-" + kernel
	}
	return km, nil
}

// FitSetKernel is FitKFDA for a set kernel: GDA's projection kernel on
// the gallery sets' top-p subspaces (p ≥ 1, lambda 0) or CDL's
// log-Euclidean kernel on their covariances regularised by lambda (> 0,
// p 0), both of the projected samples (setmatch train deploys them with
// W = I and a zero mean). It sets m.KFDA, and Selection.Method to kernel
// when it is empty, and returns the m×m training kernel.
func (m *Model) FitSetKernel(kernel string, p int, lambda, reg float64, dim, workers int) (*mat.SymDense, error) {
	if !IsSetKernel(kernel) {
		return nil, fmt.Errorf("kfda: %q is not a set kernel (want gda or cdl)", kernel)
	}
	if len(m.Sets) < 2 {
		return nil, fmt.Errorf("kfda: %d gallery sets, need at least 2 classes", len(m.Sets))
	}
	labels, classes := m.classIDs()
	g, err := newSetGallery(kernel, p, lambda, m.samples(), workers)
	if err != nil {
		return nil, fmt.Errorf("kfda: %w", err)
	}
	km := g.matrix(workers)
	f, err := kfda.Fit(km, labels, classes, reg, 0)
	if err != nil {
		return nil, err
	}
	k, err := NewKFDA(kernel, 1, 1, "raw", reg, f, dim)
	if err != nil {
		return nil, err
	}
	k.P, k.Lambda = p, lambda
	if err := k.validate(len(m.Sets), classes, m.Divergence); err != nil {
		return nil, fmt.Errorf("kfda: %w", err)
	}
	m.KFDA = k
	if m.Selection.Method == "" {
		m.Selection.Method = kernel
	}
	return km, nil
}

// classIDs returns the class index of every gallery set, in order of
// first appearance, and the number of classes.
func (m *Model) classIDs() ([]int, int) {
	ids, classes := ClassIndex(m.Labels())
	return ids, len(classes)
}

// ClassIndex maps labels to class indices in order of first appearance:
// ids[i] is the index in classes of labels[i].
func ClassIndex(labels []string) (ids []int, classes []string) {
	idx := map[string]int{}
	ids = make([]int, len(labels))
	for i, l := range labels {
		c, ok := idx[l]
		if !ok {
			c = len(classes)
			idx[l] = c
			classes = append(classes, l)
		}
		ids[i] = c
	}
	return ids, classes
}

// samples returns the gallery sets' samples, in order.
func (m *Model) samples() []*mat.Dense {
	ys := make([]*mat.Dense, len(m.Sets))
	for i, s := range m.Sets {
		ys[i] = s.Samples
	}
	return ys
}
