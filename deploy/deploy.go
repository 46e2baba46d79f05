// Package deploy builds the model that setmatch train writes from
// labelled training sets: it chooses the method by cross-validation over
// the training sets (method.Choose, for the auto method) or takes the one
// given, fits it on all training sets (method.Candidate.Fit), turns the fit
// into a model.Model and calibrates the model's open-set threshold, on
// stand-in strangers (standin.go) and on strangers' sets where they are
// given; it hands the method engine its learner of W (DRLearner,
// learner.go). It also changes a model's gallery as setmatch enroll and
// forget do (Enroll, Forget), and as setmatch train --others removes the
// others' classes (WithoutOthers), the threshold set again by the rule
// the model records.
//
// Shapes: each training set is n_i×D (rows are frames); a deployed model
// projects by a D×d W (the identity for the methods in the full space,
// which the model holds as such).
package deploy

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/scaleadvice"
	"setmatch/internal/stats"
	"setmatch/kfda"
	"setmatch/learn"
	"setmatch/match"
	"setmatch/method"
	"setmatch/model"
	"setmatch/openset"
)

// Learned is the method of learning W with learn.Train at a given
// dimension and deploying nearest neighbour in the learned space, without
// cross-validation. It is deploy's own method, not one of the engine's
// (method.Names).
const Learned method.Name = "learned"

// Methods are the methods Build accepts: auto first, every other method
// of method.Names in its order, and Learned.
var Methods = append(append([]method.Name{method.Auto}, slices.DeleteFunc(slices.Clone(method.Names), func(n method.Name) bool { return n == method.Auto })...), Learned)

// Options configures Build.
type Options struct {
	// Method is one of Methods.
	Method method.Name
	// Dim fixes d for the -dr candidates and methods (and is required by
	// Learned); 0 lets cross-validation choose it.
	Dim int
	// Grid holds the candidate hyper-parameters (method.DefaultGrid with
	// Learn set, for the -dr methods).
	Grid method.Grid
	// Train configures Learned (its Dim is set from Dim).
	Train learn.TrainOptions
	// Threshold is the open-set threshold; +Inf for a closed set. With
	// AutoThreshold it is calibrated on the training sets instead, to
	// accept AutoAccept percent of the sets of known classes (0 means
	// openset.AutoThresholdPercentile), or with AutoBalanced too to
	// balance the known sets accepted against the strangers rejected
	// (openset.BalancedThreshold).
	// With AutoBalanced or AutoFAR, the model is calibrated on stand-in
	// strangers (standin.go): the balanced threshold, or with AutoFAR the
	// one that lets in at most FARPercent percent of them. ParseThreshold
	// sets these fields from setmatch train's --threshold.
	Threshold     float64
	AutoThreshold bool
	AutoAccept    float64
	AutoBalanced  bool
	AutoFAR       bool
	FARPercent    float64
	// Strangers are sets (n×D frames, as the training sets) of classes
	// the model must not know, such as visitors at a door: with
	// AutoBalanced or AutoFAR each is decided by the deployed model and
	// counts as a stranger beside the stand-ins. They need stand-in
	// folds for the known sets' side.
	Strangers []*mat.Dense
	// Others is how many of the training classes are others' (setmatch
	// train --others), which WithoutOthers removes after Build: the
	// calibration's words count them.
	Others int
	// SpreadExponents are the exponents α, from 0 to 1 in increasing
	// order, from which the calibration on stand-ins chooses how far each
	// class's threshold follows the class's spread (spread.go): none means
	// DefaultSpreadExponents, {0} one threshold for every class.
	SpreadExponents []float64
	Seed            uint64 // seed of the cross-validation folds
	Workers         int    // goroutines; 0: GOMAXPROCS
	// Progress, if set, is called after every cross-validation run of
	// the auto method.
	Progress func(method.AutoProgress)
	// Stage, if set, is told what Build starts after the choice: the fit
	// of a method on every training set, a stand-in fold.
	Stage func(what string)
	// Meta is recorded in the model.
	Meta model.Meta
	// infinite is the text of a threshold given as an infinite number
	// ("Inf", "infinity", …; ParseThreshold), "" for any other: a
	// threshold no score exceeds, a closed set as none is, which the
	// words say it is.
	infinite string
	// changed is set by recalibrateOn: the gallery is one that setmatch
	// enroll or forget changed, whose sets may be enrolled ones, so the
	// words speak of the model's sets, not of training folders.
	changed bool
}

// Result is the outcome of Build.
type Result struct {
	Model     *model.Model
	Selection *method.Selection  // the auto method's scores; nil otherwise
	Fit       *method.Fitted     // the fitted method; nil for Learned
	Trained   *learn.TrainResult // Learned only
	// Gallery is the m×m matrix of how far apart the model sees its
	// gallery sets (the threshold's and a report's input): their
	// divergences, or for kFDA the distances its kernel induces,
	// kfda.KernelDistances. GalleryMeasure names it.
	Gallery         *mat.SymDense
	GalleryMeasure  string
	kernel          *mat.SymDense // kFDA: the gallery's kernel matrix
	ChooseSeconds   float64
	FitSeconds      float64
	ThresholdSource string // how the threshold was set
	// Calibration holds the rates of the threshold on the stand-in
	// strangers' and held-out known sets it was calibrated on (nil when
	// it was not calibrated on stand-ins); GivenStrangers is how many of
	// its strangers' sets were given (Options.Strangers), and Others how
	// many of the classes standing in for strangers were others'
	// (Options.Others).
	Calibration    *openset.Rates
	GivenStrangers int
	Others         int
	// OpenSetChoice says how the open set chose among the candidates the
	// closed set holds equal (buildOpenSet); empty otherwise.
	OpenSetChoice string
	// ClosedChoice names the candidate the closed set's rule alone
	// would have deployed, where the open set chose another (auto only);
	// empty otherwise.
	ClosedChoice string
	// ChoiceSample says, where auto's choice scored its candidates on a
	// sample of the training classes (method.ChoiceSample), which; empty
	// when it saw every set.
	ChoiceSample string
}

// Build chooses (for the auto method) and fits the method on the training
// sets (n_i×D each, the frames' D features; labels and names one per set)
// and returns the model.
func Build(sets []*mat.Dense, labels, names []string, opt Options) (*Result, error) {
	if len(sets) < 2 || len(labels) != len(sets) || len(names) != len(sets) {
		return nil, fmt.Errorf("%d sets, %d labels, %d names: training needs at least 2 labelled sets", len(sets), len(labels), len(names))
	}
	for _, l := range labels {
		if err := model.CheckLabel(l); err != nil {
			return nil, err
		}
	}
	known := false
	for _, m := range Methods {
		known = known || m == opt.Method
	}
	if !known {
		return nil, fmt.Errorf("unknown method %q: want one of %v", opt.Method, Methods)
	}
	if err := checkSpreadExponents(opt.SpreadExponents); err != nil {
		return nil, err
	}
	if err := checkSum(sets, labels, names); err != nil {
		return nil, err
	}
	if opt.Method == Learned {
		return buildLearned(sets, labels, names, opt)
	}
	ids, classes := model.ClassIndex(labels)
	if len(classes) < 2 {
		return nil, fmt.Errorf("the training sets hold %d class: recognition needs at least 2", len(classes))
	}
	g := opt.Grid
	if opt.Dim > 0 {
		g.DRDims = []int{opt.Dim}
	}
	res := &Result{}
	// The choice of auto scores its candidates on at most g.ChoiceCap()
	// sets: beyond, on a sample of whole classes (method.ChoiceSample).
	choice := make([]int, len(sets))
	for i := range choice {
		choice[i] = i
	}
	if c := g.ChoiceCap(); opt.Method == method.Auto && c > 0 {
		choice = method.ChoiceSample(ids, c, opt.Seed)
	}
	task, err := newTask(sets, labels, names, choice, opt)
	if err != nil {
		return nil, err
	}
	deploy := func(sel *method.Selection) (*method.Fitted, error) {
		opt.stage("fitting %s on every training set (%d)", sel.Best().Candidate, len(sets))
		f, err := sel.Deploy(task, g)
		if err == nil && len(choice) < len(sets) {
			err = fitOnAll(f, sets, labels, names, g, task.Classes, opt)
		}
		if err == nil {
			err = checkKDEBandwidths(f)
		}
		return f, err
	}
	if len(choice) < len(sets) {
		res.ChoiceSample = fmt.Sprintf("the candidates were scored on %d of the %d classes (%d of the %d training sets, a seeded sample of whole classes: the choice scores at most %d sets), and the one chosen was fitted on every set with the hyper-parameters chosen (a learned W with its d and bandwidth chosen again on every set)", task.Classes, len(classes), len(choice), len(sets), g.ChoiceCap())
	}
	t0 := time.Now()
	if opt.Method == method.Auto {
		if res.Selection, err = method.Choose(task, g, opt.Progress); err != nil {
			return nil, err
		}
		res.ChooseSeconds = time.Since(t0).Seconds()
		// The open set chooses only where stand-ins can be made: with
		// fewer classes no candidate could be calibrated on them.
		if e := res.Selection.Eligible(); len(e) > 1 && standIns(opt) && len(classes) > minKnownClasses {
			return buildOpenSet(res, e, deploy, sets, labels, names, opt)
		}
		t0 = time.Now()
		if res.Fit, err = deploy(res.Selection); err != nil {
			return nil, fmt.Errorf("fitting %s on all training sets: %w", res.Selection.Best().Candidate, err)
		}
	} else if res.Fit, err = method.Fit(opt.Method, task, g); err == nil {
		err = checkKDEBandwidths(res.Fit)
	}
	if err != nil {
		return nil, fmt.Errorf("fitting %s on all training sets: %w", opt.Method, err)
	}
	res.FitSeconds = time.Since(t0).Seconds()
	if err := res.build(sets, labels, names, opt); err != nil {
		return nil, err
	}
	return res, res.Model.Validate()
}

// stage tells opt.Stage, if set, what starts.
func (opt Options) stage(format string, a ...any) {
	if opt.Stage != nil {
		opt.Stage(fmt.Sprintf(format, a...))
	}
}

// newTask returns the task of the method's choice and fit: the sets of
// index choice (their classes re-numbered), on a pool of their own that
// names each set in its errors as "class/set".
func newTask(sets []*mat.Dense, labels, names []string, choice []int, opt Options) (*method.Task, error) {
	cs, cl, cn := make([]*mat.Dense, len(choice)), make([]string, len(choice)), make([]string, len(choice))
	for k, i := range choice {
		cs[k], cl[k], cn[k] = sets[i], labels[i], labels[i]+"/"+names[i]
	}
	pool, err := method.NewPool(cs, opt.Workers)
	if se := (*method.SetError)(nil); errors.As(err, &se) && se.Set >= 0 && se.Set < len(cn) {
		return nil, fmt.Errorf("set %s %s", cn[se.Set], se.Problem)
	}
	if err != nil {
		return nil, err
	}
	pool.Names = cn
	ids, classes := model.ClassIndex(cl)
	train := make([]int, len(cs))
	for i := range train {
		train[i] = i
	}
	return &method.Task{Pool: pool, Train: train, Labels: ids, Classes: len(classes), Seed: opt.Seed}, nil
}

// fitOnAll fits f, chosen and fitted on a sample of the training sets'
// classes (sampleClasses of them), again on every set with the
// hyper-parameters chosen: a projection the classes shape is learned
// again, a learned W with its d and KDE bandwidth chosen again on every
// set (method.Fitted.RechooseDR: more classes need more dimensions than
// the sample's), the bandwidths are set on every set, and a kFDA latent
// dimension keeps its share of C − 1 where the grid's dimensions are
// such shares (Grid.Dims empty), beyond the dimensions of f.KFDA, which
// saw the sample's classes only. The model's discriminant is fitted on
// the gallery, every class, when it is built (FitTerms, whose Truncate
// checks the latent dimension against it).
func fitOnAll(f *method.Fitted, sets []*mat.Dense, labels, names []string, g method.Grid, sampleClasses int, opt Options) error {
	ids, classes := model.ClassIndex(labels)
	if f.W != nil {
		if err := f.RechooseDR(sets, ids, setNames(labels, names), g, opt.Seed, opt.Workers); err != nil {
			return fmt.Errorf("learning W on all training sets: %w", err)
		}
	} else if err := f.SetBandwidthsOn(sets, opt.Workers); err != nil {
		return err
	}
	if f.KFDA != nil && len(g.Dims) == 0 && sampleClasses > 1 {
		f.LatentDim = max(1, int(math.Round(float64(f.LatentDim)*float64(len(classes)-1)/float64(sampleClasses-1))))
	}
	return nil
}

// standIns reports whether opt calibrates the threshold on stand-in
// strangers.
func standIns(opt Options) bool {
	return opt.AutoThreshold && (opt.AutoBalanced || opt.AutoFAR)
}

// buildOpenSet deploys, of the candidates of auto that the one-standard-
// error rule holds equal on the closed set (eligible, in order of
// preference), the one whose threshold does best on the stand-in
// strangers: the highest balanced accuracy there (with auto:far=P, the
// most known sets named right within the stand-ins let in); of equal
// ones, the earlier. Each is fitted on all sets and calibrated as if
// deployed alone. A method that names known sets as well as the others
// but scores strangers like them loses here.
func buildOpenSet(res *Result, eligible []int, deploy func(*method.Selection) (*method.Fitted, error), sets []*mat.Dense, labels, names []string, opt Options) (*Result, error) {
	var best *Result
	bestScore := math.Inf(-1)
	var tried []string
	var ranges []*kdeRangeError // the candidates refused for their KDE's bandwidth
	for _, i := range eligible {
		sel := *res.Selection
		sel.Chosen = i
		r := &Result{Selection: &sel, ChooseSeconds: res.ChooseSeconds, ChoiceSample: res.ChoiceSample}
		if i != eligible[0] {
			r.ClosedChoice = res.Selection.Scores[eligible[0]].Candidate.String()
		}
		t0 := time.Now()
		var err error
		if r.Fit, err = deploy(&sel); err != nil {
			tried = append(tried, fmt.Sprintf("%s (failed: %v)", sel.Best().Candidate, err))
			if re := (*kdeRangeError)(nil); errors.As(err, &re) {
				ranges = append(ranges, re)
			}
			continue
		}
		r.FitSeconds = time.Since(t0).Seconds()
		if err = r.build(sets, labels, names, opt); err == nil {
			err = r.Model.Validate()
		}
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s (failed: %v)", sel.Best().Candidate, err))
			continue
		}
		c := r.Calibration
		score, what := math.Inf(-1), "not calibrated on stand-ins"
		if c != nil {
			score, what = c.Balanced, fmt.Sprintf("balanced %.1f%%", 100*c.Balanced)
			if opt.AutoFAR {
				score, what = c.KnownRight, fmt.Sprintf("%.1f%% of known sets named right", 100*c.KnownRight)
			}
		}
		tried = append(tried, fmt.Sprintf("%s (%s)", sel.Best().Candidate, what))
		if best == nil || score > bestScore+1e-9 {
			best, bestScore = r, score
		}
	}
	if best == nil && len(ranges) == len(eligible) {
		return nil, fmt.Errorf("every candidate within one standard error of the best failed to deploy: %w", joinRanges(ranges))
	}
	if best == nil {
		return nil, fmt.Errorf("every candidate within one standard error of the best failed to deploy: %s", strings.Join(tried, "; "))
	}
	if math.IsInf(bestScore, -1) {
		// No candidate was calibrated on stand-ins (none had a known
		// probe): nothing chose for the open set.
		return best, nil
	}
	best.OpenSetChoice = fmt.Sprintf("of the candidates within one standard error on the closed set, the one whose threshold does best on the stand-in strangers: %s", strings.Join(tried, ", "))
	return best, nil
}

// build turns r.Fit into r.Model, with the
// gallery's scores (r.Gallery) and the open-set threshold.
func (r *Result) build(sets []*mat.Dense, labels, names []string, opt Options) error {
	m, gallery, err := nnModel(sets, labels, names, r.Fit, opt.Workers)
	if err != nil {
		return err
	}
	r.Model, r.Gallery, r.GalleryMeasure = m, gallery, m.Divergence.String()
	m.Meta = opt.Meta
	m.Selection = selection(r.Fit, r.Selection)
	if f := r.Fit; f.KFDA != nil {
		// The model fits the discriminant again from its gallery, with the
		// chosen kernel(s), regulariser and latent dimension.
		if r.kernel, err = FitTerms(m, Terms(f), f.Reg, f.LatentDim, opt.Workers); err != nil {
			return fmt.Errorf("fitting %s on the gallery: %w", f.Method, err)
		}
		r.Gallery, r.GalleryMeasure = kfda.KernelDistances(r.kernel), string(f.Method)+" kernel distance"
	}
	if err := r.setThreshold(sets, labels, names, opt); err != nil {
		return err
	}
	r.recordThreshold(opt)
	if r.ChoiceSample != "" {
		m.Selection.Params["chosen-on"] = r.ChoiceSample
	}
	return nil
}

// recordThreshold records in the model's parameters how its threshold
// was set, the rule asked for, and the strangers' sets given.
func (r *Result) recordThreshold(opt Options) {
	m := r.Model
	if m.Selection.Params == nil {
		m.Selection.Params = map[string]string{}
	}
	m.Selection.Params["threshold"] = r.ThresholdSource
	m.Selection.Params[ThresholdRuleParam] = ThresholdRule(opt)
	recordStrangers(m, r.GivenStrangers)
}

// ThresholdRuleParam is the key of model.Selection.Params under which a
// model records the rule its threshold was set by (ThresholdRule), so
// that setmatch enroll and forget recalibrate it by the same rule.
const ThresholdRuleParam = "threshold-rule"

// GivenStrangersParam is the key of model.Selection.Params under which a
// model records how many strangers' sets (Options.Strangers: train's,
// enroll's or forget's --strangers) its threshold was calibrated with;
// absent when none were. The model keeps the count, not the sets.
const GivenStrangersParam = "given-strangers"

// recordStrangers records n under GivenStrangersParam, or removes the key
// when n is 0.
func recordStrangers(m *model.Model, n int) {
	if n > 0 {
		m.Selection.Params[GivenStrangersParam] = strconv.Itoa(n)
	} else {
		delete(m.Selection.Params, GivenStrangersParam)
	}
}

// RecordedStrangers returns how many strangers' sets m's threshold was
// calibrated with, as recorded under GivenStrangersParam (0 when none, or
// when the record is not a count).
func RecordedStrangers(m *model.Model) int {
	n, err := strconv.Atoi(m.Selection.Params[GivenStrangersParam])
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// ThresholdRule returns the --threshold text that opt stands for, as
// ParseThreshold reads it: none, a number, or an automatic rule.
func ThresholdRule(opt Options) string {
	switch {
	case opt.AutoThreshold:
		return thresholdFlag(opt)
	case math.IsInf(opt.Threshold, 1):
		return "none"
	}
	return strconv.FormatFloat(opt.Threshold, 'g', -1, 64)
}

// selection returns the model's record of the deployed method: its
// parameters, its cross-validated accuracy (the auto method's score when
// it was chosen, else the method's own, NaN when there was nothing to
// cross-validate) and every candidate's score.
func selection(f *method.Fitted, sel *method.Selection) model.Selection {
	s := model.Selection{Method: f.Method, Params: map[string]string{
		"divergence": f.Divergence.String(), "bandwidth": f.Bandwidth.String(), "query-bandwidth": f.Query.String(),
	}, CVAccuracy: math.NaN()}
	if f.CV >= 0 {
		s.CVAccuracy = f.CV
	}
	if f.W != nil {
		_, d := f.W.Dims()
		s.Params["dim"] = strconv.Itoa(d)
		if f.Learn.Start {
			s.Params["train-bandwidth"] = "start"
		} else {
			s.Params["train-bandwidth"] = fmt.Sprintf("global*%g", f.Learn.Scale)
		}
		if f.Learn.Fisher && f.Method.IsDR() {
			s.Params["dr-start"] = "fisher"
		}
	}
	if f.KFDA != nil {
		if !usesKDE(f) {
			// No KDE: the kernel, the regulariser and the latent
			// dimension are the method's parameters.
			s.Params = map[string]string{}
		}
		s.Params["kernel"] = model.DescribeKernels(Terms(f))
		s.Params["reg"], s.Params["latent-dim"] = strconv.FormatFloat(f.Reg, 'g', -1, 64), strconv.Itoa(f.LatentDim)
	}
	if sel == nil {
		return s
	}
	s.Params["chosen-by"] = "auto: " + sel.Folding
	s.CVAccuracy = sel.Best().Accuracy
	for _, c := range sel.Scores {
		acc := c.Accuracy
		if c.Err != nil {
			acc = math.NaN()
		}
		s.Candidates = append(s.Candidates, model.Candidate{Name: c.Method, Params: c.Params(), CVAccuracy: acc, Seconds: c.Seconds})
	}
	return s
}

// checkSum refuses training sets whose sum over the frames overflows a
// float64 in a feature, naming the set that holds the largest |value| of
// the first such feature (stats.MeanOverflow): every method takes the
// mean frame of the training sets, or of a fold's (a PCA, a Fisher
// discriminant), or sums their frames' squares, and would fail later with
// an error that names no set, or none rightly. Sets
// that are empty, of another width than the first or hold a NaN or Inf
// are left to the checks that follow, which name them for that.
func checkSum(sets []*mat.Dense, labels, names []string) error {
	for _, x := range sets {
		if x == nil || x.IsEmpty() {
			return nil
		}
		if _, c := x.Dims(); c != sets[0].RawMatrix().Cols {
			return nil
		}
	}
	i, j, v := stats.MeanOverflow(stats.MeanFrame(sets...), sets...)
	if i < 0 {
		return nil
	}
	return fmt.Errorf("set %s/%s: its values, up to %.3g in feature %d, are too large for the mean frame of the training sets: their sum over the frames overflows a float64 (%.3g at most); %s",
		labels[i], names[i], math.Abs(v), j, math.MaxFloat64, scaleadvice.Down(math.Abs(v)))
}

// nnModel returns the nearest-neighbour model of fit: the training sets
// less the model's mean, projected by fit's W (the identity in the full
// space), with their bandwidths, and the gallery's divergence matrix for
// nearest neighbour (nil for kFDA). The mean is the centre the method
// engine's pool takes its frame distances from (stats.MedianOfMeans of
// the training sets), or with a set kernel zero: the raw frames, as GDA's
// uncentred subspaces were chosen on them.
//
// The divergences do not depend on the centre, but the frame distances
// keep only the digits the frames' norms leave: the median of the sets'
// mean frames is one that a few sets far from the others (1e8 on a
// feature) do not move, where the mean frame of every training frame
// would put the other sets' frames that far from 0 too. For a projection
// W (the -dr methods, nn-h-lda) the centre is only an offset: W was found
// on the frames less their mean (a PCA's, a Fisher discriminant's), and
// (x − centre)·W differs from (x − mean)·W by one vector, which no
// divergence or bandwidth rule sees.
func nnModel(sets []*mat.Dense, labels, names []string, fit *method.Fitted, workers int) (*model.Model, *mat.SymDense, error) {
	w := fit.W
	var mean []float64
	if rawFrames(fit) {
		_, dim := sets[0].Dims()
		mean = make([]float64, dim)
	} else {
		mean = stats.MedianOfMeans(sets...)
	}
	proj, err := method.ProjectSets(sets, w, mean) // nil w: centred, as the matcher does to a batch
	if err != nil {
		return nil, nil, err
	}
	m := &model.Model{Divergence: fit.Divergence, QueryBandwidth: fit.Query, W: w, Identity: w == nil, Mean: mean, Threshold: math.Inf(1)}
	for i, y := range proj {
		m.Sets = append(m.Sets, model.Set{Label: labels[i], Name: names[i], Samples: y, Bandwidth: fit.H[i]})
	}
	if fit.KFDA != nil {
		// kFDA compares its kernel, which FitTerms computes (with the
		// divergences it needs) and the caller turns into distances.
		return m, nil, nil
	}
	div, err := divergenceMatrix(proj, fit.H, fit.Divergence, workers, func(i int) string { return labels[i] + "/" + names[i] })
	if err != nil {
		return nil, nil, err
	}
	return m, div, nil
}

// divergenceMatrix is match.DivergenceMatrix whose error of one set names
// it as setName(i) ("class/set").
func divergenceMatrix(y []*mat.Dense, h []float64, d match.Measure, workers int, setName func(i int) string) (*mat.SymDense, error) {
	div, err := match.DivergenceMatrix(y, h, d, workers)
	if se := (*match.SetError)(nil); errors.As(err, &se) && se.Set >= 0 && se.Set < len(y) {
		return nil, fmt.Errorf("set %s: %w", setName(se.Set), se.Err)
	}
	return div, err
}

// buildLearned trains W with learn.Train at opt.Dim and deploys nearest
// neighbour in the learned space.
func buildLearned(sets []*mat.Dense, labels, names []string, opt Options) (*Result, error) {
	if opt.Dim < 1 {
		return nil, errors.New("method learned needs the dimension d (--dim)")
	}
	ids, _ := model.ClassIndex(labels)
	to := opt.Train
	to.Dim = opt.Dim
	t0 := time.Now()
	tr, err := learn.Train(sets, ids, to)
	if se := (*learn.SetError)(nil); errors.As(err, &se) && se.Set >= 0 && se.Set < len(names) {
		return nil, fmt.Errorf("set %s/%s: %w", labels[se.Set], names[se.Set], se.Err)
	}
	if err != nil {
		return nil, err
	}
	// The model's centre is the one every model of Build has (nnModel),
	// not the mean W was learned on: only an offset in the learned space.
	tr.Mean = stats.MedianOfMeans(sets...)
	if tr.Projected, err = method.ProjectSets(sets, tr.W, tr.Mean); err != nil {
		return nil, err
	}
	res := &Result{Trained: tr, FitSeconds: time.Since(t0).Seconds(), GalleryMeasure: tr.Divergence.String()}
	if res.Gallery, err = divergenceMatrix(tr.Projected, tr.Bandwidths, tr.Divergence, opt.Workers, func(i int) string { return labels[i] + "/" + names[i] }); err != nil {
		return nil, err
	}
	if res.Model, err = tr.Model(labels, names, math.Inf(1), opt.Meta); err != nil {
		return nil, err
	}
	// Nothing was chosen or cross-validated: the file's selection records
	// no accuracy (null), not one of 0.
	res.Model.Selection.CVAccuracy = math.NaN()
	if err := res.setThreshold(sets, labels, names, opt); err != nil {
		return nil, err
	}
	res.recordThreshold(opt)
	return res, res.Model.Validate()
}

// WriteSummary writes what was chosen: every candidate's cross-validated
// accuracy (auto), the deployed method with its parameters, and the
// threshold.
func (r *Result) WriteSummary(w io.Writer) {
	if s := r.Selection; s != nil {
		if s.Sets > 0 && s.Sets != s.Held {
			what := "training sets"
			if s.Halved > 0 {
				what = "training sets and frame halves"
			}
			fmt.Fprintf(w, "cross-validation: %s, %d %s held out on each dealing (%d outcomes per candidate; the standard error counts the sets)\n", s.Folding, s.Sets, what, s.Held)
		} else {
			what := "training sets"
			if s.ByHalves {
				what = "frame halves of the training sets"
			}
			fmt.Fprintf(w, "cross-validation: %s, %d held-out %s\n", s.Folding, s.Held, what)
		}
		if s.Note != "" {
			fmt.Fprintf(w, "cross-validation: note: %s\n", s.Note)
		}
		fmt.Fprintf(w, "  %-34s %8s %9s\n", "candidate", "cv acc", "seconds")
		for i, c := range s.Scores {
			mark := " "
			if i == s.Chosen {
				mark = "*"
			}
			if errors.Is(c.Err, method.ErrCutShort) {
				fmt.Fprintf(w, "%s %-34s %8s %9.1f  (%v)\n", mark, c.Candidate, "-", c.Seconds, c.Err)
				continue
			}
			if method.NotScored(c.Err) {
				fmt.Fprintf(w, "%s %-34s %8s %9s  (%v)\n", mark, c.Candidate, "-", "-", c.Err)
				continue
			}
			if c.Err != nil {
				fmt.Fprintf(w, "%s %-34s %8s %9.1f  (%v)\n", mark, c.Candidate, "failed", c.Seconds, c.Err)
				continue
			}
			fmt.Fprintf(w, "%s %-34s %7.1f%% %9.1f\n", mark, c.Candidate, 100*c.Accuracy, c.Seconds)
		}
		cut, left := 0, 0
		for _, c := range s.Scores {
			switch {
			case errors.Is(c.Err, method.ErrCutShort):
				cut++
			case errors.Is(c.Err, method.ErrNotScored):
				left++
			}
		}
		if r.ChoiceSample != "" {
			fmt.Fprintf(w, "cross-validation: %s\n", r.ChoiceSample)
		}
		if cut+left > 0 {
			fmt.Fprintf(w, "cross-validation: of the candidates, %d cut short and %d left out, as they could not change the choice (it is the one scoring every candidate in full would make)\n", cut, left)
		}
		if r.OpenSetChoice != "" && s.Chosen == s.Top {
			fmt.Fprintf(w, "chose %s (cv %.1f%%, the highest; the open set chose it among the candidates within one standard error, %.1f points, below) in %.1fs\n", s.Best().Candidate, 100*s.Best().Accuracy, 100*s.SE, r.ChooseSeconds)
		} else if r.OpenSetChoice != "" {
			t := s.Scores[s.Top]
			fmt.Fprintf(w, "chose %s (cv %.1f%%, within one standard error, %.1f points, of the highest, %s (%.1f%%)) for the open set, below, in %.1fs\n", s.Best().Candidate, 100*s.Best().Accuracy, 100*s.SE, t.Candidate, 100*t.Accuracy, r.ChooseSeconds)
		} else if s.Chosen == s.Top {
			fmt.Fprintf(w, "chose %s (cv %.1f%%, the highest) in %.1fs\n", s.Best().Candidate, 100*s.Best().Accuracy, r.ChooseSeconds)
		} else {
			t := s.Scores[s.Top]
			fmt.Fprintf(w, "chose %s (cv %.1f%%): the first candidate within one standard error (%.1f points) of the highest, %s (%.1f%%); in %.1fs\n",
				s.Best().Candidate, 100*s.Best().Accuracy, 100*s.SE, t.Candidate, 100*t.Accuracy, r.ChooseSeconds)
		}
		if s.NearChance() {
			fmt.Fprintf(w, "warning: the highest held-out accuracy, %.1f%%, is within two standard errors (%.1f points) of chance (%.1f%%, one class in %d): the cross-validation cannot tell this model from a guess. With few training sets, give more of them (and check the model with setmatch test); with many, these features may not tell the classes apart: try other features (--features) or more frames per set\n",
				100*s.Scores[s.Top].Accuracy, 200*s.SE, 100*s.Chance, int(math.Round(1/s.Chance)))
		}
	}
	if r.OpenSetChoice != "" {
		fmt.Fprintf(w, "open set: %s\n", r.OpenSetChoice)
	}
	if f := r.Fit; f != nil {
		fmt.Fprintf(w, "deployed %s: %s, fitted on all training sets in %.1fs\n", f.Method, Describe(f), r.FitSeconds)
	}
	fmt.Fprintf(w, "threshold: %s\n", r.ThresholdSource)
	switch c := r.Calibration; {
	case c == nil || r.GivenStrangers > 0 || c.Strangers >= FewStandIns:
	case r.Others > 0:
		fmt.Fprintf(w, "note: the threshold saw only %d stand-in strangers' sets (few classes), those of the %d --others classes among them: give more others, about twice as many people as the model is to know (TRAINING.md, \"Other people's sets\"); check the model with setmatch test on yet others\n", c.Strangers, r.Others)
	default:
		fmt.Fprintf(w, "note: the threshold saw only %d stand-in strangers' sets (few classes): give train sets of other people or objects, not to enrol, with --others DIR: they teach the method what tells classes apart and stand in for strangers (TRAINING.md, \"Other people's sets\"); check the model with setmatch test on yet others\n", c.Strangers)
	}
}

// FewStandIns is the number of stand-in strangers' sets below which
// WriteSummary suggests giving others' sets (--others DIR), or more of
// them, where no strangers' sets were given: a household
// of four or five classes gives 5 to 8, and its threshold was then
// measured to let in 20 to 30% of strangers (RESULTS.md, "A household").
const FewStandIns = 20

// Describe returns the hyper-parameters of f as text.
func Describe(f *method.Fitted) string {
	s := fmt.Sprintf("divergence %s, bandwidth %v", f.Divergence, f.Bandwidth)
	if f.W != nil {
		_, d := f.W.Dims()
		start := "PCA"
		if f.Learn.Fisher {
			start = "Fisher"
		}
		how := fmt.Sprintf("training bandwidth global*%g", f.Learn.Scale)
		if f.Learn.Fisher {
			how += ", from the Fisher start"
		}
		switch {
		case f.Method == method.NNHLDA:
			how = "Fisher discriminant, not learned"
		case f.Learn.Start:
			how = start + " start, not learned"
		}
		s = fmt.Sprintf("d=%d (%s), %s", d, how, s)
	}
	if f.KFDA != nil {
		k := fmt.Sprintf("kernel %s, reg %g, latent dim %d", model.DescribeKernels(Terms(f)), f.Reg, f.LatentDim)
		if usesKDE(f) {
			s += ", " + k
		} else {
			s = k
		}
	}
	if f.CV >= 0 {
		s += fmt.Sprintf(", inner cv %.1f%%", 100*f.CV)
	}
	return s
}

// Terms returns the kernels of a fitted kFDA method as a model holds them
// (model.Term): its one kernel, or the terms of kfda-mix. The scales of
// kernels relative to the median divergence, and the weights of a sum,
// are computed again by FitTerms on the gallery.
func Terms(f *method.Fitted) []model.Term {
	if f.Method == method.KFDAMix {
		terms := make([]model.Term, len(f.Terms))
		for i, t := range f.Terms {
			terms[i] = term(t.Fit)
			terms[i].Weight = t.Weight
		}
		return terms
	}
	return []model.Term{term(f)}
}

func term(f *method.Fitted) model.Term {
	t := model.Term{Kernel: string(f.Method.Kernel()), Width: f.Width, Scale: 1, WidthScale: string(method.WidthRaw)}
	switch f.Method {
	case method.GDA:
		t.Width, t.P = 1, f.P
	case method.CDL:
		t.Width, t.Lambda = 1, f.Lambda
	default:
		if f.WidthMedian {
			t.WidthScale, t.Scale = string(method.WidthMedian), f.WidthScale
		}
	}
	return t
}

// rawFrames reports whether f is deployed on the raw frames (W = I, a
// zero mean): a set kernel, alone or in a sum.
func rawFrames(f *method.Fitted) bool {
	return f.Method == method.GDA || f.Method == method.CDL || f.Method == method.KFDAMix
}

// kdeRangeError is the error of fits that compare KDEs (Methods, one or
// more) with a bandwidth a KDE does not take (match.BandwidthError):
// beyond match.MaxBandwidth, or below match.MinBandwidth. The features'
// values are then too large or too small for the KDE bandwidth rules, and
// a model of such a fit is refused whatever its threshold
// (model.Validate): its text says what to do, scale the features (by the
// power of ten that brings H to between 1 and 10, scaleadvice's) or
// deploy a set kernel, which builds no KDE.
type kdeRangeError struct {
	Methods []string
	match.BandwidthError
}

func (e *kdeRangeError) Error() string {
	what, bound, scale := "too large", "beyond the largest", scaleadvice.Down(e.H)
	kernels := "--method gda or --method cdl, whose set kernels build no KDE"
	if !e.Large {
		what, bound, scale = "too small", "below the smallest", scaleadvice.Up(e.H)
		kernels = "--method gda, whose set kernel builds no KDE (or --method cdl, for features down to around 1e-153)"
	}
	names := e.Methods[len(e.Methods)-1]
	if len(e.Methods) > 1 {
		names = strings.Join(e.Methods[:len(e.Methods)-1], ", ") + " and " + names
	}
	return fmt.Sprintf("the KDEs of %s would have a bandwidth of %.3g, %s a KDE takes (%g): the features' values are %s for the KDE bandwidth rules; %s, or give %s",
		names, e.H, bound, e.Bound(), what, scale, kernels)
}

// Unwrap returns match's error of the bandwidth.
func (e *kdeRangeError) Unwrap() error { return &e.BandwidthError }

// joinRanges is the one kdeRangeError of several candidates': every
// method named once (a -dr method is a candidate at several dimensions),
// with the bandwidth furthest out of range on the side of the first.
func joinRanges(errs []*kdeRangeError) *kdeRangeError {
	out := &kdeRangeError{BandwidthError: errs[0].BandwidthError}
	for _, e := range errs {
		for _, m := range e.Methods {
			if !slices.Contains(out.Methods, m) {
				out.Methods = append(out.Methods, m)
			}
		}
		switch {
		case e.Large && out.Large:
			out.H = max(out.H, e.H)
		case !e.Large && !out.Large:
			out.H = min(out.H, e.H)
		}
	}
	return out
}

// checkKDEBandwidths returns, where f compares KDEs (usesKDE), the error
// of a bandwidth of its that a KDE does not take (match.CheckBandwidth):
// a training set's, or the fixed one a new set gets. A bandwidth out of
// range (a match.BandwidthError) gives a kdeRangeError, before any
// threshold is calibrated; a model of f would be refused.
func checkKDEBandwidths(f *method.Fitted) error {
	if !usesKDE(f) {
		return nil
	}
	hs := f.H
	if f.Query.Kind == match.Fixed {
		hs = append(slices.Clip(hs), f.Query.Fixed)
	}
	for _, h := range hs {
		err := match.CheckBandwidth(h)
		if be := (*match.BandwidthError)(nil); errors.As(err, &be) {
			return &kdeRangeError{Methods: []string{string(f.Method)}, BandwidthError: *be}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// usesKDE reports whether f compares KDEs: every method except a kernel
// (or sum of kernels) on the sets alone.
func usesKDE(f *method.Fitted) bool {
	return f.KFDA == nil || model.UsesDivergences(Terms(f))
}
