package method

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"setmatch/match"
)

// Grid holds the candidate hyper-parameters tried by cross-validation.
type Grid struct {
	// KDE bandwidths (NN and kFDA on divergences).
	Bandwidths []Bandwidth
	// Kernel widths s of k = exp(−s·δ) as in the paper's grid.
	Widths []float64
	// WidthScale: WidthRaw uses δ as it is, WidthMedian divides δ by its
	// median over training pairs first, WidthBoth tries the two.
	WidthScale WidthScale
	// Regs: kFDA regulariser ε relative to tr(S_w)/m.
	Regs []float64
	// Dims: latent dimensions tried (clamped to C−1; 0 = C−1). Empty means
	// C−1, ⌈(C−1)/2⌉ and ⌈(C−1)/4⌉.
	Dims []int
	// GDAP: subspace dimensions p for GDA.
	GDAP []int
	// CDLRegs: covariance regulariser λ relative to the median tr(C)/d.
	CDLRegs []float64
	// Folds: inner cross-validation folds.
	Folds int
	// Learn is the projection learner for the -dr methods (nil: those
	// methods report an error).
	Learn Learner
	// DRDims and DRRules are the candidate dimensions d and training
	// bandwidth rules of the -dr methods, crossed and chosen by
	// cross-validation (see runDR); the first of each is the default when
	// there is nothing to cross-validate on. Empty DRDims means {10}
	// (auto's -dr candidates: the package's DRDims); empty DRRules means
	// the learner's default rule. DefaultGrid takes the package's DRDims
	// and DRScales, the one grid of nn-h-dr and nn-j-dr run alone (eval,
	// train --method) and of auto's -dr candidates, which try the d of
	// DRDims below the feature dimension (autoDims).
	DRDims  []int
	DRRules []match.BandwidthRule
	// DRScales are candidate global training bandwidths relative to the
	// projected data (LearnParams.Scale), tried after DRRules (auto's -dr
	// candidates: the package's DRScales when empty).
	DRScales []float64
	// DRGuard adds, for every d, the start of training (LearnParams.Start)
	// as a candidate: the cross-validation then keeps the start (the PCA
	// start, or with DRFisher the Fisher start) when the learned W does
	// not beat it on held-out training sets.
	DRGuard bool
	// DRFisher: W is learned from the subspace of Fisher's discriminant
	// of the training frames (LearnParams.Fisher), not from their PCA,
	// and the guard candidate is that start.
	DRFisher bool
	// DRFolds: folds of the -dr cross-validation (W is learned once per
	// fold and candidate, so fewer than Folds; 0 means 3).
	DRFolds int
	// DRIter and DRFoldIter: iteration caps when learning the final W and
	// W inside the cross-validation folds (0: the learner's default).
	DRIter, DRFoldIter int
	// DRSmallest > 0 is the number of sets of the smallest class of the
	// training sets that the method chosen is deployed on: a -dr method
	// run on a part of them (an outer fold of Choose) then learns its W
	// from frame halves or from the sets as the one deployed will
	// (learnInput), not as the part's own classes would say. 0: as the
	// sets it is run on say.
	DRSmallest int
	// The auto method's candidates (AutoCandidates; empty: AutoMethods;
	// its -dr candidates take DRDims and DRScales) and its outer folds
	// (0: 3).
	AutoMethods []Name
	AutoFolds   int
	AutoRepeats int // dealings of the training sets to the outer folds (0: AutoRepeats)
	// AutoScoreAll scores every candidate even when the earlier ones
	// settle the choice (Choose stops early otherwise), for studies that
	// compare rules on every candidate's outcomes.
	AutoScoreAll bool
	// ChoiceSets is the most training sets auto's choice scores its
	// candidates on (0: ChoiceSets; below 0: every set): beyond it, the
	// choice runs on a sample of whole classes (ChoiceSample) and its
	// winner is fitted on every set.
	ChoiceSets int
}

// ChoiceCap returns the most training sets g's choice scores its
// candidates on (Grid.ChoiceSets): 0 for every set.
func (g Grid) ChoiceCap() int {
	switch {
	case g.ChoiceSets == 0:
		return ChoiceSets
	case g.ChoiceSets < 0:
		return 0
	}
	return g.ChoiceSets
}

// DRDims and DRScales are the grid of the -dr methods: the dimensions d
// of the learned space and the global training bandwidths S (global*S),
// crossed by cross-validation with the PCA start of every d. DefaultGrid
// takes them, so nn-h-dr and nn-j-dr run alone (setmatch eval's
// --dr-dim and --dr-bandwidth default to them, setmatch train --method
// nn-h-dr) and auto's -dr candidates (of the d below the feature
// dimension) try the same grid. As in every list of DefaultGrid, the
// first entry is the one used when there is nothing to cross-validate on
// (one training set per class): d = 10, then the smaller d = 5 and the
// larger ones; auto tries them from the smallest up (autoDims).
var (
	DRDims   = []int{10, 5, 20, 40}
	DRScales = []float64{0.25, 1, 2}
)

// PaperWidths is the grid of kernel widths of the paper's experiments.
var PaperWidths = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1}

// DefaultGrid returns the grid used by setmatch eval.
func DefaultGrid() Grid {
	// The first entry of each list is the default used when a split
	// leaves nothing to cross-validate on (one gallery set per class).
	var bws []Bandwidth
	for _, s := range []float64{1, 0.25, 0.5, 2, 4, 8} {
		bws = append(bws, Bandwidth{Mode: Global, Scale: s})
	}
	for _, s := range []float64{1, 2, 4} {
		bws = append(bws, Bandwidth{Mode: PerSet, Scale: s}, Bandwidth{Mode: Adaptive, K: 3, Scale: s})
	}
	return Grid{
		Bandwidths: bws,
		Widths:     PaperWidths,
		WidthScale: WidthBoth,
		Regs:       []float64{1e-3, 1e-2, 1e-1, 1},
		GDAP:       []int{3, 1, 2, 5, 10, 15},
		CDLRegs:    []float64{1e-3, 1e-5, 1e-4, 1e-2, 1e-1, 1, 10, 100},
		Folds:      5,
		// The -dr methods learn W with one global training bandwidth
		// (global*S, S chosen by cross-validation) and keep the PCA start
		// when learning does not beat it on held-out gallery sets: per-set
		// bandwidths froze the cost on face-like data.
		DRDims:     slices.Clone(DRDims),
		DRScales:   slices.Clone(DRScales),
		DRGuard:    true,
		DRFolds:    3,
		DRIter:     25,
		DRFoldIter: 10,
	}
}

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

	WidthScale string // a WidthScale: raw, median or both
	Folds      int    // inner cross-validation folds, ≥ 2
	DRDims     string // dimensions d of the -dr methods, whole numbers ≥ 1
	DRRules    string // training bandwidths of the -dr methods: rules as match.ParseBandwidthRule reads them, global*S, or start
	DRGuard    bool   // the start of every dimension (--dr-start) is a candidate too
	DRStart    string // the start of W: pca (the paper's) or fisher; empty is pca
	DRFolds    int    // folds of the -dr cross-validation, ≥ 2
	DRIter     int    // iteration cap of the final W, ≥ 1
	DRFoldIter int    // iteration cap of W inside a fold, ≥ 1
}

// DefaultGridSpec returns DefaultGrid written as a GridSpec, the defaults
// of setmatch eval's flags: ParseGrid(DefaultGridSpec()) is DefaultGrid.
// Bandwidths is left empty (DefaultGrid's list, too long for a flag's
// default).
func DefaultGridSpec() GridSpec {
	g := DefaultGrid()
	floats := func(x []float64) string {
		t := make([]string, len(x))
		for i, v := range x {
			t[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		return strings.Join(t, ",")
	}
	ints := func(x []int) string {
		t := make([]string, len(x))
		for i, v := range x {
			t[i] = strconv.Itoa(v)
		}
		return strings.Join(t, ",")
	}
	rules := make([]string, len(g.DRScales))
	for i, v := range g.DRScales {
		rules[i] = "global*" + strconv.FormatFloat(v, 'g', -1, 64)
	}
	start := "pca"
	if g.DRFisher {
		start = "fisher"
	}
	return GridSpec{
		Widths: floats(g.Widths), Regs: floats(g.Regs), CDLRegs: floats(g.CDLRegs), GDAP: ints(g.GDAP),
		WidthScale: string(g.WidthScale), Folds: g.Folds,
		DRDims: ints(g.DRDims), DRRules: strings.Join(rules, ","), DRGuard: g.DRGuard, DRStart: start,
		DRFolds: g.DRFolds, DRIter: g.DRIter, DRFoldIter: g.DRFoldIter,
	}
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
	switch ws := WidthScale(s.WidthScale); ws {
	case WidthRaw, WidthMedian, WidthBoth:
		grid.WidthScale = ws
	default:
		return Grid{}, fmt.Errorf("--width-scale %q: want raw, median or both", s.WidthScale)
	}
	if grid.DRDims, err = parseCounts(s.DRDims, "--dr-dim"); err != nil {
		return Grid{}, err
	}
	grid.DRRules, grid.DRScales = nil, nil
	grid.DRGuard = s.DRGuard
	switch s.DRStart {
	case "", "pca":
	case "fisher":
		grid.DRFisher = true
	default:
		return Grid{}, fmt.Errorf("--dr-start %q: want pca or fisher", s.DRStart)
	}
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

// parsePositives reads a comma-separated list of finite numbers > 0. An
// infinite one is refused here: a kernel width or regulariser of +Inf
// makes every kernel value alike or the scatter infinite, and the method
// would fail later with a message that blames another setting.
func parsePositives(s, flag string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) {
			return nil, fmt.Errorf("%s: %q is not a number > 0", flag, f)
		}
		if math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: %q is infinite: give finite numbers > 0 (e.g. %s 0.5,1,2)", flag, f, flag)
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
