package method

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
)

// Task is one split of a protocol: training (gallery) sets with labels and
// test (probe) sets, all indices into Pool.Sets.
type Task struct {
	Pool    *Pool
	Train   []int
	Labels  []int // len Train, in [0, Classes)
	Test    []int
	Classes int
	Seed    uint64 // for the inner cross-validation folds

	// Progress, if not nil, is told how far the loops of Run are.
	Progress Counter

	// halves: the pool indices of the even and odd frames of each
	// training set, when the pool holds them (withHalves).
	halves [][2]int
}

// Learner learns a D×d projection W with orthonormal columns (and the mean
// subtracted before projecting, len D, or nil) from labelled training sets:
// the dimensionality reduction of Section 4, used by nn-h-dr and nn-j-dr.
// p says how: the dimension d, the per-set bandwidth rule held while
// learning, and the iteration cap.
type Learner func(sets []*mat.Dense, labels []int, m match.Measure, p LearnParams, seed int64) (w *mat.Dense, mean []float64, err error)

// LearnParams are the training hyper-parameters of the -dr methods.
type LearnParams struct {
	Dim     int                 // d, the dimension of the learned space
	Rule    match.BandwidthRule // per-set bandwidth rule while learning W (zero value: the learner's default)
	MaxIter int                 // conjugate-gradient iterations (0: the learner's default)
	// Scale > 0: while learning, every set holds one global bandwidth,
	// Scale × the median of the per-set nn-rule bandwidths of the projected
	// training sets (learn.GlobalTrainingBandwidth), instead of Rule.
	Scale float64
	// Start: no learning, W is the learner's starting point (the PCA
	// start, or the Fisher start); the guard candidate that a learned W
	// must beat.
	Start bool
	// Fisher: learning starts from the subspace of Fisher's discriminant
	// of the training frames (learn.FisherCache) instead of their PCA.
	Fisher bool
	// Halves: the sets W is learned from are the even and odd frame
	// halves of the training sets (learnInput), and the affinity takes one
	// neighbour a set within and between classes (ν_w = ν_b = 1), so that
	// it pairs a set's own halves. Not a choice: a fitted W records it, so
	// that it is learned again as it was (RefitProjection).
	Halves bool
}

// startNote is how a candidate's text names a start other than the PCA
// start: " from=fisher", or "".
func (p LearnParams) startNote() string {
	if p.Fisher {
		return " from=fisher"
	}
	return ""
}

// Prediction is a method's output on a task.
type Prediction struct {
	Labels []int  // predicted class of each test set
	Params string // the hyper-parameters chosen by cross-validation
	// Fit is the method fitted on the task's training sets, for the
	// methods a model can deploy (nn-*, kfda-hg/hl/j, gda, cdl, nn-*-dr),
	// when the task has no test sets (kFDA is then fitted on all training
	// sets only for it); it may be nil otherwise.
	Fit *Fitted
}

// Run evaluates one method on t with hyper-parameters chosen by
// cross-validation on t's training sets.
func Run(method Name, t *Task, g Grid) (Prediction, error) {
	if len(t.Train) != len(t.Labels) {
		return Prediction{}, fmt.Errorf("%d training sets but %d labels", len(t.Train), len(t.Labels))
	}
	if len(t.Train) == 0 || len(t.Test) == 0 {
		return Prediction{}, errors.New("a split needs training and test sets")
	}
	return run(method, t, g)
}

// run is Run without the check for test sets: with none, it fits the
// method on t's training sets only (Prediction.Fit).
func run(method Name, t *Task, g Grid) (Prediction, error) {
	if !method.IsDR() && method != Auto {
		// One training set per class: a full-space method's own choice
		// is made on the halves of the sets (the -dr methods learn W on
		// them themselves, and auto folds by them).
		var err error
		if t, err = withHalves(t); err != nil {
			return Prediction{}, err
		}
	}
	switch method {
	case NNH:
		return runNN(t, g, match.Hellinger)
	case NNJ:
		return runNN(t, g, match.Jeffrey)
	case KFDAHG, KFDAHL, KFDAJ, GDA, CDL, KFDAMix:
		cands, err := kernelCandidates(method, t, g)
		if err != nil {
			return Prediction{}, err
		}
		return runKFDA(t, g, cands)
	case NNHDR:
		return runDR(t, g, match.Hellinger)
	case NNJDR:
		return runDR(t, g, match.Jeffrey)
	case NNHLDA:
		return runLDA(t, g)
	case Auto:
		return runAuto(t, g)
	}
	return Prediction{}, fmt.Errorf("unknown method %q", method)
}
