package deploy

import (
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
	"setmatch/method"
	"setmatch/model"
	"setmatch/openset"
)

// Enrolment and forgetting of a deployed model (setmatch enroll, setmatch
// forget): the gallery changes (model.Model.WithSets, WithoutSets: every
// member of a vote), each kFDA member is fitted again on its new gallery
// with its own kernels, regulariser and latent dimension (refitKFDA),
// then the threshold is
// set again by the rule train set it by (ThresholdRuleParam), on the new
// gallery with every member's projection W kept (recalibrateOn; under a
// rule of stand-in strangers, a member whose W its training classes
// shaped keeps train's calibration as a fraction of the gallery's scale). Nothing
// here reads or writes files: the command reads the sets and writes the
// model.

// Change says what Enroll or Forget did to a model, for the command to
// report.
type Change struct {
	Op          string // model.ChangeEnroll, model.ChangeForget, or ChangeOthers (WithoutOthers)
	Sets        int    // gallery sets added or removed
	NewClasses  int    // enrol: labels the gallery did not hold before
	Classes     int    // classes of the gallery after the change
	GallerySets int    // gallery sets after the change
	// Members describes every member of the model (one, or each member
	// of a vote in order): what was fitted again and what was kept.
	Members []MemberChange
	// Rule is the threshold rule applied (ThresholdRuleParam), and
	// RuleDefault says that the model recorded none (a model written
	// before the rule was recorded): DefaultThreshold was used.
	Rule        string
	RuleDefault bool
	// Threshold says how the threshold was set (for a vote, each
	// member's); Rates are the rates on the stand-in strangers of the
	// first member (nil when it was not calibrated on them).
	Threshold string
	Rates     *openset.Rates
	// Before is every member's threshold before the change (one, or each
	// member's of a vote, in order; after it: MemberChange.Threshold).
	Before []float64
}

// memberThresholds returns the threshold of every member of m, in order.
func memberThresholds(m *model.Model) []float64 {
	var t []float64
	for _, mem := range m.Members() {
		t = append(t, mem.Threshold)
	}
	return t
}

// MemberChange is what a change did to one member of the model.
type MemberChange struct {
	Method string
	// Refitted: the member decides by kFDA, fitted again on the new
	// gallery (Discriminant describes it).
	Refitted     bool
	Discriminant string
	// Projection is the member's projection W when it is not the
	// identity ("" otherwise): it was shaped by every training set and
	// is kept as it is.
	Projection string
	// Recentred: forget moved the member's mean onto the sets it keeps
	// (the median of their mean frames, recentre).
	Recentred bool
	// Bandwidth: forget set the member's global bandwidth (one for every
	// gallery set and batch, from the frames of all of them) again on
	// the sets it keeps (globalBandwidthAgain); BandwidthBefore is the
	// one it had.
	Bandwidth       bool
	BandwidthBefore float64
	// Margins, on enrolment: how far each new set is from its own class
	// and from the others in the member's space, by the score its
	// threshold bounds (separation).
	Margins []Margin
	// Threshold is the member's threshold after the change; Kept says
	// that it is the calibration train made, kept as it was (keepTrained),
	// not set again: it has no rates of the change's.
	Threshold float64
	Kept      bool
}

// Enroll adds the sets to m's gallery (model.Model.WithSets: every
// member), fits every kFDA member again (refitKFDA), measures how far
// each new set is from its own class and from the others in every
// member (separation), sets the threshold again by the model's rule (recalibrateOn,
// with the strangers' sets given, as train --strangers takes them), and
// records the change in m's history at now. All or nothing: on an error
// m is unchanged.
func Enroll(m *model.Model, sets []model.NewSet, strangers []*mat.Dense, workers int, now time.Time) (*Change, error) {
	known := map[string]bool{}
	for _, l := range m.Labels() {
		known[l] = true
	}
	next, err := m.WithSets(sets)
	if err != nil {
		return nil, err
	}
	kernels, err := refitKFDA(next, len(m.Classes()), workers)
	if err != nil {
		return nil, err
	}
	if err := next.Validate(); err != nil {
		return nil, err
	}
	c := &Change{Op: model.ChangeEnroll, Sets: len(sets)}
	for _, s := range sets {
		if !known[s.Label] {
			known[s.Label] = true
			c.NewClasses++
		}
	}
	for _, mem := range next.Members() {
		c.Members = append(c.Members, describeMember(mem))
	}
	// The threshold first: where its rule reads the gallery's divergences
	// (or a kFDA member's kernel, from its fit), the margins of the new
	// sets are read from them, not computed again.
	if err := recalibrate(next, m, c, strangers, workers, kernels); err != nil {
		return nil, err
	}
	var idx []int
	for i := len(next.Sets) - len(sets); i < len(next.Sets); i++ {
		idx = append(idx, i)
	}
	for i, mem := range next.Members() {
		own := *mem
		own.Voters = nil
		if c.Members[i].Margins, err = separation(&own, idx, kernels[i], workers); err != nil {
			return nil, err
		}
	}
	c.Before = memberThresholds(m)
	next.Record(now, model.ChangeEnroll, len(sets))
	*m = *next
	c.Classes, c.GallerySets = len(m.Classes()), len(m.Sets)
	return c, nil
}

// listedSets is how many set names of a class forget's error lists; a
// class with more is left to setmatch inspect --json.
const listedSets = 10

// noClassHint says what to give forget --label where label names no
// class: the class it differs from only by case, where there is one
// (labels are told apart by case); else the classes where there are at
// most listedSets; else setmatch inspect, which lists them.
func noClassHint(classes []string, label string) string {
	for _, c := range classes {
		if strings.EqualFold(c, label) {
			return fmt.Sprintf("labels are told apart by case: --label %s", strconv.Quote(c))
		}
	}
	return listedOr(classes, "classes", "setmatch inspect MODEL lists its %d classes")
}

// listedOr returns "its WHAT: " and the names quoted where there are at
// most listedSets, else elsewhere (a format of their number) saying where
// to find them.
func listedOr(names []string, what, elsewhere string) string {
	if len(names) > listedSets {
		return fmt.Sprintf(elsewhere, len(names))
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return "its " + what + ": " + strings.Join(quoted, ", ")
}

// noSetHint says what to give forget --set where set names none of the
// sets of label: the name without its extension where that names one (a
// set is named after its file), or the last element of a path, with or
// without its extension, where that does (the burst's folder or file as
// enrolled); else the class's set names where there are at most
// listedSets; else the field of setmatch inspect --json that lists them.
func noSetHint(sets []model.Set, label, set string) string {
	var names []string
	for _, s := range sets {
		if s.Label == label {
			names = append(names, s.Name)
		}
	}
	if base := strings.TrimSuffix(set, path.Ext(set)); base != set && slices.Contains(names, base) {
		return fmt.Sprintf("a set is named after its file without the extension: --set %s", base)
	}
	// The last element, after a slash or (a path on Windows) a backslash
	// (no set is named set itself, so it is taken for a path).
	trimmed := strings.TrimRight(set, `/\`)
	if last := trimmed[strings.LastIndexAny(trimmed, `/\`)+1:]; last != set && last != "" {
		for _, name := range []string{last, strings.TrimSuffix(last, path.Ext(last))} {
			if slices.Contains(names, name) {
				return fmt.Sprintf("a set is named after its file or folder alone, without the folders above it or a file's extension: --set %s", name)
			}
		}
	}
	return listedOr(names, "sets", "setmatch inspect --json MODEL lists its %d sets: classes[].set_names")
}

// Forget removes from m's gallery every set of the label (with set not
// empty, only the set of that name), in every member
// (model.Model.WithoutSets: training's record of its choice kept, as
// Enroll keeps it), moves each member's mean onto the sets kept (recentre),
// computes a global bandwidth again on them (globalBandwidthAgain; not
// where others' classes shaped the model, othersShaped), fits
// every kFDA member again (refitKFDA), sets the threshold
// again by the model's rule (recalibrateOn, with the strangers' sets
// given), and records the change in m's history at now, without the
// label. All or nothing: on an error m is unchanged.
func Forget(m *model.Model, label, set string, strangers []*mat.Dense, workers int, now time.Time) (*Change, error) {
	hasLabel, hasSet := false, false
	for _, s := range m.Sets {
		if s.Label == label {
			hasLabel = true
			hasSet = hasSet || s.Name == set
		}
	}
	switch {
	case !hasLabel:
		return nil, fmt.Errorf("the gallery holds no set of class %q (%s)", label, noClassHint(m.Classes(), label))
	case set != "" && !hasSet:
		return nil, fmt.Errorf("class %q has no set named %q (%s)", label, set, noSetHint(m.Sets, label, set))
	}
	next, c, _, err := forgetWhere(m, func(s model.Set) bool { return s.Label == label && (set == "" || s.Name == set) }, model.ChangeForget, strangers, workers)
	if err != nil {
		return nil, err
	}
	next.Record(now, model.ChangeForget, c.Sets)
	*m = *next
	return c, nil
}

// forgetWhere returns m without the gallery sets drop selects (every
// member's), with what the gallery fits fitted again on the sets kept
// (each member's centre, its global bandwidth unless others' classes
// shaped the model, othersShaped: train computed it from their frames
// too, which the gallery no longer holds, and set the threshold at it; a
// kFDA discriminant) and
// the threshold set again by the model's rule (recalibrate), and what the
// change did, as op (Change.Op) says it: Forget's work but for the
// record in the history. It returns too, for every member of the model
// left (in order), the scores of its gallery sets the change computed
// (recalibrate's scores: its kFDA fit's kernel, or its divergence
// matrix), nil where it computed none. m is unchanged.
func forgetWhere(m *model.Model, drop func(model.Set) bool, op string, strangers []*mat.Dense, workers int) (*model.Model, *Change, []*mat.SymDense, error) {
	next, n, err := m.WithoutSets(drop)
	if err != nil {
		return nil, nil, nil, err
	}
	var rebanded, moved []bool
	var before []float64
	shaped := othersShaped(next) // train's bandwidth is of the others' frames too
	for _, mem := range next.Members() {
		before = append(before, mem.QueryBandwidth.Fixed)
		mv, err := recentre(mem)
		if err != nil {
			return nil, nil, nil, err
		}
		moved = append(moved, mv)
		ok := false
		if !shaped {
			if ok, err = globalBandwidthAgain(mem, workers); err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %w", memberMethod(mem), err)
			}
		}
		rebanded = append(rebanded, ok)
	}
	scores, err := refitKFDA(next, len(m.Classes()), workers)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := next.Validate(); err != nil {
		return nil, nil, nil, err
	}
	c := &Change{Op: op, Sets: n}
	for i, mem := range next.Members() {
		mc := describeMember(mem)
		mc.Recentred = moved[i]
		mc.Bandwidth, mc.BandwidthBefore = rebanded[i], before[i]
		c.Members = append(c.Members, mc)
	}
	if err := recalibrate(next, m, c, strangers, workers, scores); err != nil {
		return nil, nil, nil, err
	}
	c.Before = memberThresholds(m)
	c.Classes, c.GallerySets = len(next.Classes()), len(next.Sets)
	return next, c, scores, nil
}

// globalBandwidthAgain sets the global bandwidth of mem (globalRule: S
// times the median distance from a frame to its nearest other frame of
// its set) again on the sets it holds now, as training on them would
// (method.Fitted.SetBandwidthsOn). It reports whether it changed
// anything: nothing for a member without a global bandwidth.
func globalBandwidthAgain(mem *model.Model, workers int) (bool, error) {
	b, ok := globalRule(mem)
	if !ok {
		return false, nil
	}
	f := method.Fitted{Bandwidth: b}
	if err := f.SetBandwidthsOn(mem.Samples(), workers); err != nil {
		// A set of one frame, which enrol refuses now but an older one
		// took: name it, and the forget that removes it.
		var se *method.SetError
		if errors.As(err, &se) && se.Set < len(mem.Sets) {
			s := mem.Sets[se.Set]
			return false, fmt.Errorf("the global bandwidth of the sets kept: set %s/%s %s: forget that set first (setmatch forget --label %s --set %s)", s.Label, s.Name, se.Problem, s.Label, s.Name)
		}
		return false, fmt.Errorf("the global bandwidth of the sets kept: %w", err)
	}
	sets := append([]model.Set(nil), mem.Sets...)
	for i := range sets {
		sets[i].Bandwidth = f.H[i]
	}
	mem.Sets, mem.QueryBandwidth = sets, f.Query
	if _, ok := mem.Selection.Params["query-bandwidth"]; ok {
		mem.Selection.Params["query-bandwidth"] = f.Query.String()
	}
	return true, nil
}

// globalRule returns the rule of the global bandwidth of mem, a member
// whose gallery sets and batches all take one bandwidth computed from the
// frames of every training set ("global*S" in its parameters, its query
// rule that fixed number; a member on set kernels alone records such a
// bandwidth without using it, and without its parameter: global*1), and
// whether it has one.
func globalRule(mem *model.Model) (method.Bandwidth, bool) {
	if mem.QueryBandwidth.Kind != match.Fixed {
		return method.Bandwidth{}, false
	}
	rule, ok := mem.Selection.Params["bandwidth"]
	switch {
	case ok:
		b, err := method.ParseBandwidth(rule)
		return b, err == nil && b.Mode == method.Global
	case mem.Discriminant != nil && !mem.Discriminant.UsesDivergences():
		return method.Bandwidth{Mode: method.Global, Scale: 1}, true
	}
	return method.Bandwidth{}, false
}

// memberMethod is the method of a member of a model, without its voters.
func memberMethod(mem *model.Model) string {
	own := *mem
	own.Voters = nil
	return own.MethodName()
}

func describeMember(mem *model.Model) MemberChange {
	mc := MemberChange{Method: memberMethod(mem)}
	if k := mem.Discriminant; k != nil {
		mc.Refitted = true
		mc.Discriminant = fmt.Sprintf("%s, regulariser %g, %d latent dimensions", k.Describe(), k.Reg, k.Dim())
	}
	if !mem.Identity {
		mc.Projection = fmt.Sprintf("W (%d → %d)", mem.InputDim(), mem.Dim())
	}
	return mc
}

// changeRule returns the threshold rule a change to m applies: the one
// the model records (ThresholdRuleParam), DefaultThreshold where it
// records none, and the options it stands for, with the seed train
// dealt the stand-in folds with.
func changeRule(m *model.Model) (string, Options, error) {
	rule, ok := m.Selection.Params[ThresholdRuleParam]
	if !ok {
		rule = DefaultThreshold
	}
	opt := Options{Seed: 1}
	if s, err := strconv.ParseUint(m.Meta.Params["seed"], 10, 64); err == nil {
		opt.Seed = s // the seed train dealt the stand-in folds with
	}
	if err := ParseThreshold(rule, &opt); err != nil {
		return rule, opt, fmt.Errorf("the model's threshold rule %q: %w", rule, err)
	}
	return rule, opt, nil
}

// NeedsStrangers reports whether a change to m (Enroll, Forget) would
// decide strangers' sets for the threshold of some member: m's rule is
// one of stand-in strangers, and some member's threshold is set again,
// not kept as a fraction of the gallery's scale (keepsCalibration: every
// member whose W its training classes shaped keeps train's calibration,
// with any strangers' sets train was given) nor as train set it
// (keepsTrained: others' classes shaped the model). setmatch enroll and forget
// ask again for the strangers' sets a model was calibrated with only
// where it does.
func NeedsStrangers(m *model.Model) bool {
	_, opt, err := changeRule(m)
	if err != nil || !standIns(opt) {
		return false
	}
	shaped := othersShaped(m)
	for _, mem := range m.Members() {
		if !keepsCalibration(mem, opt) && !keepsTrained(mem, opt, shaped) { // of the member's own W and method
			return true
		}
	}
	return false
}

// setBy is what the words of a threshold a change set again add in the
// model (selection.params["threshold"], setmatch inspect's "threshold
// set"), so that they tell it from train's: the command (op, a
// model.ChangeEnroll or ChangeForget, or ChangeOthers) and its gallery.
func setBy(op string) string {
	if op == ChangeOthers {
		return " (set again by setmatch train on the gallery without the --others classes)"
	}
	return fmt.Sprintf(" (set again by setmatch %s on the gallery it left: the last change in the history)", op)
}

// recalibrate sets the threshold of every member of m again by the rule
// the model records (changeRule), each as if alone, with its W kept
// (recalibrateOn: a member whose W its training classes shaped keeps the
// fraction of its gallery's scale it held in before, m before the
// change), with the strangers' sets given (raw frames) beside the
// stand-ins; a rule that is a number or none leaves the thresholds as
// they are. It fills c's Rule,
// RuleDefault, Threshold, Rates and each member's Threshold. scores holds
// for every member (in order) the scores of its gallery sets where they
// are computed already, nil where not: the kernel of its kFDA fit
// (refitKFDA), or its divergence matrix; where the rule reads them, the
// ones computed here are put in their member's place.
func recalibrate(m, before *model.Model, c *Change, strangers []*mat.Dense, workers int, scores []*mat.SymDense) error {
	rule, opt, err := changeRule(m)
	_, recorded := m.Selection.Params[ThresholdRuleParam]
	c.Rule, c.RuleDefault = rule, !recorded
	if err != nil {
		return err
	}
	opt.Workers, opt.Strangers = workers, strangers
	members, befores := m.Members(), before.Members()
	if len(strangers) > 0 {
		if err := StrangersRule(opt); err != nil {
			return fmt.Errorf("the model's threshold rule %q: %w; train the model with one of those to give strangers' sets", rule, err)
		}
	}
	if !opt.AutoThreshold {
		c.Threshold = fmt.Sprintf("kept: the rule is a fixed threshold (%s)", rule)
		if math.IsInf(opt.Threshold, 1) {
			c.Threshold = "kept: a closed set (threshold rule none)"
		}
		for i, mem := range members {
			c.Members[i].Threshold = mem.Threshold
		}
		return nil
	}
	var srcs []string
	shaped := othersShaped(m)
	for i, mem := range members {
		own, was := *mem, *befores[i]
		own.Voters, was.Voters = nil, nil
		// Words of a threshold set again say which change set it; train's
		// kept are train's.
		set, by := recalibrateOn, setBy(c.Op)
		if c.Members[i].Kept = keepsTrained(&own, opt, shaped); c.Members[i].Kept {
			set, by = keepTrained, ""
		}
		src, rates, sc, kept, err := set(&own, &was, opt, scores[i])
		if err != nil {
			if len(members) > 1 {
				return fmt.Errorf("threshold of vote member %d (%s): %w", i+1, own.MethodName(), err)
			}
			return fmt.Errorf("threshold: %w", err)
		}
		scores[i] = sc
		mem.Threshold, mem.Spread = own.Threshold, own.Spread
		if mem.Selection.Params == nil {
			mem.Selection.Params = map[string]string{}
		}
		if kept && c.Op != ChangeOthers {
			// enroll and forget were given strangers' sets they do not
			// use; train's --strangers are the calibration's own.
			src += unusedStrangers(opt)
		}
		mem.Selection.Params["threshold"] = src + by
		if !kept {
			// A calibration kept holds the strangers' sets train was
			// given, and their record with it.
			recordStrangers(mem, len(strangers))
		}
		if i == 0 {
			c.Rates = rates
		}
		c.Members[i].Threshold = own.Threshold
		srcs = append(srcs, own.MethodName()+": "+src)
	}
	if len(members) == 1 {
		c.Threshold = strings.TrimPrefix(srcs[0], members[0].MethodName()+": ")
	} else {
		c.Threshold = "each member's own, that of the member whose label the vote gives: " + strings.Join(srcs, "; ")
	}
	return nil
}
