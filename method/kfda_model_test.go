package method_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"setmatch/deploy"
	"setmatch/kfda"
	"setmatch/match"
	"setmatch/method"
	. "setmatch/method"
	"setmatch/model"
)

// TestKFDAModelMatchesEval fits kFDA as package method does on a split (training
// divergences over the pool, kernel with the width over the median, fit,
// transform of the test sets, 1-NN in the latent space) and as a deployed
// model does (deploy.FitKFDA on the training sets, then the Matcher on each
// test set), and checks that both predict the same set for every test set
// and put it at the same latent point to 1e-9, for the three kernels and
// both a global and a per-set bandwidth.
func TestKFDAModelMatchesEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 3))
	const classes, dim = 4, 5
	// Classes differ in their mean frames.
	sets, train, test, trainLabels, testLabels := kfdaSplit(rng, classes, 12, dim, func(int) func(j int) float64 {
		mean := make([]float64, dim)
		for j := range mean {
			mean[j] = 1.5 * rng.NormFloat64()
		}
		return func(j int) float64 { return mean[j] + (0.6+0.2*float64(j%2))*rng.NormFloat64() }
	})
	pool, err := NewPool(sets, 1)
	if err != nil {
		t.Fatal(err)
	}
	const reg, width, r = 1e-2, 0.5, 2
	for _, bw := range []Bandwidth{{Mode: Global, Scale: 1}, {Mode: PerSet, Scale: 1.5}} {
		h, err := pool.FrameBandwidths(bw, train)
		if err != nil {
			t.Fatal(err)
		}
		dm, err := pool.Divergences(h)
		if err != nil {
			t.Fatal(err)
		}
		for _, kc := range []struct {
			name   string
			meas   match.Measure
			sqrt   bool
			kernel func(div, s float64) float64
		}{
			{string(method.KernelHG), match.Hellinger, false, match.KernelHG},
			{string(method.KernelHL), match.Hellinger, true, match.KernelHL},
			{string(method.KernelJ), match.Jeffrey, false, match.KernelJ},
		} {
			t.Run(fmt.Sprintf("%v/%s", bw, kc.name), func(t *testing.T) {
				// the engine's way.
				d := dm.Of(kc.meas)
				k := kfda.KernelMatrix(d, width, kfda.MedianOffDiag(d, train, kc.sqrt), kc.kernel)
				pred, f, z := engineKFDA(t, k, train, trainLabels, test, classes, reg, r)

				// The deployed model's way: W = I, the training sets as the
				// gallery with the bandwidths the engine used.
				m := &model.Model{
					Divergence: kc.meas,
					W:          identity(dim),
					Mean:       make([]float64, dim),
					Threshold:  math.Inf(1),
				}
				if bw.Mode == Global {
					m.QueryBandwidth = match.BandwidthRule{Kind: match.Fixed, Fixed: h[0]}
				} else {
					m.QueryBandwidth = match.BandwidthRule{Kind: match.NearestNeighbour, Scale: bw.Scale}
				}
				for a, i := range train {
					m.Sets = append(m.Sets, model.Set{Label: fmt.Sprint("class", trainLabels[a]), Name: fmt.Sprint("set", i), Samples: sets[i], Bandwidth: h[pool.FrameOffset(i)]})
				}
				if _, err := deploy.FitKFDA(m, kc.name, width, "median", reg, r, 1); err != nil {
					t.Fatal(err)
				}
				mt, err := m.NewMatcher()
				if err != nil {
					t.Fatal(err)
				}
				checkMatcher(t, mt, sets, test, trainLabels, testLabels, pred[0], z, r, func(i int, res model.Result) {
					if math.Abs(res.Bandwidth-h[pool.FrameOffset(i)]) > 1e-12*h[pool.FrameOffset(i)] {
						t.Fatalf("test set %d: matcher bandwidth %v, the engine's %v", i, res.Bandwidth, h[pool.FrameOffset(i)])
					}
					// The distance in the engine's latent space (its first
					// r coordinates) to the nearest set of every class,
					// against the matcher's distances.
					a := slices.Index(test, i)
					for c := range classes {
						want, near := math.Inf(1), math.Inf(1)
						for j, l := range trainLabels {
							if l == c {
								want = min(want, floats.Distance(z.RawRowView(a)[:r], f.Train.RawRowView(j)[:r], 2))
								near = min(near, res.Distances[j])
							}
						}
						if math.Abs(want-near) > 1e-9*max(1, near) {
							t.Errorf("test set %d, class %d: the engine's latent distance %.15g, the matcher's %.15g", i, c, want, near)
						}
					}
				})
			})
		}
	}
}

// TestSetKernelModelMatchesEval is TestKFDAModelMatchesEval for the set
// kernels: the engine's GDA and CDL kernels over the pool against a model of
// the raw training sets (W = I, zero mean) fitted with FitSetKernel, on
// sets whose classes differ in the shape of their spread.
func TestSetKernelModelMatchesEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(93, 5))
	const classes, dim = 4, 6
	// Classes differ in the directions their frames spread along.
	sets, train, test, trainLabels, testLabels := kfdaSplit(rng, classes, 10, dim, func(c int) func(j int) float64 {
		return func(j int) float64 {
			s := 0.2
			if j == c || j == c+1 {
				s = 1.5
			}
			return 0.5*float64(j) + s*rng.NormFloat64()
		}
	})
	pool, err := NewPool(sets, 1)
	if err != nil {
		t.Fatal(err)
	}
	const reg, r, p = 1e-2, 2, 3
	for _, kernel := range []string{string(method.KernelGDA), string(method.KernelCDL)} {
		t.Run(kernel, func(t *testing.T) {
			var k mat.Symmetric
			var lambda float64
			if kernel == string(method.KernelGDA) {
				k, err = pool.GDAKernel(p, p)
			} else {
				k, lambda, err = pool.CDLKernel(1e-2, train)
			}
			if err != nil {
				t.Fatal(err)
			}
			pred, _, z := engineKFDA(t, k, train, trainLabels, test, classes, reg, r)
			m := &model.Model{Divergence: match.Hellinger, QueryBandwidth: match.BandwidthRule{Kind: match.Fixed, Fixed: 1},
				W: identity(dim), Mean: make([]float64, dim), Threshold: math.Inf(1)}
			for a, i := range train {
				m.Sets = append(m.Sets, model.Set{Label: fmt.Sprint("class", trainLabels[a]), Name: fmt.Sprint("set", i), Samples: sets[i], Bandwidth: 1})
			}
			pp := 0
			if kernel == string(method.KernelGDA) {
				pp = p
			}
			if _, err := deploy.FitSetKernel(m, kernel, pp, lambda, reg, r, 1); err != nil {
				t.Fatal(err)
			}
			mt, err := m.NewMatcher()
			if err != nil {
				t.Fatal(err)
			}
			checkMatcher(t, mt, sets, test, trainLabels, testLabels, pred[0], z, r, nil)
		})
	}
}

// kfdaSplit draws, for each of the classes, 3 training and 2 test sets of
// n0 + (0 to 5) frames in dim features: class(c) is called once per class
// and returns the sampler of a frame's feature j.
func kfdaSplit(rng *rand.Rand, classes, n0, dim int, class func(c int) func(j int) float64) (sets []*mat.Dense, train, test, trainLabels, testLabels []int) {
	const perTrain, perTest = 3, 2
	for c := range classes {
		draw := class(c)
		for k := range perTrain + perTest {
			n := n0 + rng.IntN(6)
			x := mat.NewDense(n, dim, nil)
			for i := range n {
				for j := range dim {
					x.Set(i, j, draw(j))
				}
			}
			if k < perTrain {
				train, trainLabels = append(train, len(sets)), append(trainLabels, c)
			} else {
				test, testLabels = append(test, len(sets)), append(testLabels, c)
			}
			sets = append(sets, x)
		}
	}
	return sets, train, test, trainLabels, testLabels
}

// checkMatcher matches every test set with mt and checks that it decides
// as the engine's prediction pred (a class per test set) and lands at the engine's
// latent point (the first r coordinates of its row of z) to 1e-9, and that the engine got at least 3/4 of the
// test sets right (the data are easy). extra, if set, checks more of
// each result.
func checkMatcher(t *testing.T, mt *model.Matcher, sets []*mat.Dense, test, trainLabels, testLabels, pred []int, z *mat.Dense, r int, extra func(i int, res model.Result)) {
	t.Helper()
	right := 0
	for a, i := range test {
		res, err := mt.Match(sets[i])
		if err != nil {
			t.Fatal(err)
		}
		if extra != nil {
			extra(i, res)
		}
		if got := trainLabels[res.Decision.Best]; got != pred[a] {
			t.Errorf("test set %d: matcher predicts class %d (gallery set %d), the engine class %d", i, got, res.Decision.Best, pred[a])
		}
		if len(res.Latent) != r {
			t.Fatalf("latent point has %d coordinates, want %d", len(res.Latent), r)
		}
		for c := range r {
			if want := z.At(a, c); math.Abs(res.Latent[c]-want) > 1e-9*max(1, math.Abs(want)) {
				t.Errorf("test set %d: latent[%d] = %.15g, the engine %.15g", i, c, res.Latent[c], want)
			}
		}
		if pred[a] == testLabels[a] {
			right++
		}
	}
	if right < len(test)*3/4 {
		t.Errorf("the engine's kFDA got %d of %d test sets right; the test data should be easy", right, len(test))
	}
}

func identity(n int) *mat.Dense {
	w := mat.NewDense(n, n, nil)
	for i := range n {
		w.Set(i, i, 1)
	}
	return w
}

// TestMixModelMatchesEval is TestSetKernelModelMatchesEval for kfda-mix:
// each of the engine's kernels (hg, gda and cdl, each chosen by its own
// cross-validation) against a model of the raw training sets fitted with
// FitTerms on the same terms, which weighs them again on its gallery.
func TestMixModelMatchesEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(94, 5))
	const classes, dim = 4, 6
	// Classes differ in where their frames are and in how they spread.
	sets, train, test, trainLabels, testLabels := kfdaSplit(rng, classes, 10, dim, func(c int) func(j int) float64 {
		return func(j int) float64 {
			s := 0.3
			if j == c || j == c+1 {
				s = 1.2
			}
			return 1.5*float64((c+j)%4) + s*rng.NormFloat64()
		}
	})
	pool, err := NewPool(sets, 1)
	if err != nil {
		t.Fatal(err)
	}
	task := &Task{Pool: pool, Train: train, Labels: trainLabels, Test: test, Classes: classes, Seed: 3} // the kernels cover the task's sets
	g := Grid{
		Bandwidths: []Bandwidth{{Mode: Global, Scale: 1}, {Mode: PerSet, Scale: 1}},
		Widths:     []float64{0.1, 1}, WidthScale: "median",
		Regs: []float64{1e-2}, GDAP: []int{2, 3}, CDLRegs: []float64{1e-2, 1}, Folds: 3,
	}
	cands, err := MixCandidates(task, g)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != len(MixCombos) {
		t.Fatalf("%d sums, want %d", len(cands), len(MixCombos))
	}
	const reg, r = 1e-2, 2
	for _, c := range cands {
		t.Run(c.Desc, func(t *testing.T) {
			pred, _, z := engineKFDA(t, c.Matrix, train, trainLabels, test, classes, reg, r)
			fit := c.Fit
			if err := fit.SetBandwidths(task); err != nil {
				t.Fatal(err)
			}
			m := &model.Model{Divergence: match.Hellinger, QueryBandwidth: fit.Query,
				W: identity(dim), Mean: make([]float64, dim), Threshold: math.Inf(1)}
			for a, i := range train {
				m.Sets = append(m.Sets, model.Set{Label: fmt.Sprint("class", trainLabels[a]), Name: fmt.Sprint("set", i), Samples: sets[i], Bandwidth: fit.H[a]})
			}
			var terms []model.Term
			for _, tm := range fit.Terms {
				mt := model.Term{Kernel: string(tm.Fit.Method.Kernel()), Width: 1, Scale: 1, WidthScale: "raw", P: tm.Fit.P, Lambda: tm.Fit.Lambda}
				if tm.Fit.Method == KFDAHG {
					mt.Width, mt.WidthScale = tm.Fit.Width, "median"
				}
				terms = append(terms, mt)
			}
			if _, err := deploy.FitTerms(m, terms, reg, r, 1); err != nil {
				t.Fatal(err)
			}
			for i, tm := range m.Discriminant.Terms {
				if w := fit.Terms[i].Weight; math.Abs(tm.Weight-w) > 1e-12*w {
					t.Errorf("term %d: the model weighs it %v, the engine %v", i, tm.Weight, w)
				}
			}
			mt, err := m.NewMatcher()
			if err != nil {
				t.Fatal(err)
			}
			checkMatcher(t, mt, sets, test, trainLabels, testLabels, pred[0], z, r, nil)
		})
	}
}

// engineKFDA returns the engine's labels of the test sets (kFDA on k over
// the training sets, nearest neighbour in its first r latent dimensions;
// KFDAPredict's form)
// kfda's own fit on the training sets, and the test sets' latent
// coordinates from it.
func engineKFDA(t *testing.T, k mat.Symmetric, train, trainLabels, test []int, classes int, reg float64, r int) ([][]int, *kfda.KFDA, *mat.Dense) {
	t.Helper()
	pred, _, err := KFDAPredict(k, train, trainLabels, test, classes, reg, []int{r}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := kfda.Fit(SubSym(k, train), trainLabels, classes, reg, 0)
	if err != nil {
		t.Fatal(err)
	}
	z, err := f.Transform(Sub(k, test, train))
	if err != nil {
		t.Fatal(err)
	}
	return pred, f, z
}

// TestMixBandwidthIsTheKDEKernels: a kfda-mix kernel with the KDE kernel
// among its terms gives its model that kernel's bandwidth (the one the
// gallery sets and batches get), here set*2, the grid's only one; the
// sums without it keep global*1.
func TestMixBandwidthIsTheKDEKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(95, 6))
	sets, train, test, trainLabels, _ := kfdaSplit(rng, 3, 10, 4, func(c int) func(j int) float64 {
		return func(j int) float64 { return float64((c+j)%3) + 0.5*rng.NormFloat64() }
	})
	pool, err := method.NewPool(sets, 1)
	if err != nil {
		t.Fatal(err)
	}
	task := &method.Task{Pool: pool, Train: train, Labels: trainLabels, Test: test, Classes: 3, Seed: 3}
	set2 := method.Bandwidth{Mode: method.PerSet, Scale: 2}
	g := method.Grid{Bandwidths: []method.Bandwidth{set2}, Widths: []float64{1}, WidthScale: "median",
		Regs: []float64{1e-2}, GDAP: []int{2}, CDLRegs: []float64{1e-2}, Folds: 3}
	cands, err := method.MixCandidates(task, g)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cands {
		want := method.Bandwidth{Mode: method.Global, Scale: 1}
		for _, tm := range c.Fit.Terms {
			if tm.Fit.Method == method.KFDAHG {
				want = set2
			}
		}
		if c.Fit.Bandwidth != want {
			t.Errorf("%s: bandwidth %v, want %v", c.Desc, c.Fit.Bandwidth, want)
		}
	}
}
