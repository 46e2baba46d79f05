package model

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
)

// Enrolment and forgetting change the gallery of a trained model without
// training it again: what was fitted on the gallery (a kFDA discriminant,
// in the model and in each voter) is fitted again on the new gallery with
// the hyper-parameters the model holds; what training shaped from all its
// sets (a projection W, the feature pipeline, the hyper-parameters) is
// kept. The open-set threshold, calibrated on the gallery, is the caller's
// to recalibrate (package deploy, Recalibrate).

// NewSet is a set to enrol: its raw frames (n×D features, as a batch
// arrives) under a label, existing or new, and a name.
type NewSet struct {
	Label  string
	Name   string
	Frames *mat.Dense
}

// MinClasses is the fewest classes a model may keep: Forget refuses to
// go below it.
const MinClasses = 2

// ErrTooFewClasses is wrapped by Forget's error when the gallery would
// keep fewer than MinClasses classes.
var ErrTooFewClasses = errors.New("a model needs at least 2 classes")

// Enroll adds the sets to the gallery of m and of every voter, without
// training again: each member projects a set's frames with its own W and
// mean and gives it a bandwidth by its own query rule, exactly as it does
// to an incoming batch, and every member that decides by kFDA is fitted
// again on its new gallery (RefitKFDA). All sets or none are added: on an
// error m is left as it was. workers ≤ 0 means GOMAXPROCS.
func (m *Model) Enroll(sets []NewSet, workers int) error {
	if len(sets) == 0 {
		return errors.New("enroll: no sets to add")
	}
	taken := map[[2]string]bool{}
	for _, s := range m.Sets {
		taken[[2]string{s.Label, s.Name}] = true
	}
	for _, s := range sets {
		switch {
		case strings.TrimSpace(s.Label) == "":
			return errors.New("enroll: the label is empty: give the class the set belongs to")
		case strings.TrimSpace(s.Name) == "":
			return fmt.Errorf("enroll %s: the set name is empty", s.Label)
		case taken[[2]string{s.Label, s.Name}]:
			return fmt.Errorf("enroll: the gallery already has a set %q of class %q: choose another name", s.Name, s.Label)
		}
		taken[[2]string{s.Label, s.Name}] = true
	}
	oldClasses := len(m.Classes())
	next := m.clone()
	for i, mem := range next.Members() {
		for _, s := range sets {
			y, err := mem.Project(s.Frames)
			if err != nil {
				return fmt.Errorf("enroll %s/%s: %w", s.Label, s.Name, err)
			}
			h, err := mem.QueryBandwidth.Bandwidth(y)
			if err != nil {
				what := "the model's"
				if i > 0 {
					what = fmt.Sprintf("vote member %d's (%s)", i+1, mem.ownMethod())
				}
				return fmt.Errorf("enroll %s/%s: bandwidth by %s rule %s: %w", s.Label, s.Name, what, mem.QueryBandwidth, err)
			}
			mem.Sets = append(mem.Sets, Set{Label: s.Label, Name: s.Name, Samples: y, Bandwidth: h})
		}
	}
	if err := next.RefitKFDA(oldClasses, workers); err != nil {
		return fmt.Errorf("enroll: %w", err)
	}
	if err := next.Validate(); err != nil {
		return fmt.Errorf("enroll: %w", err)
	}
	*m = *next
	return nil
}

// Forget removes from the gallery of m and of every voter each set for
// which drop is true, and fits every kFDA member again on what is left
// (RefitKFDA). A member that centres frames by a mean of the training
// frames (Recentre) is centred on the frames left instead, so that the
// model holds no number computed from the removed sets except through
// its projection W and its feature pipeline; the cross-validated
// accuracies recorded at training, measured with every training set,
// are cleared, with the seconds each candidate took (their
// hyper-parameters, like W, are kept). It returns the
// number of sets removed (0: none matched, m unchanged, an error). It
// refuses, with m unchanged, to leave fewer than MinClasses classes.
// prepare, if not nil, is called on every member once its gallery is
// reduced and recentred, before its kFDA is fitted again (package deploy
// sets a bandwidth computed from every gallery set again there).
func (m *Model) Forget(drop func(Set) bool, prepare func(*Model) error, workers int) (int, error) {
	var keep []int
	for i, s := range m.Sets {
		if !drop(s) {
			keep = append(keep, i)
		}
	}
	removed := len(m.Sets) - len(keep)
	if removed == 0 {
		return 0, errors.New("forget: no gallery set matches")
	}
	left := map[string]bool{}
	for _, i := range keep {
		left[m.Sets[i].Label] = true
	}
	if len(left) < MinClasses {
		return 0, fmt.Errorf("forget: %w, and %d would be left: to stop recognising everyone, remove the model file (or stop setmatchd); to start again with other people, train a new model (setmatch train)", ErrTooFewClasses, len(left))
	}
	oldClasses := len(m.Classes())
	next := m.clone()
	for _, mem := range next.Members() {
		sets := make([]Set, len(keep))
		for k, i := range keep {
			sets[k] = mem.Sets[i]
		}
		mem.Sets = sets
		if _, err := mem.Recentre(); err != nil {
			return 0, fmt.Errorf("forget: %w", err)
		}
		mem.Selection.CVAccuracy = math.NaN()
		cands := make([]Candidate, len(mem.Selection.Candidates))
		for k, c := range mem.Selection.Candidates {
			cands[k] = Candidate{Name: c.Name, Params: c.Params, CVAccuracy: math.NaN()}
		}
		mem.Selection.Candidates = cands
		if prepare != nil {
			if err := prepare(mem); err != nil {
				return 0, fmt.Errorf("forget: %s: %w", mem.ownMethod(), err)
			}
		}
	}
	if err := next.RefitKFDA(oldClasses, workers); err != nil {
		return 0, fmt.Errorf("forget: %w", err)
	}
	if err := next.Validate(); err != nil {
		return 0, fmt.Errorf("forget: %w", err)
	}
	*m = *next
	return removed, nil
}

// clone returns a copy of m whose gallery slices, parameter maps and
// voters are its own (the sample matrices, W, the mean and the pipeline
// are shared: Enroll and Forget replace them, never change them in
// place).
func (m *Model) clone() *Model {
	c := *m
	c.Sets = append([]Set(nil), m.Sets...)
	c.Meta.Params = cloneMap(m.Meta.Params)
	c.Meta.History = append([]Change(nil), m.Meta.History...)
	c.Selection.Params = cloneMap(m.Selection.Params)
	c.Selection.Candidates = append([]Candidate(nil), m.Selection.Candidates...)
	c.Voters = nil
	for _, v := range m.Voters {
		c.Voters = append(c.Voters, v.clone())
	}
	return &c
}

func cloneMap(p map[string]string) map[string]string {
	if p == nil {
		return nil
	}
	c := make(map[string]string, len(p))
	for k, v := range p {
		c[k] = v
	}
	return c
}

// RefitKFDA fits the discriminant of every member of m that decides by
// kFDA (m and its voters) again on the member's gallery as it is, with
// its kernels (the scale of a width relative to the median divergence,
// and the weights of a sum, computed again on the gallery, as training
// computes them), its regulariser and its latent dimension: the same
// number, or all of them (C − 1) where the member used all of them with
// the oldClasses classes it was fitted on; never more than C − 1. The
// member's record of its kernel and latent dimension (Selection.Params
// "kernel" and "latent-dim", where present) is updated to the new fit.
func (m *Model) RefitKFDA(oldClasses, workers int) error {
	classes := len(m.Classes())
	for i, mem := range m.Members() {
		k := mem.KFDA
		if k == nil {
			continue
		}
		r := k.Dim()
		if r >= oldClasses-1 {
			r = classes - 1
		}
		r = min(r, classes-1)
		if _, err := mem.FitTerms(k.Kernels(), k.Reg, r, workers); err != nil {
			if i == 0 {
				return fmt.Errorf("fitting %s again on the gallery: %w", mem.ownMethod(), err)
			}
			return fmt.Errorf("vote member %d (%s): fitting it again on the gallery: %w", i+1, mem.ownMethod(), err)
		}
		p := mem.Selection.Params
		if _, ok := p["kernel"]; ok {
			p["kernel"] = DescribeKernels(mem.KFDA.Kernels())
		}
		if _, ok := p["latent-dim"]; ok {
			p["latent-dim"] = strconv.Itoa(mem.KFDA.Dim())
		}
	}
	return nil
}

// Recentre centres the member's gallery on the mean of its own frames:
// the mean a model subtracts from every frame (for the methods in the
// full space, the mean frame of every training set) becomes the mean of
// the frames its gallery holds now, read back through W (for a projection
// W, the part of the mean W sees: W(WᵀW)⁻¹ times the gallery's mean
// projected frame plus WᵀMean), and every gallery sample moves by the
// same amount as every batch will, so that nothing a batch is compared
// by changes (divergences and bandwidth rules do not depend on where the
// frames are centred). A model with a zero mean (the raw frames, as the
// set kernels take them) or whose kernel compares uncentred frames (gda,
// cdl) is left alone. It reports whether it moved the mean. It does not
// change the voters.
func (m *Model) Recentre() (bool, error) {
	if m.KFDA != nil {
		for _, t := range m.KFDA.Kernels() {
			if !t.OnDivergences() {
				return false, nil
			}
		}
	}
	zero := true
	for _, v := range m.Mean {
		zero = zero && v == 0
	}
	if zero || len(m.Sets) == 0 {
		return false, nil
	}
	d := m.Dim()
	mu := make([]float64, d)
	n := 0
	for _, s := range m.Sets {
		r, _ := s.Samples.Dims()
		for i := range r {
			for j, v := range s.Samples.RawRowView(i) {
				mu[j] += v
			}
		}
		n += r
	}
	for j := range mu {
		mu[j] /= float64(n)
	}
	mean := make([]float64, len(m.Mean))
	if m.Identity {
		for j, v := range m.Mean {
			mean[j] = v + mu[j]
		}
	} else {
		// z = WᵀMean + μ, the gallery's mean frame as W sees it; the new
		// mean is W·c with (WᵀW)c = z, so that Wᵀ·mean = z.
		z := mat.NewVecDense(d, nil)
		z.MulVec(m.W.T(), mat.NewVecDense(len(m.Mean), append([]float64(nil), m.Mean...)))
		z.AddVec(z, mat.NewVecDense(d, mu))
		var g mat.Dense
		g.Mul(m.W.T(), m.W)
		var c mat.VecDense
		if err := c.SolveVec(&g, z); err != nil {
			return false, fmt.Errorf("recentring %s: %w", m.ownMethod(), err)
		}
		mv := mat.NewVecDense(len(mean), mean)
		mv.MulVec(m.W, &c)
	}
	sets := make([]Set, len(m.Sets))
	for k, s := range m.Sets {
		r, _ := s.Samples.Dims()
		y := mat.NewDense(r, d, nil)
		for i := range r {
			dst := y.RawRowView(i)
			for j, v := range s.Samples.RawRowView(i) {
				dst[j] = v - mu[j]
			}
		}
		s.Samples = y
		sets[k] = s
	}
	m.Mean, m.Sets = mean, sets
	return true, nil
}

// Change is one enrolment or forgetting, recorded in the model
// (Meta.History): when, which operation, how many gallery sets it added
// or removed, and how many classes the gallery held after it. It names no
// label, set or file, so that the record of forgetting someone does not
// name them.
type Change struct {
	Time    time.Time
	Op      string // ChangeEnroll or ChangeForget
	Sets    int    // gallery sets added or removed
	Classes int    // classes of the gallery after the change
}

// The operations of Change.
const (
	ChangeEnroll = "enroll"
	ChangeForget = "forget"
)

// MaxHistory is the most changes a model records; the oldest go first.
const MaxHistory = 1000

// Record appends a change to the model's history (keeping the latest
// MaxHistory), with the number of classes the gallery holds now.
func (m *Model) Record(t time.Time, op string, sets int) {
	m.Meta.History = append(m.Meta.History, Change{Time: t.UTC(), Op: op, Sets: sets, Classes: len(m.Classes())})
	if n := len(m.Meta.History); n > MaxHistory {
		m.Meta.History = append([]Change(nil), m.Meta.History[n-MaxHistory:]...)
	}
}

// Margin is how far a gallery set is from its own class and from the
// others, by nearest neighbour under the model's divergence (the set as
// a batch, against every other gallery set): Own is the smallest
// divergence to another set of its class (NaN when it has none), Other
// the smallest to a set of another class, OtherLabel that class. Other −
// Own > 0: a batch like the set is nearer its own class.
type Margin struct {
	Label, Name string
	Own         float64
	OwnName     string
	Other       float64
	OtherLabel  string
}

// Separation returns the Margin of each gallery set of m whose index is
// in idx (m alone, without its voters), by nearest neighbour under m's
// divergence with the sets' bandwidths.
func (m *Model) Separation(idx []int) ([]Margin, error) {
	kdes := make([]*match.KDE, len(m.Sets))
	for i, s := range m.Sets {
		k, err := match.NewKDE(s.Samples, s.Bandwidth)
		if err != nil {
			return nil, fmt.Errorf("gallery set %s/%s: %w", s.Label, s.Name, err)
		}
		kdes[i] = k
	}
	g, err := match.NewGallery(kdes)
	if err != nil {
		return nil, err
	}
	var out []Margin
	var div []match.Divergences
	for _, i := range idx {
		s := m.Sets[i]
		if div, err = g.Compare(kdes[i], div); err != nil {
			return nil, fmt.Errorf("gallery set %s/%s: %w", s.Label, s.Name, err)
		}
		mg := Margin{Label: s.Label, Name: s.Name, Own: math.NaN(), Other: math.Inf(1)}
		for j, d := range div {
			v := d.Of(m.Divergence)
			switch o := m.Sets[j]; {
			case j == i:
			case o.Label == s.Label && (math.IsNaN(mg.Own) || v < mg.Own):
				mg.Own, mg.OwnName = v, o.Name
			case o.Label != s.Label && v < mg.Other:
				mg.Other, mg.OtherLabel = v, o.Label
			}
		}
		out = append(out, mg)
	}
	return out, nil
}
