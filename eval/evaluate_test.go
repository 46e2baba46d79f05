package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/match"
	"setmatch/method"
)

// beyondGauss returns sets of three classes with the same mean (0) and
// covariance (I) but different shapes: a Gaussian, a mixture of tight
// blobs at the corners of a cube, and a spherical shell.
func beyondGauss(rng *rand.Rand, perClass, n, d int) *Data {
	data := &Data{Classes: []string{"gauss", "corners", "shell"}}
	const tight = 0.15
	for c := range 3 {
		for range perClass {
			x := mat.NewDense(n, d, nil)
			for i := range n {
				row := x.RawRowView(i)
				switch c {
				case 0:
					for j := range row {
						row[j] = rng.NormFloat64()
					}
				case 1:
					s := 1 / math.Sqrt(1+tight*tight)
					for j := range row {
						sign := 1.0
						if rng.IntN(2) == 0 {
							sign = -1
						}
						row[j] = s * (sign + tight*rng.NormFloat64())
					}
				case 2:
					var r float64
					for j := range row {
						row[j] = rng.NormFloat64()
						r += row[j] * row[j]
					}
					r = math.Sqrt(float64(d) / r)
					for j := range row {
						row[j] *= r
					}
				}
			}
			data.Sets = append(data.Sets, x)
			data.Labels = append(data.Labels, c)
		}
	}
	return data
}

func smallGrid() method.Grid {
	g := method.DefaultGrid()
	g.Bandwidths = []method.Bandwidth{{Mode: method.Global, Scale: 0.5}, {Mode: method.Global, Scale: 1}, {Mode: method.Global, Scale: 2}, {Mode: method.PerSet, Scale: 1}}
	g.Regs = []float64{1e-2, 1}
	g.Widths = []float64{0.1, 1}
	return g
}

func TestBeyondGaussCDLAtChanceKDEFarAbove(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	data := beyondGauss(rng, 16, 30, 3)
	splits, err := Protocol{Kind: RandomSplits, Gallery: 8, Probe: 8, Splits: 1}.MakeSplits(data, 1)
	if err != nil {
		t.Fatal(err)
	}
	methods := []method.Name{method.NNH, method.NNJ, method.KFDAHG, method.CDL, method.GDA}
	if testing.Short() {
		methods = []method.Name{method.NNH, method.NNJ, method.CDL}
	}
	res, err := Evaluate(splits, 3, Options{Methods: methods, Grid: smallGrid(), Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range methods {
		t.Logf("%-8s %5.1f%%  %s", m, res.Methods[m].Mean, res.Methods[m].Params[0])
	}
	// Chance is 33%; with 24 probes, 60% is about 2.8 standard deviations
	// above it. (Covariance methods are not exactly at chance: the
	// spread of sample covariances depends on the shape's kurtosis.)
	if a := res.Methods[method.CDL].Mean; a > 60 {
		t.Errorf("method.CDL %.1f%% on sets with identical covariances, want near chance (33%%)", a)
	}
	for _, m := range []method.Name{method.NNH, method.NNJ} {
		if a := res.Methods[m].Mean; a < 75 {
			t.Errorf("%s %.1f%%, want ≥ 75%% (far above chance) on differently shaped sets", m, a)
		}
	}
}

// TestEvaluateEasy: sets that differ in their means are recognised by every
// method.
func TestEvaluateEasy(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	data := &Data{Classes: []string{"a", "b", "c"}}
	for c := range 3 {
		for range 6 {
			// Class c: shifted along and stretched along coordinate c, so
			// that means, subspaces and covariances all differ.
			x := testutil.RandSet(rng, 12, 5, 0, 0.3)
			for i := range 12 {
				x.Set(i, c, 5*x.At(i, c)+2)
			}
			data.Sets = append(data.Sets, x)
			data.Labels = append(data.Labels, c)
		}
	}
	splits, err := Protocol{Kind: RandomSplits, Gallery: 3, Probe: 3, Splits: 2}.MakeSplits(data, 5)
	if err != nil {
		t.Fatal(err)
	}
	methods := []method.Name{method.NNH, method.NNJ, method.KFDAHG, method.KFDAHL, method.KFDAJ, method.GDA, method.CDL}
	var calls int
	g := smallGrid()
	g.GDAP = []int{1, 2}
	res, err := Evaluate(splits, 3, Options{Methods: methods, Grid: g, Seed: 1,
		Progress: func(Progress) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Errorf("progress called %d times, want 2", calls)
	}
	for _, m := range methods {
		r := res.Methods[m]
		if len(r.Accuracies) != 2 || r.Mean < 99.9 {
			t.Errorf("%s: accuracies %v, want 100%% on both splits", m, r.Accuracies)
		}
	}
}

// TestEvaluateTransformSeesGalleryOnly checks that Options.Transform is
// told, for each split, its gallery sets alone: features fitted on them
// (a PCA) must learn nothing from the probe sets, strangers' or known.
func TestEvaluateTransformSeesGalleryOnly(t *testing.T) {
	d := toyData(3, 4, 6)
	splits, err := Protocol{Kind: RandomSplits, Gallery: 2, Probe: 2, Splits: 2}.MakeSplits(d, 9)
	if err != nil {
		t.Fatal(err)
	}
	var seen [][]int
	transform := func(sets []*mat.Dense, gallery []int) ([]*mat.Dense, error) {
		seen = append(seen, slices.Clone(gallery))
		return sets, nil
	}
	if _, err := Evaluate(splits, len(d.Classes), Options{Methods: []method.Name{method.NNH}, Grid: smallGrid(), Seed: 1, Transform: transform}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(splits) {
		t.Fatalf("Transform called %d times, want once per split (%d)", len(seen), len(splits))
	}
	for k, sp := range splits {
		if !slices.Equal(seen[k], sp.Gallery) {
			t.Errorf("split %d: Transform fitted on sets %v, want the gallery %v alone", k+1, seen[k], sp.Gallery)
		}
	}
}

// TestDRWithLearner runs nn-h-dr with a stand-in learner (the first d
// coordinates) to check the plumbing.
func TestDRWithLearner(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	data := &Data{Classes: []string{"a", "b"}}
	twoClasses(rng, data, 4)
	g := smallGrid()
	g.Learn = firstTwoAxes
	splits, _ := Protocol{Kind: RandomSplits, Gallery: 2, Probe: 2, Splits: 1}.MakeSplits(data, 1)
	res, err := Evaluate(splits, 2, Options{Methods: []method.Name{method.NNHDR, method.NNJDR}, Grid: g})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []method.Name{method.NNHDR, method.NNJDR} {
		if res.Methods[m].Mean < 99.9 {
			t.Errorf("%s: %v", m, res.Methods[m].Accuracies)
		}
	}
}

// TestEvaluateSteps checks the progress within splits: every stage counts
// its units 1, 2, …, Total in order, with the totals of the grid.
func TestEvaluateSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	data := &Data{Classes: []string{"a", "b"}}
	twoClasses(rng, data, 6)
	g := smallGrid() // 4 bandwidths
	g.GDAP = []int{1, 2}
	g.Learn = firstTwoAxes
	// 3 gallery sets per class: the -dr cross-validation runs, 3 folds ×
	// 4 candidates (d ∈ {6, 5} after clamping 10, 5, 20 to D = 6, × rules
	// nn, scott), then the final W.
	g.DRDims = []int{10, 5, 20}
	g.DRRules = []match.BandwidthRule{{Kind: match.NearestNeighbour}, {Kind: match.Scott}}
	g.DRScales, g.DRGuard = nil, false
	splits, err := Protocol{Kind: RandomSplits, Gallery: 3, Probe: 3, Splits: 2}.MakeSplits(data, 1)
	if err != nil {
		t.Fatal(err)
	}
	methods := []method.Name{method.NNH, method.KFDAHG, method.GDA, method.CDL, method.NNHDR}
	var steps []Step
	_, err = Evaluate(splits, 2, Options{Methods: methods, Grid: g, Seed: 1, Workers: 2,
		Step: func(s Step) { steps = append(steps, s) }})
	if err != nil {
		t.Fatal(err)
	}
	wantTotal := map[string]int{
		StageShared:           4 + 2, // divergence matrices, GDA bases, CDL spectra
		string(method.NNH):    4,     // bandwidths
		string(method.KFDAHG): 4 * 2 * 2,
		string(method.GDA):    2,
		string(method.CDL):    len(g.CDLRegs),
		string(method.NNHDR):  3*4 + 1,
	}
	wantUnit := map[string]string{StageShared: "matrices", string(method.NNH): "bandwidths", string(method.KFDAHG): "kernels", string(method.GDA): "kernels", string(method.CDL): "kernels", string(method.NNHDR): "projections"}
	type key struct {
		split int
		stage string
	}
	var order []key
	last := map[key]Step{}
	for _, s := range steps {
		k := key{s.Split, s.Stage}
		prev, seen := last[k]
		if !seen {
			order = append(order, k)
			if s.Done != 1 {
				t.Errorf("split %d %s: first step %d/%d, want 1", s.Split, s.Stage, s.Done, s.Total)
			}
		} else if s.Done != prev.Done+1 || s.Total != prev.Total || s.Elapsed < prev.Elapsed {
			t.Errorf("split %d %s: step %d/%d (%v) after %d/%d (%v)", s.Split, s.Stage, s.Done, s.Total, s.Elapsed, prev.Done, prev.Total, prev.Elapsed)
		}
		if s.Splits != 2 || s.Left < 0 || s.Done == s.Total && s.Left != 0 {
			t.Errorf("step %+v", s)
		}
		last[k] = s
	}
	var want []key
	for split := 1; split <= 2; split++ {
		want = append(want, key{split, StageShared})
		for _, m := range methods {
			want = append(want, key{split, string(m)})
		}
	}
	if !slices.Equal(order, want) {
		t.Errorf("stages in order %v, want %v", order, want)
	}
	for k, s := range last {
		if s.Done != s.Total || s.Total != wantTotal[k.stage] || s.Unit != wantUnit[k.stage] {
			t.Errorf("split %d %s: ended at %d/%d %s, want %d/%d %s", k.split, k.stage, s.Done, s.Total, s.Unit,
				wantTotal[k.stage], wantTotal[k.stage], wantUnit[k.stage])
		}
	}
}

// TestPairedDiff: the mean and standard error of a − b, by hand.
func TestPairedDiff(t *testing.T) {
	// a − b = 10, 0, 15: mean 25/3; deviations 5/3, −25/3, 20/3, so the
	// sample variance is (25 + 625 + 400)/9/2 = 175/3 and SE = √(175/3/3).
	d, err := PairedDiff([]float64{60, 70, 80}, []float64{50, 70, 65})
	if err != nil {
		t.Fatal(err)
	}
	if want := 25.0 / 3; math.Abs(d.Mean-want) > 1e-12 {
		t.Errorf("mean %v, want %v", d.Mean, want)
	}
	if want := math.Sqrt(175.0 / 9); math.Abs(d.SE-want) > 1e-12 {
		t.Errorf("SE %v, want %v", d.SE, want)
	}
	if _, err := PairedDiff([]float64{1, 2}, []float64{1}); err == nil {
		t.Error("lengths 2 and 1: no error")
	}
	if _, err := PairedDiff([]float64{1}, []float64{1}); err == nil {
		t.Error("one split: no error")
	}
}

// twoClasses appends perClass random 10×6 sets to each of data's two
// classes, the classes 3 apart along the first feature.
func twoClasses(rng *rand.Rand, data *Data, perClass int) {
	for c := range 2 {
		for range perClass {
			x := testutil.RandSet(rng, 10, 6, 0, 1)
			for i := range 10 {
				x.Set(i, 0, x.At(i, 0)*0.1+3*float64(c))
			}
			data.Sets = append(data.Sets, x)
			data.Labels = append(data.Labels, c)
		}
	}
}

// firstTwoAxes is a learner of W that projects 6 features onto the first
// two, whatever it is given.
func firstTwoAxes(_ []*mat.Dense, _ []int, _ match.Measure, _ method.LearnParams, _ int64) (*mat.Dense, []float64, error) {
	w := mat.NewDense(6, 2, nil)
	w.Set(0, 0, 1)
	w.Set(1, 1, 1)
	return w, nil, nil
}

// TestEvaluateNamesTheSet: where GDA's or CDL's set kernel cannot be
// computed on one set (×1e160), Evaluate's error names it by
// Options.Names, as setmatch eval gives them, where it said "set 5"; so
// does a KDE method's where a knnK bandwidth of one of its frames is NaN,
// where it said "frame 50" (the frame's index in the pool).
func TestEvaluateNamesTheSet(t *testing.T) {
	const bad = 5
	d := namedData(bad)
	splits, err := Protocol{Kind: LeaveOneOut}.MakeSplits(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []method.Name{method.GDA, method.CDL} {
		_, err := Evaluate(splits, 3, Options{Methods: []method.Name{m}, Grid: smallGrid(), Seed: 1, Workers: 1, Names: d.Names})
		if want := "set " + d.Names[bad] + ": "; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to name the set (%q)", m, err, want)
		}
	}
	g := smallGrid()
	g.Bandwidths = []method.Bandwidth{{Mode: method.Adaptive, K: 3, Scale: 1}}
	for _, m := range []method.Name{method.NNH, method.KFDAHG} {
		_, err := Evaluate(splits, 3, Options{Methods: []method.Name{m}, Grid: g, Seed: 1, Workers: 1, Names: d.Names})
		if want := "knn3*1: set " + d.Names[bad] + " frame 0: "; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "NaN") {
			t.Errorf("%s, bandwidth knn3*1: error %v, want it to name the set and its frame (%q)", m, err, want)
		}
	}
}

// namedData returns three classes (a, b, c) of three named sets ("a/s0"),
// set bad's values ×1e160.
func namedData(bad int) *Data {
	rng := rand.New(rand.NewPCG(3, 4))
	d := &Data{Classes: []string{"a", "b", "c"}}
	for c := range 3 {
		for s := range 3 {
			x := mat.NewDense(10, 4, nil)
			for i := range 10 {
				for j := range 4 {
					x.Set(i, j, float64(c)+rng.NormFloat64())
				}
			}
			d.Sets, d.Labels, d.Names = append(d.Sets, x), append(d.Labels, c), append(d.Names, fmt.Sprintf("%s/s%d", d.Classes[c], s))
		}
	}
	d.Sets[bad].Scale(1e160, d.Sets[bad])
	return d
}

// TestEvaluateKFDANamesTheProbe: where a probe set's values are ×1e160,
// its kernel values against the gallery are NaN, and a kFDA method's
// error names the probe and the gallery set as class/set, where it said
// "set 0: kernel Fisher discriminant: kernel value 0 is NaN" (their
// indices among the split's probes and gallery sets), and says what to
// do: their divergence is not a number, and the features want scaling
// down.
func TestEvaluateKFDANamesTheProbe(t *testing.T) {
	d := namedData(0)
	splits, err := Protocol{Kind: LeaveOneOut}.MakeSplits(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p := splits[0].Probe; len(p) == 0 || p[0] != 0 {
		t.Fatalf("split 1's probes are %v, want set 0 first", p)
	}
	g := smallGrid()
	g.Bandwidths = []method.Bandwidth{{Mode: method.Global, Scale: 1}}
	for _, m := range []method.Name{method.KFDAHG, method.KFDAJ} {
		_, err := Evaluate(splits, 3, Options{Methods: []method.Name{m}, Grid: g, Seed: 1, Workers: 1, Names: d.Names})
		if want := "set a/s0: kernel Fisher discriminant: its kernel value against set " + d.Names[splits[0].Gallery[0]] + " is NaN"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to name the probe and the gallery set (%q)", m, err, want)
		} else if !strings.Contains(err.Error(), "divergence is not a number") || !strings.Contains(err.Error(), "scale the features down") {
			t.Errorf("%s: error %v, want it to say that their divergence is not a number and to scale the features down", m, err)
		}
	}
}
