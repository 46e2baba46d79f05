package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSpreadDecidesByTheNearestClassThreshold: a batch is known when its
// score is within the threshold times its nearest class's factor, with
// the model's threshold or one WithThreshold gives, and Result.Factor
// says which factor applied; a class without one has factor 1.
func TestSpreadDecidesByTheNearestClassThreshold(t *testing.T) {
	m := mfModel(7, 6, 3, []int{5, 4, 6, 5, 4, 6})
	mt := mustMatcher(t, m)
	x := mfBatch(rand.New(rand.NewPCG(8, 1)), m, 7, 0)
	res, err := mt.Match(x)
	if err != nil {
		t.Fatal(err)
	}
	label, score := mt.Labels()[res.Decision.Best], res.Decision.Score
	for _, c := range []struct {
		factor, threshold float64
		known             bool
	}{
		{2, score / 1.5, true},    // 2 · score/1.5 > score
		{0.5, score / 1.5, false}, // 0.5 · score/1.5 < score
		{1, score * 1.01, true},
		{1, score * 0.99, false},
		// At the threshold: a score equal to it is known, the next
		// number below it is not; a closed set knows every batch.
		{1, score, true},
		{2, score / 2, true},
		{1, math.Nextafter(score, 0), false},
		{0.5, math.Inf(1), true},
	} {
		sp := &Spread{Exponent: 1, Factors: map[string]float64{label: c.factor}}
		for _, viaModel := range []bool{true, false} {
			f := *m
			f.Spread = sp
			var got *Matcher
			var err error
			if viaModel {
				f.Threshold = c.threshold
				got, err = f.NewMatcher()
			} else if got, err = f.NewMatcher(); err == nil {
				got, err = got.WithThreshold(c.threshold)
			}
			if err != nil {
				t.Fatal(err)
			}
			r, err := got.Match(x)
			if err != nil {
				t.Fatal(err)
			}
			wantLabel := ""
			if c.known {
				wantLabel = label
			}
			if r.Decision.Known != c.known || r.Decision.Label != wantLabel || r.Factor != c.factor || r.Threshold != c.threshold*c.factor || r.Decision.Score != score {
				t.Errorf("factor %v, threshold %v (model's: %v): known %v %q, factor %v, held against %v, score %v; want %v %q, %v, %v, %v",
					c.factor, c.threshold, viaModel, r.Decision.Known, r.Decision.Label, r.Factor, r.Threshold, r.Decision.Score, c.known, wantLabel, c.factor, c.threshold*c.factor, score)
			}
		}
	}
	// Another class's factor does not apply.
	other := "a"
	if label == "a" {
		other = "b"
	}
	f := *m
	f.Threshold, f.Spread = score*0.99, &Spread{Exponent: 1, Factors: map[string]float64{other: 10}}
	got := mustMatcher(t, &f)
	if r, err := got.Match(x); err != nil || r.Decision.Known || r.Factor != 1 {
		t.Errorf("another class's factor: known %v, factor %v (%v); want unknown, 1", r.Decision.Known, r.Factor, err)
	}
}

// TestSpreadValidate: an exponent outside [0, 1], a factor that is not a
// finite number > 0, or one for a class the gallery does not hold makes
// the model invalid.
func TestSpreadValidate(t *testing.T) {
	for _, c := range []struct {
		sp   Spread
		want string
	}{
		{Spread{Exponent: 1.5, Factors: map[string]float64{"a": 1}}, "exponent"},
		{Spread{Exponent: -0.1}, "exponent"},
		{Spread{Exponent: 1, Factors: map[string]float64{"a": 0}}, "factor 0"},
		{Spread{Exponent: 1, Factors: map[string]float64{"a": -1}}, "factor -1"},
		{Spread{Exponent: 1, Factors: map[string]float64{"a": math.Inf(1)}}, "factor +Inf"},
		{Spread{Exponent: 1, Factors: map[string]float64{"z": 1}}, `class "z"`},
	} {
		m := mfModel(7, 6, 3, []int{5, 4, 6, 5, 4, 6})
		m.Spread = &c.sp
		err := m.Validate()
		if !errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an invalid model saying %q", c.sp, err, c.want)
		}
	}
	m := mfModel(7, 6, 3, []int{5, 4, 6, 5, 4, 6})
	m.Spread = &Spread{Exponent: 0.5, Factors: map[string]float64{"a": 2, "b": 0.5}}
	if err := m.Validate(); err != nil {
		t.Errorf("valid spread: %v", err)
	}
}

// TestWithoutSetsDropsForgottenClassesFactors: forgetting a class drops
// its factor, so the model stays valid; the others keep theirs.
func TestWithoutSetsDropsForgottenClassesFactors(t *testing.T) {
	m := mfModel(7, 6, 3, []int{5, 4, 6, 5, 4, 6, 5, 4})
	m.Spread = &Spread{Exponent: 0.5, Factors: map[string]float64{"a": 2, "b": 0.5}}
	next, _, err := m.WithoutSets(func(s Set) bool { return s.Label == "a" })
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := next.Spread.Factors["a"]; ok || next.Spread.Factor("b") != 0.5 {
		t.Errorf("factors after forgetting a: %v", next.Spread.Factors)
	}
	if m.Spread.Factor("a") != 2 {
		t.Error("the model forgotten from changed")
	}
}

// TestFactorRange: the range runs over every class of the gallery, a
// class without a factor at 1.
func TestFactorRange(t *testing.T) {
	m := mfModel(7, 6, 3, []int{5, 4, 6, 5, 4, 6})
	if lo, hi := m.FactorRange(); lo != 1 || hi != 1 {
		t.Errorf("no spread: %v to %v, want 1 to 1", lo, hi)
	}
	m.Spread = &Spread{Exponent: 1, Factors: map[string]float64{"a": 1.5, "b": 1.25}}
	if lo, hi := m.FactorRange(); lo != 1 || hi != 1.5 {
		t.Errorf("factors %v and a class without one: %v to %v, want 1 to 1.5", m.Spread.Factors, lo, hi)
	}
}

// TestSpreadOnlyFromFormat7: the header's spread is read from a file of
// format 7, and ignored in one of an older format, which had none (the
// fields of later versions are ignored): one threshold for every class.
func TestSpreadOnlyFromFormat7(t *testing.T) {
	m := mfModel(7, 6, 3, []int{5, 4, 6, 5, 4, 6})
	m.Spread = &Spread{Exponent: 0.5, Factors: map[string]float64{"a": 2, "b": 0.5}}
	b := mfEncode(t, m)
	got, err := Decode(bytes.NewReader(b))
	if err != nil || got.Spread == nil || got.Spread.Factor("a") != 2 || got.Spread.Factor("b") != 0.5 || got.Spread.Exponent != 0.5 {
		t.Fatalf("format 7: %v, spread %+v; want the factors written", err, got.Spread)
	}
	v6 := bytes.Clone(b)
	binary.LittleEndian.PutUint32(v6[8:12], 6)
	got, err = Decode(bytes.NewReader(mfReseal(v6)))
	if err != nil || got.Spread != nil || got.ClassThreshold("a") != m.Threshold {
		t.Errorf("format 6: %v, spread %+v; want no spread", err, got.Spread)
	}
}
