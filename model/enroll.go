package model

import (
	"errors"
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// ErrNeedsRetraining is wrapped by Enroll's error for a model whose method
// cannot take new gallery sets without retraining.
var ErrNeedsRetraining = errors.New("enrolment not possible")

// Enroll adds a set to the gallery without retraining W: frames (n×D, raw
// features) are projected by the model and get their bandwidth by the model's
// query-bandwidth rule, exactly as an incoming batch would. label may be a
// new class; name identifies the set in decisions and must not already name
// a set of that class.
//
// A model that decides by kFDA cannot take new sets without retraining
// (the discriminant is fitted on the gallery): Enroll returns an error
// wrapping ErrNeedsRetraining.
func (m *Model) Enroll(label, name string, frames *mat.Dense) error {
	if err := m.CanEnroll(); err != nil {
		return err
	}
	if strings.TrimSpace(label) == "" {
		return fmt.Errorf("enroll: the label is empty: give the class the set belongs to")
	}
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("enroll: the set name is empty")
	}
	for _, s := range m.Sets {
		if s.Name == name && s.Label == label {
			return fmt.Errorf("enroll: the gallery already has a set %q of class %q: choose another name", name, label)
		}
	}
	y, err := m.Project(frames)
	if err != nil {
		return fmt.Errorf("enroll %s/%s: %w", label, name, err)
	}
	h, err := m.QueryBandwidth.Bandwidth(y)
	if err != nil {
		return fmt.Errorf("enroll %s/%s: bandwidth by the model's rule %s: %w", label, name, m.QueryBandwidth, err)
	}
	m.Sets = append(m.Sets, Set{Label: label, Name: name, Samples: y, Bandwidth: h})
	if err := m.Validate(); err != nil {
		m.Sets = m.Sets[:len(m.Sets)-1]
		return fmt.Errorf("enroll %s/%s: %w", label, name, err)
	}
	return nil
}

// CanEnroll returns nil if Enroll can add sets to m, else why not (an
// error wrapping ErrNeedsRetraining).
func (m *Model) CanEnroll() error {
	if len(m.Voters) > 0 {
		return fmt.Errorf("%w: this model decides by a vote of %d methods (%s), each fitted on the gallery: adding sets needs retraining: run setmatch train on the training data with the new sets added",
			ErrNeedsRetraining, len(m.Voters)+1, strings.Join(m.MemberMethods(), ", "))
	}
	if k := m.KFDA; k != nil {
		return fmt.Errorf("%w: this model decides by kFDA (%s, %d latent dimensions): adding sets needs retraining: run setmatch train on the training data with the new sets added",
			ErrNeedsRetraining, k.Describe(), k.Dim())
	}
	return nil
}
