package deploy

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/stats"
	"setmatch/kfda"
	"setmatch/method"
	"setmatch/model"
	"setmatch/openset"
)

// Calibration on stand-in strangers.
//
// A threshold must be set from scores the model gives to sets it never
// saw: the score of a training set against a gallery that holds it, or
// holds the class it stands for, is not the score a stranger at the door
// gets. So the training classes are dealt to StandInFolds groups; in each
// fold one group stands for the strangers, every other class holds out
// one set (the known probes), and the deployed method is
// fitted again, with every hyper-parameter it was deployed with, on the
// rest (standInSamples). The fold's model decides the probes as the
// deployed model would a batch (model.Matcher), and the threshold is
// chosen on the pooled scores of all folds (package openset). A held-out
// known set meets one set fewer of its class in its fold than a new set
// will meet in the deployed model, and its score, the smallest over
// them, is larger for it: its sample says so (openset.Sample.Draws), and
// the known sets' rates are read for new sets. The even and odd frames
// of a class's single set are two sets of it: the even half in the
// fold's gallery, the odd half held out, and read as it
// is (a half meets the other half of its set as a new set meets the one
// set of its class). A class of one set too short to halve
// (method.FrameHalves) is in the gallery of every fold where it is known
// and never held out, as the method's own folds treat it; as a stranger,
// its whole set is the probe. Nothing a fold's model learns from is scored:
// the gallery, its bandwidths, kFDA's discriminant and a projection W
// that the classes shaped (a Fisher discriminant, a W learned by
// conjugate gradient or its PCA start, with the d and training bandwidth
// deployed) are all fitted on the fold's gallery. A W kept from the
// deployed model would have been shaped by the stand-ins' classes and by
// the held-out sets: it pulls the known probes to their classes and
// pushes the stand-ins away, and the threshold then lets in more real
// strangers than the calibration says. Each stand-in carries the spread
// of the class it was named in its fold's gallery, and the calibration
// chooses how far each class's threshold follows it (spread.go).

// StandInFolds is the number of groups the training classes are dealt to
// for the calibration: each group stands for the strangers once. With
// fewer classes, each class is a group of its own.
const StandInFolds = 5

// minKnownClasses is the number of classes a fold's gallery must keep.
const minKnownClasses = 2

// errNoStandIns is returned when the sets (the training sets, or a
// changed model's) cannot give stand-in strangers: fewer than
// minKnownClasses+1 classes, or no known probe in any fold (every class
// has one set, too short to halve: shortSingles). Its text follows the
// words that say whose sets they are (standInSamples).
var errNoStandIns = errors.New("cannot stand in for strangers")

// standInGroups deals the classes 0..classes−1 to min(StandInFolds,
// classes) groups, in a seeded order.
func standInGroups(classes int, seed uint64) [][]int {
	order := rand.New(rand.NewPCG(seed, 0x5eed57a1)).Perm(classes)
	n := min(StandInFolds, classes)
	groups := make([][]int, n)
	for i, c := range order {
		groups[i%n] = append(groups[i%n], c)
	}
	return groups
}

// foldFit fits the method on a fold's gallery (sets with labels and
// names; a projection too learns from these alone) and returns the fold's
// model, a function that decides a probe with it, and how the model sees
// its gallery (galleryView).
type foldFit func(gallery []*mat.Dense, labels, names []string) (*model.Model, func(*mat.Dense) (model.Result, error), galleryView, error)

// galleryView is how a model sees its gallery (a fold's, or the deployed
// one): the m×m matrix of its scores between the gallery sets, how far
// apart its classes lie (galleryScale) and how widely each spreads
// (openset.ClassSpread).
type galleryView struct {
	scores mat.Symmetric
	scale  float64
	spread map[string]float64
}

// spreadOf returns the spread of the class a decision named, by the
// index best of its nearest gallery set in labels: 0 where the decision
// named none (best < 0) or the class has no spread.
func (v galleryView) spreadOf(labels []string, best int) float64 {
	if best < 0 {
		return 0
	}
	return v.spread[labels[best]]
}

// newGalleryView returns the galleryView of a gallery the model compares as
// scores (m×m), labels its sets' classes.
func newGalleryView(scores mat.Symmetric, labels []string) (galleryView, error) {
	scale, err := galleryScale(scores, labels)
	return galleryView{scores, scale, openset.ClassSpread(scores, labels)}, err
}

// galleryScale is how far apart a model sees its classes: the median,
// over its gallery sets, of each set's smallest score to a set of another
// class (scores is the m×m matrix of how the model compares its gallery
// sets: divergences, or for kFDA the distances its kernel induces).
// Scores are calibrated as fractions of it, so that a threshold found on
// the stand-in folds, whose galleries hold fewer sets and classes (and
// frame halves of the classes of one set), carries over to the
// deployed model: the size of the sets, the bandwidths and the space W
// gives change both alike.
func galleryScale(scores mat.Symmetric, labels []string) (float64, error) {
	_, nearest := openset.Nearest(scores, labels)
	if len(nearest) == 0 {
		return 0, noScaleError("the gallery holds one class")
	}
	med := stats.Median(nearest)
	if !(med > 0) || math.IsInf(med, 0) {
		return 0, noScaleError(fmt.Sprintf("the classes of the gallery lie %v apart (the median of each set's nearest score to another class): want a number > 0", med))
	}
	// A set and its copy score a rounding error above 0, which differs
	// from one architecture to another (fused multiply-adds): a median
	// that small beside how far the classes reach is no scale either.
	if far := stats.Median(farthest(scores, labels)); med <= scaleRounding*far {
		return 0, noScaleError(fmt.Sprintf("the classes of the gallery lie %.3g apart (the median of each set's nearest score to another class), within rounding of 0 beside %.3g (the median of each set's farthest finite score to another class): want a number > 0", med, far))
	}
	return med, nil
}

// noScaleError is galleryScale's error: the gallery has no scale, why.
type noScaleError string

func (e noScaleError) Error() string { return string(e) }

// scaleRounding is the fraction of how far a gallery's classes reach
// (the median of each set's farthest finite score to another class)
// below which its scale is taken for a rounding error of 0.
const scaleRounding = 1e-9

// farthest returns, for each set of the m×m scores with a finite score to
// a set of another class among labels, its largest such score, or 0 where
// none is above 0: m numbers in one pass, as openset.Nearest gives the
// smallest.
func farthest(scores mat.Symmetric, labels []string) []float64 {
	_, far := openset.FoldByClass(scores, labels, math.Inf(-1), func(acc, v float64) float64 {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return acc
		}
		return max(acc, v)
	})
	var out []float64
	for _, v := range far {
		if !math.IsInf(v, -1) {
			out = append(out, max(0, v))
		}
	}
	return out
}

// Scale returns how far apart the model sees its classes, galleryScale
// of its gallery (r.Gallery): the unit in which a stand-in calibration
// sets the threshold, the model's threshold being a fraction of it.
func (r *Result) Scale() (float64, error) {
	return galleryScale(r.Gallery, r.Model.Labels())
}

// modelView returns the galleryView of m's gallery as m compares it, from
// scores (galleryScores: nil, computed here): for kFDA (scores, the m×m
// kernel matrix of the gallery) the distances its kernel induces; else
// the divergences of its sets (scores, their matrix).
func modelView(m *model.Model, scores *mat.SymDense, workers int) (galleryView, error) {
	scores, err := galleryScores(m, scores, workers)
	if err != nil {
		return galleryView{}, err
	}
	if m.Discriminant != nil {
		return newGalleryView(kfda.KernelDistances(scores), m.Labels())
	}
	return newGalleryView(scores, m.Labels())
}

// unit is a set, or a frame half of one, with its class.
type unit struct {
	x     *mat.Dense
	set   int // index into the sets
	class int
}

// standIn is a calibration sample with the spread of the class it was
// named (openset.ClassSpread of its fold's gallery; 0 for a class without
// one), by which a Spread scales its score, the fold that decided it
// (from 1; 0 for a strangers' set the deployed model decided), and the
// class of its set ("" for a strangers' set).
type standIn struct {
	openset.Sample
	spread float64
	fold   int
	class  string
}

// foldsOf returns how many folds decided the samples.
func foldsOf(samples []standIn) int {
	seen := map[int]bool{}
	for _, s := range samples {
		if s.fold > 0 {
			seen[s.fold] = true
		}
	}
	return len(seen)
}

// heldOutText says what the known samples are and how their rates are
// read: held-out sets (Draws n/(n−1) > 1), which meet one set of their
// class fewer than a new set will, are read for new sets; odd frame
// halves of the classes of one set (Draws 1), each meeting the other
// half of its set as a new set meets the one set of its class, are read
// as they are. Where both are, it names the classes that gave halves.
func heldOutText(samples []standIn) string {
	var halved []string
	sets := false
	for _, s := range samples {
		switch {
		case s.Stranger:
		case s.Draws > 1:
			sets = true
		case !slices.Contains(halved, s.class):
			halved = append(halved, s.class)
		}
	}
	switch {
	case !sets:
		return "held-out frame halves, read as they are: a half meets the other half of its set, as a new set meets the one set of its class"
	case len(halved) == 0:
		return "held-out sets, read for new sets that meet every set of their class"
	}
	slices.Sort(halved)
	which, classes := strings.Join(halved[:min(len(halved), 4)], ", "), "classes"
	if len(halved) > 4 {
		which += fmt.Sprintf(" and %d more", len(halved)-4)
	}
	if len(halved) == 1 {
		classes = "class"
	}
	return fmt.Sprintf("held-out sets and frame halves: a held-out set is read for new sets that meet every set of its class; a class of one set holds out the odd frame half of it, read as it is, as a new set meets the one set of its class (%d %s: %s)", len(halved), classes, which)
}

// shortSingles returns, per class of ids (model.ClassIndex, classes of
// them), whether the class has one set and that set is too short to halve
// (method.Halvable): such a class gives no known probe to the stand-in
// folds, and its set stays whole.
func shortSingles(sets []*mat.Dense, ids []int, classes int) []bool {
	count := make([]int, classes)
	for _, c := range ids {
		count[c]++
	}
	short := make([]bool, classes)
	for i, c := range ids {
		short[c] = count[c] == 1 && !method.Halvable(sets[i])
	}
	return short
}

// shortText says, for m's gallery, how many classes have one set too
// short to halve (shortSingles), which the stand-in folds never hold out;
// "" where none has.
func shortText(m *model.Model) string {
	ids, classes := model.ClassIndex(m.Labels())
	n := 0
	for _, s := range shortSingles(m.Samples(), ids, len(classes)) {
		if s {
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("; 1 class has a single set too short to halve (fewer than %d frames): it is in the gallery of every fold where it is known but never held out, so the known sets' rates say nothing about it (give it a longer set or a second one)", method.MinHalvedFrames)
	}
	return fmt.Sprintf("; %d classes have a single set too short to halve (fewer than %d frames): they are in the gallery of every fold where they are known but never held out, so the known sets' rates say nothing about them (give them longer sets or second ones)", n, method.MinHalvedFrames)
}

// standInSamples returns the calibration samples of the method that fit
// fits on the sets (labels and names per set): every fold's known probes
// and strangers, decided by the model the fold fits.
//
// The units of a class are its sets, or for a class of one set the even
// and odd frame halves of it, or where that set is too short to halve
// the whole set (shortSingles), each class decided alone. In each fold a
// group of classes stands for the strangers (all their sets, or the odd
// half of a class of one set, are probes), and every other class gives a
// probe: one of its sets is held out, a different one from fold to fold,
// or for a class of one set its odd half (a set too short to halve gives
// none, and is a stranger's probe whole); the rest is the fold's gallery,
// which is all the fold's model learns from (a projection by conjugate
// gradient learns from frame halves where no class of it keeps a pair).
// onFold, if not nil, is told of each fold before it is fitted (f of n,
// from 1). whose names the sets in an error ("the training sets", "the
// model's sets").
func standInSamples(sets []*mat.Dense, labels, names []string, whose string, seed uint64, fit foldFit, onFold func(f, n int)) ([]standIn, error) {
	ids, classes := model.ClassIndex(labels)
	if len(classes) < minKnownClasses+1 {
		return nil, fmt.Errorf("%s %w: %d classes, and a fold needs %d known ones besides a stranger", whose, errNoStandIns, len(classes), minKnownClasses)
	}
	// The units of each class: its sets, or where a class has one set,
	// the even and odd frame halves of it (halved), or that set whole
	// where it is too short to halve (short).
	units := make([][]unit, len(classes))
	for i, c := range ids {
		units[c] = append(units[c], unit{sets[i], i, c})
	}
	short := shortSingles(sets, ids, len(classes))
	if !slices.Contains(short, false) {
		return nil, fmt.Errorf("%s %w: every class has one set, each of fewer than %d frames, too few to halve, so no fold holds out a known set to stand in for a new set of its class (give the classes sets of %[3]d frames or more, or second sets)", whose, errNoStandIns, method.MinHalvedFrames)
	}
	halved := make([]bool, len(classes))
	for c, us := range units {
		if len(us) > 1 || short[c] {
			continue
		}
		h := method.FrameHalves(us[0].x)
		units[c], halved[c] = []unit{{h[0], us[0].set, c}, {h[1], us[0].set, c}}, true
	}
	var samples []standIn
	groups := standInGroups(len(classes), seed)
	for f, group := range groups {
		stranger := make([]bool, len(classes))
		for _, c := range group {
			stranger[c] = true
		}
		var galSets []*mat.Dense
		var galLabels, galNames []string
		// Each probe with its sample, Score and Right left to its decision.
		type probe struct {
			unit
			sample openset.Sample
		}
		var probes []probe
		for c, us := range units {
			if stranger[c] {
				for k, u := range us {
					if halved[c] && k == 0 {
						continue // a stranger's probe is its odd half, as a known one's
					}
					probes = append(probes, probe{u, openset.Sample{Stranger: true}})
				}
				continue
			}
			out := f % len(us) // the unit held out, a different one from fold to fold
			switch {
			case halved[c]:
				out = 1 // the odd half
			case short[c]:
				out = -1 // none: the whole set stays in the gallery
			}
			for k, u := range us {
				if k == out {
					// The deployed model holds len(us) sets of the class
					// where this fold's gallery holds one fewer; where
					// halves stand for sets, one set where it holds one
					// half.
					draws := float64(len(us)) / float64(len(us)-1)
					if halved[c] {
						draws = 1
					}
					probes = append(probes, probe{u, openset.Sample{Draws: draws}})
					continue
				}
				name := names[u.set]
				if halved[c] {
					name = fmt.Sprintf("%s[%d::2]", name, k)
				}
				galSets, galLabels, galNames = append(galSets, u.x), append(galLabels, labels[u.set]), append(galNames, name)
			}
		}
		if onFold != nil {
			onFold(f+1, len(groups))
		}
		m, decide, view, err := fit(galSets, galLabels, galNames)
		if err != nil {
			return nil, fmt.Errorf("stand-in fold %d of %d (classes %s standing for strangers): %w", f+1, len(groups), describeClasses(group, classes), err)
		}
		foldLabels := m.Labels()
		for _, p := range probes {
			res, err := decide(p.x)
			if err != nil {
				return nil, fmt.Errorf("stand-in fold %d, set %s/%s: %w", f+1, labels[p.set], names[p.set], err)
			}
			d := res.Decision
			right := d.Best >= 0 && foldLabels[d.Best] == labels[p.set]
			p.sample.Score, p.sample.Right = d.Score/view.scale, right
			samples = append(samples, standIn{p.sample, view.spreadOf(foldLabels, d.Best), f + 1, labels[p.set]})
		}
	}
	return samples, nil
}

func describeClasses(group []int, classes []string) string {
	var s []string
	for _, c := range group {
		s = append(s, classes[c])
	}
	if len(s) > 4 {
		return fmt.Sprintf("%s, … (%d)", s[0], len(s))
	}
	return fmt.Sprint(s)
}

// refit returns the model of r.Fit on the given gallery sets alone (raw
// frames), with every hyper-parameter as deployed: the sets' bandwidths
// by the method's query rule where halves stand for them, else as
// fitted, and for kFDA the discriminant fitted again on these sets.
func (r *Result) refit(sets []*mat.Dense, labels, names []string, opt Options) (*model.Model, *mat.SymDense, error) {
	workers := opt.Workers
	f := *r.Fit
	ids, _ := model.ClassIndex(labels)
	if err := f.RefitProjection(sets, ids, setNames(labels, names), opt.Grid, opt.Seed, workers); err != nil {
		return nil, nil, fmt.Errorf("learning W again without the stand-ins' classes: %w", err)
	}
	f.H = make([]float64, len(sets))
	for i, s := range sets {
		// The fold's sets are the deployed ones (or their halves): each
		// takes the bandwidth a batch of it would get in the deployed
		// space, which is the fitted one for a fixed rule.
		_, dim := s.Dims()
		y, err := method.ProjectSets([]*mat.Dense{s}, f.W, make([]float64, dim)) // bandwidth rules do not depend on where the frames are centred
		if err != nil {
			return nil, nil, err
		}
		if f.H[i], err = model.RuleBandwidth(f.Query, usesKDE(&f), y[0]); err != nil {
			return nil, nil, fmt.Errorf("set %s/%s: %w", labels[i], names[i], err)
		}
	}
	m, _, err := nnModel(sets, labels, names, &f, workers)
	if err != nil {
		return nil, nil, err
	}
	m.Selection.Method = f.Method
	var kernel *mat.SymDense
	if f.KFDA != nil {
		_, classes := model.ClassIndex(labels)
		if kernel, err = FitTerms(m, Terms(&f), f.Reg, min(f.LatentDim, len(classes)-1), workers); err != nil {
			return nil, nil, err
		}
	}
	return m, kernel, m.Validate()
}

// fitRaw is the foldFit of r.Fit on raw frames: the method refitted on
// the fold (refit), deciding a probe as the appliance decides a batch.
func (r *Result) fitRaw(opt Options) foldFit {
	return func(gallery []*mat.Dense, labels, names []string) (*model.Model, func(*mat.Dense) (model.Result, error), galleryView, error) {
		m, kernel, err := r.refit(gallery, labels, names, opt)
		if err != nil {
			return nil, nil, galleryView{}, err
		}
		view, err := modelView(m, kernel, opt.Workers)
		if err != nil {
			return nil, nil, galleryView{}, err
		}
		mt, err := m.NewMatcherWorkers(opt.Workers)
		if err != nil {
			return nil, nil, galleryView{}, err
		}
		return m, mt.Match, view, nil
	}
}

// pickThreshold returns the threshold opt asks for on the calibration
// samples (balanced, openset.Calibrate, or with AutoFAR at most
// FARPercent of the stand-ins let in), and how it was chosen, in words.
func pickThreshold(samples []openset.Sample, opt Options) (openset.Rates, string, error) {
	if opt.AutoFAR {
		r, err := openset.AtMost(samples, opt.FARPercent/100)
		return r, fmt.Sprintf("at most %g%% of them let in, and of such thresholds the one that names the most known sets right", opt.FARPercent), err
	}
	r, err := openset.Calibrate(samples)
	how := "balanced: the most known sets named right and strangers kept out, each weighing half"
	if err == nil && r.Chance() {
		how += "; no threshold does better than chance on them, so it is the one that lets in the fewest sets"
	}
	return r, how, err
}

// calibrated sets m's threshold and Spread from the samples, and from
// the strangers' sets opt gives (givenStrangers, decided by m itself), as
// opt asks, and returns the rates and the words that say how (what
// refits names what the folds fitted again). view is how m sees its
// gallery.
//
// The samples' scores are fractions of their fold's galleryScale, and the
// threshold is the fraction found times m's own; each class's threshold
// follows its spread as far as chooseSpread finds it pays (spread.go).
func calibrated(m *model.Model, samples []standIn, view galleryView, opt Options, refits string) (*openset.Rates, string, error) {
	given, err := givenStrangers(m, opt.Strangers, view, opt.Workers)
	if err != nil {
		return nil, "", err
	}
	// The exponent is chosen on the folds alone, where the known sets
	// and the stand-ins meet galleries alike; the strangers' sets given
	// are decided by the deployed gallery, whose classes may spread
	// where the folds' do not.
	exps := spreadExponents(opt)
	alpha, atZero, atAlpha, err := chooseSpread(samples, exps)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", thresholdFlag(opt), err)
	}
	rates, how, err := pickThreshold(atExponent(append(samples, given...), alpha), opt)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w%s", thresholdFlag(opt), err, atZeroText(err, m.Sets, view.scores, len(given) > 0, opt.changed))
	}
	scale := view.scale
	frac := rates.Threshold
	rates.Threshold *= scale
	m.Threshold, m.Spread = rates.Threshold, newSpread(view.spread, alpha)
	strangers := "stand-in strangers'"
	if len(given) > 0 {
		strangers = "strangers'"
	}
	heldOut := heldOutText(samples) + shortText(m)
	src := fmt.Sprintf("%.6g (%s): calibrated on stand-in strangers, %s; over %d folds, each leaving a group of classes out and refitting %s on the rest, %.1f%% of known sets named right (from %d %s) and %.1f%% of %d %s sets kept out, at %.3g times the fold's median distance between classes (here %.6g)",
		rates.Threshold, thresholdFlag(opt), how, foldsOf(samples), refits, 100*rates.KnownRight, rates.Known, heldOut, 100*rates.StrangersOut, rates.Strangers, strangers, frac, scale)
	if len(given) > 0 {
		sets := "sets"
		if len(given) == 1 {
			sets = "set"
		}
		src += fmt.Sprintf("; the strangers include %d %s of classes the model does not have (--strangers), each decided by the deployed model", len(given), sets)
	}
	if math.IsInf(rates.Threshold, 1) {
		src += "; no threshold keeps stand-in strangers out here"
	}
	if opt.AutoFAR && rates.KnownIn == 0 {
		// Every threshold that meets P lets no known set in either.
		again := "give"
		if opt.changed {
			again = "train again with"
		}
		src += fmt.Sprintf("; no threshold that lets in at most %g%% of the strangers lets a held-out known set in, so it keeps every set out, known ones too: %s a larger P (auto:far=P) or auto:balanced, and check it with setmatch test", opt.FARPercent, again)
	}
	src += "; " + spreadText(m, atZero, atAlpha, exps)
	return &rates, src, nil
}

// atZeroText says, where err is openset's error of strangers' sets that
// score 0, which of the model's sets are exact copies of a set of another
// class (copiesText of sets, whose scores are scores), what to do about
// them (copiesFix; changed as there), and the share auto:far=P must let
// in to pass them, where that is below 100%; "" for another error. given
// is whether strangers' sets were given too.
func atZeroText(err error, sets []model.Set, scores mat.Symmetric, given, changed bool) string {
	var e *openset.StrangersAtZeroError
	if !errors.As(err, &e) {
		return ""
	}
	t, of := "; "+copiesFix(changed), "a training set"
	if changed {
		t, of = "; check the model's sets for a set filed under two classes (setmatch forget --label LABEL --set NAME removes one)", "a set of the model"
	}
	if c := copiesText(sets, scores); c != "" {
		t = "; " + c + ": " + copiesFix(changed)
	}
	if given {
		t += ", and check the strangers' sets (--strangers) for a copy of " + of
	}
	p := float64((1000*e.Zero+e.Strangers-1)/e.Strangers) / 10 // the share, rounded up to a tenth of a percent
	switch {
	case p >= 100: // every stranger at 0: no P below 100 passes
		return t
	case changed:
		return t + fmt.Sprintf(", or train again with --threshold auto:far=P (P ≥ %g)", p)
	}
	return t + fmt.Sprintf(", or let that share in: --threshold auto:far=P with P of at least %g", p)
}

// setStandInThreshold sets the model's threshold from stand-in strangers:
// the balanced threshold, or the one that lets in at most opt.FARPercent
// percent of them. ok is false, with the reason, when the training sets
// cannot stand in for strangers; the caller then falls back.
func (r *Result) setStandInThreshold(sets []*mat.Dense, labels, names []string, opt Options) (ok bool, why error, err error) {
	samples, err := standInSamples(sets, labels, names, "the training sets", opt.Seed, r.fitRaw(opt), func(f, n int) {
		opt.stage("calibrating the threshold of %s: stand-in fold %d of %d", r.Fit.Method, f, n)
	})
	if errors.Is(err, errNoStandIns) {
		return false, err, nil
	}
	if err != nil {
		// A fold fits the method on fewer sets than training did: a
		// method that fitted on all of them may not fit there.
		return false, nil, fmt.Errorf("--threshold %s: %w; the stand-in folds fit %s again on fewer sets than training (in each, a group of classes left out and one set of every other class held out), and here they cannot: give --threshold auto (a bound from the training sets' own scores) or a number X, which need no folds, or another --method", thresholdFlag(opt), err, r.Fit.Method)
	}
	view, err := newGalleryView(r.Gallery, r.Model.Labels())
	if err != nil {
		return false, nil, fmt.Errorf("--threshold %s: %w", thresholdFlag(opt), err)
	}
	r.Calibration, r.ThresholdSource, err = calibrated(r.Model, samples, view, opt, string(r.Fit.Method))
	r.GivenStrangers, r.Others = len(opt.Strangers), opt.Others
	return err == nil, nil, err
}

// givenStrangers returns the calibration samples of the strangers' sets
// (raw frames) the user gave: each decided by m, the deployed model, as
// a batch at the door, its score a fraction of m's scale (view, with the
// spread of its named class).
func givenStrangers(m *model.Model, sets []*mat.Dense, view galleryView, workers int) ([]standIn, error) {
	if len(sets) == 0 {
		return nil, nil
	}
	mt, err := m.NewMatcherWorkers(workers)
	if err != nil {
		return nil, err
	}
	samples := make([]standIn, len(sets))
	for i, x := range sets {
		res, err := mt.Match(x)
		if err != nil {
			return nil, fmt.Errorf("stranger's set %d of %d: %w", i+1, len(sets), err)
		}
		d := res.Decision
		samples[i] = standIn{openset.Sample{Score: d.Score / view.scale, Stranger: true}, view.spreadOf(mt.Labels(), d.Best), 0, ""}
	}
	return samples, nil
}

// keepsCalibration reports whether a change to mem (one model, not a
// vote) keeps its calibration as a fraction of its gallery's scale
// (keepCalibration) rather than setting it again by opt's rule: the rule
// is one of stand-in strangers, and mem's W was shaped by its training
// classes (method.ClassShaped, the test by which the stand-in folds of
// train fit W again), which the projected gallery cannot shape again. A
// model of --method learned keeps its own rule. A member that keeps
// train's threshold as it is (keepsTrained: others' classes shaped the
// model) recalibrate sees to before this rule.
func keepsCalibration(mem *model.Model, opt Options) bool {
	return standIns(opt) && mem.Meta.Params["method"] != string(Learned) && method.ClassShaped(mem.W)
}

// keepCalibration sets the threshold of m, whose gallery changed, to the
// fraction of its gallery's scale (galleryScale) that before, m before
// the change, held: before's threshold / before's scale × m's scale, as
// calibrated carries the fraction found on the stand-in folds over to the
// deployed model. Each class's threshold follows its spread in m's
// gallery (openset.ClassSpread) at the exponent before records, as train
// sets it on the deployed gallery. scores are m's gallery scores where
// computed already (nil: computed here). It returns the words that say
// how and the scores it used; noScale, where before's gallery has no
// scale to keep a fraction of (galleryScale's noScaleError; m is then
// unchanged); any other error of before's gallery as err. before's scores are
// read from m's where m's gallery holds before's as it was (priorScores),
// else computed.
func keepCalibration(m, before *model.Model, opt Options, scores *mat.SymDense) (src string, used *mat.SymDense, noScale, err error) {
	if scores, err = galleryScores(m, scores, opt.Workers); err != nil {
		return "", nil, nil, err
	}
	old := priorScores(m, before, scores)
	if old == nil {
		if old, err = galleryScores(before, nil, opt.Workers); err != nil {
			return "", nil, nil, fmt.Errorf("the gallery before the change: %w", err)
		}
	}
	oldView, err := modelView(before, old, opt.Workers)
	var why noScaleError
	if errors.As(err, &why) {
		return "", scores, err, nil
	}
	if err != nil {
		return "", nil, nil, fmt.Errorf("the gallery before the change: %w", err)
	}
	view, err := modelView(m, scores, opt.Workers)
	if err != nil {
		return "", nil, nil, err
	}
	frac := before.Threshold / oldView.scale
	alpha := 0.0
	if before.Spread != nil {
		alpha = before.Spread.Exponent
	}
	m.Threshold, m.Spread = frac*view.scale, newSpread(view.spread, alpha)
	src = fmt.Sprintf("%.6g (%s: train's calibration kept as %.3g × the gallery's scale; W learned from the training classes cannot be learned again from the gallery, and stand-in folds with it kept are biased: it pulls their held-out sets to their classes): the gallery's scale, the median over its sets of each one's nearest score to another class, is %.6g (%.6g before the change); ",
		m.Threshold, thresholdFlag(opt), frac, view.scale, oldView.scale)
	switch {
	case m.Spread != nil:
		lo, hi := m.FactorRange()
		src += fmt.Sprintf("each class's threshold is this one times (how widely the class's sets spread over the typical class's) to the power %g, as train chose it, with the spreads of the gallery as it is: from %.3g to %.3g times it", alpha, lo, hi)
	case alpha > 0:
		src += fmt.Sprintf("one threshold for every class: no class of the gallery has two sets or more to spread (spread exponent %g, as train chose it)", alpha)
	default:
		src += "one threshold for every class, as train chose (spread exponent 0)"
	}
	return src, scores, nil, nil
}

// unusedStrangers is what the words of a calibration enroll or forget
// keeps as train made it add where strangers' sets were given to the
// change (opt.Strangers): that they are not used; "" where none were.
func unusedStrangers(opt Options) string {
	n := len(opt.Strangers)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; the %d strangers' sets given (--strangers) are not used: the calibration kept is train's, with any strangers' sets train was given", n)
}

// priorScores returns before's gallery divergences as the leading block
// of scores, m's, where before's gallery is the first sets of m's as they
// were, the same frames with the same bandwidths (an enrolment appends
// its sets, Model.WithSets), and neither decides by kFDA, whose kernel
// refitted on the grown gallery may differ; nil otherwise.
func priorScores(m, before *model.Model, scores *mat.SymDense) *mat.SymDense {
	n := len(before.Sets)
	if m.Discriminant != nil || before.Discriminant != nil || m.Divergence != before.Divergence || n > len(m.Sets) {
		return nil
	}
	for i, s := range before.Sets {
		if t := m.Sets[i]; t.Samples != s.Samples || t.Bandwidth != s.Bandwidth {
			return nil
		}
	}
	return scores.SliceSym(0, n).(*mat.SymDense)
}

// recalibrateOn sets the threshold of m, a model whose gallery has
// changed (setmatch enroll, setmatch forget), by the rule opt asks for,
// as train would, with m's projection W kept as it is: on stand-in
// strangers (the gallery's classes left out in turn, and m's decision
// fitted again on the rest: for kFDA its discriminant, with its kernels,
// regulariser and latent dimension) where the gallery allows, else on the
// gallery's own nearest scores (as setThreshold falls back). m's KFDA, if
// any, must be fitted on its gallery. m is one model, not a vote: a
// vote's members are each recalibrated as if alone (recalibrate). before
// is m as it was before the change (its gallery and threshold; one
// model), from which a model whose W its training classes shaped keeps,
// under a rule of stand-in strangers, train's calibration as a fraction
// of the gallery's scale (keepsCalibration, keepCalibration); without it
// (nil) such a model is refused. scores are the scores of m's gallery
// sets where they are computed already (nil: computed here): the kernel
// of its kFDA fit (FitTerms, GalleryKernel), or for a model that decides
// by nearest neighbour its divergence matrix (divergences). It returns the words
// that say how, the rates on the stand-ins of m (nil when the stand-ins
// were not used), the scores it used (nil where it needed none), and
// whether it kept the calibration.
func recalibrateOn(m, before *model.Model, opt Options, scores *mat.SymDense) (string, *openset.Rates, *mat.SymDense, bool, error) {
	if len(m.Voters) > 0 {
		return "", nil, nil, false, fmt.Errorf("a model that decides by a vote of %d members: recalibrate each member alone (Model.Members)", len(m.Voters)+1)
	}
	if _, classes := model.ClassIndex(m.Labels()); len(classes) < model.MinClasses {
		// No class is left to stand for a stranger to the others (and a
		// model keeps two: model.WithoutSets).
		return "", nil, nil, false, fmt.Errorf("the gallery holds %d set(s) of %d class(es): %w to set a threshold on; to start again with other people, train a new model (setmatch train)", len(m.Sets), len(classes), model.ErrTooFewClasses)
	}
	opt.changed = true
	noScale := ""
	if keepsCalibration(m, opt) {
		if before == nil || len(before.Voters) > 0 {
			return "", nil, nil, false, errors.New("a model whose W its training classes shaped keeps train's calibration as a fraction of its gallery's scale, which needs the model before the change (one model, not a vote): Enroll and Forget give it")
		}
		src, used, why, err := keepCalibration(m, before, opt, scores)
		if err != nil || why == nil {
			return src, nil, used, err == nil, err
		}
		scores = used
		// The scale of a gallery of two classes or more is 0 where most of
		// its sets are copies of a set of another class: no fraction of it
		// to keep.
		noScale = fmt.Sprintf("; set again on the gallery, not kept as a fraction of its scale: the gallery before the change has no scale (%v)", why)
	}
	m.Spread = nil // the threshold of every class is set again, from the gallery as it is
	r := &Result{Model: m, GalleryMeasure: m.Divergence.String()}
	labels, names := m.Labels(), make([]string, len(m.Sets))
	sets := make([]*mat.Dense, len(m.Sets))
	for i, set := range m.Sets {
		names[i], sets[i] = set.Name, set.Samples
	}
	why := ""
	// A model of --method learned was balanced on its training sets, as
	// train could not repeat its fit without stand-ins: it is again.
	learned := m.Meta.Params["method"] == string(Learned)
	if standIns(opt) && !learned {
		samples, err := standInSamples(sets, labels, names, "the model's sets", opt.Seed, fitGallery(m, opt.Workers), nil)
		why = fmt.Sprint(err)
		switch {
		case err == nil:
			if scores, err = galleryScores(m, scores, opt.Workers); err != nil {
				return "", nil, nil, false, err
			}
			view, err := modelView(m, scores, opt.Workers)
			if err != nil {
				return "", nil, nil, false, err
			}
			who := m.MethodName()
			if m.W != nil {
				who += " (W kept)"
			}
			rates, src, err := calibrated(m, samples, view, opt, who)
			return src + noScale, rates, scores, false, err
		case !errors.Is(err, errNoStandIns):
			return "", nil, nil, false, fmt.Errorf("--threshold %s: %w", thresholdFlag(opt), err)
		}
	}
	if len(opt.Strangers) > 0 {
		return "", nil, nil, false, strangersWithoutStandIns(opt, why)
	}
	// The gallery's own scores, as setThreshold takes them.
	var err error
	if scores, err = galleryScores(m, scores, opt.Workers); err != nil {
		return "", nil, nil, false, err
	}
	if m.Discriminant != nil {
		r.kernel = scores
		r.Gallery = kfda.KernelDistances(r.kernel)
	} else {
		r.Gallery = scores
	}
	fit := opt
	if standIns(opt) {
		fit.AutoFAR, fit.AutoBalanced = false, true // balanced on the gallery itself
	}
	if learned {
		fit.Method = Learned
	}
	if err := r.setThreshold(nil, nil, nil, fit); err != nil {
		return "", nil, nil, false, err
	}
	if why != "" {
		return fmt.Sprintf("%s (%s, so it is balanced on the gallery itself)%s", r.ThresholdSource, why, noScale), nil, scores, false, nil
	}
	return r.ThresholdSource + noScale, nil, scores, false, nil
}

// galleryScores returns scores where it is not nil, else the scores of
// m's gallery sets a recalibration reads: the kernel of its kFDA fit
// (GalleryKernel), or its divergence matrix (divergences).
func galleryScores(m *model.Model, scores *mat.SymDense, workers int) (*mat.SymDense, error) {
	if scores != nil {
		return scores, nil
	}
	if k := m.Discriminant; k != nil {
		return GalleryKernel(m, k.Kernels(), workers)
	}
	return divergences(m, workers)
}

// fitGallery is the foldFit of a model on its own gallery (projected
// sets): the fold's model is m with the fold's sets (each with the
// bandwidth m's query rule gives it, as a batch gets), its kFDA fitted
// again on them, deciding a probe that is projected already.
func fitGallery(m *model.Model, workers int) foldFit {
	return func(gallery []*mat.Dense, labels, names []string) (*model.Model, func(*mat.Dense) (model.Result, error), galleryView, error) {
		f := *m
		f.Voters, f.Discriminant, f.Spread, f.Sets = nil, nil, nil, make([]model.Set, len(gallery))
		for i, x := range gallery {
			h, err := m.SetBandwidth(x)
			if err != nil {
				return nil, nil, galleryView{}, fmt.Errorf("set %s/%s: %w", labels[i], names[i], err)
			}
			f.Sets[i] = model.Set{Label: labels[i], Name: names[i], Samples: x, Bandwidth: h}
		}
		var kernel *mat.SymDense
		if k := m.Discriminant; k != nil {
			_, classes := model.ClassIndex(labels)
			var err error
			if kernel, err = FitTerms(&f, k.Kernels(), k.Reg, min(k.Dim(), len(classes)-1), workers); err != nil {
				return nil, nil, galleryView{}, err
			}
		}
		view, err := modelView(&f, kernel, workers)
		if err != nil {
			return nil, nil, galleryView{}, err
		}
		mt, err := f.NewMatcherWorkers(workers)
		if err != nil {
			return nil, nil, galleryView{}, err
		}
		return &f, mt.MatchProjected, view, nil
	}
}

// setNames returns label/name of every set, as errors name a set.
func setNames(labels, names []string) []string {
	s := make([]string, len(labels))
	for i := range labels {
		s[i] = labels[i] + "/" + names[i]
	}
	return s
}
