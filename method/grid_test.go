package method

import (
	"reflect"
	"strings"
	"testing"

	"setmatch/match"
)

// evalDefaults is a GridSpec holding setmatch eval's flag defaults.
func evalDefaults() GridSpec { return DefaultGridSpec() }

// TestParseGridDefaults: the defaults of setmatch eval's flags, which are
// DefaultGridSpec, give DefaultGrid, and only the flag of the bandwidths
// relies on an empty field.
func TestParseGridDefaults(t *testing.T) {
	d := DefaultGridSpec()
	g, err := ParseGrid(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := DefaultGrid(); !reflect.DeepEqual(g, want) {
		t.Errorf("the command's defaults give\n%+v\nwant DefaultGrid\n%+v", g, want)
	}
	if d.Widths != "0.001,0.005,0.01,0.05,0.1,0.5,1" || d.DRRules != "global*0.25,global*1,global*2" || d.Bandwidths != "" {
		t.Errorf("DefaultGridSpec %+v", d)
	}
}

func TestParseGrid(t *testing.T) {
	s := evalDefaults()
	s.Bandwidths = "global*1, set*2,knn3*0.5"
	s.Widths = "0.5, 2"
	s.Regs = "1e-3"
	s.CDLRegs = "10,100"
	s.GDAP = "4, 2"
	s.WidthScale = "median"
	s.Folds = 4
	s.DRDims = "3"
	s.DRRules = "silverman*2,0.5"
	s.DRFolds, s.DRIter, s.DRFoldIter = 2, 7, 3
	s.DRStart = "fisher"
	g, err := ParseGrid(s)
	if err != nil {
		t.Fatal(err)
	}
	wantBW := []Bandwidth{{Mode: Global, Scale: 1}, {Mode: PerSet, Scale: 2}, {Mode: Adaptive, K: 3, Scale: 0.5}}
	if !reflect.DeepEqual(g.Bandwidths, wantBW) {
		t.Errorf("bandwidths %+v, want %+v", g.Bandwidths, wantBW)
	}
	if !reflect.DeepEqual(g.Widths, []float64{0.5, 2}) || !reflect.DeepEqual(g.Regs, []float64{1e-3}) ||
		!reflect.DeepEqual(g.CDLRegs, []float64{10, 100}) || !reflect.DeepEqual(g.GDAP, []int{4, 2}) {
		t.Errorf("widths %v, regs %v, cdl-regs %v, gda-p %v", g.Widths, g.Regs, g.CDLRegs, g.GDAP)
	}
	if g.WidthScale != "median" || g.Folds != 4 || !reflect.DeepEqual(g.DRDims, []int{3}) ||
		g.DRFolds != 2 || g.DRIter != 7 || g.DRFoldIter != 3 || !g.DRFisher {
		t.Errorf("grid %+v", g)
	}
	wantRules := []match.BandwidthRule{{Kind: match.Silverman, Scale: 2}, {Kind: match.Fixed, Fixed: 0.5}}
	if !reflect.DeepEqual(g.DRRules, wantRules) {
		t.Errorf("dr rules %v, want %v", g.DRRules, wantRules)
	}
	if g.Learn != nil || len(g.Dims) != 0 {
		t.Errorf("ParseGrid set Learn or Dims")
	}
}

func TestParseGridErrors(t *testing.T) {
	for _, tc := range []struct {
		edit func(*GridSpec)
		want string
	}{
		{func(s *GridSpec) { s.Folds = 1 }, "--folds must be ≥ 2"},
		{func(s *GridSpec) { s.Bandwidths = "global*1,global*0" }, "global*0"},
		{func(s *GridSpec) { s.Widths = "0.1,0" }, `--widths: "0" is not a number > 0`},
		{func(s *GridSpec) { s.Regs = "x" }, `--regs: "x" is not a number > 0`},
		{func(s *GridSpec) { s.CDLRegs = "1,-1" }, `--cdl-regs: "-1" is not a number > 0`},
		{func(s *GridSpec) { s.Widths = "NaN" }, `--widths: "NaN" is not a number > 0`},
		{func(s *GridSpec) { s.Widths = "1,inf" }, `--widths: "inf" is infinite: give finite numbers > 0`},
		{func(s *GridSpec) { s.Regs = "+Inf" }, `--regs: "+Inf" is infinite`},
		{func(s *GridSpec) { s.CDLRegs = " Infinity" }, `--cdl-regs: " Infinity" is infinite`},
		{func(s *GridSpec) { s.GDAP = "2,0" }, `--gda-p: "0" is not a whole number ≥ 1`},
		{func(s *GridSpec) { s.WidthScale = "log" }, `--width-scale "log": want raw, median or both`},
		{func(s *GridSpec) { s.WidthScale = "" }, `--width-scale "": want raw, median or both`},
		{func(s *GridSpec) { s.DRDims = "5,x" }, `--dr-dim: "x" is not a whole number ≥ 1`},
		{func(s *GridSpec) { s.DRDims = "" }, `--dr-dim: "" is not a whole number ≥ 1`},
		{func(s *GridSpec) { s.DRRules = "nn,wide" }, "--dr-bandwidth: "},
		{func(s *GridSpec) { s.DRRules = "global*1,global*0" }, `--dr-bandwidth: "global*0": the scale S of global*S must be a number > 0`},
		{func(s *GridSpec) { s.DRRules = "global*-2" }, `--dr-bandwidth: "global*-2"`},
		{func(s *GridSpec) { s.DRRules = "global*inf" }, `--dr-bandwidth: "global*inf"`},
		{func(s *GridSpec) { s.DRFolds = 1 }, "--dr-folds must be ≥ 2"},
		{func(s *GridSpec) { s.DRStart = "lda" }, `--dr-start "lda": want pca or fisher`},
		{func(s *GridSpec) { s.DRIter = 0 }, "--dr-iter and --dr-fold-iter must be ≥ 1"},
		{func(s *GridSpec) { s.DRFoldIter = 0 }, "--dr-iter and --dr-fold-iter must be ≥ 1"},
	} {
		s := evalDefaults()
		tc.edit(&s)
		_, err := ParseGrid(s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", s, err, tc.want)
		}
	}
}

// TestParseGridDRGuard: --dr-guard false leaves the start out of the -dr
// candidates (DefaultGrid has it in), and "start" among the
// --dr-bandwidth rules puts it in, as no rule or scale of its own.
func TestParseGridDRGuard(t *testing.T) {
	for _, c := range []struct {
		guard bool
		rules string
		want  bool
	}{
		{false, "global*1", false},
		{true, "global*1", true},
		{false, "start,global*2", true},
		{false, "global*2, start", true},
	} {
		s := evalDefaults()
		s.DRGuard, s.DRRules = c.guard, c.rules
		g, err := ParseGrid(s)
		if err != nil {
			t.Fatal(err)
		}
		if g.DRGuard != c.want || len(g.DRRules) != 0 || len(g.DRScales) != 1 {
			t.Errorf("--dr-guard=%v --dr-bandwidth %q: guard %v, rules %v, scales %v; want guard %v and one scale", c.guard, c.rules, g.DRGuard, g.DRRules, g.DRScales, c.want)
		}
	}
}
