// Package model holds the learned artefact of setmatch: the projection W,
// the feature mean, the projected gallery sets with their bandwidths and
// labels, the method it decides by and how it was chosen (method.go), the
// divergence, and for a kFDA model its discriminant on a divergence
// kernel, a set kernel (setkernel.go) or a weighted sum of them (term.go),
// the open-set threshold with a factor of it for each class (spread.go),
// and its voters, whole models that decide with it by a vote (vote.go;
// the majority of their labels, majority.go);
// the versioned model file that stores it (format.go: its layout and
// header; reader.go, writer.go: decoding and encoding; file.go: reading
// and writing files); the gallery sets added and removed on enrolment and
// forgetting, with the history of changes (enroll.go); and the Matcher
// that applies it to incoming batches and decides (matcher.go). Package
// learn makes the model of a training run of W; package deploy builds the
// models setmatch train writes and changes their galleries.
//
// Shapes: D is the input (feature) dimension, d the projected dimension,
// n the number of frames of a set. A batch is n×D, W is D×d, a projected
// set is n×d.
package model

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"setmatch/features"
	"setmatch/grassmann"
	"setmatch/internal/finite"
	"setmatch/internal/matmul"
	"setmatch/match"
	"setmatch/method"
)

// OrthonormalTol is how far WᵀW may be from the identity (largest absolute
// entry of WᵀW − I) for a model to be valid. Training keeps W orthonormal
// to about 1e-12; the slack covers models written by other tools.
const OrthonormalTol = 1e-6

// freeProjection names the methods (Selection.Method) whose W need not
// have orthonormal columns, only full column rank: nn-h-lda projects by
// the whitened Fisher basis (package fisher), whose scaling is part of
// the metric the KDEs are compared in.
var freeProjection = map[method.Name]bool{method.NNHLDA: true}

// Model is everything needed to match a batch: project it with W after
// subtracting Mean, estimate its density with a bandwidth chosen by
// QueryBandwidth, compare it with the gallery sets under Divergence and
// decide with Threshold.
type Model struct {
	// Divergence is the measure used to rank gallery sets.
	Divergence match.Measure
	// QueryBandwidth is how an incoming batch's bandwidth is chosen, applied
	// to the batch after projection.
	QueryBandwidth match.BandwidthRule
	// W is the D×d projection, with orthonormal columns (of full column
	// rank only, for the methods of freeProjection); nil when Identity.
	W *mat.Dense
	// Identity says that the projection is the D×D identity (the methods
	// in the full space): a batch is only centred, and W is not held (nor
	// stored in the file, format 5), which spares D² numbers and a D×D
	// product per batch. D is then len(Mean).
	Identity bool
	// Mean is subtracted from every frame (len D) before projection.
	Mean []float64
	// Sets is the gallery, already projected.
	Sets []Set
	// Threshold is the open-set threshold: a batch whose best divergence is
	// above it is unknown. +Inf makes a closed-set decision.
	Threshold float64
	// Spread, when not nil, scales Threshold class by class (format 7):
	// a batch is unknown when its best score is above the threshold of
	// its nearest class, ClassThreshold. nil is one threshold for all.
	Spread *Spread
	// Meta records how and when the model was made.
	Meta Meta

	// Features is the fitted feature pipeline that turns images into the
	// model's D features per frame; nil when the model takes feature
	// vectors (format 1 models never record one).
	Features *features.Fitted
	// Selection records the method the model decides by and how it was
	// chosen; zero for format 1 models (nearest neighbour).
	Selection Selection
	// Discriminant is the kernel Fisher discriminant the model decides
	// by; nil for nearest-neighbour methods. Its rows follow Sets.
	Discriminant *Discriminant

	// Voters, when not empty, make the model decide by a vote (format 6,
	// vote.go): each voter is a whole model of its own method on the
	// same gallery sets (the same labels and names, in the same order)
	// and the same input features, with its own projection, gallery
	// samples and threshold; the batch gets the label most of the
	// members (the model itself first, then its voters) give
	// (vote), and whether it is known is decided by the first
	// member that gave that label, by its own threshold. A voter has no
	// feature pipeline (the model's applies to all) and no voters.
	Voters []*Model
}

// Set is one gallery set.
type Set struct {
	Label     string     // class label, non-empty
	Name      string     // set name (e.g. file name), informational
	Samples   *mat.Dense // n×d, already projected
	Bandwidth float64    // KDE bandwidth h of this set
}

// Meta records the provenance of a model. It does not affect matching.
type Meta struct {
	Created    time.Time
	Tool       string            // program and version that wrote the model
	Data       string            // training data (path or description)
	Params     map[string]string // training parameters, as given
	FinalCost  float64           // training cost at the end (0 if not trained)
	Iterations int               // training iterations
	// History records every enrolment and forgetting since training
	// (Model.Record), oldest first: when, which, how many sets; no names.
	History []Change
}

// ErrInvalidModel is wrapped by every error of Validate.
var ErrInvalidModel = errors.New("invalid model")

// InputDim returns D, the number of features a batch must have.
func (m *Model) InputDim() int {
	D, _ := m.dims()
	return D
}

// Dim returns d, the projected dimension.
func (m *Model) Dim() int {
	_, d := m.dims()
	return d
}

// dims returns D and d: W's rows and columns, the length of Mean for both
// with the identity in W's place, 0 and 0 with neither.
func (m *Model) dims() (D, d int) {
	switch {
	case m.Identity:
		return len(m.Mean), len(m.Mean)
	case m.W == nil:
		return 0, 0
	}
	return m.W.Dims()
}

// Labels returns the label of each gallery set, in gallery order.
func (m *Model) Labels() []string {
	l := make([]string, len(m.Sets))
	for i, s := range m.Sets {
		l[i] = s.Label
	}
	return l
}

// Samples returns the gallery sets' samples, in order.
func (m *Model) Samples() []*mat.Dense {
	ys := make([]*mat.Dense, len(m.Sets))
	for i, s := range m.Sets {
		ys[i] = s.Samples
	}
	return ys
}

// Classes returns the distinct labels in order of first appearance.
func (m *Model) Classes() []string {
	_, c := ClassIndex(m.Labels())
	return c
}

// OrthonormalityError returns the largest absolute entry of WᵀW − I
// (0 for an exactly orthonormal W, NaN if W is missing or not finite).
func (m *Model) OrthonormalityError() float64 {
	if m.Identity {
		return 0
	}
	if m.W == nil || m.W.IsEmpty() {
		return math.NaN()
	}
	return grassmann.OrthoError(m.W)
}

// OrthonormalW reports whether the model's W must have orthonormal
// columns (to OrthonormalTol): every method's but those of
// freeProjection, whose W need full column rank only.
func (m *Model) OrthonormalW() bool { return !freeProjection[m.Selection.Method] }

// IsIdentity reports whether w is exactly the n×n identity.
func IsIdentity(w *mat.Dense) bool {
	if w == nil || w.IsEmpty() {
		return false
	}
	r, c := w.Dims()
	if r != c {
		return false
	}
	for i := range r {
		for j, v := range w.RawRowView(i) {
			if (i == j && v != 1) || (i != j && v != 0) {
				return false
			}
		}
	}
	return true
}

// Validate checks that the model can be used: W is D×d with 1 ≤ d ≤ D and
// orthonormal columns (to OrthonormalTol; for nn-h-lda full column rank
// instead), Mean has length D, there is at least one gallery set, every
// set is n×d with n ≥ 1 and a finite positive bandwidth and a non-empty
// label, all numbers are finite, where the model builds KDEs (UsesKDE) no
// gallery frame is one a KDE refuses (match.CheckFrames), the threshold is
// not NaN (it may be +Inf), the divergence and the query bandwidth rule are
// known. Errors wrap ErrInvalidModel and say which field is wrong.
func (m *Model) Validate() error {
	if err := m.validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidModel, err)
	}
	return nil
}

// notTrained is what to do about a model that this setmatch's train
// never writes: a field whose value it cannot hold.
const notTrained = "this model file was edited, or written by another program or a newer setmatch; train the model again with this one (setmatch train), or upgrade setmatch"

// checked, when not nil, is called with every model validate checks: a
// model, and each of its voters. Tests count with it the checks a load
// makes.
var checked func(*Model)

func (m *Model) validate() error {
	if m == nil {
		return errors.New("no model")
	}
	if checked != nil {
		checked(m)
	}
	if m.Divergence != match.Hellinger && m.Divergence != match.Jeffrey {
		return fmt.Errorf("unknown divergence %d (want hellinger or jeffrey)", int(m.Divergence))
	}
	kde := m.UsesKDE()
	if err := validRule(m.QueryBandwidth, kde); err != nil {
		return fmt.Errorf("query_bandwidth: %w", err)
	}
	if err := m.QueryBandwidth.CheckScale(); err != nil && kde {
		return fmt.Errorf("query_bandwidth %s: %w, so every batch would fail: %s", m.QueryBandwidth, err, notTrained)
	}
	bigD, d := len(m.Mean), len(m.Mean)
	switch {
	case m.Identity && m.W != nil:
		return errors.New("projection: both the identity and a matrix W")
	case m.Identity && bigD == 0:
		return errors.New("identity projection with an empty mean: the number of features D is unknown")
	case m.Identity:
	case m.W == nil || m.W.IsEmpty():
		return errors.New("projection W is missing")
	default:
		bigD, d = m.W.Dims()
		if d > bigD {
			return fmt.Errorf("projection W is %d×%d: it must not have more columns than rows", bigD, d)
		}
		if err := finiteMatrix("W", m.W); err != nil {
			return err
		}
		if !m.OrthonormalW() {
			var svd mat.SVD
			if !svd.Factorize(m.W, mat.SVDNone) {
				return fmt.Errorf("projection W (%d×%d): its singular values did not converge", bigD, d)
			}
			if sv := svd.Values(nil); !(sv[d-1] > 1e-12*sv[0]) {
				return fmt.Errorf("projection W (%d×%d) of %s does not have full column rank: singular values %.3g to %.3g", bigD, d, m.Selection.Method, sv[d-1], sv[0])
			}
		} else if e := grassmann.OrthoError(m.W); !(e <= OrthonormalTol) {
			return fmt.Errorf("projection W (%d×%d) does not have orthonormal columns: max |WᵀW − I| = %.3g, tolerance %g", bigD, d, e, OrthonormalTol)
		}
		if len(m.Mean) != bigD {
			return fmt.Errorf("mean has %d entries, W has %d rows", len(m.Mean), bigD)
		}
	}
	for j, v := range m.Mean {
		if !finite.Is(v) {
			return fmt.Errorf("mean[%d] is %v", j, v)
		}
	}
	if len(m.Sets) == 0 {
		return errors.New("gallery has no sets")
	}
	for i, s := range m.Sets {
		if err := s.validate(d, kde); err != nil {
			return fmt.Errorf("gallery set %d (%q/%q): %w", i, s.Label, s.Name, err)
		}
	}
	if math.IsNaN(m.Threshold) {
		return errors.New("threshold is NaN (use +Inf for a closed-set decision)")
	}
	if m.Threshold < 0 {
		return fmt.Errorf("threshold is %v: scores are never below 0, so every batch would be unknown (want a number ≥ 0, or +Inf for a closed-set decision)", m.Threshold)
	}
	if m.Spread != nil {
		labels := map[string]bool{}
		for _, s := range m.Sets {
			labels[s.Label] = true
		}
		if err := m.Spread.validate(labels); err != nil {
			return err
		}
	}
	if !finite.Is(m.Meta.FinalCost) {
		return fmt.Errorf("meta: final cost is %v", m.Meta.FinalCost)
	}
	if m.Meta.Iterations < 0 {
		return fmt.Errorf("meta: iterations is %d", m.Meta.Iterations)
	}
	for _, f := range []struct{ what, s string }{{"tool", m.Meta.Tool}, {"data", m.Meta.Data}} { // in order, not a map's
		if !utf8.ValidString(f.s) {
			return fmt.Errorf("meta: %s is not valid UTF-8", f.what)
		}
	}
	for k, v := range m.Meta.Params {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return fmt.Errorf("meta: parameter %q is not valid UTF-8", k)
		}
	}
	for i, c := range m.Meta.History {
		if !utf8.ValidString(c.Op) || c.Op == "" || c.Sets < 0 || c.Classes < 0 {
			return fmt.Errorf("meta: history entry %d: operation %q, %d sets, %d classes", i, c.Op, c.Sets, c.Classes)
		}
	}
	if err := m.validateMethod(); err != nil {
		return err
	}
	return m.validateVoters()
}

// The decisions that are not a label: a set the open-set threshold
// rejects, and a batch that could not be decided. setmatchd's journal,
// MQTT and metrics, and setmatch test, write them where a label goes.
const (
	Unknown = "unknown"
	Failed  = "failed"
)

// CheckLabel returns an error if label cannot name a class: empty; a
// decision that is not a label (Unknown, Failed), which would make a
// recognised member of the class read as one; not valid UTF-8, or holding
// a control character (it is printed in tables, logs and MQTT topics); or
// beginning or ending with a space, which would make "alice " a person
// other than "alice" that no table shows apart.
func CheckLabel(label string) error {
	var is string
	switch label {
	case "":
		return errors.New("empty label")
	case Unknown:
		is = "a stranger's set"
	case Failed:
		is = "a set that could not be decided"
	default:
		const rename = "name the class otherwise (its folder) and train or enroll again"
		switch {
		case !utf8.ValidString(label):
			return fmt.Errorf("the label %q is not valid UTF-8: %s", label, rename)
		case strings.ContainsFunc(label, unicode.IsControl):
			return fmt.Errorf("the label %q holds a control character: %s", label, rename)
		case strings.TrimSpace(label) != label:
			return fmt.Errorf("the label %q begins or ends with a space: %s", label, rename)
		}
		return nil
	}
	return fmt.Errorf("the label %q is reserved: it is the decision on %s, and a member of the class would read as one: name the class otherwise (its folder) and train or enroll again", label, is)
}

// CheckNewLabel returns CheckLabel's error for a label a change gives a
// model (enroll), and refuses what no class folder can be named: a label
// holding a slash, or "." or "..". Such a class could never be given to
// setmatch test or train, and "a/b/s1" would not say which part is the
// set. A model file's labels are checked by CheckLabel alone, so that a
// file that holds one still loads and forget can remove it.
func CheckNewLabel(label string) error {
	if err := CheckLabel(label); err != nil {
		return err
	}
	if err := checkPathElem(label); err != nil {
		return fmt.Errorf("the label %q %v, as a class folder's name cannot: name the class otherwise", label, err)
	}
	return nil
}

// checkPathElem refuses what cannot be a file or folder's own name: one
// holding a slash, or "." or "..".
func checkPathElem(name string) error {
	switch {
	case strings.Contains(name, "/"):
		return errors.New("holds a slash")
	case name == "." || name == "..":
		return errors.New("is . or ..")
	}
	return nil
}

// CheckSetName refuses a name for a new set of a model: one that is
// not valid UTF-8 (a model file's names are text), empty or only
// spaces, holding a control character, or that no set file or folder
// can be named (a slash, "." or ".."). The error says what the name is, to follow it.
func CheckSetName(name string) error {
	switch {
	case !utf8.ValidString(name):
		return errors.New("is not valid UTF-8, which a model's set names must be")
	case strings.TrimSpace(name) == "":
		return errors.New("is empty or only spaces")
	case strings.ContainsFunc(name, unicode.IsControl):
		return errors.New("holds a control character (a newline, a tab, …), which the lines that name the set would print as it is")
	}
	if err := checkPathElem(name); err != nil {
		return fmt.Errorf("%v, as a set file or folder's name cannot", err)
	}
	return nil
}

func (s *Set) validate(d int, kde bool) error {
	if err := CheckLabel(s.Label); err != nil {
		return err
	}
	if !utf8.ValidString(s.Label) || !utf8.ValidString(s.Name) {
		return errors.New("label or name is not valid UTF-8")
	}
	if s.Samples == nil || s.Samples.IsEmpty() {
		return errors.New("no samples")
	}
	if _, c := s.Samples.Dims(); c != d {
		return fmt.Errorf("samples have %d columns, the model's dimension is %d", c, d)
	}
	if err := validBandwidth(s.Bandwidth, kde); err != nil {
		return err
	}
	if err := finiteMatrix("samples", s.Samples); err != nil {
		return err
	}
	if kde {
		// Finite frames a KDE does not take would fail NewMatcher.
		return match.CheckFrames(s.Samples)
	}
	return nil
}

// validRule checks that r is a rule match knows, with a usable fixed value
// (validBandwidth).
func validRule(r match.BandwidthRule, kde bool) error {
	if r.Kind == match.Fixed {
		if err := validBandwidth(r.Fixed, kde); err != nil {
			return fmt.Errorf("fixed %w", err)
		}
		return nil
	}
	return r.Validate()
}

// validBandwidth refuses a bandwidth h a model cannot use: where the
// model builds KDEs (kde), one a KDE does not take (match.CheckBandwidth),
// with which every divergence would be NaN, and every batch fail with no
// finite divergence to any gallery set; else, where it is only recorded,
// one that is not a finite number > 0.
func validBandwidth(h float64, kde bool) error {
	if kde {
		return match.CheckBandwidth(h)
	}
	if !(h > 0) || !finite.Is(h) {
		return fmt.Errorf("bandwidth is %v, want a finite number > 0", h)
	}
	return nil
}

// UsesKDE reports whether the model builds KDEs: nearest neighbour on the
// divergences, or a kFDA kernel with a term on them. A model on set
// kernels alone (GDA, CDL, their sum) records a bandwidth for its sets and
// a rule for its batches without using them, so they need not be ones a
// KDE takes: its features may be of any scale its kernels take.
func (m *Model) UsesKDE() bool {
	return m.Discriminant == nil || m.Discriminant.UsesDivergences()
}

// SetBandwidth returns the bandwidth the model's QueryBandwidth rule gives
// the projected set y (n×d), as a batch of it gets. A model that builds no
// KDE gives its fixed rule's h as it is, of any scale (UsesKDE).
func (m *Model) SetBandwidth(y *mat.Dense) (float64, error) {
	return RuleBandwidth(m.QueryBandwidth, m.UsesKDE(), y)
}

// RuleBandwidth returns the bandwidth the query rule r gives the
// projected set y (n×d) of a model that builds KDEs (kde: one a KDE
// takes, match.BandwidthRule.Bandwidth) or not (UsesKDE): without them h
// is only recorded, of any finite scale (match.BandwidthRule.Recorded).
// SetBandwidth of a model, and of a fitted method before its model is
// built (deploy).
func RuleBandwidth(r match.BandwidthRule, kde bool, y *mat.Dense) (float64, error) {
	if kde {
		return r.Bandwidth(y)
	}
	return r.Recorded(y)
}

// finiteMatrix reports the first NaN or Inf of x by row and column.
func finiteMatrix(what string, x *mat.Dense) error {
	r, _ := x.Dims()
	for i := range r {
		for j, v := range x.RawRowView(i) {
			if !finite.Is(v) {
				return fmt.Errorf("%s[%d, %d] is %v", what, i, j, v)
			}
		}
	}
	return nil
}

// Project returns (x − Mean)·W, the n×d projection of the n×D batch x.
// It fails if x has the wrong number of features or holds a NaN or Inf.
func (m *Model) Project(x *mat.Dense) (*mat.Dense, error) {
	if x == nil || x.IsEmpty() {
		return nil, errors.New("batch has no frames")
	}
	n, cols := x.Dims()
	bigD := m.InputDim()
	if cols != bigD {
		return nil, fmt.Errorf("batch has %d features, model expects %d", cols, bigD)
	}
	c := mat.NewDense(n, bigD, nil)
	for i := range n {
		src, dst := x.RawRowView(i), c.RawRowView(i)
		for j, v := range src {
			if !finite.Is(v) {
				return nil, fmt.Errorf("batch frame %d feature %d is %v", i, j, v)
			}
			dst[j] = v - m.Mean[j]
		}
	}
	if m.Identity {
		return c, nil // x·I = x to the last bit: only the product is spared
	}
	var p mat.Dense
	matmul.NewRight(m.W).Mul(&p, c, 0)
	return &p, nil
}
