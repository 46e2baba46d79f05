package model

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"setmatch/features"
	"setmatch/internal/finite"
	"setmatch/kfda"
	"setmatch/match"
	"setmatch/method"
)

// Selection records which method a model deploys and how it was chosen:
// the method's name as `setmatch eval` reports it ("nn-h", "nn-j",
// "nn-h-dr", "nn-j-dr", "kfda-hg", "kfda-hl", "kfda-j", …), its
// hyper-parameters, and the cross-validated accuracy of it and of every
// candidate that was scored. It is the stored record of a choice (the
// engine's outcome of one is a method.Selection, which it does not keep).
// The zero Selection (models of format 1) means nearest neighbour under
// Divergence, described by Model.MethodName.
type Selection struct {
	Method method.Name
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

// Measured reports whether s records a cross-validated figure: its
// accuracy, or a candidate's accuracy or time. A model trained with a
// given method records none; enroll and forget keep training's.
func (s Selection) Measured() bool {
	return !math.IsNaN(s.CVAccuracy) || slices.ContainsFunc(s.Candidates, func(c Candidate) bool {
		return !math.IsNaN(c.CVAccuracy) || c.Seconds != 0
	})
}

// Candidate is the stored record of one method scored by
// cross-validation while choosing (of a method.CandidateScore: the
// engine's pipeline by name, its parameters as text, its score and time).
type Candidate struct {
	Name       method.Name // method, as Selection.Method
	Params     string      // its parameters, free text
	CVAccuracy float64     // fraction in [0, 1]; NaN if it could not be scored
	Seconds    float64     // time spent scoring it
}

// What the open-set threshold of a kFDA model bounds.
const (
	// OpenSetKernel: the distance the kernel induces between the batch
	// and the nearest gallery set of the label the latent space gives it,
	// √(k(q,q) + k(j,j) − 2k(q,j)). A batch unlike every gallery set is
	// far from all of them there, wherever its latent point falls. Every
	// model of format 4 written by setmatch train.
	OpenSetKernel = "kernel"
	// OpenSetLatent: the latent distance to the nearest gallery set. The
	// latent space keeps only the directions that separate the known
	// classes, so a batch unlike all of them can land next to one: kFDA
	// models of formats 2 and 3 decide so, as they were calibrated.
	OpenSetLatent = "latent"
)

// MaxTerms is the most kernels a sum may add (each builds its own gallery
// form in the matcher).
const MaxTerms = 8

// Discriminant is how a kFDA model decides: the kernel it was fitted on
// (Term, or for method.KernelSum the weighted sum of Terms), the kernel Fisher
// discriminant fitted on it (Solution) and the open-set rule (OpenSet).
// The kernel of a batch and each of the m gallery sets (Model.Sets, in
// order) gives the batch's kernel vector; Solution maps it to the batch's
// latent point (kfda.KFDA.TransformRow), compared with the gallery's
// latent coordinates (Solution.Train, m×r) in Euclidean distance: the
// nearest gallery set there gives the label. Whether the batch is known
// at all is decided by OpenSet.
type Discriminant struct {
	Term             // the kernel; for method.KernelSum only its Kernel is set
	Terms    []Term  // method.KernelSum: the kernels added, ≥ 2, none a sum
	OpenSet  string  // what Model.Threshold bounds: OpenSetKernel or OpenSetLatent
	Reg      float64 // regulariser as chosen (relative to tr(S_w)/m; Solution.Reg is the ε it gave)
	Solution kfda.KFDA
}

// Kernels returns the kernels k adds: Terms for a sum, else its one
// kernel with weight 1.
func (k *Discriminant) Kernels() []Term {
	if k.Kind() == method.KernelSum {
		return k.Terms
	}
	t := k.Term
	t.Weight = 1
	return []Term{t}
}

// Describe names the kernel and its parameters (Term.Describe), e.g.
// "kernel hg, width 1/median = 0.0123", "kernel sum of hg, width 1/median
// = 0.0123 (× 1) + cdl (log-Euclidean kernel of set covariances + λI, λ =
// 0.01) (× 0.02)".
func (k *Discriminant) Describe() string {
	return "kernel " + DescribeKernels(k.Kernels())
}

// DescribeKernels describes one kernel (Term.Describe) or, for two or
// more, their weighted sum.
func DescribeKernels(terms []Term) string {
	if len(terms) == 1 {
		return terms[0].Describe()
	}
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = fmt.Sprintf("%s (× %.4g)", t.Describe(), t.Weight)
	}
	return "sum of " + strings.Join(parts, " + ")
}

// UsesDivergences reports whether some kernel of k is on KDE divergences
// (the matcher then builds the batch's KDE).
func (k *Discriminant) UsesDivergences() bool { return UsesDivergences(k.Kernels()) }

// UsesDivergences reports whether some of the kernels is on KDE
// divergences.
func UsesDivergences(terms []Term) bool {
	for _, t := range terms {
		if t.OnDivergences() {
			return true
		}
	}
	return false
}

// Dim returns r, the latent dimension.
func (k *Discriminant) Dim() int {
	if k == nil || k.Solution.Alpha == nil {
		return 0
	}
	_, r := k.Solution.Alpha.Dims()
	return r
}

// Validate checks k against a gallery of m sets in the given number of
// classes, for a model whose divergence is div.
func (k *Discriminant) Validate(m, classes int, div match.Measure) error {
	if k.OpenSet != OpenSetKernel && k.OpenSet != OpenSetLatent {
		return fmt.Errorf("open set %q (want kernel or latent)", k.OpenSet)
	}
	if k.Kind() == method.KernelSum {
		if len(k.Terms) < 2 || len(k.Terms) > MaxTerms {
			return fmt.Errorf("a sum of %d kernels (want 2 to %d)", len(k.Terms), MaxTerms)
		}
		if k.Term != (Term{Kernel: string(method.KernelSum)}) {
			return fmt.Errorf("a sum has its parameters in its terms, not %+v", k.Term)
		}
		for i, t := range k.Terms {
			if t.Kind() == method.KernelSum {
				return fmt.Errorf("term %d is a sum itself", i)
			}
			if !(t.Weight > 0) || math.IsInf(t.Weight, 0) {
				return fmt.Errorf("term %d (%s): weight %v, want a finite number > 0", i, t.Kernel, t.Weight)
			}
			if err := t.Validate(div); err != nil {
				return fmt.Errorf("term %d: %w", i, err)
			}
		}
	} else {
		if len(k.Terms) != 0 {
			return fmt.Errorf("kernel %s with %d terms (only a sum has terms)", k.Kernel, len(k.Terms))
		}
		if k.Weight != 0 {
			return fmt.Errorf("kernel %s with weight %v (only the terms of a sum have weights)", k.Kernel, k.Weight)
		}
		if err := k.Term.Validate(div); err != nil {
			return err
		}
	}
	f := &k.Solution
	for _, p := range []struct {
		what   string
		v      float64
		signed bool
	}{{"regulariser", k.Reg, false}, {"epsilon", f.Reg, false}, {"all mean", f.AllMean, true}} { // in order, not a map's
		if !finite.Is(p.v) || (!p.signed && p.v < 0) {
			return fmt.Errorf("%s is %v", p.what, p.v)
		}
	}
	if f.Alpha == nil || f.Alpha.IsEmpty() || f.Train == nil || f.Train.IsEmpty() {
		return errors.New("coefficients or latent coordinates missing")
	}
	am, r := f.Alpha.Dims()
	lm, lr := f.Train.Dims()
	if am != m || lm != m || lr != r {
		return fmt.Errorf("coefficients are %d×%d and latent coordinates %d×%d, want %d×r for the %d gallery sets", am, r, lm, lr, m, m)
	}
	if r > classes-1 {
		return fmt.Errorf("%d latent dimensions for %d classes (at most %d)", r, classes, classes-1)
	}
	if len(f.ColMean) != m {
		return fmt.Errorf("%d column means for %d gallery sets", len(f.ColMean), m)
	}
	if len(f.Values) != r {
		return fmt.Errorf("%d eigenvalues for %d latent dimensions", len(f.Values), r)
	}
	for i, v := range f.ColMean {
		if !finite.Is(v) {
			return fmt.Errorf("column mean %d is %v", i, v)
		}
	}
	for i, v := range f.Values {
		if !finite.Is(v) {
			return fmt.Errorf("eigenvalue %d is %v", i, v)
		}
	}
	if err := finiteMatrix("coefficients", f.Alpha); err != nil {
		return err
	}
	return finiteMatrix("latent coordinates", f.Train)
}

// validate checks the selection: valid UTF-8, accuracies in [0, 1] or NaN,
// non-negative finite times.
func (s *Selection) validate() error {
	if !utf8.ValidString(string(s.Method)) {
		return errors.New("method is not valid UTF-8")
	}
	if !recordable(s.Method) {
		return fmt.Errorf("method %q is not one this setmatch knows (want one of %s, or empty for nearest neighbour after a learned W): %s", s.Method, method.Join(recordableMethods(), ", "), notTrained)
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
		if !utf8.ValidString(string(c.Name)) || !utf8.ValidString(c.Params) {
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

// formerMethods are the names of methods train once deployed that no
// method has now, which models keep: kfda-sum, kFDA on a sum of kernels
// (format 4), which became kfda-mix.
var formerMethods = []method.Name{"kfda-sum"}

// recordableMethods are the methods a model may decide by: every method
// but auto, which deploys another (method.Names).
func recordableMethods() []method.Name {
	return slices.DeleteFunc(slices.Clone(method.Names), func(n method.Name) bool { return n == method.Auto })
}

// recordable reports whether a model's selection may name n as its
// method: one of recordableMethods, a former one, or none (a model of
// format 1, or of a W learned at a given d).
func recordable(n method.Name) bool {
	return n == "" || slices.Contains(recordableMethods(), n) || slices.Contains(formerMethods, n)
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
func (m *Model) IsKFDA() bool { return m.Discriminant != nil }

// MethodName returns the method the model decides by: Selection.Method,
// or for a model that does not record it (format 1), "nn-h" or "nn-j" by
// its divergence, with "-dr" when W reduces the dimension; for a model
// with voters, "vote(" and the members' methods, e.g.
// "vote(kfda-mix,nn-h-dr,kfda-hl)".
func (m *Model) MethodName() string {
	if len(m.Voters) > 0 {
		return "vote(" + strings.Join(m.MemberMethods(), ",") + ")"
	}
	return m.ownMethod()
}

// ownMethod is MethodName of m alone, without its voters.
func (m *Model) ownMethod() string {
	if m.Selection.Method != "" {
		return string(m.Selection.Method)
	}
	name := method.NNH
	if m.Divergence == match.Jeffrey {
		name = method.NNJ
	}
	if m.Dim() < m.InputDim() {
		name += "-dr"
	}
	return string(name)
}

// validateMethod checks the v2 parts of m: the selection, the pipeline and
// the kFDA solution, and that the method name agrees with the presence of
// a kFDA solution.
func (m *Model) validateMethod() error {
	if err := m.Selection.validate(); err != nil {
		return fmt.Errorf("selection: %w", err)
	}
	isK := m.Selection.Method.IsKFDA()
	switch {
	case m.Discriminant != nil && m.Selection.Method == "":
		// It would be shown (inspect, the journal) as nearest neighbour.
		return errors.New("the model holds a kFDA solution but its selection names no kFDA method")
	case m.Discriminant != nil && !isK:
		return fmt.Errorf("method %q is not a kFDA method but the model holds a kFDA solution", m.Selection.Method)
	case m.Discriminant == nil && isK:
		return fmt.Errorf("method %q needs a kFDA solution, the model has none", m.Selection.Method)
	}
	if m.Features != nil {
		if err := validateFeatures(m.Features, m.InputDim()); err != nil {
			return fmt.Errorf("feature pipeline: %w", err)
		}
	}
	if m.Discriminant != nil {
		if err := m.Discriminant.Validate(len(m.Sets), len(m.Classes()), m.Divergence); err != nil {
			return fmt.Errorf("kfda: %w", err)
		}
	}
	return nil
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
