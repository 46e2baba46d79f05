package deploy

import (
	"math"
	"strings"
	"testing"
)

// FuzzParseThreshold: any --threshold text is read or refused with an
// error that names the flag; a rule read is written back by ThresholdRule
// as text that reads to the same rule.
func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"", "none", "auto", "auto:balanced", "auto:far=5", "auto:far=0", "auto:far=5%",
		"auto:95", "auto:99.5%", "0", "0.25", "1e308", "inf", "+Inf", "-1", "NaN", "auto:far=100", "auto:0", " auto:90 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var opt Options
		if err := ParseThreshold(s, &opt); err != nil {
			if !strings.Contains(err.Error(), "--threshold") {
				t.Fatalf("error does not name --threshold: %v", err)
			}
			return
		}
		if math.IsNaN(opt.Threshold) || opt.Threshold < 0 {
			t.Fatalf("%q: threshold %v", s, opt.Threshold)
		}
		if opt.AutoFAR && !(opt.FARPercent >= 0 && opt.FARPercent < 100) {
			t.Fatalf("%q: far %v", s, opt.FARPercent)
		}
		if opt.AutoAccept != 0 && !(opt.AutoAccept > 0 && opt.AutoAccept < 100) {
			t.Fatalf("%q: accept %v", s, opt.AutoAccept)
		}
		rule := ThresholdRule(opt)
		var again Options
		if err := ParseThreshold(rule, &again); err != nil {
			t.Fatalf("%q reads, but its rule %q does not: %v", s, rule, err)
		}
		if r2 := ThresholdRule(again); r2 != rule {
			t.Fatalf("%q: rule %q reads back as %q", s, rule, r2)
		}
	})
}

// FuzzParseSpreadExponents: --spread-exponents is read or refused; what
// is read is a list from 0 to 1 in increasing order that Format writes
// back as the same list.
func FuzzParseSpreadExponents(f *testing.F) {
	for _, s := range []string{"0", "0,0.25,0.5,0.75,1", "0.5", "1,0", "2", "", ",", "NaN", "0x1p-2", "-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		exps, err := ParseSpreadExponents(s)
		if err != nil {
			if !strings.Contains(err.Error(), "spread exponent") {
				t.Fatalf("error does not say what it read: %v", err)
			}
			return
		}
		if len(exps) == 0 {
			t.Fatalf("%q: no exponents and no error", s)
		}
		for i, a := range exps {
			if !(a >= 0 && a <= 1) || (i > 0 && a <= exps[i-1]) {
				t.Fatalf("%q: exponents %v", s, exps)
			}
		}
		back, err := ParseSpreadExponents(FormatSpreadExponents(exps))
		if err != nil || len(back) != len(exps) {
			t.Fatalf("%q: %v written as %q reads as %v, %v", s, exps, FormatSpreadExponents(exps), back, err)
		}
		for i := range back {
			if back[i] != exps[i] {
				t.Fatalf("%q: %v written as %q reads as %v", s, exps, FormatSpreadExponents(exps), back)
			}
		}
	})
}
