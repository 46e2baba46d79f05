package method

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
)

// Choosing what to deploy (the auto method).
//
// Every candidate is a whole pipeline: a method together with its own
// cross-validation of its hyper-parameters (the NN bandwidth, the kFDA
// kernel width, regulariser and latent dimension, ...). A -dr method
// enters whole (its d and training bandwidth chosen by its own
// cross-validation inside every outer fold) when the training part of
// every outer fold keeps two sets of every class; otherwise once per
// training setting (dimension d × global training bandwidth scale S, and
// the PCA start of every d as the guard). A candidate is scored by nested
// cross-validation over the training sets: the training sets are dealt to
// outer folds (AutoRepeats times, differently); for each fold the whole
// pipeline runs on the other folds (its inner choices included, W learned
// there) and classifies the held-out sets. The score is the held-out
// accuracy pooled over the folds and dealings. The winner is the first
// candidate (the simplest) whose score is within one standard error of
// the highest. The test (probe) sets of a task are never looked at.
//
// Outer folds: 3 stratified folds by sets when every class has at least
// 3 training sets; 4 when some class has 2 (pairFolds: a fold holds out
// one set of half of the classes with two, so that the other half keep a
// within-class pair and every method makes its own choice on real sets);
// when every class has a single training set (pooled data),
// each set is cut into its even and odd frames, and the two halves are
// the two folds. Where some classes have one set and others more, the
// set of each class of one is cut likewise, and its two halves are
// folded as the two sets of a class (Task.halveSingles).

// Candidate is one pipeline the auto method chooses from. A model
// records each scored candidate as a model.Candidate: its name, its
// parameters as text (Params), its score and time, without the pipeline.
type Candidate struct {
	Method Name
	// Learn is the training setting of a -dr method (Dim, and Scale or
	// Start); ignored otherwise. A -dr candidate with Learn.Dim == 0 is
	// the whole method: its d and training bandwidth are chosen by its own
	// cross-validation (runDR) over the grid's DRDims (those below the
	// feature dimension) × DRScales, with the PCA start of every d as the
	// guard.
	Learn LearnParams
}

// String names the candidate, e.g. "nn-h", "nn-h-dr", "nn-h-dr d=20
// train-bw=global*1", "nn-h-dr d=10 start" ("… from=fisher" from the
// Fisher start): its method and Params.
func (c Candidate) String() string {
	if p := c.Params(); p != "" {
		return string(c.Method) + " " + p
	}
	return string(c.Method)
}

// Params returns the training setting of a -dr candidate, e.g. "d=20
// train-bw=global*1" or "d=10 start"; "" for the others.
func (c Candidate) Params() string {
	from := c.Learn.startNote()
	switch {
	case !c.Method.IsDR() || c.Learn.Dim == 0:
		return ""
	case c.Learn.Start:
		return fmt.Sprintf("d=%d start%s", c.Learn.Dim, from)
	}
	return fmt.Sprintf("d=%d train-bw=global*%g%s", c.Learn.Dim, c.Learn.Scale, from)
}

// Deployable KDE bandwidths: a model holds one bandwidth per gallery set
// and a rule for the query, so the per-frame (knn) bandwidths of the grid
// are left out of auto's grids.
func deployableBandwidths(bws []Bandwidth) []Bandwidth {
	var out []Bandwidth
	for _, b := range bws {
		if b.Mode != Adaptive {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		out = []Bandwidth{{Mode: Global, Scale: 1}}
	}
	return out
}

// grid returns g narrowed to the candidate for features of dimension dim:
// deployable bandwidths and, for a -dr method, its one training setting
// (or, for the whole method, the grid of DRDims below dim × DRScales
// with the guard), W learned with at most iter iterations.
func (c Candidate) grid(g Grid, dim, iter int) Grid {
	g.Bandwidths = deployableBandwidths(g.Bandwidths)
	if c.Method.IsDR() && c.Learn.Dim == 0 {
		g.DRDims, g.DRRules, g.DRScales, g.DRGuard = autoDims(g, dim), nil, autoScales(g), true
		g.DRIter = iter
		return g
	}
	if c.Method.IsDR() {
		g.DRDims, g.DRRules, g.DRScales, g.DRGuard = []int{c.Learn.Dim}, nil, nil, false
		g.DRFisher = c.Learn.Fisher
		if c.Learn.Start {
			g.DRGuard = true
		} else {
			g.DRScales = []float64{c.Learn.Scale}
		}
		g.DRIter = iter
	}
	return g
}

// Fit runs the candidate's pipeline on all training sets of t (its own
// cross-validation included; t's test sets are not used) and returns what
// a model deploys.
func (c Candidate) Fit(t *Task, g Grid) (*Fitted, error) {
	return fitOnTraining(t, func(tt *Task) (Prediction, error) {
		return run(c.Method, tt, c.grid(g, t.Pool.Dim(), g.DRIter))
	})
}

// fitOnTraining runs run on the training sets of t alone (t's test sets
// are not used) and returns what a model deploys: its fit, where it is
// deployable (Fitted.Deployable). Candidate.Fit, Selection.Deploy and Fit
// fit by it.
func fitOnTraining(t *Task, run func(*Task) (Prediction, error)) (*Fitted, error) {
	tt := *t
	tt.Test = nil
	p, err := run(&tt)
	if err != nil {
		return nil, err
	}
	if err := p.Fit.Deployable(); err != nil {
		return nil, err
	}
	return p.Fit, nil
}

// Default candidates of the auto method. kfda-hg, gda and cdl are not
// among them: kfda-mix chooses among each of their kernels alone (and
// their sums) by its own cross-validation, so as candidates of their own
// they would only give the choice more chances to be lucky, and cost
// their cross-validations twice.
var (
	AutoMethods = []Name{KFDAMix, NNH, NNJ, KFDAHL, KFDAJ, NNHDR}
	// AutoRepeats is how many times the training sets are dealt to the
	// outer folds; every candidate is scored on every dealing.
	AutoRepeats = 2
)

// autoDims returns g.DRDims (the package's DRDims when empty) below dim,
// without repeats (a d = D projection is a rotation, the full space
// again), from the smallest up: auto's candidates, and the d its nested
// -dr candidate chooses among, in order of preference.
func autoDims(g Grid, dim int) []int {
	dims := g.DRDims
	if len(dims) == 0 {
		dims = DRDims
	}
	var out []int
	for _, d := range dims {
		if d >= 1 && d < dim && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// autoScales returns g.DRScales (the package's DRScales when empty, as
// when eval's --dr-bandwidth gives per-set rules only).
func autoScales(g Grid) []float64 {
	if len(g.DRScales) == 0 {
		return DRScales
	}
	return g.DRScales
}

// AutoCandidates returns the candidates for features of dimension dim,
// in order of preference: g.AutoMethods (AutoMethods when empty), a -dr
// method entering as a whole (its d and training bandwidth chosen by its
// own cross-validation inside every fold) when nested, else crossed with
// the dimensions g.DRDims below dim and, for each d, the PCA start
// first, then the scales g.DRScales. Choose nests when the training part
// of every outer fold keeps two sets of every class, which the method's
// own cross-validation needs. The -dr methods are left out when g.Learn is
// nil or no dimension is below dim.
func AutoCandidates(g Grid, dim int, nested bool) []Candidate {
	methods := g.AutoMethods
	if len(methods) == 0 {
		methods = AutoMethods
	}
	dims := autoDims(g, dim)
	var out []Candidate
	for _, m := range methods {
		switch {
		case !m.IsDR():
			out = append(out, Candidate{Method: m})
		case g.Learn == nil || len(dims) == 0:
		case nested:
			out = append(out, Candidate{Method: m})
		default:
			for _, d := range dims {
				out = append(out, Candidate{Method: m, Learn: LearnParams{Dim: d, Start: true, Fisher: g.DRFisher}})
				for _, s := range autoScales(g) {
					out = append(out, Candidate{Method: m, Learn: LearnParams{Dim: d, Scale: s, Fisher: g.DRFisher}})
				}
			}
		}
	}
	return out
}

// CandidateScore is a candidate's outcome in Choose.
type CandidateScore struct {
	Candidate
	Accuracy float64 // held-out accuracy in [0, 1]; −1 when the candidate failed
	// Correct says, for every held-out set (fold by fold, in the order of
	// the training sets within a fold), whether the candidate recognised
	// it; nil when the candidate failed. Every candidate is scored on the
	// same held-out sets in the same order, so two candidates' Correct
	// are paired outcomes.
	Correct []bool
	Err     error   // why it failed
	Seconds float64 // time of its folds
}

// Selection is the outcome of Choose: every candidate's score and the
// rule's choice among them, for the caller to weigh and deploy. A model
// keeps a record of it (model.Selection: the deployed method, its
// parameters and the candidates' scores), not the Selection itself.
type Selection struct {
	Scores []CandidateScore // every candidate, in AutoCandidates order
	Chosen int              // index of the winner in Scores
	Top    int              // index of the highest score in Scores
	// SE is the standard error of the highest score, sqrt(p(1−p)/n) over
	// the n = Sets held-out items (p(1−p) at least 1/n, so that a score of
	// 100% has one set's worth). The winner is the first candidate within
	// SE of the top.
	SE      float64
	Folding string  // how the training sets were folded
	Chance  float64 // the accuracy of a guess: 1 / the number of classes
	// ByHalves: the held-out items are the frame halves of the training
	// sets (one set per class), not whole sets.
	ByHalves bool
	// Halved: the classes of one training set among classes of more whose
	// even and odd frame halves are held out as two sets.
	Halved int
	Note   string // what the scores do not cover, if anything
	Held   int    // held-out outcomes of a candidate, over all folds and dealings
	// Sets is the number of distinct held-out items (training sets, or
	// frame halves), Held over the dealings: an item's outcomes on the
	// dealings are not independent (the same set, mostly the same
	// training sets), so the standard error counts it once. 0 means Held.
	Sets int
}

// Best returns the chosen candidate's score.
func (s *Selection) Best() CandidateScore { return s.Scores[s.Chosen] }

// Eligible returns the indices in Scores of the candidates that the
// one-standard-error rule holds equal: those scored within SE of the
// highest, in the order of preference. The chosen one is the first. A
// caller that weighs something the held-out accuracy does not measure
// (how well the open set's threshold keeps strangers out) chooses among
// these.
func (s *Selection) Eligible() []int {
	var out []int
	for i, c := range s.Scores {
		if c.Err == nil && c.Accuracy >= s.Scores[s.Top].Accuracy-s.SE-1e-12 {
			out = append(out, i)
		}
	}
	return out
}

// AutoProgress reports how far Choose is: Done of Total (candidate, fold)
// runs, the last one's candidate, and the time left estimated from the
// runs done so far of the same kind of candidate. A kind of candidate
// still to run that has not run yet (Untimed) is counted at the mean of
// all runs so far; as it may cost far more (a nested -dr candidate learns
// W many times), ETA is then a lower bound.
//
// Total counts the runs made and those still to make. It shrinks as
// runs once planned are not made; CutShort, LeftOut and Failed count
// those since the start, so that Total + CutShort + LeftOut + Failed is
// the same in every report.
type AutoProgress struct {
	Done, Total  int
	Candidate    Candidate
	Elapsed, ETA time.Duration
	Untimed      []string // kinds of candidate still to run, not timed yet
	// CutShort: runs not made of candidates cut short (ErrCutShort), and
	// LeftOut: of candidates left out (ErrNotScored), as neither can
	// change the choice: the two kinds a Selection's candidates tell
	// apart.
	CutShort, LeftOut int
	// Failed: runs not made of candidates that failed.
	Failed int
}

// outer holds the outer folds of Choose over a task.
type outer struct {
	task  *Task // the training sets (Train, Labels) to fold; Test unused
	fold  []int // fold of each position of task.Train, −1: always trained on
	nf    int
	held  int
	about string
	note  string // what the held-out sets leave out (Selection.Note)
	rep   int    // repetition: another dealing of the sets to the folds
	// byHalves: one set per class, folded by its even and odd frames.
	byHalves bool
	// halved: the classes of one set whose even and odd frames stand for
	// two sets among classes of more (Task.halveSingles).
	halved int
	// halves, with pairFolds: per position of task.Train, the pool
	// indices of its even and odd frames (task.Pool holds them), or −1.
	halves [][2]int
}

// pairHalves puts the frame halves of every set of a class with two
// training sets into the pool of o's task. In a fold that holds out one
// set of such a class, the class's other set is trained on as its two
// halves, so that every class of the fold's training part has two items:
// a class with a single item would sit apart from the others in kFDA's
// latent space (it is not pulled to a class mean) and would never be
// found. It reports false, and changes nothing, when a set of such a class
// has fewer than 4 frames or the halves would take the pool past
// MaxPoolFrames.
func (o *outer) pairHalves() (bool, error) {
	t := o.task
	count := map[int]int{}
	for _, l := range t.Labels {
		count[l]++
	}
	pair := func(k int) bool { return count[t.Labels[k]] == 2 }
	// Every dealing halves the same sets: one pool for all of them
	// (Pool.halfCache), whose divergence matrices they share.
	pool, idx, err := t.Pool.cachedHalves("pairs "+fmt.Sprint(t.Train), t.Train, pair)
	if err != nil || pool == nil {
		return false, err
	}
	for k := range idx {
		if pair(k) && idx[k][0] < 0 {
			return false, nil // too short to halve
		}
	}
	tt := *t
	tt.Pool = pool
	o.task, o.halves = &tt, idx
	return true, nil
}

// singleSetClasses returns the number of classes with one set in labels.
func singleSetClasses(labels []int) int {
	n := 0
	for _, c := range classSizes(labels) {
		if c == 1 {
			n++
		}
	}
	return n
}

// halveSingles replaces, in t's Train and Labels, the set of every class
// with a single training set by its even and odd frame halves (singleHalves),
// on a pool that holds them after t's sets, as the folds of one set per
// class take them: the two halves are the class's two items to hold out
// and train on. It returns the number of classes so halved: 0, t
// unchanged, where no such set has 4 frames or more, where every class
// has one set (outerFolds then folds by halves alone), or where the
// halves would take the pool past MaxPoolFrames (those classes are then
// trained on but never held out).
func (t *Task) halveSingles() (int, error) {
	count := classSizes(t.Labels)
	if len(count) == singleSetClasses(t.Labels) {
		return 0, nil
	}
	pool, idx, err := t.singleHalves()
	if err != nil || pool == nil {
		return 0, err
	}
	var train, labels []int
	halved := 0
	for k, j := range t.Train {
		if idx[k][0] < 0 {
			train, labels = append(train, j), append(labels, t.Labels[k])
			continue
		}
		train, labels = append(train, idx[k][0], idx[k][1]), append(labels, t.Labels[k], t.Labels[k])
		halved++
	}
	t.Pool, t.Train, t.Labels = pool, train, labels
	return halved, nil
}

func outerFolds(t *Task, g Grid, rep int) (*outer, error) {
	o := &outer{rep: rep}
	if folds(t.Labels, 2, 0) != nil {
		nf := g.AutoFolds
		if nf < 2 {
			nf = 3
		}
		tt := *t
		tt.Test = nil
		single := singleSetClasses(t.Labels)
		halved, err := tt.halveSingles()
		if err != nil {
			return nil, err
		}
		o.task, o.nf, o.about, o.halved = &tt, nf, fmt.Sprintf("%d stratified folds by training sets", nf), halved
		t = &tt
		if SmallestClass(t.Labels) == 2 {
			ok, err := o.pairHalves()
			switch {
			case err != nil:
				return nil, err
			case ok:
				o.nf = 4
				o.about = "4 folds by training sets (some class has 2: a fold holds out one set of half of those classes, so the other half keep both for every method's own choice)"
			default:
				// Without the halves a class would train on a single
				// item (see pairHalves): one set of every class instead.
				o.nf = 2
				o.about = "2 folds by training sets (some class has 2, and a set too short to halve or too many frames for the halves: every method's own choice, and W, use the halves of the remaining sets where they can)"
			}
		}
		switch {
		case halved == 1:
			o.about += "; 1 class of one set by its even and odd frame halves"
		case halved > 1:
			o.about += fmt.Sprintf("; %d classes of one set by their even and odd frame halves", halved)
		}
		switch single -= halved; {
		case single == 1:
			o.note = "1 class has a single training set: it is trained on but never held out, so the scores say nothing about it (give every class two sets or more)"
		case single > 1:
			o.note = fmt.Sprintf("%d classes have a single training set: they are trained on but never held out, so the scores say nothing about them (give every class two sets or more)", single)
		}
		seed := (t.Seed + uint64(rep)*0x9e3779b9) ^ 0xa070
		if o.halves != nil {
			o.fold = pairFolds(t.Labels, seed)
		} else {
			o.fold = folds(t.Labels, o.nf, seed)
		}
	} else {
		// One training set per class: its even and odd frames are the
		// two folds, in a pool of their own.
		var sets []*mat.Dense
		var labels, fold []int
		var names []string
		for k, j := range t.Train {
			hs := FrameHalves(t.Pool.Sets[j])
			if hs == nil {
				// Too short to halve: always trained on.
				sets, labels, fold = append(sets, t.Pool.Sets[j]), append(labels, t.Labels[k]), append(fold, -1)
				names = append(names, t.Pool.setName(j))
				continue
			}
			for part, h := range hs {
				sets, labels, fold = append(sets, h), append(labels, t.Labels[k]), append(fold, part)
				names = append(names, t.Pool.halfName(j, part))
			}
		}
		pool, err := NewPool(sets, t.Pool.Workers)
		if err != nil {
			return nil, fmt.Errorf("frame halves of the training sets: %w", err)
		}
		if t.Pool.Names != nil {
			pool.Names = names
		}
		train := make([]int, len(sets))
		for i := range train {
			train[i] = i
		}
		o.task = &Task{Pool: pool, Train: train, Labels: labels, Classes: t.Classes, Seed: t.Seed}
		o.fold, o.nf, o.byHalves, o.about = fold, 2, true, "2 folds by frame halves (every class has one training set: its even and odd frames)"
	}
	for _, f := range o.fold {
		if f >= 0 {
			o.held++
		}
	}
	if o.held == 0 {
		return nil, errors.New("no training set can be held out for cross-validation (sets of fewer than 4 frames and one set per class)")
	}
	return o, nil
}

// sub returns the task of fold f: train on the other folds, test on f.
func (o *outer) sub(f int) *Task {
	st := *o.task
	st.Train, st.Labels, st.Test = nil, nil, nil
	st.Seed = o.task.Seed*31 + uint64(o.rep*o.nf+f) + 1
	held := map[int]bool{} // classes with a set held out in f
	for k := range o.task.Train {
		if o.fold[k] == f {
			held[o.task.Labels[k]] = true
		}
	}
	for k, j := range o.task.Train {
		l := o.task.Labels[k]
		switch {
		case o.fold[k] == f:
			st.Test = append(st.Test, j)
		case o.halves != nil && held[l] && o.halves[k][0] >= 0:
			st.Train = append(st.Train, o.halves[k][0], o.halves[k][1])
			st.Labels = append(st.Labels, l, l)
		default:
			st.Train = append(st.Train, j)
			st.Labels = append(st.Labels, l)
		}
	}
	return &st
}

// nests reports whether the training part of every fold keeps at least two
// sets of every class, so that a -dr method can run its own
// cross-validation inside the fold.
func (o *outer) nests() bool {
	for f := range o.nf {
		if SmallestClass(o.sub(f).Labels) < 2 {
			return false
		}
	}
	return true
}

// truth returns the labels of fold f's held-out sets.
func (o *outer) truth(f int) []int {
	var out []int
	for k := range o.task.Train {
		if o.fold[k] == f {
			out = append(out, o.task.Labels[k])
		}
	}
	return out
}

// concurrentRunFrames bounds the frames of the training sets for which
// Choose runs two folds of a -dr candidate at once: two runs at once hold
// twice the memory of one (linear in the frames: the sets W is learned
// from and their projections; the pools compute frame distances pair of
// sets by pair of sets).
const concurrentRunFrames = 50000

// Choose scores the candidates of AutoCandidates by nested
// cross-validation over t's training sets and returns the scores and the
// winner. t's test sets are never looked at. progress, if not nil, is
// called after every (candidate, fold) run, never twice at once. Inside
// the outer folds W is learned with at most g.DRFoldIter iterations.
//
// Unless g.AutoScoreAll is set, Choose spends its runs where they can
// change the choice (schedule.go): a candidate that cannot be within one
// standard error of the best score whatever it scores on the folds it has
// not run is cut short (ErrCutShort), and the candidates after a choice
// that no later score could move are not scored (ErrNotScored). The
// winner, the highest score and the candidates the rule holds equal
// (Eligible) are those of scoring every candidate in full.
func Choose(t *Task, g Grid, progress func(AutoProgress)) (*Selection, error) {
	if len(t.Train) != len(t.Labels) || len(t.Train) == 0 {
		return nil, fmt.Errorf("%d training sets and %d labels", len(t.Train), len(t.Labels))
	}
	start := time.Now()
	o, err := outerFolds(t, g, 0)
	if err != nil {
		return nil, err
	}
	outers := []*outer{o}
	reps := g.AutoRepeats
	if reps < 1 {
		reps = AutoRepeats
	}
	if o.byHalves {
		reps = 1 // the even and odd frames are the only dealing
	}
	for r := 1; r < reps; r++ {
		or, err := outerFolds(t, g, r)
		if err != nil {
			return nil, err
		}
		outers = append(outers, or)
	}
	// A whole -dr method deployed makes its own choice where every class
	// has two training sets or more (runDR): only then is it a candidate.
	cands := AutoCandidates(g, t.Pool.Dim(), o.nests() && SmallestClass(t.Labels) >= 2)
	if len(cands) == 0 {
		return nil, errors.New("no candidates to choose from")
	}
	about := o.about
	if reps > 1 {
		about = fmt.Sprintf("%s, dealt %d times", o.about, reps)
	}
	sel := &Selection{Folding: about, Note: o.note, Chance: 1 / float64(max(t.Classes, 1)), ByHalves: o.byHalves, Halved: o.halved, Held: o.held * reps, Sets: o.held, Scores: make([]CandidateScore, len(cands))}
	trainFrames := 0
	for _, j := range t.Train {
		n, _ := t.Pool.Sets[j].Dims()
		trainFrames += n
	}
	// A fold's -dr candidate learns W as the one fitted on every set will.
	g.DRSmallest = SmallestClass(t.Labels)
	// The divergences and kernels the folds share, before the runs (they
	// are in no candidate's Seconds).
	prefetchFolds(outers, cands, g)
	ch := newChooser(t, g, outers, cands, sel, trainFrames, progress)
	ch.start = start
	if g.AutoScoreAll {
		ch.scoreAll()
	} else {
		ch.schedule()
	}
	ch.record()
	// The folds' pools of frame halves are not needed after the choice.
	for _, o := range outers {
		o.task.Pool.DropHalves()
	}
	if err := sel.choose(); err != nil {
		return nil, err
	}
	return sel, nil
}

// prefetchFolds computes, in one pass over the pairs of sets of each
// pool, the divergence matrices that the candidates on divergences ask
// for in the outer folds: every deployable bandwidth, with the global
// base of every fold's training sets (Pool.prefetch).
func prefetchFolds(outers []*outer, cands []Candidate, g Grid) {
	var methods []Name
	for _, c := range cands {
		if c.Method != Auto && !c.Method.IsDR() {
			methods = append(methods, c.Method)
		}
	}
	if !usesDivergences(methods) && !slices.Contains(methods, KFDAMix) && !slices.Contains(methods, CDL) {
		return
	}
	bws := deployableBandwidths(g.Bandwidths)
	reqs := map[*Pool][]divRequest{}
	var pools []*Pool
	for _, o := range outers {
		for f := range o.nf {
			st := o.sub(f)
			if len(st.Test) == 0 {
				continue
			}
			if _, ok := reqs[st.Pool]; !ok {
				pools = append(pools, st.Pool)
			}
			reqs[st.Pool] = append(reqs[st.Pool], divRequest{st.Train, st.divSets()})
		}
	}
	mix := slices.Contains(methods, KFDAMix) || slices.Contains(methods, CDL)
	for _, p := range pools {
		p.prefetch(bws, reqs[p])
		if mix {
			// CDL's kernels of every regulariser for every fold's λ.
			var lambdas []float64
			var sets [][]int
			for _, q := range reqs[p] {
				for _, r := range cdlRegs(g) {
					if l, err := p.cdlLambda(r, q.train); err == nil {
						lambdas, sets = append(lambdas, l), append(sets, q.sets)
					}
				}
			}
			p.cdlKernels(lambdas, sets) // a head start: errors come again when asked
		}
	}
}

// NearChance reports whether the highest score is within two standard
// errors of Chance: no candidate is clearly better than a guess.
func (s *Selection) NearChance() bool {
	if s.Chance <= 0 || s.Top < 0 || s.Top >= len(s.Scores) {
		return false
	}
	return s.Scores[s.Top].Accuracy-2*s.SE <= s.Chance
}

// ErrNotScored is the Err of the candidates Choose did not score because
// the ones before them settled the choice.
var ErrNotScored = errors.New("not scored: an earlier candidate is within one standard error of any score it could reach")

// NotScored reports whether err says that Choose did not score a
// candidate in full (ErrNotScored, ErrCutShort), rather than that it
// failed.
func NotScored(err error) bool {
	return errors.Is(err, ErrNotScored) || errors.Is(err, ErrCutShort)
}

// settled reports whether the choice among the first n scored candidates
// (in order) is final: whatever later candidates score, choose picks one
// of these. Only the highest later score matters to the rule, and scores
// are multiples of 1/Held, so every possible one is tried. It is settled,
// for example, when a candidate recognised every held-out set.
func (s *Selection) settled(n int) bool {
	for k := 0; k <= s.Held; k++ {
		t := &Selection{Held: s.Held, Sets: s.Sets, Scores: append(slices.Clip(s.Scores[:n]), CandidateScore{Accuracy: float64(k) / float64(s.Held)})}
		if t.choose() != nil || t.Chosen == n {
			return false
		}
	}
	return true
}

// standardError is the standard error of a held-out accuracy p over n
// outcomes, sqrt(p(1−p)/n), with p(1−p) at least 1/n so that 100% still
// counts as uncertain by one set.
func standardError(p float64, n int) float64 {
	nf := float64(max(n, 1))
	return math.Sqrt(max(p*(1-p), 1/nf) / nf)
}

// choose sets Top, SE and Chosen by the one-standard-error rule: among the
// candidates whose score is within one standard error of the highest, the
// first in the order of preference. Scores of candidates that differ by
// less than their noise do not rank them; the simpler one is kept.
func (s *Selection) choose() error {
	s.Top = -1
	for i, c := range s.Scores {
		if c.Err == nil && (s.Top < 0 || c.Accuracy > s.Scores[s.Top].Accuracy) {
			s.Top = i
		}
	}
	if se := (*match.ScaleError)(nil); s.Top < 0 && errors.As(s.Scores[0].Err, &se) {
		// The features' scale, which no other sets or method on KDEs
		// escape: the error says what to do.
		return fmt.Errorf("every candidate failed in cross-validation on the training sets (the first, %s: %w)", s.Scores[0].Candidate, s.Scores[0].Err)
	}
	if s.Top < 0 {
		return fmt.Errorf("every candidate failed in cross-validation on the training sets (the first, %s: %w): check that every class has at least 2 sets of at least 4 frames with frames that differ, or deploy a method without choosing (setmatch train --method nn-h)", s.Scores[0].Candidate, s.Scores[0].Err)
	}
	n := s.Sets
	if n == 0 {
		n = s.Held
	}
	s.SE = standardError(s.Scores[s.Top].Accuracy, n)
	s.Chosen = s.Top
	if e := s.Eligible(); len(e) > 0 {
		s.Chosen = e[0]
	}
	return nil
}

// deployGrid returns the grid with which the candidate c of s (the
// winner) is fitted on all training sets. A
// method in the full space keeps its own grid. For a -dr candidate the
// choice is of the method: its d and training bandwidth are
// chosen again by the method's own cross-validation (runDR) over the auto
// grid (every d and scale of the candidates, with the PCA-start guard), on
// all training sets, where the folds keep more sets per class than the
// outer folds of Choose did; a single candidate d (a given --dim) stays
// fixed. When some class has a single training set, runDR could not
// cross-validate and would fall back to its first candidate: the winner
// of Choose, which was validated, is deployed as it is.
func (s *Selection) deployGrid(c Candidate, g Grid, dim int, labels []int) Grid {
	if !c.Method.IsDR() || c.Learn.Dim == 0 || SmallestClass(labels) < 2 {
		return c.grid(g, dim, g.DRIter)
	}
	var dims []int
	var scales []float64
	seen := map[any]bool{}
	for _, sc := range s.Scores {
		if sc.Method != c.Method {
			continue
		}
		if !seen[sc.Learn.Dim] {
			seen[sc.Learn.Dim] = true
			dims = append(dims, sc.Learn.Dim)
		}
		if !sc.Learn.Start && !seen[sc.Learn.Scale] {
			seen[sc.Learn.Scale] = true
			scales = append(scales, sc.Learn.Scale)
		}
	}
	g.Bandwidths = deployableBandwidths(g.Bandwidths)
	g.DRDims, g.DRRules, g.DRScales, g.DRGuard = dims, nil, scales, true
	return g
}

// Deploy fits what s deploys on all training sets of t (t's test sets are
// not used) and returns what a model holds: the winner, fitted with its
// deployGrid.
func (s *Selection) Deploy(t *Task, g Grid) (*Fitted, error) {
	return fitOnTraining(t, func(tt *Task) (Prediction, error) { return s.run(tt, g) })
}

// run runs what s deploys on t: the winner, with its deployGrid.
func (s *Selection) run(t *Task, g Grid) (Prediction, error) {
	b := s.Best()
	return run(b.Method, t, s.deployGrid(b.Candidate, g, t.Pool.Dim(), t.Labels))
}

// runAuto chooses a candidate on t's training sets (Choose) and runs what
// it deploys on t as Selection.Deploy fits it: what setmatch train
// --method auto would deploy, on t's test sets.
func runAuto(t *Task, g Grid) (Prediction, error) {
	sel, err := Choose(t, g, nil)
	if err != nil {
		return Prediction{}, err
	}
	b := sel.Best()
	p, err := sel.run(t, g)
	if err != nil {
		return Prediction{}, fmt.Errorf("%s: %w", b.Candidate, err)
	}
	p.Params = fmt.Sprintf("chose %s autocv=%.1f%% %s", b.Candidate, 100*b.Accuracy, p.Params)
	return p, nil
}

// Fit runs a deployable method with its own cross-validation over
// g (for a -dr method, g's DRDims × DRScales grid with the guard) on all
// training sets of t and returns what a model deploys. The KDE bandwidths
// are g's deployable ones.
func Fit(method Name, t *Task, g Grid) (*Fitted, error) {
	g.Bandwidths = deployableBandwidths(g.Bandwidths)
	return fitOnTraining(t, func(tt *Task) (Prediction, error) { return run(method, tt, g) })
}
