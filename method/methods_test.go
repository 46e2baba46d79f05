package method

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
)

func TestParseNamesAndBandwidth(t *testing.T) {
	ms, err := ParseNames("nn-h, kfda-j,nn-h")
	if err != nil || !slices.Equal(ms, []Name{NNH, KFDAJ}) {
		t.Errorf("ParseNames = %v, %v", ms, err)
	}
	if all, _ := ParseNames("all"); len(all) != 12 || all[11] != Auto {
		t.Errorf("all = %v", all)
	}
	if _, err := ParseNames("nn-x"); err == nil {
		t.Error("unknown method accepted")
	}
	for _, s := range []string{"global*1", "set*0.5", "knn3*2"} {
		b, err := ParseBandwidth(s)
		if err != nil || b.String() != s {
			t.Errorf("ParseBandwidth(%q) = %v, %v", s, b, err)
		}
	}
	for _, s := range []string{"global*0", "knn*1", "foo*1", "set*x", "knn0*1", "knn-1*1", "global*inf", "set*+Inf", "set*NaN"} {
		if _, err := ParseBandwidth(s); err == nil {
			t.Errorf("ParseBandwidth(%q) accepted", s)
		}
	}
}

func TestNewPoolErrors(t *testing.T) {
	if _, err := NewPool(nil, 1); err == nil {
		t.Error("empty pool accepted")
	}
	a := mat.NewDense(3, 2, nil)
	if _, err := NewPool([]*mat.Dense{a, mat.NewDense(3, 3, nil)}, 1); err == nil {
		t.Error("mixed dimensions accepted")
	}
	if _, err := NewPool([]*mat.Dense{mat.NewDense(1, 2, nil)}, 1); err == nil {
		t.Error("single-frame set accepted")
	}
	b := mat.NewDense(2, 2, []float64{0, 1, 2, 3})
	b.Set(1, 1, nan())
	if _, err := NewPool([]*mat.Dense{b}, 1); err == nil {
		t.Error("NaN accepted")
	}
}

func nan() float64 { var z float64; return z / z }

// TestFrameBudget: half the pool for one or two training sets in the
// smallest class (their frame halves join them), all of it from three.
func TestFrameBudget(t *testing.T) {
	if FrameBudget(2) != MaxPoolFrames/2 || FrameBudget(3) != MaxPoolFrames {
		t.Errorf("FrameBudget(2) = %d, FrameBudget(3) = %d", FrameBudget(2), FrameBudget(3))
	}
}

// TestKernel: the kernel of every single-kernel kFDA method, and back.
func TestKernel(t *testing.T) {
	for _, n := range Names {
		k := n.Kernel()
		switch n {
		case KFDAHG, KFDAHL, KFDAJ, GDA, CDL:
			if k == "" || OfKernel(k) != n {
				t.Errorf("%s: kernel %q, back %q", n, k, OfKernel(k))
			}
		default:
			if k != "" {
				t.Errorf("%s: kernel %q, want none", n, k)
			}
		}
	}
	// The names a model file holds, each once; a sum has no one method.
	want := map[Name]string{KFDAHG: "hg", KFDAHL: "hl", KFDAJ: "j", GDA: "gda", CDL: "cdl"}
	for n, k := range want {
		if got := string(n.Kernel()); got != k {
			t.Errorf("%s: kernel %q, want %q", n, got, k)
		}
	}
	if n := OfKernel(KernelSum); n != "" {
		t.Errorf("OfKernel(%q) = %q, want none", KernelSum, n)
	}
	if !KernelGDA.OnSets() || !KernelCDL.OnSets() || KernelHG.OnSets() || !KernelJ.OnDivergences() || KernelSum.OnDivergences() || KernelSum.OnSets() {
		t.Error("OnSets/OnDivergences disagree with the kernels' kinds")
	}
}

// TestKernelOnDivergences: each kernel on divergences names its
// divergence, its function of the divergence and the width, and whether
// its width is scaled by a median of the divergence's root, as a model's
// terms, the kFDA candidates and the spectra take them.
func TestKernelOnDivergences(t *testing.T) {
	const div, s = 0.36, 2.0
	for _, c := range []struct {
		k    Kernel
		m    match.Measure
		want float64
		root bool
	}{
		{KernelHG, match.Hellinger, math.Exp(-s * div), false},
		{KernelHL, match.Hellinger, math.Exp(-s * math.Sqrt(div)), true},
		{KernelJ, match.Jeffrey, math.Exp(-s * div), false},
	} {
		if m, got, root := c.k.Measure(), c.k.Func()(div, s), c.k.Root(); m != c.m || got != c.want || root != c.root {
			t.Errorf("%s: measure %v, k(%g, %g) = %v, root %v; want %v, %v, %v", c.k, m, div, s, got, root, c.m, c.want, c.root)
		}
	}
}

// TestNewPoolFrameBound: a pool of MaxPoolFrames frames is made, one of a
// frame more is refused with an error that says the bound.
func TestNewPoolFrameBound(t *testing.T) {
	if _, err := NewPool([]*mat.Dense{mat.NewDense(MaxPoolFrames, 1, nil)}, 1); err != nil {
		t.Errorf("%d frames: %v", MaxPoolFrames, err)
	}
	_, err := NewPool([]*mat.Dense{mat.NewDense(MaxPoolFrames+1, 1, nil)}, 1)
	if err == nil || !strings.Contains(err.Error(), strconv.Itoa(MaxPoolFrames)) {
		t.Errorf("%d frames: %v, want an error naming the bound", MaxPoolFrames+1, err)
	}
}

// TestSetName: errors name a set by its name, or by its index where it
// has none or an empty one.
func TestSetName(t *testing.T) {
	p := &Pool{Names: []string{"alice/1", "", "carol/2"}}
	for i, want := range []string{"alice/1", "1", "carol/2", "3"} {
		if got := p.setName(i); got != want {
			t.Errorf("setName(%d) = %q, want %q", i, got, want)
		}
	}
}

// TestBandwidthsRefused: a scale of a bandwidth that is not > 0, and a
// frame bandwidth that is not a finite number > 0, are errors (the latter
// ErrBandwidth, naming the set and frame), not bandwidths of 0 or NaN.
func TestBandwidthsRefused(t *testing.T) {
	a := mat.NewDense(3, 2, []float64{0, 0, 1, 0, 0, 2})
	b := mat.NewDense(2, 2, []float64{5, 5, 6, 7})
	p, err := NewPool([]*mat.Dense{a, b}, 1)
	if err != nil {
		t.Fatal(err)
	}
	p.Names = []string{"a", "b"}
	for _, s := range []float64{0, -1, nan()} {
		if h, err := p.FrameBandwidths(Bandwidth{Mode: Global, Scale: s}, []int{0, 1}); err == nil {
			t.Errorf("scale %v: bandwidths %v, want an error", s, h)
		}
	}
	for _, v := range []float64{0, -1, nan(), math.Inf(1)} {
		h := []float64{1, 1, 1, 1, 1}
		h[4] = v
		if _, err := p.Divergences(h); !errors.Is(err, match.ErrBandwidth) || !strings.Contains(err.Error(), "set b frame 1") {
			t.Errorf("bandwidth %v: %v, want ErrBandwidth naming set b frame 1", v, err)
		}
	}
}
