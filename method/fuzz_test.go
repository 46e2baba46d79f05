package method

import (
	"math"
	"strings"
	"testing"
)

// FuzzParseNames: --methods is read or refused; a list read holds known
// names, each once.
func FuzzParseNames(f *testing.F) {
	for _, s := range []string{"all", "nn-h,kfda-h", "NN-H, nn-h", "", ",", "nope", Join(Names, ",")} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names, err := ParseNames(s)
		if err != nil {
			return
		}
		if len(names) == 0 {
			t.Fatalf("%q: no names and no error", s)
		}
		seen := map[Name]bool{}
		for _, n := range names {
			if seen[n] || !strings.Contains(","+Join(Names, ",")+",", ","+string(n)+",") {
				t.Fatalf("%q: %v", s, names)
			}
			seen[n] = true
		}
	})
}

// FuzzParseGrid: setmatch eval's grid flags are read or refused with an
// error naming the flag; every number of a grid read is finite and in
// its range, so that no method is run on an infinite width or scale.
func FuzzParseGrid(f *testing.F) {
	d := DefaultGridSpec()
	f.Add("global*1,set*2,knn3*1", d.Widths, d.Regs, d.CDLRegs, d.GDAP, d.WidthScale, d.DRDims, d.DRRules, d.DRStart)
	f.Add("", "0.5,1", "1e-3", "1e-4", "1,2", "both", "5,10", "start,global*2,scott", "fisher")
	f.Add("knn0*1", "inf", "-1", "0", "x", "raw", "0", "nn*inf", "")
	f.Add("", "inf", d.Regs, d.CDLRegs, d.GDAP, d.WidthScale, d.DRDims, d.DRRules, d.DRStart)
	f.Add("", d.Widths, d.Regs, "1,+Inf", d.GDAP, d.WidthScale, d.DRDims, d.DRRules, d.DRStart)
	f.Fuzz(func(t *testing.T, bw, widths, regs, cdlRegs, gdaP, scale, dims, rules, start string) {
		s := DefaultGridSpec()
		s.Bandwidths, s.Widths, s.Regs, s.CDLRegs, s.GDAP, s.WidthScale, s.DRDims, s.DRRules, s.DRStart = bw, widths, regs, cdlRegs, gdaP, scale, dims, rules, start
		g, err := ParseGrid(s)
		if err != nil {
			if !strings.Contains(err.Error(), "--") && !strings.Contains(err.Error(), "bandwidth") {
				t.Fatalf("error names no flag: %v", err)
			}
			return
		}
		for _, l := range [][]float64{g.Widths, g.Regs, g.CDLRegs, g.DRScales} {
			for _, v := range l {
				if !(v > 0) || math.IsInf(v, 0) {
					t.Fatalf("grid holds %v: %+v", v, s)
				}
			}
		}
		for _, b := range g.Bandwidths {
			if !(b.Scale > 0) || math.IsInf(b.Scale, 0) {
				t.Fatalf("bandwidth scale %v: %+v", b.Scale, s)
			}
			if _, err := ParseBandwidth(b.String()); err != nil {
				t.Fatalf("bandwidth %+v written %q does not read back: %v", b, b.String(), err)
			}
		}
	})
}
