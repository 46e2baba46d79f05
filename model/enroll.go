package model

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/sameset"
)

// Enrolment and forgetting change the gallery of a trained model without
// training it again. Here the artefact's part: the gallery sets added to
// or removed from the model and every voter (WithSets, WithoutSets), and
// the history of changes (Record). What was fitted on the gallery (a kFDA
// discriminant) is fitted again, and the open-set threshold set again, by
// the caller (package deploy, Enroll and Forget).

// NewSet is a set to enrol: its raw frames (n×D features, as a batch
// arrives) under a label, existing or new, and a name.
type NewSet struct {
	Label  string
	Name   string
	Frames *mat.Dense
}

// MinClasses is the fewest classes a model may keep: WithoutSets refuses to
// go below it.
const MinClasses = 2

// ErrTooFewClasses is wrapped by WithoutSets's error when the gallery would
// keep fewer than MinClasses classes.
var ErrTooFewClasses = errors.New("a model needs at least 2 classes")

// WithSets returns a copy of m whose gallery, and that of every voter,
// holds the sets too, without training again: each member projects a
// set's frames with its own W and mean and gives it a bandwidth by its
// own query rule, exactly as it does to an incoming batch. m is left as
// it is. The copy's kFDA discriminants are still those of the old
// gallery: the copy is valid once they are fitted again on the new one.
func (m *Model) WithSets(sets []NewSet) (*Model, error) {
	if len(sets) == 0 {
		return nil, errors.New("no sets to add")
	}
	taken, given, held := map[[2]string]int{}, map[[2]string]bool{}, map[string]bool{}
	for i, s := range m.Sets {
		taken[[2]string{s.Label, s.Name}] = i + 1
		held[s.Label] = true
	}
	for _, s := range sets {
		key := [2]string{s.Label, s.Name}
		n := 0
		if s.Frames != nil {
			n, _ = s.Frames.Dims()
		}
		check := CheckNewLabel
		if held[s.Label] {
			check = CheckLabel // a class a model file holds takes more sets
		}
		labelErr, nameErr := check(s.Label), CheckSetName(s.Name)
		switch {
		case strings.TrimSpace(s.Label) == "":
			return nil, errors.New("the label is empty: give the class the set belongs to")
		case labelErr != nil:
			return nil, labelErr
		case nameErr != nil:
			return nil, fmt.Errorf("class %s: the set name %q %v: give the set another name", s.Label, s.Name, nameErr)
		case taken[key] > 0:
			if m.sameAs(s.Frames, taken[key]-1) {
				// The enrolment run again: no new name would help.
				return nil, fmt.Errorf("set %s/%s is enrolled already: the gallery's set %s/%s has the same frames (in this or another order): nothing to add", s.Label, s.Name, s.Label, s.Name)
			}
			return nil, fmt.Errorf("the gallery already has a set %q of class %q: choose another name (rename the set's file or folder, or give one set its name with setmatch enroll --name NAME)", s.Name, s.Label)
		case given[key]:
			return nil, fmt.Errorf("the set %q of class %q is given twice: give each set once, or each its own name", s.Name, s.Label)
		case n < 2:
			return nil, fmt.Errorf("set %s/%s: %d frame: a set's density needs at least 2 frames (setmatchd fails such a batch too): give a burst of more frames", s.Label, s.Name, n)
		}
		given[key] = true
	}
	next := m.clone()
	for i, mem := range next.Members() {
		// The same burst twice, under another name, would count one
		// set as two: a class looks tighter than it is. The index holds
		// the gallery's sets, then each new one as it is added, in the
		// order of mem.Sets.
		var same *sameset.Index
		if i == 0 {
			same = sameset.New()
			for _, g := range mem.Sets {
				same.Add(g.Samples)
			}
		}
		for _, s := range sets {
			y, err := mem.Project(s.Frames)
			if err != nil {
				return nil, fmt.Errorf("set %s/%s: %w", s.Label, s.Name, err)
			}
			h, err := mem.SetBandwidth(y)
			if err != nil {
				what := "the model's"
				if i > 0 {
					what = fmt.Sprintf("vote member %d's (%s)", i+1, mem.ownMethod())
				}
				return nil, fmt.Errorf("set %s/%s: bandwidth by %s rule %s: %w", s.Label, s.Name, what, mem.QueryBandwidth, err)
			}
			if same != nil {
				if o := same.Add(y); o >= 0 {
					g, whose := mem.Sets[o], "the gallery's set"
					if o >= len(m.Sets) {
						whose = "the set given" // earlier in this enrolment
					}
					return nil, fmt.Errorf("set %s/%s: the same frames (in this or another order) as %s %s/%s: give each burst once", s.Label, s.Name, whose, g.Label, g.Name)
				}
			}
			set := Set{Label: s.Label, Name: s.Name, Samples: y, Bandwidth: h}
			_, d := y.Dims()
			if err := set.validate(d, mem.UsesKDE()); err != nil {
				// The set's fault, not the model's (values too large
				// for a KDE): said of the set, before the model is
				// validated whole.
				return nil, fmt.Errorf("set %s/%s: %w", s.Label, s.Name, err)
			}
			mem.Sets = append(mem.Sets, set)
		}
	}
	return next, nil
}

// sameAs reports whether frames, projected as m projects a batch, are
// the samples of m's gallery set i, in this or another order (as
// WithSets tells a burst given again); frames m cannot project are not.
func (m *Model) sameAs(frames *mat.Dense, i int) bool {
	if frames == nil {
		return false
	}
	y, err := m.Project(frames)
	if err != nil {
		return false
	}
	ix := sameset.New()
	ix.Add(m.Sets[i].Samples)
	return ix.Add(y) == 0
}

// WithoutSets returns a copy of m without the gallery sets for which
// drop is true, in m and in every voter, and the number of sets removed.
// The record of training's choice (Selection: the method, its
// hyper-parameters, the cross-validated accuracies and times of every
// candidate, measured on the training sets) is kept, as WithSets keeps
// it: it is what chose the method. It refuses to remove nothing, or to
// leave fewer than MinClasses classes. m is left as it is.
// The copy's kFDA discriminants, and its means and bandwidths computed
// from every training set, are still those of the old gallery: the
// copy is valid once its discriminants are fitted again on the new one.
func (m *Model) WithoutSets(drop func(Set) bool) (*Model, int, error) {
	var keep []int
	for i, s := range m.Sets {
		if !drop(s) {
			keep = append(keep, i)
		}
	}
	removed := len(m.Sets) - len(keep)
	if removed == 0 {
		return nil, 0, errors.New("no gallery set matches")
	}
	left := map[string]bool{}
	for _, i := range keep {
		left[m.Sets[i].Label] = true
	}
	if len(left) < MinClasses {
		return nil, 0, fmt.Errorf("%w, and %d would be left: to stop recognising everyone, stop setmatchd (systemctl stop setmatchd: it keeps deciding with the model it loaded, also when the file is removed); to start again with other people, train a new model (setmatch train)", ErrTooFewClasses, len(left))
	}
	next := m.clone()
	for _, mem := range next.Members() {
		sets := make([]Set, len(keep))
		for k, i := range keep {
			sets[k] = mem.Sets[i]
		}
		mem.Sets = sets
		mem.Spread = mem.Spread.keeping(left)
	}
	return next, removed, nil
}

// clone returns a copy of m whose gallery slices, parameter maps and
// voters are its own (the sample matrices, W, the mean and the pipeline
// are shared: WithSets, WithoutSets and their callers replace them,
// never change them in place).
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
