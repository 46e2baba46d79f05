package model

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// Spread gives each class a threshold of its own: a batch whose nearest
// class is c is known if its score is at most Threshold × Factor(c).
// Classes whose sets lie far apart get a looser threshold than classes
// whose sets lie close, so that one number does not have to serve both
// (format 7). Calibration (package deploy) sets Factors to
// exp(Exponent · s_c), s_c the class's spread (openset.ClassSpread), with
// Exponent chosen on stand-in strangers: 0 is one threshold for every
// class, 1 follows each class's spread in full.
type Spread struct {
	// Exponent is how far the classes' thresholds follow their spread,
	// in [0, 1]; informational once Factors is set.
	Exponent float64
	// Factors holds each class's factor, a finite number > 0, by label.
	// A label it does not hold has factor 1.
	Factors map[string]float64
}

// Factor returns the factor of the threshold of class label: 1 for a nil
// Spread or a label it does not hold.
func (s *Spread) Factor(label string) float64 {
	if s == nil {
		return 1
	}
	if f, ok := s.Factors[label]; ok {
		return f
	}
	return 1
}

// keeping returns a copy of s with the factors of the labels alone
// (nil for a nil s).
func (s *Spread) keeping(labels map[string]bool) *Spread {
	if s == nil {
		return nil
	}
	c := &Spread{Exponent: s.Exponent, Factors: map[string]float64{}}
	for l, f := range s.Factors {
		if labels[l] {
			c.Factors[l] = f
		}
	}
	return c
}

// validate checks the exponent and that every factor is a finite number
// > 0 of a class the gallery holds (labels).
func (s *Spread) validate(labels map[string]bool) error {
	if !(s.Exponent >= 0 && s.Exponent <= 1) {
		return fmt.Errorf("spread: exponent %v, want a number from 0 to 1", s.Exponent)
	}
	for l, f := range s.Factors {
		if !utf8.ValidString(l) {
			return fmt.Errorf("spread: label %q is not valid UTF-8", l)
		}
		if !labels[l] {
			return fmt.Errorf("spread: a factor for class %q, which the gallery does not hold", l)
		}
		if !(f > 0) || math.IsInf(f, 1) {
			return fmt.Errorf("spread: class %q has factor %v, want a finite number > 0", l, f)
		}
	}
	return nil
}

// FactorRange returns the smallest and the largest factor of the
// gallery's classes' thresholds (Spread.Factor of every class): 1 and 1
// for a model without a Spread.
func (m *Model) FactorRange() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range m.Classes() {
		f := m.Spread.Factor(c)
		lo, hi = math.Min(lo, f), math.Max(hi, f)
	}
	if lo > hi { // no classes
		return 1, 1
	}
	return lo, hi
}

// ClassThreshold returns the threshold of class label: Threshold times
// its factor (Spread.Factor).
func (m *Model) ClassThreshold(label string) float64 {
	return m.Threshold * m.Spread.Factor(label)
}
