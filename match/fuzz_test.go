package match

import (
	"math"
	"testing"
)

// FuzzParseBandwidthRule: a bandwidth rule is read or refused; one read
// has a finite positive scale and h, and its name reads back as the
// same rule (a scale of 1, which the name leaves out, as 0: "nn*1" is
// "nn").
func FuzzParseBandwidthRule(f *testing.F) {
	for _, s := range []string{"scott", "silverman", "nn", "scott*2", "0.5", "1e-300", "inf", "nn*0", "NN * 3", "-1", "nan"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRecordedBandwidthRule(s)
		if err != nil {
			return
		}
		if r.Kind == Fixed && (!(r.Fixed > 0) || math.IsInf(r.Fixed, 0)) {
			t.Fatalf("%q: h %v", s, r.Fixed)
		}
		if r.Scale != 0 && (!(r.Scale > 0) || math.IsInf(r.Scale, 0)) {
			t.Fatalf("%q: scale %v", s, r.Scale)
		}
		back, err := ParseRecordedBandwidthRule(r.String())
		if err != nil || unscaled(back) != unscaled(r) {
			t.Fatalf("%q reads as %+v, named %q, which reads as %+v, %v", s, r, r.String(), back, err)
		}
		if _, err := ParseBandwidthRule(s); err != nil && r.Kind != Fixed {
			t.Fatalf("%q: a recorded rule that is not a fixed h is refused: %v", s, err)
		}
		_, _ = ParseMeasure(s)
	})
}

// unscaled returns r with a scale of 1 written as 0, which means 1.
func unscaled(r BandwidthRule) BandwidthRule {
	if r.Scale == 1 {
		r.Scale = 0
	}
	return r
}
