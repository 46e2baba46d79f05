package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// MaxVoters is the most voters a model may hold (each is a whole model,
// matched in full for every batch).
const MaxVoters = 4

// Members returns the members of m's vote: m itself, then its voters;
// just m for a model without voters.
func (m *Model) Members() []*Model {
	return append([]*Model{m}, m.Voters...)
}

// MemberMethods returns the method of every member of m's vote (Members),
// each as it decides alone.
func (m *Model) MemberMethods() []string {
	var out []string
	for _, v := range m.Members() {
		out = append(out, v.ownMethod())
	}
	return out
}

// validateVoters checks that every voter is a valid model of its own,
// on the same input features and gallery sets as m, without a feature
// pipeline or voters of its own.
func (m *Model) validateVoters() error {
	if len(m.Voters) > MaxVoters {
		return fmt.Errorf("%d voters, at most %d", len(m.Voters), MaxVoters)
	}
	for i, v := range m.Voters {
		if err := m.validateVoter(v); err != nil {
			return fmt.Errorf("voter %d: %w", i+1, err)
		}
	}
	return nil
}

func (m *Model) validateVoter(v *Model) error {
	switch {
	case v == nil:
		return errors.New("no model")
	case len(v.Voters) > 0:
		return errors.New("a voter has voters of its own")
	case v.Features != nil:
		return errors.New("a voter has a feature pipeline of its own (the model's applies to every member)")
	}
	if err := v.validate(); err != nil {
		return err
	}
	if v.InputDim() != m.InputDim() {
		return fmt.Errorf("takes %d features, the model %d", v.InputDim(), m.InputDim())
	}
	if len(v.Sets) != len(m.Sets) {
		return fmt.Errorf("%d gallery sets, the model %d", len(v.Sets), len(m.Sets))
	}
	for j, s := range v.Sets {
		if s.Label != m.Sets[j].Label || s.Name != m.Sets[j].Name {
			return fmt.Errorf("gallery set %d is %q/%q, the model's %q/%q: the members must hold the same sets in the same order", j, s.Label, s.Name, m.Sets[j].Label, m.Sets[j].Name)
		}
	}
	return nil
}

// ErrVoteThreshold is returned by WithThreshold for a finite threshold
// on a model that decides by a vote.
var ErrVoteThreshold = errors.New("a vote decides whether a batch is known by the threshold of the member that gives the label, each on its own scale: one number cannot replace them; leave the threshold unset (the model's) or make it inf (a closed set)")

// newVoters builds the matchers of the model's voters, with the same
// number of goroutines; NewMatcherWorkers has validated them with the
// model.
func (mt *Matcher) newVoters() error {
	for i, v := range mt.model.Voters {
		vm, err := v.newMatcher(mt.workers)
		if err != nil {
			return fmt.Errorf("voter %d (%s): %w", i+1, v.ownMethod(), err)
		}
		mt.voters = append(mt.voters, vm)
	}
	return nil
}

// matchVote matches the batch with the members of the vote, in order,
// until the members matched so far decide it (voteDecided: with
// three members, once the first two agree), and returns the Result of
// the first member whose label the vote decides for, with Votes ("" for
// the members not matched) and Member set. The label and the decision
// are those of the vote of every member.
func (mt *Matcher) matchVote(ctx context.Context, batch *mat.Dense) (Result, error) {
	own := *mt
	own.voters = nil
	members := append([]*Matcher{&own}, mt.voters...)
	results := make([]Result, len(members))
	votes := make([]string, len(members))
	for i, m := range members {
		r, err := m.MatchContext(ctx, batch)
		if err != nil {
			if i == 0 {
				return Result{}, err
			}
			return Result{}, fmt.Errorf("voter %d (%s): %w", i, m.model.ownMethod(), err)
		}
		results[i], votes[i] = r, m.labels[r.Decision.Best]
		if voteDecided(votes[:i+1], len(members)) {
			break
		}
	}
	w := vote(votes)
	res := results[w]
	res.Votes, res.Member = votes, w
	return res, nil
}

// Thresholds returns the open-set threshold of every member of the
// matcher's vote (the model's own first, then its voters'): the one
// Threshold returns for a model without voters.
func (mt *Matcher) Thresholds() []float64 {
	out := []float64{mt.threshold}
	for _, v := range mt.voters {
		out = append(out, v.threshold)
	}
	return out
}

// ClosedSet reports whether every threshold of the matcher (Thresholds:
// its own, or each member's of a vote) lets every batch in: +Inf, or a
// finite one so large (above 1e308) that no score reaches it. Such a
// matcher names every batch as its nearest known class, strangers too.
func (mt *Matcher) ClosedSet() bool {
	return !slices.ContainsFunc(mt.Thresholds(), func(t float64) bool { return !(t > 1e308) })
}

// withThresholdVote is WithThreshold for a vote: +Inf makes every member
// decide a closed set; a finite t is ErrVoteThreshold.
func (mt *Matcher) withThresholdVote(t float64) (*Matcher, error) {
	if !math.IsInf(t, 1) {
		return nil, fmt.Errorf("threshold %g: %w", t, ErrVoteThreshold)
	}
	c := *mt
	c.threshold = t
	c.voters = make([]*Matcher, len(mt.voters))
	for i, v := range mt.voters {
		vc := *v
		vc.threshold = t
		c.voters[i] = &vc
	}
	return &c, nil
}
