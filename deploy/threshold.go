package deploy

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"setmatch/eval"
	"setmatch/kfda"
	"setmatch/learn"
	"setmatch/match"
	"setmatch/model"
)

// setThreshold sets the model's open-set threshold from opt. An automatic
// threshold is calibrated on the training sets as the model compares them
// (learn.OpenSetThreshold, or with AutoBalanced learn.BalancedThreshold,
// on their divergences, or for kFDA on the
// distances its kernel induces, which the matcher's open-set test uses:
// model.OpenSetKernel), which needs a class with two sets; when every
// class has one (the pooled layout), on the even and odd frame halves of
// each set instead (halves).
func (r *Result) setThreshold(opt Options) error {
	r.Model.Threshold = opt.Threshold
	r.ThresholdSource = "closed set (no threshold)"
	if !math.IsInf(opt.Threshold, 1) {
		r.ThresholdSource = "given"
	}
	if !opt.AutoThreshold {
		return nil
	}
	m := r.Model
	p := opt.AutoAccept
	if p == 0 {
		p = learn.AutoThresholdPercentile
	}
	flag := "--threshold auto"
	if opt.AutoBalanced {
		flag = "--threshold auto:balanced"
	}
	labels, gallery, kernel, from, on := m.Labels(), r.Gallery, r.kernel, "", "the training sets"
	if _, classes := model.ClassIndex(labels); len(classes) == len(labels) {
		h, err := halves(m)
		if err != nil {
			return fmt.Errorf("%s: every class has one training set, so the threshold is calibrated on their frame halves, but %w; give a class two or more sets, or a threshold (--threshold X)", flag, err)
		}
		labels, on = h.Labels(), "the even and odd frame halves of the training sets (every class has one set)"
		from = " of " + on
		if k := m.KFDA; k != nil {
			if kernel, err = h.Kernel(k.Kernels(), opt.Workers); err != nil {
				return fmt.Errorf("%s: the kernel of the frame halves: %w", flag, err)
			}
		} else if gallery, err = divergences(h, opt.Workers); err != nil {
			return fmt.Errorf("%s: the divergences of the frame halves: %w", flag, err)
		}
	}
	// How far apart the model sees the sets: for kFDA the distances its
	// kernel induces (the nearest other set of its class is what a new
	// batch of the class is compared with), else the divergences.
	scores, what := mat.Symmetric(gallery), "nearest-neighbour "+m.Divergence.String()+" divergences"
	if m.KFDA != nil {
		scores, what = kfda.KernelDistances(kernel), "nearest-neighbour kernel distances"
	}
	if opt.AutoBalanced {
		b, err := learn.BalancedThreshold(scores, labels)
		if err != nil {
			return fmt.Errorf("%s: %w", flag, err)
		}
		m.Threshold = b.Threshold
		r.ThresholdSource = fmt.Sprintf("%.6g: balanced on %s, each class standing in turn for a stranger: accepts %.0f%% of %d within-class %s and rejects %.0f%% of %d other-class ones",
			b.Threshold, on, 100*b.KnownAccepted, b.Known, what, 100*b.StrangersRejected, b.Strangers)
		if b.StrangersRejected == 0 {
			r.ThresholdSource += "; no threshold tells the classes apart on these sets, so it rejects nothing: check with setmatch test on sets with strangers among them, and give a threshold (--threshold X) if one does"
		}
		// What auto would have set, for comparison with setmatch test
		// --threshold on the same model.
		if thr, err := learn.OpenSetThreshold(scores, labels, p); err == nil {
			r.ThresholdSource += fmt.Sprintf(" (auto, the bound %g%% of known sets stay below: %.6g)", p, thr)
		}
		return nil
	}
	thr, err := learn.OpenSetThreshold(scores, labels, p)
	if err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	m.Threshold = thr
	r.ThresholdSource = fmt.Sprintf("%.6g: accepts %g%% of known sets, bound from within-class %s%s", thr, p, what, from)
	if m.KFDA != nil {
		if top, ok := largestDistance(m.KFDA); ok && thr >= top {
			r.ThresholdSource += fmt.Sprintf("; it is not below %.4g, the largest distance this kernel gives, so it rejects nothing: give more sets per class, or a threshold (--threshold X)", top)
		}
	}
	return nil
}

// halves returns a copy of m whose gallery holds, for each of m's sets,
// its even frames and its odd frames as two sets of its class, each with
// the bandwidth m's query bandwidth rule gives it (as a batch would get),
// and no kFDA solution. A half stands for a new batch of a known class:
// its score against the other half is what a batch's is against the set.
func halves(m *model.Model) (*model.Model, error) {
	h := *m
	h.KFDA, h.Sets = nil, nil
	for _, s := range m.Sets {
		hs := eval.FrameHalves(s.Samples)
		if hs == nil {
			n, _ := s.Samples.Dims()
			return nil, fmt.Errorf("set %q/%q has %d frames, too few to halve (4 or more are needed)", s.Label, s.Name, n)
		}
		for par, x := range hs {
			bw, err := m.QueryBandwidth.Bandwidth(x)
			if err != nil {
				return nil, fmt.Errorf("set %q/%q, frame half %d: %w", s.Label, s.Name, par, err)
			}
			h.Sets = append(h.Sets, model.Set{Label: s.Label, Name: fmt.Sprintf("%s[%d::2]", s.Name, par), Samples: x, Bandwidth: bw})
		}
	}
	return &h, nil
}

// divergences returns the m×m divergence matrix of m's gallery sets under
// m's divergence, with their bandwidths.
func divergences(m *model.Model, workers int) (*mat.SymDense, error) {
	ys := make([]*mat.Dense, len(m.Sets))
	hs := make([]float64, len(m.Sets))
	for i, s := range m.Sets {
		ys[i], hs[i] = s.Samples, s.Bandwidth
	}
	return match.DivergenceMatrix(ys, hs, m.Divergence, workers)
}

// largestDistance returns the largest distance a kernel made of terms on
// divergences can put between two sets, √(2·Σ weights) (each such kernel
// is 1 at divergence 0 and falls to 0); ok is false when a term is a set
// kernel, which has no such bound.
func largestDistance(k *model.KFDA) (float64, bool) {
	var w float64
	for _, t := range k.Kernels() {
		if !t.OnDivergences() {
			return 0, false
		}
		w += t.Weight
	}
	return math.Sqrt(2 * w), true
}
