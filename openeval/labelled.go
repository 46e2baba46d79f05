package openeval

import (
	"errors"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/model"
	"setmatch/openset"
)

// Labelled is one labelled set to decide: its n×D frames, or the error
// that kept it from being read (then Frames is nil and the set counts as
// failed).
type Labelled struct {
	Class, Name string
	Frames      *mat.Dense
	Err         error
}

// Report is what `setmatch test` reports of one model on labelled sets;
// --json prints it as is.
type Report struct {
	Model  string `json:"model"`
	Data   string `json:"data"`
	Method string `json:"method"`
	// Threshold is the model's open-set threshold: null for a closed set,
	// and for a vote, whose members' are in Thresholds.
	Threshold *float64 `json:"threshold"`
	// ClassThresholds is true where the model (or a member of its vote)
	// gives each class a threshold of its own, the threshold above times
	// the class's factor (model.Spread): every set's is in PerSet.
	ClassThresholds bool `json:"class_thresholds"`
	// Members are the methods of a model that decides by a vote, and
	// Thresholds theirs, in that order (null for a closed set).
	Members         []string                `json:"members,omitempty"`
	Thresholds      []*float64              `json:"thresholds,omitempty"`
	Accuracy        float64                 `json:"accuracy"` // percent of sets decided right
	Sets            int                     `json:"sets"`
	Correct         int                     `json:"correct"`
	Unknown         int                     `json:"unknown"` // sets of classes the model does not know
	KnownRejected   int                     `json:"known_rejected"`
	UnknownAccepted int                     `json:"unknown_accepted"`
	Misclassified   int                     `json:"misclassified"` // known sets accepted with another label
	Failed          int                     `json:"failed"`        // sets that could not be read or decided (wrong), each with its error in per_set
	MsPerSet        float64                 `json:"ms_per_set"`
	PerClass        map[string]ClassOutcome `json:"per_class"`
	PerSet          []SetOutcome            `json:"per_set"`
	// BalancedAccuracy is the mean of the percent of known classes' sets
	// named right and the percent of unknown classes' sets rejected: the
	// accuracy if both came as often. Absent unless there are both.
	BalancedAccuracy *float64 `json:"balanced_accuracy,omitempty"`
	// OpenSet holds the rates that need no threshold of the model's, from
	// the sets' scores; absent unless the data hold sets of both known
	// and unknown classes (failed sets left out).
	OpenSet *FreeRates `json:"open_set,omitempty"`
}

// FreeRates is what the sets' scores say of the open set whatever the
// threshold, as shares in [0, 1] (as setmatch eval's open-set rates; the
// accuracies of a Report are in percent).
type FreeRates struct {
	openset.ThresholdFree
	// Approximate is true for a model that decides by a vote: the scores
	// are the deciding members', on different scales.
	Approximate bool `json:"approximate,omitempty"`
}

// SetOutcome is the decision on one set: the nearest gallery set's label
// and score (a divergence, or for kFDA the distance its kernel induces,
// or in models of formats 2 and 3 a latent distance, as compared with the
// threshold) and the nearest set of another label (for kFDA the next
// label in its latent space, scored alike, which can score below the
// nearest), to see how far a threshold sits from the scores.
type SetOutcome struct {
	Class string `json:"class"`
	Set   string `json:"set"`
	// ClassB64 and SetB64 are the class's and the set's name in base64,
	// where the name is not valid UTF-8: WriteJSON sets them.
	ClassB64 string `json:"class_b64,omitempty"`
	SetB64   string `json:"set_b64,omitempty"`
	// Decision, Known, Best, BestSet, Score, RunnerUp, RunnerUpScore and
	// Threshold are named as in setmatchd's journal, and null where the
	// journal has null.
	Decision      string   `json:"decision"`           // a label, "unknown" or "failed"
	Known         bool     `json:"known"`              // a gallery label was given
	Best          string   `json:"best,omitempty"`     // label of the nearest gallery set
	BestSet       string   `json:"best_set,omitempty"` // its name
	Score         *float64 `json:"score"`
	RunnerUp      string   `json:"runner_up,omitempty"`
	RunnerUpScore *float64 `json:"runner_up_score"` // null when the model knows one label
	// Threshold is the one the set's score was held against: that of its
	// nearest class, by the deciding member of a vote; null for a closed
	// set.
	Threshold *float64 `json:"threshold"`
	// For a model that decides by a vote: every member's label, and the
	// member whose score and threshold decided (its method).
	Votes  []string `json:"votes,omitempty"`
	Member string   `json:"member,omitempty"`
	Error  string   `json:"error,omitempty"`
}

// ClassOutcome is one row of the confusion table: the sets of one true
// class and what they were decided as ("unknown" for rejected sets).
type ClassOutcome struct {
	Known     bool           `json:"known"` // the class is in the model
	Sets      int            `json:"sets"`
	Correct   int            `json:"correct"`
	Accuracy  float64        `json:"accuracy"`
	Predicted map[string]int `json:"predicted"`
	// ClassB64 is the class's name in base64, where it is not valid
	// UTF-8: WriteJSON sets it.
	ClassB64 string `json:"class_b64,omitempty"`
}

// ErrNoSets is Test's error for no sets: no accuracy can be reported
// of none.
var ErrNoSets = errors.New("no labelled sets to test: an accuracy needs one set or more")

// Test decides every set with the matcher, in the order of class and
// name, and scores the decisions: a set whose class is not in the model
// is right when it is rejected, and a set that could not be read or
// decided counts as failed (wrong), with its error in its SetOutcome.
// The Report's Model and Data are left for the caller. With no sets it
// returns ErrNoSets.
func Test(mt *model.Matcher, sets []Labelled) (*Report, error) {
	if len(sets) == 0 {
		return nil, ErrNoSets
	}
	m := mt.Model()
	known := map[string]bool{}
	for _, c := range m.Classes() {
		known[c] = true
	}
	s := &Report{Method: m.MethodName(), Threshold: finite.Ptr(mt.Threshold()), PerClass: map[string]ClassOutcome{}}
	for _, mem := range m.Members() {
		s.ClassThresholds = s.ClassThresholds || mem.Spread != nil
	}
	if len(m.Voters) > 0 {
		s.Threshold, s.Members = nil, m.MemberMethods()
		for _, t := range mt.Thresholds() {
			s.Thresholds = append(s.Thresholds, finite.Ptr(t))
		}
	}
	items := slices.Clone(sets)
	slices.SortStableFunc(items, func(a, b Labelled) int {
		if c := strings.Compare(a.Class, b.Class); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	var spent time.Duration
	matched := 0
	var samples []openset.Sample // the decided sets' scores
	for _, set := range items {
		err := set.Err
		var res model.Result
		if err == nil {
			start := time.Now()
			res, err = mt.Match(set.Frames)
			spent += time.Since(start)
			matched++
		}
		one := SetOutcome{Class: set.Class, Set: set.Name, Decision: model.Unknown}
		switch {
		case err != nil:
			s.Failed++
			one.Decision, one.Error = model.Failed, err.Error()
		case res.Decision.Known:
			one.Decision, one.Known = res.Decision.Label, true
		}
		if err == nil {
			d := res.Decision
			one.Best, one.BestSet, one.Score = m.Sets[d.Best].Label, m.Sets[d.Best].Name, finite.Ptr(d.Score)
			if d.RunnerUp >= 0 {
				one.RunnerUp, one.RunnerUpScore = d.RunnerLabel, finite.Ptr(d.RunnerScore)
			}
			one.Threshold = finite.Ptr(res.Threshold)
			if res.Votes != nil {
				one.Votes, one.Member = res.Votes, s.Members[res.Member]
			}
			samples = append(samples, Sample(mt, res, set.Class, !known[set.Class]))
		}
		s.PerSet = append(s.PerSet, one)
		s.count(one, known[set.Class], err != nil)
	}
	s.finish()
	if f, err := openset.Free(samples); err == nil { // else one-sided
		s.OpenSet = &FreeRates{ThresholdFree: f, Approximate: len(m.Voters) > 0}
	}
	s.MsPerSet = spent.Seconds() * 1000 / float64(max(matched, 1))
	return s, nil
}

// count adds the decision on one set of a known class or not (failed: it
// could not be read or decided) to the counts and the confusion table.
func (s *Report) count(one SetOutcome, known, failed bool) {
	pred := one.Decision
	row := s.PerClass[one.Class]
	if row.Predicted == nil {
		row.Predicted = map[string]int{}
	}
	row.Known = known
	row.Sets++
	row.Predicted[pred]++
	right := (row.Known && pred == one.Class) || (!row.Known && pred == model.Unknown)
	if right {
		row.Correct++
		s.Correct++
	}
	switch {
	case failed:
	case row.Known && pred == model.Unknown:
		s.KnownRejected++
	case row.Known && !right:
		s.Misclassified++
	case !row.Known && pred != model.Unknown:
		s.UnknownAccepted++
	}
	if !row.Known {
		s.Unknown++
	}
	s.PerClass[one.Class] = row
	s.Sets++
}

// finish sets the accuracies from the counts.
func (s *Report) finish() {
	for c, row := range s.PerClass {
		row.Accuracy = 100 * float64(row.Correct) / float64(row.Sets)
		s.PerClass[c] = row
	}
	s.Accuracy = 100 * float64(s.Correct) / float64(s.Sets)
	// Counted from the decisions rather than by openset.At on the scores:
	// the figure is the same for one model without failed sets, but a
	// vote decides by each member's own threshold, and a failed set
	// counts as wrong here, where openset leaves it out.
	if known, unknown := s.Sets-s.Unknown, s.Unknown; known > 0 && unknown > 0 {
		rejected := 0 // the unknown classes' sets decided right
		for _, row := range s.PerClass {
			if !row.Known {
				rejected += row.Correct
			}
		}
		b := 50 * (float64(s.Correct-rejected)/float64(known) + float64(rejected)/float64(unknown))
		s.BalancedAccuracy = &b
	}
}
