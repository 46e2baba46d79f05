package method

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"setmatch/kfda"
	"setmatch/match"
)

// Fitted is a method fitted on the training sets of a task, with every
// hyper-parameter its cross-validation chose: what a model needs to
// deploy it. Every method but auto fills it in (Fit; auto's is the one of
// the method it chose). Package deploy builds the model (model.Model)
// from it.
type Fitted struct {
	Method     Name
	Divergence match.Measure
	// CV is the held-out accuracy (in [0, 1]) of the chosen
	// hyper-parameters in the method's own cross-validation over the
	// training sets, −1 when there was nothing to cross-validate on.
	CV float64

	// W (D×d) and Mean (len D, may be nil) are the learned projection of
	// the -dr methods, x ↦ (x − Mean)·W, learned with Learn; nil for the
	// methods in the full space.
	W     *mat.Dense
	Mean  []float64
	Learn LearnParams

	// Bandwidth is the chosen KDE bandwidth (in the learned space for the
	// -dr methods). H holds the bandwidth of each training set (in the
	// order of Task.Train) and Query the rule that gives a new set its
	// bandwidth: a fixed h for Global, the nn rule × Scale for PerSet.
	// Adaptive bandwidths (one per frame) have no per-set equivalent: H
	// is then nil and the fit cannot be deployed (Deployable).
	Bandwidth Bandwidth
	H         []float64
	Query     match.BandwidthRule

	// kFDA on a divergence kernel (kfda-*): the kernel is
	// kernel(δ, Width/WidthScale), δ the divergence of Divergence
	// (square-rooted for kfda-hl); KFDA is fitted on all training sets
	// with regulariser Reg, and nearest neighbours are taken in its first
	// LatentDim coordinates.
	// WidthMedian: WidthScale is the median divergence between distinct
	// training sets (of √H² for kfda-hl), not 1.
	Width, WidthScale float64
	WidthMedian       bool
	Reg               float64
	LatentDim         int
	KFDA              *kfda.KFDA
	// kFDA on a set kernel (gda, cdl), in the full space of the raw
	// features: P is GDA's subspace dimension, Lambda CDL's absolute
	// covariance regulariser λ. Bandwidth and H are then only what the
	// model records for its gallery sets; the kernel uses no KDE.
	P      int
	Lambda float64
	// Terms are the kernels of kfda-mix, each a fitted kfda-hg, gda or
	// cdl with its weight; Bandwidth, H and Query are then those of the
	// kfda-hg term (Global 1 without one).
	Terms []FittedTerm
}

// Deployable reports whether a model can hold f: an error says why not.
// It checks that f has a bandwidth per training set (not one per frame)
// and, for kFDA, a latent dimension its discriminant has
// (kfda.KFDA.CheckDim): one ≤ 0, which the model's fit on the gallery
// would take for all of them, or more than there are, is refused. The
// model's own discriminant is checked by model.Validate.
func (f *Fitted) Deployable() error {
	if f == nil {
		return fmt.Errorf("the method has no deployable form")
	}
	if f.H == nil {
		return fmt.Errorf("%s with bandwidth %v: a per-frame bandwidth cannot be deployed; use global*S or set*S", f.Method, f.Bandwidth)
	}
	if f.KFDA != nil {
		if err := f.KFDA.CheckDim(f.LatentDim); err != nil {
			return fmt.Errorf("%s: %w", f.Method, err)
		}
	}
	return nil
}

// setBandwidths fills H and Query from f.Bandwidth on t's pool.
func (f *Fitted) setBandwidths(t *Task) error {
	if f.Bandwidth.Mode == Adaptive {
		return nil
	}
	h, err := t.Pool.FrameBandwidths(f.Bandwidth, t.Train)
	if err != nil {
		return err
	}
	f.setBandwidthsFrom(h, t.Pool, t.Train)
	return nil
}

// setBandwidthsFrom is setBandwidths from the bandwidths h of the frames
// of pool (FrameBandwidths with the training sets train).
func (f *Fitted) setBandwidthsFrom(h []float64, pool *Pool, train []int) {
	if f.Bandwidth.Mode == Adaptive {
		return
	}
	f.H = make([]float64, len(train))
	for k, j := range train {
		f.H[k] = h[pool.off[j]]
	}
	if f.Bandwidth.Mode == Global {
		if len(train) > 0 {
			f.Query = match.BandwidthRule{Kind: match.Fixed, Fixed: f.H[0]}
		}
	} else {
		f.Query = match.BandwidthRule{Kind: match.NearestNeighbour, Scale: f.Bandwidth.Scale}
	}
}

// SetBandwidthsOn sets f's bandwidths (H, one per set, and Query) from
// its Bandwidth on the given sets, as fitting f on them would: for a
// global bandwidth the base is the nearest-neighbour median of their
// frames. The sets are in f's space: n_i×d each, projected by W (D×d),
// for the methods with a projection; n_i×D for the others. A caller that fits f's projection again on other sets
// (deploy's stand-in strangers) uses it to keep the bandwidth rule.
func (f *Fitted) SetBandwidthsOn(sets []*mat.Dense, workers int) error {
	if f.Bandwidth.Mode == Adaptive {
		return fmt.Errorf("%s: adaptive bandwidths cannot be deployed", f.Method)
	}
	pool, err := newPoolAnySize(sets, workers) // each set's own neighbours: a gallery of any size
	if err != nil {
		return err
	}
	all := make([]int, len(sets))
	for i := range all {
		all[i] = i
	}
	h, err := pool.FrameBandwidths(f.Bandwidth, all)
	if err != nil {
		return err
	}
	f.setBandwidthsFrom(h, pool, all)
	return nil
}
