package deploy

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"setmatch/kfda"
	"setmatch/match"
	"setmatch/method"
	"setmatch/model"
	"setmatch/openset"
)

// DefaultThreshold is the --threshold of setmatch train when none is
// given: the balanced threshold on stand-in strangers. A door must keep
// strangers out without being told to; of the calibrations, the balanced
// one weighs the two errors alike, on scores the model gave to sets and
// classes it did not hold, so it holds on sets it never saw as long as
// the stand-ins are like the strangers to come (auto:far=P is stricter).
const DefaultThreshold = "auto:balanced"

// ParseThreshold sets opt's threshold fields from the text of setmatch
// train's --threshold: "" (DefaultThreshold), "none" (a closed set), a
// number ≥ 0 (+Inf, in any spelling strconv takes, is a threshold no
// score exceeds: a closed set, as none), "auto" or "auto:P" (a bound P% of the known
// training sets stay below, 95 for auto), "auto:balanced" or
// "auto:far=P" (calibrated on stand-in strangers: balanced, or letting in
// at most P% of them).
func ParseThreshold(s string, opt *Options) error {
	opt.Threshold, opt.AutoThreshold, opt.AutoAccept, opt.AutoBalanced, opt.AutoFAR, opt.FARPercent = math.Inf(1), false, 0, false, false, 0
	opt.infinite = ""
	t := strings.TrimSpace(s)
	if t == "" {
		t = DefaultThreshold
	}
	switch {
	case t == "none":
		return nil
	case t == "auto":
		opt.AutoThreshold = true
	case t == "auto:balanced":
		opt.AutoThreshold, opt.AutoBalanced = true, true
	case strings.HasPrefix(t, "auto:far="):
		v, err := strconv.ParseFloat(strings.TrimSuffix(t[len("auto:far="):], "%"), 64)
		if err != nil || !(v >= 0 && v < 100) {
			return fmt.Errorf("--threshold auto:far=P: P is the percent of stand-in strangers a threshold may let in, a number from 0 up to (not including) 100, got %q", s)
		}
		opt.AutoThreshold, opt.AutoFAR, opt.FARPercent = true, true, v
	case strings.HasPrefix(t, "auto:"):
		v, err := strconv.ParseFloat(strings.TrimSuffix(t[len("auto:"):], "%"), 64)
		if err != nil || !(v > 0 && v < 100) {
			return fmt.Errorf("--threshold auto:P: P is the percent of known sets to accept, a number strictly between 0 and 100 (or auto:balanced, auto:far=P), got %q", s)
		}
		opt.AutoThreshold, opt.AutoAccept = true, v
	default:
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || !(v >= 0) || math.IsNaN(v) {
			return fmt.Errorf("--threshold: want none, a number ≥ 0, auto, auto:P, auto:balanced or auto:far=P, got %q", s)
		}
		opt.Threshold = v
		if math.IsInf(v, 1) {
			opt.infinite = t
		}
	}
	return nil
}

// StrangersRule returns nil when opt's threshold rule takes strangers'
// sets (Options.Strangers, setmatch train --strangers), else an error
// that says which rules do: they are counted beside the stand-in
// strangers, so the rule must calibrate on those.
func StrangersRule(opt Options) error {
	if standIns(opt) {
		return nil
	}
	return fmt.Errorf("strangers' sets are counted beside the stand-in strangers: they need --threshold auto:balanced (the default) or auto:far=P, not %s", ThresholdRule(opt))
}

// strangersWithoutStandIns is the error of strangers' sets given where the
// gallery cannot stand in for strangers (why): the known sets' side of
// the calibration comes from the stand-in folds.
// A change to a model (opt.changed) cannot give it classes: there it
// says to leave the strangers' sets out.
func strangersWithoutStandIns(opt Options, why string) error {
	fix := "give three classes or more, or no strangers' sets"
	if opt.changed {
		fix = "give --strangers none to set the threshold on the model's sets alone, without strangers' sets (or enrol a third class first)"
	}
	return fmt.Errorf("--threshold %s with strangers' sets: %s, and the known sets' side of the calibration comes from stand-in folds; %s", thresholdFlag(opt), why, fix)
}

// thresholdFlag returns the --threshold that opt stands for.
func thresholdFlag(opt Options) string {
	switch {
	case opt.AutoFAR:
		return fmt.Sprintf("auto:far=%g", opt.FARPercent)
	case opt.AutoBalanced:
		return "auto:balanced"
	case opt.AutoAccept > 0:
		return fmt.Sprintf("auto:%g", opt.AutoAccept)
	}
	return "auto"
}

// setThreshold sets the model's open-set threshold from opt. With
// AutoBalanced or AutoFAR it is calibrated on stand-in strangers
// (standin.go) where the training sets allow (three classes or more,
// one of them with two sets or one set long enough to halve:
// shortSingles), else on the
// training sets themselves as below. An automatic threshold (auto, auto:P)
// is calibrated on the training sets as the model compares them: on
// their divergences, or for kFDA on the distances its kernel induces,
// which the matcher's open-set test uses (model.OpenSetKernel). It is
// openset.AutoThreshold, or for a balanced threshold that cannot be
// calibrated on stand-ins openset.BalancedThreshold (openset's balance of
// their within-class nearest scores against their other-class ones);
// both need a class with two sets; when every class has one (the pooled
// layout), they are calibrated on the even and odd frame halves of each
// set instead (halves).
func (r *Result) setThreshold(sets []*mat.Dense, labels, names []string, opt Options) error {
	r.Model.Threshold = opt.Threshold
	r.ThresholdSource = "closed set (no threshold): every set is named, strangers too (--threshold none)"
	if opt.infinite != "" {
		r.ThresholdSource = fmt.Sprintf("closed set (no threshold): every set is named, strangers too (--threshold %s: no score exceeds an infinite threshold, the same as --threshold none)", opt.infinite)
	}
	if !math.IsInf(opt.Threshold, 1) {
		// A number is in the model's own scores, which no other method
		// shares: say which.
		what := r.GalleryMeasure
		if r.Model.Discriminant == nil {
			what += " divergence"
		}
		r.ThresholdSource = fmt.Sprintf("%g, given (--threshold %g): held against each batch's %s to the model's nearest set, a scale of its own to the method (setmatch test --json lists the scores of sets)", opt.Threshold, opt.Threshold, what)
	}
	if len(opt.Strangers) > 0 {
		if err := StrangersRule(opt); err != nil {
			return err
		}
		if r.Fit == nil {
			return fmt.Errorf("strangers' sets calibrate a threshold on stand-in strangers, which refit the method without them: method %s has no such fit; use another --method", r.Model.MethodName())
		}
	}
	if !opt.AutoThreshold {
		return nil
	}
	flag := "--threshold " + thresholdFlag(opt)
	whose := "the training sets"
	if opt.changed {
		whose = "the model's sets" // enrolled ones among them
	}
	fallback := ""
	if (opt.AutoBalanced || opt.AutoFAR) && r.Fit != nil {
		ok, why, err := r.setStandInThreshold(sets, labels, names, opt)
		if err != nil || ok {
			return err
		}
		if len(opt.Strangers) > 0 {
			return strangersWithoutStandIns(opt, why.Error())
		}
		fallback = fmt.Sprintf(" (%v, so it is balanced on %s instead)", why, whose)
		opt.AutoBalanced = true
	} else if opt.AutoBalanced || opt.AutoFAR {
		// No cross-validated fit to refit without stand-ins: Learned, or
		// a recalibration whose stand-ins could not be made (recalibrateOn
		// says why).
		if opt.Method == Learned {
			fallback = fmt.Sprintf(" (--method %s, W learned at the given --dim, has no cross-validated fit to repeat without stand-in strangers, so it is balanced on %s instead, a weaker calibration: check it with setmatch test on sets with strangers)", opt.Method, whose)
		}
		opt.AutoBalanced = true
	}
	m := r.Model
	p := opt.AutoAccept
	if p == 0 {
		p = openset.AutoThresholdPercentile
	}
	labels, gallery, kernel, from, on := m.Labels(), r.Gallery, r.kernel, "", whose
	scored := m.Sets // the sets the scores below are of
	if _, classes := model.ClassIndex(labels); len(classes) == len(labels) {
		h, err := halves(m)
		if err != nil {
			return fmt.Errorf("%s: every class has one training set, so the threshold is calibrated on their frame halves, but %w; give a class two or more sets, or a threshold (--threshold X)", flag, err)
		}
		labels, scored, on = h.Labels(), h.Sets, "the even and odd frame halves of "+whose+" (every class has one set)"
		from = " of " + on
		if k := m.Discriminant; k != nil {
			if kernel, err = GalleryKernel(h, k.Kernels(), opt.Workers); err != nil {
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
	if m.Discriminant != nil {
		scores, what = kfda.KernelDistances(kernel), "nearest-neighbour kernel distances"
	}
	if opt.AutoBalanced {
		b, err := openset.BalancedThreshold(scores, labels)
		if err != nil {
			return fmt.Errorf("%s: %w", flag, err)
		}
		m.Threshold = b.Threshold
		r.ThresholdSource = fmt.Sprintf("%.6g"+fallback+": balanced on %s, each class standing in turn for a stranger: accepts %.0f%% of %d within-class %s and rejects %.0f%% of %d other-class ones",
			b.Threshold, on, 100*b.KnownIn, b.Known, what, 100*b.StrangersOut, b.Strangers)
		if b.Chance() {
			r.ThresholdSource += "; no threshold tells the classes apart on these sets"
			switch {
			case b.KnownIn == 0 && b.StrangersOut == 1:
				r.ThresholdSource += ", so it keeps every set out, known ones too (the safe side for a door when nothing separates them)"
			case b.Threshold == 0:
				// Only under a kernel: a divergence puts a copy a rounding
				// error above 0, and the first case holds.
				r.ThresholdSource += ", so it is 0, which keeps out every set but exact copies of a set of the model (no threshold keeps a score of 0 out)"
			}
			r.ThresholdSource += ": check with setmatch test on sets with strangers among them, and give the best single threshold it reports (--threshold X) if one separates them"
			if b.StrangersOut < 1 {
				if c := copiesText(scored, scores); c != "" {
					r.ThresholdSource += "; " + c + ": " + copiesFix(opt.changed)
				}
			}
		}
		// What auto would have set, for comparison with setmatch test
		// --threshold on the same model.
		if thr, err := openset.AutoThreshold(scores, labels, p); err == nil {
			r.ThresholdSource += fmt.Sprintf(" (auto, the bound %g%% of known sets stay below: %.6g)", p, thr)
		}
		return nil
	}
	thr, err := openset.AutoThreshold(scores, labels, p)
	if err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	m.Threshold = thr
	r.ThresholdSource = fmt.Sprintf("%.6g: accepts %g%% of known sets, bound from within-class %s%s", thr, p, what, from)
	if m.Discriminant != nil {
		if top, ok := largestDistance(m.Discriminant); ok && thr >= top {
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
	h.Discriminant, h.Sets = nil, nil
	for _, s := range m.Sets {
		hs := method.FrameHalves(s.Samples)
		if hs == nil {
			n, _ := s.Samples.Dims()
			return nil, method.TooShortToHalve(s.Label+"/"+s.Name, n)
		}
		for par, x := range hs {
			bw, err := m.SetBandwidth(x)
			if err != nil {
				return nil, fmt.Errorf("set %s/%s, frame half %d: %w", s.Label, s.Name, par, err)
			}
			h.Sets = append(h.Sets, model.Set{Label: s.Label, Name: fmt.Sprintf("%s[%d::2]", s.Name, par), Samples: x, Bandwidth: bw})
		}
	}
	return &h, nil
}

// divergences returns the m×m divergence matrix of m's gallery sets under
// m's divergence, with their bandwidths.
func divergences(m *model.Model, workers int) (*mat.SymDense, error) {
	return divergencesBy(m, m.Divergence, workers)
}

// divergencesBy returns the m×m matrix of measure d between m's gallery
// sets, with their bandwidths.
func divergencesBy(m *model.Model, d match.Measure, workers int) (*mat.SymDense, error) {
	hs := make([]float64, len(m.Sets))
	for i, s := range m.Sets {
		hs[i] = s.Bandwidth
	}
	if pairsHook != nil {
		pairsHook(len(m.Sets), len(m.Sets)*(len(m.Sets)-1)/2)
	}
	return divergenceMatrix(m.Samples(), hs, d, workers, func(i int) string { return m.Sets[i].Label + "/" + m.Sets[i].Name })
}

// largestDistance returns the largest distance a kernel made of terms on
// divergences can put between two sets, √(2·Σ weights) (each such kernel
// is 1 at divergence 0 and falls to 0); ok is false when a term is a set
// kernel, which has no such bound.
func largestDistance(k *model.Discriminant) (float64, bool) {
	var w float64
	for _, t := range k.Kernels() {
		if !t.OnDivergences() {
			return 0, false
		}
		w += t.Weight
	}
	return math.Sqrt(2 * w), true
}

// copiesText names the sets of one class that are exact copies of a set
// of another, as the model sees them: those whose score against each
// other in scores (the m×m matrix of how far apart the model sees sets,
// its gallery's or their frame halves') is 0; up to three pairs, then
// how many more; "" for none.
func copiesText(sets []model.Set, scores mat.Symmetric) string {
	var pairs []string
	n := 0
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			if sets[i].Label == sets[j].Label || scores.At(i, j) != 0 {
				continue
			}
			if n++; n <= 3 {
				pairs = append(pairs, fmt.Sprintf("%s/%s and %s/%s", sets[i].Label, sets[i].Name, sets[j].Label, sets[j].Name))
			}
		}
	}
	switch {
	case n == 0:
		return ""
	case n == 1:
		return fmt.Sprintf("a set of one class is an exact copy of a set of another (%s)", pairs[0])
	}
	if n > len(pairs) {
		pairs = append(pairs, fmt.Sprintf("%d more pairs", n-len(pairs)))
	}
	return fmt.Sprintf("sets of one class are exact copies of sets of another (%d pairs: %s)", n, strings.Join(pairs, ", "))
}

// copiesFix says what to do about the exact copies copiesText names:
// where train made the gallery, look in its folders; where enroll or
// forget changed it (changed), a copy may be a set enrolled, and forget
// removes it.
func copiesFix(changed bool) string {
	if changed {
		return "remove the copy (setmatch forget --label LABEL --set NAME)"
	}
	return "check the training folders for sets filed under two classes"
}
