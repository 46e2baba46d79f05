package method

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"setmatch/match"
)

// GridSpec is a Grid written as text, as the flags of setmatch eval give it;
// ParseGrid turns it into a Grid. Lists are comma-separated.
//
// Bandwidths, Widths, Regs, CDLRegs and GDAP keep DefaultGrid's list when
// empty. The other fields are always checked (the command's flags give
// them defaults), so e.g. an empty DRDims is an error.
type GridSpec struct {
	Bandwidths string // KDE bandwidths, each as ParseBandwidth reads it, e.g. "global*1,set*2,knn3*1"
	Widths     string // kernel widths s, numbers > 0
	Regs       string // kFDA regularisers, numbers > 0
	CDLRegs    string // CDL covariance regularisers λ, numbers > 0
	GDAP       string // GDA subspace dimensions p, whole numbers ≥ 1

	WidthScale string // raw, median or both
	Folds      int    // inner cross-validation folds, ≥ 2
	DRDims     string // dimensions d of the -dr methods, whole numbers ≥ 1
	DRRules    string // training bandwidths of the -dr methods: rules as match.ParseBandwidthRule reads them, global*S, or start
	DRGuard    bool   // the PCA start of every dimension is a candidate too
	DRFolds    int    // folds of the -dr cross-validation, ≥ 2
	DRIter     int    // iteration cap of the final W, ≥ 1
	DRFoldIter int    // iteration cap of W inside a fold, ≥ 1
}

// ParseGrid returns DefaultGrid with the settings of s (Learn stays nil).
// Its errors name the setmatch eval flag of the field at fault, e.g.
// "--widths: "x" is not a number > 0".
func ParseGrid(s GridSpec) (Grid, error) {
	grid := DefaultGrid()
	grid.Folds = s.Folds
	if s.Folds < 2 {
		return Grid{}, fmt.Errorf("--folds must be ≥ 2")
	}
	if s.Bandwidths != "" {
		grid.Bandwidths = nil
		for _, f := range strings.Split(s.Bandwidths, ",") {
			b, err := ParseBandwidth(f)
			if err != nil {
				return Grid{}, err
			}
			grid.Bandwidths = append(grid.Bandwidths, b)
		}
	}
	var err error
	for _, l := range []struct {
		text, flag string
		dst        *[]float64
	}{
		{s.Widths, "--widths", &grid.Widths},
		{s.Regs, "--regs", &grid.Regs},
		{s.CDLRegs, "--cdl-regs", &grid.CDLRegs},
	} {
		if l.text != "" {
			if *l.dst, err = parsePositives(l.text, l.flag); err != nil {
				return Grid{}, err
			}
		}
	}
	if s.GDAP != "" {
		if grid.GDAP, err = parseCounts(s.GDAP, "--gda-p"); err != nil {
			return Grid{}, err
		}
	}
	switch s.WidthScale {
	case "raw", "median", "both":
		grid.WidthScale = s.WidthScale
	default:
		return Grid{}, fmt.Errorf("--width-scale %q: want raw, median or both", s.WidthScale)
	}
	if grid.DRDims, err = parseCounts(s.DRDims, "--dr-dim"); err != nil {
		return Grid{}, err
	}
	grid.DRRules, grid.DRScales = nil, nil
	grid.DRGuard = s.DRGuard
	for _, f := range strings.Split(s.DRRules, ",") {
		if strings.TrimSpace(f) == "start" {
			grid.DRGuard = true
			continue
		}
		if v, ok, err := parseGlobalScale(f); ok {
			if err != nil {
				return Grid{}, fmt.Errorf("--dr-bandwidth: %v", err)
			}
			grid.DRScales = append(grid.DRScales, v)
			continue
		}
		r, err := match.ParseBandwidthRule(f)
		if err != nil {
			return Grid{}, fmt.Errorf("--dr-bandwidth: %v", err)
		}
		grid.DRRules = append(grid.DRRules, r)
	}
	if s.DRFolds < 2 {
		return Grid{}, fmt.Errorf("--dr-folds must be ≥ 2")
	}
	if s.DRIter < 1 || s.DRFoldIter < 1 {
		return Grid{}, fmt.Errorf("--dr-iter and --dr-fold-iter must be ≥ 1")
	}
	grid.DRFolds, grid.DRIter, grid.DRFoldIter = s.DRFolds, s.DRIter, s.DRFoldIter
	return grid, nil
}

// parsePositives reads a comma-separated list of numbers > 0.
func parsePositives(s, flag string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) {
			return nil, fmt.Errorf("%s: %q is not a number > 0", flag, f)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseCounts reads a comma-separated list of whole numbers ≥ 1.
func parseCounts(s, flag string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%s: %q is not a whole number ≥ 1", flag, f)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseGlobalScale reads "global*S" (or "global", S = 1); ok is false
// when s is not of that form.
func parseGlobalScale(s string) (v float64, ok bool, err error) {
	name, scale, cut := strings.Cut(strings.TrimSpace(s), "*")
	if name != "global" {
		return 0, false, nil
	}
	if !cut {
		return 1, true, nil
	}
	v, err = strconv.ParseFloat(scale, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, true, fmt.Errorf("%q: the scale S of global*S must be a number > 0", s)
	}
	return v, true, nil
}
