package method

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/kfda"
	"setmatch/match"
	"setmatch/setkernel"
	"setmatch/setkernel/setkerneltest"
)

// TestCDLUnderflowAdvice: where the training sets' covariances
// underflow, the error's factor brings the frames' largest deviation
// from their mean to between 1 and 10; below 1e-308, where that power of
// ten passes the largest float64, it is 1e308.
func TestCDLUnderflowAdvice(t *testing.T) {
	// Frames (±u, 0), (0, ±v): mean 0, the largest deviation max(u, v).
	mk := func(u, v float64) *mat.Dense {
		return mat.NewDense(4, 2, []float64{u, 0, -u, 0, 0, v, 0, -v})
	}
	for _, c := range []struct {
		u    float64
		want string
	}{
		{3e-160, "(their frames vary about their mean by up to 6e-160); scale the features up, e.g. multiply them by 1e+160"},
		{3e-310, "(their frames vary about their mean by up to 6e-310); scale the features up, e.g. multiply them by 1e+308"},
	} {
		p, err := NewPool([]*mat.Dense{mk(c.u, 2*c.u), mk(2*c.u, c.u)}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := p.CDLKernel(0.1, []int{0, 1}); err == nil || !strings.Contains(err.Error(), "covariances underflow") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("u %g: %v, want it to say %q", c.u, err, c.want)
		}
	}
}

func TestCDLKernelByHand(t *testing.T) {
	// Frames (±u, 0), (0, ±v): mean 0, covariance diag(2u²/3, 2v²/3).
	mk := func(u, v float64) *mat.Dense {
		return mat.NewDense(4, 2, []float64{u, 0, -u, 0, 0, v, 0, -v})
	}
	a, b := mk(1, 2), mk(3, 0.5)
	ca := setkerneltest.Covariance(a)
	if math.Abs(ca.At(0, 0)-2.0/3) > 1e-12 || math.Abs(ca.At(1, 1)-8.0/3) > 1e-12 || math.Abs(ca.At(0, 1)) > 1e-12 {
		t.Fatalf("covariance %v, want diag(2/3, 8/3)", mat.Formatted(ca))
	}
	p, err := NewPool([]*mat.Dense{a, b}, 1)
	if err != nil {
		t.Fatal(err)
	}
	const reg = 0.1
	k, lambda, err := p.CDLKernel(reg, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	// λ = reg × median of tr(C)/d = reg × mean of (5/3, (18+0.5)/3/2).
	trA, trB := (2.0/3+8.0/3)/2, (6+0.5/3)/2
	if want := reg * (trA + trB) / 2; math.Abs(lambda-want) > 1e-12 {
		t.Fatalf("λ = %v, want %v", lambda, want)
	}
	la := []float64{math.Log(2.0/3 + lambda), math.Log(8.0/3 + lambda)}
	lb := []float64{math.Log(6 + lambda), math.Log(0.5/3 + lambda)}
	want := la[0]*lb[0] + la[1]*lb[1]
	if got := k.At(0, 1); math.Abs(got-want) > 1e-10 {
		t.Errorf("k(A,B) = %v, want Σ log(a_i+λ) log(b_i+λ) = %v", got, want)
	}
	if got, w := k.At(0, 0), la[0]*la[0]+la[1]*la[1]; math.Abs(got-w) > 1e-10 {
		t.Errorf("k(A,A) = %v, want %v", got, w)
	}
}

// TestCDLKernelLowRankMatchesDense checks the low-rank computation against
// dense matrix logarithms for rank-deficient covariances (n < d).
func TestCDLKernelLowRankMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	sets := []*mat.Dense{testutil.RandSet(rng, 4, 6, 0, 1), testutil.RandSet(rng, 5, 6, 1, 2), testutil.RandSet(rng, 9, 6, -1, 0.5)}
	p, err := NewPool(sets, 2)
	if err != nil {
		t.Fatal(err)
	}
	k, lambda, err := p.CDLKernel(0.01, []int{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	reg := func(x *mat.Dense) *mat.SymDense {
		c := setkerneltest.Covariance(x)
		for i := range 6 {
			c.SetSym(i, i, c.At(i, i)+lambda)
		}
		return c
	}
	for i := range sets {
		for j := range sets {
			want, err := setkerneltest.LogEuclideanDense(reg(sets[i]), reg(sets[j]))
			if err != nil {
				t.Fatal(err)
			}
			if got := k.At(i, j); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("k(%d,%d) = %v, dense %v", i, j, got, want)
			}
		}
	}
}

// TestDivergencesMatchMatchCompare: with one bandwidth per set the pool's
// all-pairs divergences equal match.Compare.
func TestDivergencesMatchMatchCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	sets := []*mat.Dense{testutil.RandSet(rng, 7, 5, 0, 1), testutil.RandSet(rng, 9, 5, 0.5, 1.5), testutil.RandSet(rng, 6, 5, -0.3, 0.7), testutil.RandSet(rng, 8, 5, 0, 1)}
	p, err := NewPool(sets, 2)
	if err != nil {
		t.Fatal(err)
	}
	hs := []float64{0.8, 1.3, 0.5, 2}
	h := make([]float64, p.Frames())
	for i := range sets {
		for f := p.off[i]; f < p.off[i+1]; f++ {
			h[f] = hs[i]
		}
	}
	dm, err := p.Divergences(h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sets {
		for j := range sets {
			ki, _ := match.NewKDE(sets[i], hs[i])
			kj, _ := match.NewKDE(sets[j], hs[j])
			want, err := match.Compare(ki, kj)
			if err != nil {
				t.Fatal(err)
			}
			if got := dm.H2.At(i, j); math.Abs(got-want.Hellinger2) > 1e-9 {
				t.Errorf("H2(%d,%d) = %v, match.Compare %v", i, j, got, want.Hellinger2)
			}
			if got := dm.J.At(i, j); math.Abs(got-want.Jeffrey) > 1e-8*math.Max(1, want.Jeffrey) {
				t.Errorf("J(%d,%d) = %v, match.Compare %v", i, j, got, want.Jeffrey)
			}
		}
	}
}

// TestAdaptiveDivergencesNaive checks per-frame bandwidths against a
// direct evaluation of the variable-bandwidth KDE.
func TestAdaptiveDivergencesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	sets := []*mat.Dense{testutil.RandSet(rng, 5, 3, 0, 1), testutil.RandSet(rng, 6, 3, 1, 1)}
	p, _ := NewPool(sets, 1)
	h, err := p.FrameBandwidths(Bandwidth{Mode: Adaptive, K: 2, Scale: 1.5}, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	dm, err := p.Divergences(h)
	if err != nil {
		t.Fatal(err)
	}
	logp := func(s int, x []float64) float64 {
		var terms []float64
		n, d := sets[s].Dims()
		for f := range n {
			hf := h[p.off[s]+f]
			var q float64
			for c := range d {
				e := x[c] - sets[s].At(f, c)
				q += e * e
			}
			terms = append(terms, -q/(2*hf*hf)-float64(d)/2*math.Log(2*math.Pi*hf*hf))
		}
		return match.LogSumExp(terms) - math.Log(float64(n))
	}
	var lpp, lqp, lpq, lqq []float64
	for f := range 5 {
		x := sets[0].RawRowView(f)
		lpp, lqp = append(lpp, logp(0, x)), append(lqp, logp(1, x))
	}
	for f := range 6 {
		x := sets[1].RawRowView(f)
		lpq, lqq = append(lpq, logp(0, x)), append(lqq, logp(1, x))
	}
	want := match.Symmetric(lpp, lqp, lpq, lqq)
	if got := dm.H2.At(0, 1); math.Abs(got-want.Hellinger2) > 1e-9 {
		t.Errorf("H2 = %v, naive %v", got, want.Hellinger2)
	}
	if got := dm.J.At(0, 1); math.Abs(got-want.Jeffrey) > 1e-8*math.Max(1, want.Jeffrey) {
		t.Errorf("J = %v, naive %v", got, want.Jeffrey)
	}
	// The 2nd-neighbour rule: check one frame by hand.
	var ds []float64
	for g := range 5 {
		if g != 0 {
			var q float64
			for c := range 3 {
				e := sets[0].At(0, c) - sets[0].At(g, c)
				q += e * e
			}
			ds = append(ds, math.Sqrt(q))
		}
	}
	sortFloats(ds)
	if math.Abs(h[0]-1.5*math.Max(ds[1], 0)) > 1e-9 && h[0] < 1.5*ds[1] {
		t.Errorf("frame 0 bandwidth %v, want 1.5 × 2nd-neighbour distance %v (or the floor)", h[0], 1.5*ds[1])
	}
}

func sortFloats(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

func TestKernelMatricesSymmetricAndPSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var sets []*mat.Dense
	for i := range 12 {
		sets = append(sets, testutil.RandSet(rng, 10, 6, float64(i%3), 1+0.2*float64(i%4)))
	}
	p, _ := NewPool(sets, 2)
	all := make([]int, len(sets))
	for i := range all {
		all[i] = i
	}
	gk, err := p.GDAKernel(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	ck, _, err := p.CDLKernel(1e-2, all)
	if err != nil {
		t.Fatal(err)
	}
	for name, k := range map[string]mat.Symmetric{"gda": gk, "cdl": ck} {
		lo, hi, err := MinEigenvalue(k)
		if err != nil {
			t.Fatal(err)
		}
		// Both are Gram matrices (of projection matrices, of log-covariances).
		if lo < -1e-9*hi {
			t.Errorf("%s kernel: smallest eigenvalue %g (largest %g), want ≥ 0", name, lo, hi)
		}
	}
	reps, err := p.KernelSpectra(Bandwidth{Mode: Global, Scale: 1}, all, []float64{0.1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 6 {
		t.Fatalf("%d spectrum reports, want 3 kernels × 2 widths", len(reps))
	}
	for _, r := range reps {
		if !(r.Max > 0) || r.Min > r.Max || math.IsNaN(r.Min) {
			t.Errorf("%+v: implausible spectrum", r)
		}
		// exp(−s·δ) has a unit diagonal: the eigenvalues sum to m.
		if math.Abs(r.Trace-float64(len(sets))) > 1e-9 {
			t.Errorf("%+v: trace %v, want %d", r, r.Trace, len(sets))
		}
	}
}

// TestKernelSpectraOfSomeSets checks the spectra of the kernels on a
// gallery that is not every set of the pool (a split's gallery, as
// setmatch eval --spectrum asks), on a pool that has computed nothing else:
// the kernel is of those sets only (trace = their number), and each report
// equals the one of a pool made of those sets alone.
func TestKernelSpectraOfSomeSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	var sets []*mat.Dense
	for i := range 10 {
		sets = append(sets, testutil.RandSet(rng, 8, 5, float64(i%2), 1))
	}
	gallery := []int{1, 2, 5, 6, 9}
	p, _ := NewPool(sets, 1)
	reps, err := p.KernelSpectra(Bandwidth{Mode: Global, Scale: 1}, gallery, []float64{0.5})
	if err != nil {
		t.Fatal(err)
	}
	var own []*mat.Dense
	for _, i := range gallery {
		own = append(own, sets[i])
	}
	q, _ := NewPool(own, 1)
	want, err := q.KernelSpectra(Bandwidth{Mode: Global, Scale: 1}, []int{0, 1, 2, 3, 4}, []float64{0.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 3 || len(want) != 3 {
		t.Fatalf("%d and %d reports, want 3 kernels × 1 width", len(reps), len(want))
	}
	for i, r := range reps {
		if math.Abs(r.Trace-float64(len(gallery))) > 1e-9 {
			t.Errorf("%+v: trace %v, want %d", r, r.Trace, len(gallery))
		}
		w := want[i]
		if math.Abs(r.Min-w.Min) > 1e-9*math.Abs(w.Max) || math.Abs(r.Max-w.Max) > 1e-9*math.Abs(w.Max) {
			t.Errorf("%s: eigenvalues [%g, %g], alone [%g, %g]", r.Kernel, r.Min, r.Max, w.Min, w.Max)
		}
	}
}

// TestCDLKernelsEqualWholeGram checks that CDL's kernels, made from the
// eigenvectors' Gram blocks (setkernel.GramPairs), for several λ in
// one pass, are those made from one product of all eigenvectors side by
// side, to the last bit, with ranks that differ from set to set and a d
// large enough that the products are blocked, in parallel and serially, for
// a kernel of every set and one of some sets.
func TestCDLKernelsEqualWholeGram(t *testing.T) {
	testutil.CPUs(t, 8) // several workers on any machine
	rng := rand.New(rand.NewPCG(7, 8))
	const d = 300
	var sets []*mat.Dense
	for i, n := range []int{41, 4, 2, 130, 65, 3, 71, 20, 9, 33} {
		sets = append(sets, testutil.RandSet(rng, n, d, float64(i%3), 1+0.1*float64(i)))
	}
	for _, workers := range []int{1, 3} {
		p, err := NewPool(sets, workers)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := p.cdlSpectra()
		if err != nil {
			t.Fatal(err)
		}
		off := make([]int, len(spec)+1)
		for i, s := range spec {
			_, r := s.V.Dims()
			off[i+1] = off[i] + r
		}
		all := mat.NewDense(d, off[len(spec)], nil)
		for i, s := range spec {
			all.Slice(0, d, off[i], off[i+1]).(*mat.Dense).Copy(s.V)
		}
		var whole mat.Dense
		whole.Mul(all.T(), all)
		lambdas := []float64{1e-3, 0.5}
		ks, err := p.cdlKernels(lambdas, [][]int{nil, {0, 2, 3, 4, 5, 6, 7, 8, 9}})
		if err != nil {
			t.Fatal(err)
		}
		for k, l := range lambdas {
			for a := range sets {
				if k == 1 && a == 1 {
					continue // the second covers every set but set 1
				}
				la, sa := spec[a].LogShift(l)
				for b := a; b < len(sets); b++ {
					if k == 1 && b == 1 {
						continue
					}
					lb, sb := spec[b].LogShift(l)
					g := whole.Slice(off[a], off[a+1], off[b], off[b+1]).(*mat.Dense)
					if got, want := ks[k].At(a, b), setkernel.LogEuclideanGram(d, l, la, sa, lb, sb, g); got != want {
						t.Fatalf("workers %d, λ %g, sets %d, %d: %v, from the whole Gram %v", workers, l, a, b, got, want)
					}
				}
			}
		}
	}
}

// TestFrameBandwidthsRepeatedFrames checks the pool's nn rule against
// match's (the appliance's) on sets whose frames repeat: a set whose every
// frame is doubled gets the bandwidth of its frames without the repeats,
// per set and as the global base, and a set of one image repeated keeps
// the global base instead of a zero bandwidth.
func TestFrameBandwidthsRepeatedFrames(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	plain := testutil.RandSet(rng, 6, 3, 0, 1)
	doubled := mat.NewDense(12, 3, nil)
	for f := range 6 {
		doubled.SetRow(2*f, plain.RawRowView(f))
		doubled.SetRow(2*f+1, plain.RawRowView(f))
	}
	still := mat.NewDense(5, 3, nil)
	for f := range 5 {
		still.SetRow(f, plain.RawRowView(0))
	}
	other := testutil.RandSet(rng, 7, 3, 1, 1)
	p, err := NewPool([]*mat.Dense{doubled, still, other}, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := match.MedianNearestNeighbour(plain)
	if got := match.MedianNearestNeighbour(doubled); math.Abs(got-want) > 1e-12*want {
		t.Fatalf("match: doubled frames h = %v, the frames alone %v", got, want)
	}
	h, err := p.FrameBandwidths(Bandwidth{Mode: PerSet, Scale: 2}, []int{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := h[0]; math.Abs(got-2*want) > 1e-9*want {
		t.Errorf("set*2, doubled frames: h = %v, want %v (2 × the frames without repeats)", got, 2*want)
	}
	if got, w := h[17], 2*match.MedianNearestNeighbour(other); math.Abs(got-w) > 1e-9*w {
		t.Errorf("set*2, plain set: h = %v, want %v", got, w)
	}
	g, err := p.FrameBandwidths(Bandwidth{Mode: Global, Scale: 1}, []int{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if !(g[0] > 0) {
		t.Fatalf("global base %v", g[0])
	}
	if got := h[12]; math.Abs(got-2*g[0]) > 1e-12*g[0] {
		t.Errorf("set*2, one image repeated: h = %v, want 2 × the global base %v", got, g[0])
	}
	// Every training set one image repeated: an error, not a zero bandwidth.
	if _, err := p.FrameBandwidths(Bandwidth{Mode: Global, Scale: 1}, []int{1}); err == nil || !strings.Contains(err.Error(), "repeated") {
		t.Errorf("only a still set to train on: err = %v, want one that says the frames repeat", err)
	}
}

func TestScoreBetterTies(t *testing.T) {
	a := score{acc: 0.6, margin: 0.031968273082575577}
	for _, c := range []struct {
		s, t score
		want bool
	}{
		{score{0.7, -1}, a, true},                           // accuracy first
		{a, score{0.7, -1}, false},                          //
		{score{0.6, 0.031968273082575580}, a, false},        // last bits: a tie
		{score{0.6, math.Nextafter(a.margin, 1)}, a, false}, //
		{a, score{0.6, math.Nextafter(a.margin, 1)}, false}, // either way round
		{score{0.6, a.margin + 1e-6}, a, true},              // a real difference
		{score{0.6, -1e-17}, score{0.6, -2e-17}, false},     // near zero: rounding
		{score{0.6, 0}, score{0.6, 0}, false},               // equal
		{score{0.6, 0.1}, score{0.6, -0.1}, true},           // signs
		{score{0.6, -0.1}, score{0.6, 0.1}, false},          //
		{score{0.6, 1e-12}, score{0.6, 0}, false},           // rounding of a zero
		{score{0.6, -0.05 + 1e-6}, score{0.6, -0.05}, true},
	} {
		if got := c.s.better(c.t); got != c.want {
			t.Errorf("%v.better(%v) = %v, want %v", c.s, c.t, got, c.want)
		}
	}
}

// TestChooseKFDARounding: a kernel and a copy of it that differs in its
// last bits, as another build or machine computes it, are the same
// candidate; whichever of the two comes first is chosen, with the
// regulariser and latent dimension chosen for the kernel alone. Compared
// exactly (marginTol 0), the later one wins wherever its rounding comes
// out ahead: the test logs in how many of its 24 choices, and fails if in
// none, since then the copy no longer differs enough to test anything.
func TestChooseKFDARounding(t *testing.T) {
	const classes, per, d = 5, 4, 6
	rng := rand.New(rand.NewPCG(3, 4))
	var rows [][]float64
	var labels, train []int
	for c := range classes {
		mean := testutil.RandSet(rng, 1, d, 0, 1).RawRowView(0)
		for range per {
			x := testutil.RandSet(rng, 1, d, 0, 0.8).RawRowView(0)
			for j := range x {
				x[j] += mean[j]
			}
			rows = append(rows, x)
			labels = append(labels, c)
			train = append(train, len(train))
		}
	}
	n := len(rows)
	k := kfda.KernelMatrix(mat.NewSymDense(n, sqDistAll(rows, 1)), 1, 2*d, match.KernelHG)
	g := DefaultGrid()
	g.Folds = 3
	tol := marginTol
	defer func() { marginTol = tol }()
	choices, movedExactly := 0, 0
	for seed := range uint64(12) {
		task := &Task{Pool: &Pool{Workers: 2}, Train: train, Labels: labels, Classes: classes, Seed: seed}
		_, c0, reg0, dim0 := chooseKFDA(task, g, []candidate{{k: k}})
		prng := rand.New(rand.NewPCG(seed, 99))
		kp := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				kp.SetSym(i, j, k.At(i, j)*(1+4e-16*prng.NormFloat64()))
			}
		}
		// The kernel first, then the copy first: the first must win.
		for _, cands := range [][]candidate{{{k: k}, {k: kp}}, {{k: kp}, {k: k}}} {
			best, c, reg, dim := chooseKFDA(task, g, cands)
			if c != c0 || reg != reg0 || dim != dim0 {
				t.Errorf("seed %d: chose candidate %d reg %g dim %d (score %v), want %d, %g, %d as for the kernel alone", seed, c, reg, dim, best, c0, reg0, dim0)
			}
			choices++
			marginTol = 0
			if _, c, reg, dim := chooseKFDA(task, g, cands); c != c0 || reg != reg0 || dim != dim0 {
				movedExactly++
			}
			marginTol = tol
		}
	}
	t.Logf("compared exactly, %d of %d choices moved", movedExactly, choices)
	if movedExactly == 0 {
		t.Errorf("compared exactly, none of %d choices moved: the copy's rounding no longer tests the tolerance", choices)
	}
}

// TestGDAKernelsEqualProjection checks the projection kernels of every p
// of a grid, made in one pass from tiles of bases, against the kernel of
// each pair of bases alone (setkernel.Projection), with sets of fewer
// frames than the largest p among them.
func TestGDAKernelsEqualProjection(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var sets []*mat.Dense
	for i := range 40 {
		sets = append(sets, testutil.RandSet(rng, 3+i%9, 30, float64(i%4), 1))
	}
	p, err := NewPool(sets, 2)
	if err != nil {
		t.Fatal(err)
	}
	ps := []int{3, 1, 2, 5, 10, 15}
	ks, err := p.gdaKernels(ps, 15)
	if err != nil {
		t.Fatal(err)
	}
	for i, dim := range ps {
		for a := range sets {
			for b := a; b < len(sets); b++ {
				ba, _ := setkernel.Basis(sets[a], min(dim, 3+a%9))
				bb, _ := setkernel.Basis(sets[b], min(dim, 3+b%9))
				want := setkernel.Projection(ba, bb)
				if got := ks[i].At(a, b); math.Abs(got-want) > 1e-12*math.Max(1, want) {
					t.Fatalf("p=%d, sets %d and %d: %v, alone %v", dim, a, b, got, want)
				}
			}
		}
		// Cached: asked again, the same matrix.
		k, err := p.GDAKernel(dim, 15)
		if err != nil || k != ks[i] {
			t.Errorf("p=%d asked again: %p (%v), want the cached %p", dim, k, err, ks[i])
		}
	}
}

// TestGDASkipsWholeSpace: a subspace dimension p at or above the
// feature dimension D makes every set's subspace the whole space and the
// projection kernel the constant D; GDA's candidates leave such p out,
// and take D − 1 where the grid has no other.
func TestGDASkipsWholeSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	var sets []*mat.Dense
	for i := range 6 {
		sets = append(sets, testutil.RandSet(rng, 20, 8, float64(i%2), 1))
	}
	p, err := NewPool(sets, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The premise: at p = D the kernel is constant.
	whole, err := p.GDAKernel(8, 8)
	if err != nil {
		t.Fatal(err)
	}
	for a := range sets {
		for b := range sets {
			if v := whole.At(a, b); math.Abs(v-8) > 1e-9 {
				t.Fatalf("p = D: kernel [%d,%d] = %v, want 8", a, b, v)
			}
		}
	}
	task := &Task{Pool: p, Train: []int{0, 1, 2, 3, 4, 5}, Labels: []int{0, 1, 0, 1, 0, 1}}
	for _, c := range []struct {
		grid []int
		want []string
	}{
		{[]int{3, 1, 8, 10, 5}, []string{"p=3", "p=1", "p=5"}},
		{[]int{10, 15}, []string{"p=7"}},
		{nil, []string{"p=5"}},
	} {
		cands, err := gdaCandidates(task, Grid{GDAP: c.grid})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, k := range cands {
			got = append(got, k.desc)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("grid %v with D = 8: candidates %v, want %v", c.grid, got, c.want)
		}
	}
}

// sevenClassDivs returns the divergence matrices (global bandwidth) of 7
// classes × 3 random sets of 9 frames × 5 features, class c's entries
// drawn from N(step·c, (1 + 0.1·c)²), and the sets' labels.
func sevenClassDivs(t *testing.T, rng *rand.Rand, step float64) (*DivMatrix, []int) {
	t.Helper()
	sets, labels := classSets(7, 3, func(c, _ int) *mat.Dense { return testutil.RandSet(rng, 9, 5, step*float64(c), 1+0.1*float64(c)) })
	p, err := NewPool(sets, 1)
	if err != nil {
		t.Fatal(err)
	}
	dm, err := p.divMatrix(Bandwidth{Mode: Global, Scale: 1}, []int{0, 1, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dm, labels
}

// splitHeldOut splits the sets of sevenClassDivs into those held says
// are held out (test, their labels truth) and the rest (train, lab).
func splitHeldOut(labels []int, held func(i int) bool) (train, lab, test, truth []int) {
	for i, l := range labels {
		if held(i) {
			test, truth = append(test, i), append(truth, l)
		} else {
			train, lab = append(train, i), append(lab, l)
		}
	}
	return train, lab, test, truth
}

// TestPredictPreparedDimsAlone checks that the outcomes predictPrepared
// gives for several latent dimensions at once, in any order, repeated or
// above the discriminant's C − 1, are those of each dimension alone: the
// same labels and the same margins, to the last bit.
func TestPredictPreparedDimsAlone(t *testing.T) {
	const classes = 7
	dm, labels := sevenClassDivs(t, rand.New(rand.NewPCG(33, 34)), 0.3)
	train, lab, test, truth := splitHeldOut(labels, func(i int) bool { return i%3 == 2 })
	k := kfda.KernelMatrix(dm.H2, 1, 1, match.KernelHG)
	prep, err := kfda.Prepare(subSym(k, train), lab, classes)
	if err != nil {
		t.Fatal(err)
	}
	kt := sub(k, test, train)
	dims := []int{6, 3, 1, 9, 3, 2}
	for _, tr := range [][]int{truth, nil} {
		pred, marg, err := predictPrepared(prep, kt, lab, 1e-2, dims, tr)
		if err != nil {
			t.Fatal(err)
		}
		for di, d := range dims {
			alone, amarg, err := predictPrepared(prep, kt, lab, 1e-2, []int{d}, tr)
			if err != nil {
				t.Fatal(err)
			}
			for a := range test {
				if pred[di][a] != alone[0][a] || math.Float64bits(marg[di][a]) != math.Float64bits(amarg[0][a]) {
					t.Errorf("dim %d, test set %d: label %d margin %v with %v, %d %v alone", d, a, pred[di][a], marg[di][a], dims, alone[0][a], amarg[0][a])
				}
			}
		}
	}
}

// TestOneEachRegularisersAgree checks what chooseKFDA relies on to fit a
// fold's discriminant with the first regulariser only when every class
// has a single training set: every regulariser then gives the same
// labels and the same relative margins (to rounding), in every latent
// dimension tried.
func TestOneEachRegularisersAgree(t *testing.T) {
	const classes = 7
	dm, labels := sevenClassDivs(t, rand.New(rand.NewPCG(31, 32)), 0.4)
	train, lab, test, truth := splitHeldOut(labels, func(i int) bool { return i%3 != 0 })
	for _, s := range []float64{0.1, 1, 10} {
		k := kfda.KernelMatrix(dm.H2, s, 1, match.KernelHG)
		prep, err := kfda.Prepare(subSym(k, train), lab, classes)
		if err != nil {
			t.Fatal(err)
		}
		if !prep.OneEach {
			t.Fatal("one training set per class, not seen as such")
		}
		dims := []int{6, 3, 2}
		var pred0 [][]int
		var marg0 [][]float64
		for ri, reg := range []float64{1e-3, 1e-2, 1e-1, 1} {
			pred, marg, err := predictPrepared(prep, sub(k, test, train), lab, reg, dims, truth)
			if err != nil {
				t.Fatal(err)
			}
			if ri == 0 {
				pred0, marg0 = pred, marg
				continue
			}
			for di := range dims {
				for a := range test {
					if pred[di][a] != pred0[di][a] || math.Abs(marg[di][a]-marg0[di][a]) > 1e-9 {
						t.Errorf("s=%g reg=%g dim=%d test %d: label %d margin %.15g, with the first reg %d %.15g", s, reg, dims[di], a, pred[di][a], marg[di][a], pred0[di][a], marg0[di][a])
					}
				}
			}
		}
	}
}

// TestPoolKernelsEqualGallery checks that the pool's set kernels, made for
// every p or λ of a grid in one pass over the pairs of sets, are the
// gallery's kernel matrix (setkernel.Gallery.Matrix, what a deployed
// model's kFDA is fitted on) of each p or λ alone, to the last bit, with
// sets of fewer frames than the largest p and a d large enough that the
// products are blocked.
func TestPoolKernelsEqualGallery(t *testing.T) {
	testutil.CPUs(t, 8) // several workers on any machine
	rng := rand.New(rand.NewPCG(25, 26))
	const d = 300
	var sets []*mat.Dense
	for i, n := range []int{41, 4, 2, 130, 65, 3, 71, 20, 9, 33, 12, 40} {
		sets = append(sets, testutil.RandSet(rng, n, d, float64(i%3), 1+0.1*float64(i)))
	}
	all := make([]int, len(sets))
	for i := range all {
		all[i] = i
	}
	equal := func(t *testing.T, what string, got, want mat.Symmetric) {
		t.Helper()
		for a := range sets {
			for b := range sets {
				if got.At(a, b) != want.At(a, b) {
					t.Fatalf("%s, sets %d and %d: pool %v, gallery %v", what, a, b, got.At(a, b), want.At(a, b))
				}
			}
		}
	}
	for _, workers := range []int{1, 3} {
		p, err := NewPool(sets, workers)
		if err != nil {
			t.Fatal(err)
		}
		ps := []int{3, 1, 2, 5, 10, 15}
		ks, err := p.gdaKernels(ps, 15)
		if err != nil {
			t.Fatal(err)
		}
		for i, dim := range ps {
			g, err := setkernel.NewGDAGallery(dim, sets, workers)
			if err != nil {
				t.Fatal(err)
			}
			equal(t, fmt.Sprintf("workers %d, GDA p=%d", workers, dim), ks[i], g.Matrix(workers))
		}
		for _, reg := range []float64{1e-3, 1e-1, 10} {
			k, lambda, err := p.CDLKernel(reg, all)
			if err != nil {
				t.Fatal(err)
			}
			g, err := setkernel.NewCDLGallery(lambda, sets, workers)
			if err != nil {
				t.Fatal(err)
			}
			equal(t, fmt.Sprintf("workers %d, CDL reg=%g", workers, reg), k, g.Matrix(workers))
		}
	}
}

// TestFrameBandwidthsSaysWhy: where no base bandwidth can be derived, the
// error says why: sets of one image repeated (a frozen camera), or values
// too large or too small for their squared distances (features of 1e160 or
// 1e-170), which were all called a frozen camera.
func TestFrameBandwidthsSaysWhy(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	scaled := func(c float64) []*mat.Dense {
		a, b := testutil.RandSet(rng, 6, 3, 0, 1), testutil.RandSet(rng, 6, 3, 1, 1)
		a.Scale(c, a)
		b.Scale(c, b)
		return []*mat.Dense{a, b}
	}
	still := mat.NewDense(4, 3, nil)
	for f := range 4 {
		still.SetRow(f, []float64{1, 2, 3})
	}
	for _, c := range []struct {
		name string
		sets []*mat.Dense
		want string
	}{
		{"frozen", []*mat.Dense{still, mat.DenseCopyOf(still)}, "one image repeated"},
		{"1e160", scaled(1e160), "too large"},
		{"1e-170", scaled(1e-170), "too small"},
		// Squared norms of 1.44e308 that sum to +Inf (not NaN): a base of
		// +Inf, no bandwidth either.
		{"distances +Inf", []*mat.Dense{
			mat.NewDense(2, 2, []float64{1.2e154, 0, 0, 1.2e154}),
			mat.NewDense(2, 2, []float64{-1.2e154, 0, 0, -1.2e154}),
		}, "too large"},
	} {
		p, err := NewPool(c.sets, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.FrameBandwidths(Bandwidth{Mode: Global, Scale: 1}, []int{0, 1}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want it to say %q", c.name, err, c.want)
		}
		if _, err := (match.BandwidthRule{Kind: match.NearestNeighbour}).Bandwidth(c.sets[0]); err == nil || !strings.Contains(err.Error(), c.want) && !(c.name == "frozen" && errors.Is(err, match.ErrNoSpread)) {
			t.Errorf("%s: match's nn rule: %v, want it to say %q", c.name, err, c.want)
		}
	}
}

// TestKFDAKernelNaN: sets of two classes near 0 with a spread of 1e-140
// and a third near 1e20, with one bandwidth for all (global*1, 1e-140 or
// so): the Jeffrey divergences between the third class and the others
// overflow to +Inf, and so does their median, so a width over the median
// is 0 and their kernel values NaN (0·Inf). kfda-j says which two sets,
// by their names, and which methods avoid it, with test sets and without;
// kfda-hg (Hellinger, within 0 and 2) on the same sets copes, as kfda-j
// with a width on the raw divergence does.
func TestKFDAKernelNaN(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var sets []*mat.Dense
	var names []string
	var labels []int
	for c, spec := range []struct{ mean, sd float64 }{{0, 1e-140}, {0, 2e-140}, {1e20, 1e13}} {
		for s := range 4 {
			off := 3 * spec.sd * rng.NormFloat64()
			x := mat.NewDense(10, 3, nil)
			for i := range 10 {
				for j := range 3 {
					x.Set(i, j, spec.mean+off+spec.sd*rng.NormFloat64())
				}
			}
			sets, labels = append(sets, x), append(labels, c)
			names = append(names, fmt.Sprintf("c%d/s%d", c, s))
		}
	}
	pool := mustPool(t, sets)
	pool.Names = names
	g := DefaultGrid()
	g.Bandwidths = []Bandwidth{{Mode: Global, Scale: 1}}
	g.WidthScale, g.Widths, g.Regs = WidthMedian, []float64{1}, []float64{1e-3}
	train, test := []int{0, 1, 2, 4, 5, 6, 8, 9, 10}, []int{3, 7, 11}
	var trainLabels []int
	for _, i := range train {
		trainLabels = append(trainLabels, labels[i])
	}
	for _, tc := range []struct {
		name string
		test []int
	}{{"with test sets", test}, {"fitted on the training sets (Fit)", nil}} {
		task := &Task{Pool: pool, Train: train, Labels: trainLabels, Test: tc.test, Classes: 3, Seed: 1}
		run := func(m Name, g Grid) error {
			if tc.test == nil {
				_, err := Fit(m, task, g)
				return err
			}
			_, err := Run(m, task, g)
			return err
		}
		err := run(KFDAJ, g)
		if err == nil || !errors.Is(err, kfda.ErrKFDA) || !strings.Contains(err.Error(), "set c0/s0: kernel Fisher discriminant: its kernel value against set c2/s0 is NaN") ||
			!strings.Contains(err.Error(), "kfda-hg and kfda-hl") || !strings.Contains(err.Error(), "widths on the raw divergence") {
			t.Errorf("kfda-j %s: %v, want the NaN kernel value of sets c0/s0 and c2/s0 with what avoids it", tc.name, err)
		}
		if err := run(KFDAHG, g); err != nil {
			t.Errorf("kfda-hg %s: %v", tc.name, err)
		}
		raw := g
		raw.WidthScale = WidthRaw
		if err := run(KFDAJ, raw); err != nil {
			t.Errorf("kfda-j %s, raw widths: %v", tc.name, err)
		}
	}
}

// TestGridDims: the latent dimensions a grid tries for c classes: by
// default C−1, ⌈(C−1)/2⌉ and ⌈(C−1)/4⌉, each once; a dimension of the
// grid that is 0 or less, or above C−1, is C−1.
func TestGridDims(t *testing.T) {
	for _, c := range []struct {
		dims    []int
		classes int
		want    []int
	}{
		{nil, 2, []int{1}},
		{nil, 3, []int{2, 1}},
		{nil, 6, []int{5, 3, 2}},
		{nil, 10, []int{9, 5, 3}},
		{[]int{0}, 6, []int{5}},
		{[]int{-1, 2}, 6, []int{5, 2}},
		{[]int{3, 99, 5, 3}, 6, []int{3, 5}},
	} {
		if got := (Grid{Dims: c.dims}).dims(c.classes); !slices.Equal(got, c.want) {
			t.Errorf("dims %v, %d classes: %v, want %v", c.dims, c.classes, got, c.want)
		}
	}
}

// TestDivKernelClampsNegative: a divergence rounded below 0 is 0 in the
// kernel of some sets (divKernel) as in the pool's whole kernel
// (kfda.KernelMatrix): no kernel value above 1, and the two the same.
func TestDivKernelClampsNegative(t *testing.T) {
	dm := newDivMatrixOn(3, nil)
	dm.set(0, 1, match.Divergences{Hellinger2: -1e-9, Jeffrey: -1e-9})
	dm.set(0, 2, match.Divergences{Hellinger2: 0.5, Jeffrey: 2})
	dm.set(1, 2, match.Divergences{Hellinger2: 0.25, Jeffrey: 1})
	for _, d := range []Divs{dm.H2, dm.J} {
		whole := kfda.KernelMatrix(d, 1, 1, match.KernelHG)
		some := divKernel(d, []int{0, 1, 2}, nil, 1, 1, match.KernelHG)
		if !mat.Equal(some, whole) || some.At(0, 1) != 1 {
			t.Errorf("kernel of the sets %v, the pool's %v: want the same, 1 at (0, 1)", mat.Formatted(some), mat.Formatted(whole))
		}
	}
}

// TestDivMatrixCacheCovers: a divergence matrix cached for some sets is
// not handed out for every set: asked next for all of them, the pool
// computes the matrix of all, the divergences of the whole pool.
func TestDivMatrixCacheCovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	var sets []*mat.Dense
	for i := range 4 {
		sets = append(sets, testutil.RandSet(rng, 5, 3, float64(i), 1))
	}
	p := mustPool(t, sets)
	b := Bandwidth{Mode: Global, Scale: 1}
	train := []int{0, 1, 2, 3}
	if _, err := p.divMatrix(b, train, []int{0, 1}); err != nil {
		t.Fatal(err)
	}
	dm, err := p.divMatrix(b, train, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.FrameBandwidths(b, train)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := p.Divergences(h)
	if err != nil {
		t.Fatal(err)
	}
	if !dm.covers(nil) || !mat.Equal(dm.H2, whole.H2) || !mat.Equal(dm.J, whole.J) {
		t.Errorf("the matrix of every set after one of sets 0 and 1: covers all %v, H² %v, want %v", dm.covers(nil), mat.Formatted(dm.H2), mat.Formatted(whole.H2))
	}
}

// TestDivCandidatesWithoutCV: with nothing to cross-validate on (one
// training set per class), a kFDA on divergences takes one kernel: the
// grid's first bandwidth and the width that puts the median divergence at
// e^−1 (s = 1 over the median), whatever widths and width scale the grid
// gives.
func TestDivCandidatesWithoutCV(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	var sets []*mat.Dense
	for c := range 3 {
		sets = append(sets, testutil.RandSet(rng, 6, 3, float64(c), 1))
	}
	task := &Task{Pool: mustPool(t, sets), Train: []int{0, 1, 2}, Labels: []int{0, 1, 2}, Classes: 3}
	first := Bandwidth{Mode: Global, Scale: 2}
	for _, ws := range []WidthScale{WidthRaw, WidthMedian, WidthBoth} {
		g := Grid{Bandwidths: []Bandwidth{first, {Mode: PerSet, Scale: 1}}, Widths: []float64{0.1, 0.5}, WidthScale: ws, Folds: 3}
		cands, err := divCandidates(task, g, KFDAHG)
		if err != nil {
			t.Fatal(err)
		}
		if len(cands) != 1 {
			t.Fatalf("width scale %s: %d candidates, want 1", ws, len(cands))
		}
		if f := cands[0].fit; f.Bandwidth != first || f.Width != 1 || !f.WidthMedian || !(f.WidthScale > 0) {
			t.Errorf("width scale %s: %s, bandwidth %v width %v median %v (scale %v); want %v, 1 over the median", ws, cands[0].desc, f.Bandwidth, f.Width, f.WidthMedian, f.WidthScale, first)
		}
	}
}

// TestChooseKFDAScoresEachRegulariser: with several training sets per
// class in every fold, each regulariser's discriminant is fitted and
// scored on its own (the first one's outcomes stand for the others' only
// where every class has one training set). The classes differ in a
// feature of small spread beside one of wide spread: a regulariser far
// above the scatter leaves only the between-class direction of the means,
// which the wide feature's noise dominates, and loses to a small one
// given after it.
func TestChooseKFDAScoresEachRegulariser(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	const per = 10
	var rows [][]float64
	var labels, train []int
	for c := range 2 {
		for range per {
			rows = append(rows, []float64{float64(c) + 0.1*rng.NormFloat64(), 4 * rng.NormFloat64()})
			labels = append(labels, c)
			train = append(train, len(train))
		}
	}
	n := len(rows)
	k := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			k.SetSym(i, j, rows[i][0]*rows[j][0]+rows[i][1]*rows[j][1])
		}
	}
	task := &Task{Pool: &Pool{Workers: 1}, Train: train, Labels: labels, Classes: 2, Seed: 1}
	g := Grid{Regs: []float64{10, 1e-4}, Folds: 4}
	best, _, reg, _ := chooseKFDA(task, g, []candidate{{k: k}})
	if reg != 1e-4 || best.acc != 1 {
		t.Errorf("chose reg %g (score %v), want 1e-4, every held-out set right", reg, best)
	}
}

// TestAdaptiveBandwidthFloor: a frame's adaptive bandwidth (knnK) is the
// distance to its K-th nearest other frame of its set, but at least a
// tenth of its set's own median nearest-neighbour distance, so that a
// repeated frame gets no zero-width kernel; the floor is the set's, not
// the training sets' global base.
func TestAdaptiveBandwidthFloor(t *testing.T) {
	a := mat.NewDense(4, 1, []float64{0, 1, 2, 3})       // median nn distance 1: the global base
	b := mat.NewDense(5, 1, []float64{0, 0, 10, 20, 30}) // median nn distance 10, frame 0 twice
	p := mustPool(t, []*mat.Dense{a, b})
	h, err := p.FrameBandwidths(Bandwidth{Mode: Adaptive, K: 1, Scale: 2}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{2, 2, 2, 2, 2 * 1, 2 * 1, 2 * 10, 2 * 10, 2 * 10}
	for f := range want {
		if math.Abs(h[f]-want[f]) > 1e-12*want[f] {
			t.Errorf("knn1*2: bandwidths %v, want %v", h, want)
			break
		}
	}
}

// TestPerSetBandwidthOneFrameDiffers: a set of one frame three times and
// one other frame has, as match's nn rule gives it (the appliance's), the
// distance to that other frame: the nearest differing frame of every
// frame, although for the repeated ones it is the last of their
// neighbours.
func TestPerSetBandwidthOneFrameDiffers(t *testing.T) {
	a := mat.NewDense(4, 1, []float64{0, 1, 2, 3})
	s := mat.NewDense(4, 1, []float64{0, 0, 0, 4})
	p := mustPool(t, []*mat.Dense{a, s})
	h, err := p.FrameBandwidths(Bandwidth{Mode: PerSet, Scale: 1}, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := match.MedianNearestNeighbour(s)
	if want != 4 {
		t.Fatalf("match's nn rule: %v, want 4", want)
	}
	for f := 4; f < 8; f++ {
		if math.Abs(h[f]-want) > 1e-12*want {
			t.Errorf("set*1: bandwidths %v, want %v for the frames of the second set", h, want)
			break
		}
	}
}

// TestKFDAFitLatentDimWithinFit: a kFDA fitted for a model keeps no more
// latent dimensions than its discriminant has: a task of 4 classes whose
// training sets hold only 3 has 2, although the grid asks for 3.
func TestKFDAFitLatentDimWithinFit(t *testing.T) {
	task := classTask(t, 47, 3, 3, 6, 3, 2)
	task.Classes = 4
	g := Grid{Bandwidths: []Bandwidth{{Mode: Global, Scale: 1}}, Widths: []float64{1}, WidthScale: WidthRaw, Regs: []float64{1e-2}, Dims: []int{3}, Folds: 3}
	fit, err := Fit(KFDAHG, task, g)
	if err != nil {
		t.Fatal(err)
	}
	if _, r := fit.KFDA.Train.Dims(); r != 2 || fit.LatentDim != r {
		t.Errorf("latent dimension %d of a discriminant of %d, want 2 of 2", fit.LatentDim, r)
	}
}

// TestDeployableLatentDim: a kFDA fit is deployable only with a latent
// dimension its discriminant has, 1 to r (kfda.KFDA.CheckDim, the rule
// Truncate applies): 0, which the model's fit on the gallery would take
// for every dimension there is, and r + 1 are refused with what is wrong.
func TestDeployableLatentDim(t *testing.T) {
	task := classTask(t, 47, 3, 3, 6, 3, 2)
	g := Grid{Bandwidths: []Bandwidth{{Mode: Global, Scale: 1}}, Widths: []float64{1}, WidthScale: WidthRaw, Regs: []float64{1e-2}, Dims: []int{1}, Folds: 3}
	fit, err := Fit(KFDAHG, task, g)
	if err != nil {
		t.Fatal(err)
	}
	_, r := fit.KFDA.Alpha.Dims()
	for _, c := range []struct {
		dim int
		ok  bool
	}{{1, true}, {r, true}, {0, false}, {-1, false}, {r + 1, false}} {
		f := *fit
		f.LatentDim = c.dim
		err := f.Deployable()
		if c.ok != (err == nil) || !c.ok && !strings.Contains(err.Error(), fmt.Sprintf("%d latent dimensions, the discriminant has %d", c.dim, r)) {
			t.Errorf("latent dimension %d of a discriminant of %d: Deployable() = %v", c.dim, r, err)
		}
	}
}

// TestDivCandidatesMedianScale: a width over the median divergence is over
// the median, between pairs of training sets, of the measure the kernel
// takes: the squared Hellinger distance for kfda-hg, the Hellinger
// distance itself (its square root) for kfda-hl, the Jeffrey divergence
// for kfda-j.
func TestDivCandidatesMedianScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	var sets []*mat.Dense
	var labels, train []int
	for c := range 3 {
		for k := range 3 {
			train, labels = append(train, len(sets)), append(labels, c)
			sets = append(sets, testutil.RandSet(rng, 6, 3, float64(c), 1+0.3*float64(k)))
		}
	}
	p := mustPool(t, sets)
	task := &Task{Pool: p, Train: train, Labels: labels, Classes: 3}
	b := Bandwidth{Mode: Global, Scale: 1}
	dm, err := p.divMatrix(b, train, nil)
	if err != nil {
		t.Fatal(err)
	}
	median := func(d Divs, f func(float64) float64) float64 {
		var v []float64
		for a, i := range train {
			for _, j := range train[a+1:] {
				v = append(v, f(d.At(i, j)))
			}
		}
		slices.Sort(v)
		return (v[len(v)/2-1] + v[len(v)/2]) / 2 // 36 pairs
	}
	same := func(x float64) float64 { return x }
	for _, c := range []struct {
		method Name
		want   float64
	}{
		{KFDAHG, median(dm.H2, same)},
		{KFDAHL, median(dm.H2, math.Sqrt)},
		{KFDAJ, median(dm.J, same)},
	} {
		g := Grid{Bandwidths: []Bandwidth{b}, Widths: []float64{1}, WidthScale: WidthMedian, Folds: 3}
		cands, err := divCandidates(task, g, c.method)
		if err != nil {
			t.Fatal(err)
		}
		if f := cands[0].fit; len(cands) != 1 || !f.WidthMedian || math.Abs(f.WidthScale-c.want) > 1e-12*c.want {
			t.Errorf("%s: %d candidates, scale %v (median %v), want the median %v", c.method, len(cands), f.WidthScale, f.WidthMedian, c.want)
		}
	}
}

// TestKFDAFitReportsHeldOutScore: a kFDA fitted for a model with a choice
// to make records the held-out accuracy of its choice in its own
// cross-validation, not −1 (which says there was nothing to
// cross-validate on).
func TestKFDAFitReportsHeldOutScore(t *testing.T) {
	task := classTask(t, 53, 3, 3, 6, 3, 3)
	for _, m := range []Name{KFDAHG, GDA, CDL} {
		g := smallGrid()
		g.Folds = 3
		fit, err := Fit(m, task, g)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if !(fit.CV >= 0 && fit.CV <= 1) {
			t.Errorf("%s: held-out accuracy %v, want one in [0, 1]", m, fit.CV)
		}
	}
}

// classTask returns a task of classes × per training sets of n frames of
// d features, class c's frames drawn around sep·c with spread 1
// (testutil.RandSet), from the generator seeded (seed, seed+1).
func classTask(t *testing.T, seed uint64, classes, per, n, d int, sep float64) *Task {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var sets []*mat.Dense
	var labels, train []int
	for c := range classes {
		for range per {
			train, labels = append(train, len(sets)), append(labels, c)
			sets = append(sets, testutil.RandSet(rng, n, d, sep*float64(c), 1))
		}
	}
	return &Task{Pool: mustPool(t, sets), Train: train, Labels: labels, Classes: classes}
}

// TestKFDAKernelNaNSaysTheScale: a kFDA method on divergences whose
// kernel values are NaN because the features' values are out of the
// range of float64 squares says which way to scale them, as a
// match.ScaleError: every set ×1e-160 (a global bandwidth near 1e-160,
// whose square is 0: 0/0 in the divergences) too small, scale them up;
// one set ×1e160 (squared distances of +Inf) too large, scale them down.
func TestKFDAKernelNaNSaysTheScale(t *testing.T) {
	for _, c := range []struct {
		name  string
		scale func(i int) float64
		large bool
		want  string
	}{
		{"every set ×1e-160", func(int) float64 { return 1e-160 }, false, "too small to measure their spread (around 1e-150 or less); scale the features up"},
		{"one set ×1e160", func(i int) float64 { return [2]float64{1, 1e160}[min(i/7, 1)] }, true, "too large to measure their spread (around 1e150 or more); scale the features down"},
	} {
		sets, labels := testutil.Sets{Classes: 2, PerClass: 4, Frames: 10, Dim: 3, Sep: 3, Spread: 1, Noise: 1}.Make(rand.New(rand.NewPCG(21, 22)))
		names := make([]string, len(sets))
		for i, x := range sets {
			x.Scale(c.scale(i), x)
			names[i] = fmt.Sprintf("c%d/s%d", labels[i], i%4)
		}
		pool := mustPool(t, sets)
		pool.Names = names
		g := DefaultGrid()
		g.Bandwidths = []Bandwidth{{Mode: Global, Scale: 1}}
		g.Widths, g.Regs = []float64{1}, []float64{1e-3}
		task := &Task{Pool: pool, Train: []int{0, 1, 2, 3, 4, 5, 6, 7}, Labels: labels, Classes: 2, Seed: 1}
		for _, m := range []Name{KFDAHL, KFDAJ} {
			_, err := Fit(m, task, g)
			se := (*match.ScaleError)(nil)
			if !errors.As(err, &se) || se.Large != c.large || !strings.Contains(err.Error(), "is NaN") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: %v; want a NaN kernel value and a match.ScaleError that says %q", c.name, m, err, c.want)
			}
		}
	}
}
