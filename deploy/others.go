package deploy

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"setmatch/kfda"
	"setmatch/model"
	"setmatch/openset"
)

// Others' classes (setmatch train --others): sets of people or objects
// the model does not enrol, given to training beside the training
// classes so that the choice of the method, its hyper-parameters and a
// projection W learn from more classes than the gallery keeps. Train
// builds the model on both (Build) and then removes the others' sets
// from the gallery (WithoutOthers).

// ChangeOthers is the Op of the Change WithoutOthers makes.
const ChangeOthers = "train --others"

// OthersParam is the key of model.Selection.Params under which a model
// records how many classes of others' sets shaped it and then left its
// gallery (WithoutOthers).
const OthersParam = "others"

// WithoutOthers removes every gallery set of the classes named by others
// from m, a model Build fitted on its training classes and others'
// together, as Forget removes a class, but for the bandwidth and the
// threshold: each member's centre, and a kFDA discriminant, are fitted
// again on the sets kept. A member that decides by nearest neighbour
// (with or without W) keeps the threshold Build calibrated on every
// class (keepTrained): its score of a batch, the divergence to the
// nearest set of a class, does not depend on which other classes the
// gallery holds, and that calibration saw more classes stand in for
// strangers than the gallery keeps. A kFDA member's threshold is set
// again by the model's rule, with the strangers' sets given: its
// discriminant, fitted again, scores otherwise. What the others shaped
// stays: the method chosen, its hyper-parameters, W and the bandwidth.
// The model records how many classes they were (OthersParam), not a
// change in its history: this is training. It refuses a name the
// gallery does not hold, and one that would leave fewer than two
// classes; on an error m is unchanged.
func WithoutOthers(m *model.Model, others []string, strangers []*mat.Dense, workers int) (*Change, error) {
	c, _, err := withoutOthers(m, others, strangers, workers)
	return c, err
}

// withoutOthers is WithoutOthers, returning too the scores of the kept
// gallery's sets under m, the model (not a voter), where the change
// computed them (forgetWhere), else nil.
func withoutOthers(m *model.Model, others []string, strangers []*mat.Dense, workers int) (*Change, *mat.SymDense, error) {
	if len(others) == 0 {
		return nil, nil, fmt.Errorf("no others' classes to remove")
	}
	held := m.Classes()
	for _, c := range others {
		if !slices.Contains(held, c) {
			return nil, nil, fmt.Errorf("the gallery holds no set of the others' class %q", c)
		}
	}
	if kept := len(held) - len(others); kept < 2 {
		return nil, nil, fmt.Errorf("without the %d others' classes the gallery would hold %d: a model keeps at least two classes", len(others), kept)
	}
	// The record first, so that the change keeps what the others shaped
	// (othersShaped); on an error m is left without it.
	marked := *m
	marked.Selection.Params = maps.Clone(m.Selection.Params)
	if marked.Selection.Params == nil {
		marked.Selection.Params = map[string]string{}
	}
	marked.Selection.Params[OthersParam] = strconv.Itoa(len(others))
	next, c, scores, err := forgetWhere(&marked, func(s model.Set) bool { return slices.Contains(others, s.Label) }, ChangeOthers, strangers, workers)
	if err != nil {
		return nil, nil, err
	}
	*m = *next
	return c, scores[0], nil
}

// WithoutOthers removes the others' classes from r's model, as the
// function WithoutOthers does, and keeps r true to the model it leaves:
// the gallery's matrix (and kernel) and the words of how its threshold
// was set are then the changed model's, and so are the calibration's
// rates where its threshold was set again (a threshold kept as Build
// calibrated it keeps Build's rates). The choice (Selection) and the fit
// (Fit) stay those made on every class. The gallery's scores the change
// computed (its kFDA fit's kernel, the divergences its threshold was set
// again on) are taken as they are, not computed again.
func (r *Result) WithoutOthers(others []string, strangers []*mat.Dense, workers int) (*Change, error) {
	c, scores, err := withoutOthers(r.Model, others, strangers, workers)
	if err != nil {
		return nil, err
	}
	scores, err = galleryScores(r.Model, scores, workers)
	if err != nil {
		return nil, err
	}
	r.Gallery, r.kernel = scores, nil
	if r.Model.Discriminant != nil {
		r.Gallery, r.kernel = kfda.KernelDistances(scores), scores
	}
	if !c.Members[0].Kept {
		r.Calibration = c.Rates
	}
	r.ThresholdSource = c.Threshold
	return c, nil
}

// othersShaped reports whether others' classes shaped m, the model (not
// a vote's member, which records nothing of them): m records OthersParam,
// which WithoutOthers sets before it removes them. Such a model keeps
// through every change the global bandwidth train computed from their
// frames too (forgetWhere), and a member that decides by nearest
// neighbour its threshold (keepsTrained).
func othersShaped(m *model.Model) bool {
	return m.Selection.Params[OthersParam] != ""
}

// keepsTrained reports whether a change to mem, one member of a model
// others' classes shaped or not (shaped: othersShaped), keeps the
// threshold Build calibrated on stand-ins with those classes
// (keepTrained): shaped, mem decides by nearest neighbour, and its rule
// is one of stand-ins. No gallery the model is left with has as many
// classes to stand in for strangers, and its scores do not depend on the
// gallery's other classes.
func keepsTrained(mem *model.Model, opt Options, shaped bool) bool {
	return shaped && mem.Discriminant == nil && standIns(opt)
}

// keepTrained keeps the threshold of m, a member that decides by
// nearest neighbour, as Build calibrated it on every class, each class's
// factor kept with it (keepsTrained), in recalibrateOn's place: it
// returns the words that say so, no rates, the gallery's scores as they
// came (nil where none were computed), and that the calibration was
// kept. before is not needed.
func keepTrained(m, _ *model.Model, opt Options, scores *mat.SymDense) (string, *openset.Rates, *mat.SymDense, bool, error) {
	return fmt.Sprintf("%.6g (%s: train's calibration on every class, the --others' too, kept: the divergence of a batch to the nearest set of a class does not depend on which other classes the gallery holds)", m.Threshold, thresholdFlag(opt)), nil, scores, true, nil
}
