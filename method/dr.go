package method

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/matmul"
	"setmatch/internal/par"
	"setmatch/internal/stats"
	"setmatch/match"
)

// ErrNoLearner reports an -dr method asked for without a projection
// learner.
var ErrNoLearner = errors.New("no projection learner: the -dr methods need Grid.Learn")

// runDR learns W on the training sets (Section 4), projects every set and
// runs NN in the learned space.
//
// The training hyper-parameters of W (dimension d × bandwidth rule, from
// g.DRDims × g.DRRules) are chosen by stratified g.DRFolds-fold
// cross-validation over the training sets: in each fold, W is learned on
// the other folds' sets only (with at most g.DRFoldIter iterations), all
// training sets are projected, and the held-out sets are classified by
// 1-NN against the fold's training sets for every KDE bandwidth of
// g.Bandwidths (global bases from the fold's training sets). A candidate
// scores its best bandwidth's accuracy pooled over the folds (ties: mean
// margin, then grid order). The test sets are never touched. W is then
// learned once more on all training sets with the winner (from what
// learnInput gives: their frame halves where a class has fewer than
// three), and the NN bandwidth in the learned space is the one of the
// winning held-out score.
// (Chosen again by runNN on the training sets that W was learned from, it
// came out too narrow: on Virus with LBP features NN-H-DR fell from 77.8%
// to 55.6%.) With a single candidate there is no held-out score, and the
// bandwidth is chosen as in runNN.
func runDR(t *Task, g Grid, m match.Measure) (Prediction, error) {
	if g.Learn == nil {
		return Prediction{}, ErrNoLearner
	}
	sets := make([]*mat.Dense, len(t.Train))
	for k, j := range t.Train {
		sets[k] = t.Pool.Sets[j]
	}
	labels := t.Labels
	cands := drCandidates(g, t.Pool.Dim())
	chosen, cvNote := cands[0], ""
	cv := -1.0 // held out, when there was a choice to cross-validate
	t.progress().count("projections", 1)
	// The affinity of a fold's training sets needs within-class pairs: with
	// two sets per class, a fold's training part has one set per
	// class and W is learned on the halves of its sets (drFold).
	nf := drFolds(g)
	if SmallestClass(labels) == 2 {
		nf = 2
	}
	if fold := folds(labels, nf, t.Seed^0xd7); fold != nil && len(cands) > 1 && SmallestClass(labels) >= 2 {
		t.progress().count("projections", foldCount(fold)*len(cands)+1)
		i, b, s, err := cvDR(sets, labels, fold, cands, g, m, int64(t.Seed), t.Pool.Workers, t.progress())
		if err != nil {
			return Prediction{}, err
		}
		chosen, cvNote, cv = cands[i], fmt.Sprintf(" drcv=%.1f%%", 100*s.acc), s.acc
		// The KDE bandwidth in the learned space comes from the same
		// held-out scores: chosen again on the training sets that W was
		// learned from, it comes out too narrow (they fit W, not new sets).
		g.Bandwidths = []Bandwidth{drBandwidths(g)[b]}
	}
	chosen.MaxIter = g.DRIter
	ls, ll, lp := learnInput(sets, labels, chosen, g.DRSmallest)
	if lp.Halves && needsPairs(lp) && maxSize(ll) < 2 {
		// Every class has one set, and none could be halved: the
		// affinity has no within-class pair (as RefitProjection says).
		n, _ := sets[0].Dims()
		return Prediction{}, fmt.Errorf("learning W: %w", tooShortForHalves(t.Pool.setName(t.Train[0]), n))
	}
	w, mean, err := g.Learn(ls, ll, m, lp, int64(t.Seed))
	if err != nil {
		return Prediction{}, fmt.Errorf("learning W: %w", err)
	}
	t.progress().inc()
	_, d := w.Dims()
	var pred Prediction
	if cv >= 0 {
		// The bandwidth is chosen: only the test sets against the
		// training sets are compared (none when fitting for a model:
		// then only the bandwidths of the training sets are needed).
		if pred, err = drPredict(t, g.Bandwidths[0], m, w, mean); err != nil {
			return Prediction{}, err
		}
	} else {
		proj, err := ProjectSets(t.Pool.Sets, w, mean)
		if err != nil {
			return Prediction{}, err
		}
		pp, err := NewPool(proj, t.Pool.Workers)
		if err != nil {
			return Prediction{}, err
		}
		tt := *t
		tt.Pool = pp
		tt.Progress = nil // choosing the bandwidth in the learned space is quick
		if pred, err = runNN(&tt, g, m); err != nil {
			return Prediction{}, err
		}
	}
	pred.Params = fmt.Sprintf("d=%d%s%s %s", d, ruleNote(g, chosen), cvNote, pred.Params)
	pred.Fit.Method, pred.Fit.W, pred.Fit.Mean, pred.Fit.Learn = NNHDR, w, mean, lp
	// The method's accuracy is the held-out score of its choice, W learned
	// without the sets it classified. runNN's own score was taken on the
	// sets W was learned from, which it separates better than new ones.
	pred.Fit.CV = cv
	if m == match.Jeffrey {
		pred.Fit.Method = NNJDR
	}
	return pred, nil
}

// learnInput returns what W is learned from on the training sets (n_i×D,
// labels their classes) with p: the sets and p themselves where every
// class has three or more sets (or, with smallest > 0, where the
// smallest class of the sets the method is deployed on has:
// Grid.DRSmallest); otherwise the even and odd frame halves of every set,
// with p.Halves (one neighbour a set within and between classes in the
// affinity). W is then deployed as the folds that chose it learned it: a
// fold's training part leaves such a class a single set, whose two
// halves are its only pair (drFoldPart), so the fold's W pulls the halves
// of a set together, never two sets of a class. Learned from the pairs
// of sets, the deployed W would pull each class's sets together, which no
// fold scores where the pair is all a class has.
func learnInput(sets []*mat.Dense, labels []int, p LearnParams, smallest int) ([]*mat.Dense, []int, LearnParams) {
	if smallest <= 0 {
		smallest = SmallestClass(labels)
	}
	if smallest >= 3 {
		return sets, labels, p
	}
	hs, hl := halves(sets, labels)
	p.Halves = true
	return hs, hl, p
}

// SmallestClass returns the number of sets of the smallest class in labels.
func SmallestClass(labels []int) int {
	m := len(labels)
	for _, c := range classSizes(labels) {
		m = min(m, c)
	}
	return m
}

// maxSize returns the number of items of the largest class.
func maxSize(labels []int) int {
	m := 0
	for _, c := range classSizes(labels) {
		m = max(m, c)
	}
	return m
}

// classSizes returns the number of items of every class in labels.
func classSizes(labels []int) map[int]int {
	n := map[int]int{}
	for _, l := range labels {
		n[l]++
	}
	return n
}

func drFolds(g Grid) int {
	if g.DRFolds >= 2 {
		return g.DRFolds
	}
	return 3
}

func ruleNote(g Grid, p LearnParams) string {
	from := p.startNote()
	switch {
	case p.Start:
		return " start" + from
	case p.Scale > 0:
		return fmt.Sprintf(" train-bw=global*%g%s", p.Scale, from)
	case len(g.DRRules) == 0:
		return from
	}
	return " train-bw=" + p.Rule.String() + from
}

// drCandidates crosses g.DRDims (clamped to the feature dimension D) with
// g.DRRules, first entries first, each learning from the start
// g.DRFisher names. With d = D for every candidate, W is a
// rotation of the whole space, to which the divergences are invariant
// (Theorem 1): nothing is left to choose and only the first is returned.
func drCandidates(g Grid, dim int) []LearnParams {
	dims := g.DRDims
	if len(dims) == 0 {
		dims = []int{10}
	}
	rules := g.DRRules
	if len(rules) == 0 && len(g.DRScales) == 0 && !g.DRGuard {
		rules = []match.BandwidthRule{{}}
	}
	var out []LearnParams
	seen := map[LearnParams]bool{}
	full := true
	for _, d := range dims {
		d = min(max(d, 1), dim)
		full = full && d == dim
		ps := make([]LearnParams, 0, len(rules)+len(g.DRScales)+1)
		for _, r := range rules {
			ps = append(ps, LearnParams{Dim: d, Rule: r, Fisher: g.DRFisher})
		}
		for _, s := range g.DRScales {
			ps = append(ps, LearnParams{Dim: d, Scale: s, Fisher: g.DRFisher})
		}
		if g.DRGuard {
			ps = append(ps, LearnParams{Dim: d, Start: true, Fisher: g.DRFisher})
		}
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	if full {
		return out[:1]
	}
	return out
}

// cvDR scores every candidate by cross-validation over the training sets
// (n_i×D each, with their labels and fold assignment) and returns the
// index of the best and its score. The (fold, candidate) trainings are
// independent and run on up to workers goroutines (0: GOMAXPROCS); the
// outcome does not depend on their number.
func cvDR(sets []*mat.Dense, labels, fold []int, cands []LearnParams, g Grid, m match.Measure, seed int64, workers int, tr progress) (int, int, score, error) {
	bws := drBandwidths(g)
	nf := foldCount(fold)
	// res[f][c][b]: hits and summed margins of candidate c with bandwidth
	// b on fold f, summed in a fixed order below.
	res := make([][][]score, nf)
	errs := make([][]error, nf)
	for f := range nf {
		res[f] = make([][]score, len(cands))
		errs[f] = make([]error, len(cands))
	}
	// The sets each fold learns W from, made once per fold: where they are
	// the halves of the training sets, every candidate then learns from
	// the same matrices, and a learner that caches their PCA by their
	// identity (learn.PCACache) computes it once per fold, not once per
	// candidate.
	parts := make([]drPart, nf)
	for f := range nf {
		parts[f] = drFoldPart(sets, labels, fold, f)
	}
	job := func(f, c int) {
		res[f][c], errs[f][c] = drFold(sets, labels, parts[f], cands[c], g, bws, m, seed+int64(f), workers)
		tr.inc()
	}
	par.For(nf*len(cands), workers, func(_, j int) { job(j/len(cands), j%len(cands)) })
	held := 0
	for _, f := range fold {
		if f >= 0 {
			held++
		}
	}
	bestC, bestB, best := 0, 0, score{acc: -1}
	for c, p := range cands {
		for b := range bws {
			var s score
			for f := range nf {
				if err := errs[f][c]; err != nil {
					return 0, 0, score{}, fmt.Errorf("learning W (cross-validation fold %d of %d, d=%d, rule %v): %w", f+1, nf, p.Dim, p.Rule, err)
				}
				s.acc += res[f][c][b].acc
				s.margin += res[f][c][b].margin
			}
			s = s.mean(held)
			if s.better(best) {
				bestC, bestB, best = c, b, s
			}
		}
	}
	return bestC, bestB, best, nil
}

// drBandwidths returns the KDE bandwidths cvDR scores in the learned
// space.
func drBandwidths(g Grid) []Bandwidth {
	if len(g.Bandwidths) == 0 {
		return []Bandwidth{{Mode: Global, Scale: 1}}
	}
	return g.Bandwidths
}

// foldCount returns the number of folds of a fold assignment.
func foldCount(fold []int) int {
	nf := 0
	for _, f := range fold {
		nf = max(nf, f+1)
	}
	return nf
}

// drPart is one fold of cvDR: the positions of its training and held-out
// sets, and the sets (with labels) W is learned from.
type drPart struct {
	trPos, trLab, tePos []int
	learnSets           []*mat.Dense
	learnLab            []int
	err                 error
}

// drFoldPart returns fold f's part of the sets. W is learned from the
// training sets, or where a class has a single one there, from the
// halves of the training sets.
func drFoldPart(sets []*mat.Dense, labels, fold []int, f int) drPart {
	var p drPart
	var trSets []*mat.Dense
	for k := range sets {
		if fold[k] == f {
			p.tePos = append(p.tePos, k)
		} else {
			p.trPos = append(p.trPos, k)
			p.trLab = append(p.trLab, labels[k])
			trSets = append(trSets, sets[k])
		}
	}
	p.learnSets, p.learnLab = trSets, p.trLab
	if SmallestClass(p.trLab) < 2 {
		// One set per class left to learn from (two per class in all):
		// the affinity's within-class pairs come from each set's halves.
		p.learnSets, p.learnLab = halves(trSets, p.trLab)
		if maxSize(p.learnLab) < 2 {
			p.err = fmt.Errorf("every class has one set to learn W from here, and its sets have fewer than %d frames, too few to halve for the within-class pairs of the affinity: give sets of at least %[1]d frames, or more sets per class", MinHalvedFrames)
		}
	}
	return p
}

// drFold learns W with p on the training sets of the fold part and
// returns, for each bandwidth, the hits and summed margins of 1-NN on its
// held-out sets.
func drFold(sets []*mat.Dense, labels []int, part drPart, p LearnParams, g Grid, bws []Bandwidth, m match.Measure, seed int64, workers int) ([]score, error) {
	if part.err != nil && needsPairs(p) {
		// No within-class pair to learn W from.
		return nil, part.err
	}
	p.MaxIter = g.DRFoldIter
	w, mean, err := g.Learn(part.learnSets, part.learnLab, m, p, seed)
	if err != nil {
		return nil, err
	}
	proj, err := ProjectSets(sets, w, mean)
	if err != nil {
		return nil, err
	}
	tePos, trPos, trLab := part.tePos, part.trPos, part.trLab
	// Only the held-out sets against the training sets are compared.
	fp, err := NewCrossPool(proj, 1, tePos, trPos)
	if err != nil {
		return nil, err
	}
	truth := make([]int, len(tePos))
	for a, q := range tePos {
		truth[a] = labels[q]
	}
	out := make([]score, len(bws))
	res, err := crossNNAll(fp, bws, m, tePos, trPos, trLab, truth)
	if err != nil {
		return nil, err
	}
	for b, r := range res {
		pred, margin := r.pred, r.margin
		for a := range tePos {
			out[b].add(pred[a] == truth[a], margin[a])
		}
	}
	return out, nil
}

// nnResult is crossNN's labels and margins for one bandwidth.
type nnResult struct {
	pred   []int
	margin []float64
}

// crossNNAll is crossNN for every bandwidth of bws, from one pass over
// the pairs of sets (the frames' distances computed once for all).
func crossNNAll(fp *Pool, bws []Bandwidth, m match.Measure, rows, cols, lab, truth []int) ([]nnResult, error) {
	hs := make([][]float64, len(bws))
	for k, b := range bws {
		h, err := fp.FrameBandwidths(b, cols)
		if err != nil {
			return nil, fmt.Errorf("bandwidth %v: %w", b, err)
		}
		hs[k] = h
	}
	out := make([]nnResult, len(bws))
	if len(rows) == 0 {
		for k := range out {
			out[k] = nnResult{pred: []int{}, margin: []float64{}}
		}
		return out, nil
	}
	h2s, js, err := fp.crossDivergencesOf(hs, rows, cols)
	if err != nil {
		return nil, fmt.Errorf("bandwidths %v: %w", bws, err)
	}
	pos := make([]int, len(cols)) // columns of d, in the order of cols
	for k := range pos {
		pos[k] = k
	}
	for k := range bws {
		d := h2s[k]
		if m == match.Jeffrey {
			d = js[k]
		}
		r := nnResult{pred: make([]int, len(rows)), margin: make([]float64, len(rows))}
		for a := range rows {
			t := -1
			if truth != nil {
				t = truth[a]
			}
			r.pred[a], r.margin[a] = nnOutcome(func(c int) float64 { return d.At(a, c) }, pos, lab, t)
		}
		out[k] = r
	}
	return out, nil
}

// crossNN classifies the sets rows of fp by 1-NN among the sets cols
// (labels lab) under measure m, with bandwidth b (its global base from
// cols), from the rows × cols divergences only: each row's label and
// margin (nnOutcome, against truth when not nil), and the frames'
// bandwidths.
func crossNN(fp *Pool, b Bandwidth, m match.Measure, rows, cols, lab, truth []int) ([]int, []float64, []float64, error) {
	h, err := fp.FrameBandwidths(b, cols)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("bandwidth %v: %w", b, err)
	}
	pred, margin := make([]int, len(rows)), make([]float64, len(rows))
	if len(rows) == 0 {
		return pred, margin, h, nil
	}
	h2, jd, err := fp.CrossDivergences(h, rows, cols)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("bandwidth %v: %w", b, err)
	}
	d := h2
	if m == match.Jeffrey {
		d = jd
	}
	pos := make([]int, len(cols)) // columns of d, in the order of cols
	for k := range pos {
		pos[k] = k
	}
	for a := range rows {
		t := -1
		if truth != nil {
			t = truth[a]
		}
		dist := func(k int) float64 { return d.At(a, k) }
		pred[a], margin[a] = nnOutcome(dist, pos, lab, t)
	}
	return pred, margin, h, nil
}

// drPredict classifies t's test sets by 1-NN, under measure m, on the
// divergences after W (and mean) with bandwidth b: what runNN gives with
// that one bandwidth on the projected pool, labels and fit, to the last
// bit, from the test × training pairs only (NewCrossPool), not every
// pair of the pool's sets. Without test sets only the fit is made (for a
// model). The fit's CV is left to the caller.
func drPredict(t *Task, b Bandwidth, m match.Measure, w *mat.Dense, mean []float64) (Prediction, error) {
	sets := make([]*mat.Dense, 0, len(t.Train)+len(t.Test))
	rows, cols := make([]int, len(t.Test)), make([]int, len(t.Train))
	for k, j := range t.Train {
		sets, cols[k] = append(sets, t.Pool.Sets[j]), k
	}
	for k, j := range t.Test {
		sets, rows[k] = append(sets, t.Pool.Sets[j]), len(t.Train)+k
	}
	proj, err := ProjectSets(sets, w, mean)
	if err != nil {
		return Prediction{}, err
	}
	fp, err := NewCrossPool(proj, t.Pool.Workers, rows, cols)
	if err != nil {
		return Prediction{}, err
	}
	labels, _, h, err := crossNN(fp, b, m, rows, cols, t.Labels, nil)
	if err != nil {
		return Prediction{}, err
	}
	pred := Prediction{Labels: labels, Params: fmt.Sprintf("bw=%v", b)}
	pred.Fit = &Fitted{Method: NNH, Divergence: m, Bandwidth: b, CV: -1}
	if m == match.Jeffrey {
		pred.Fit.Method = NNJ
	}
	pred.Fit.setBandwidthsFrom(h, fp, cols)
	return pred, nil
}

// ProjectSets returns (x − mean)·W for every n×D set x (W is D×d; mean may
// be nil). A nil W is the identity: the sets are only centred (copies).
func ProjectSets(sets []*mat.Dense, w *mat.Dense, mean []float64) ([]*mat.Dense, error) {
	var dIn int
	switch {
	case w != nil:
		dIn, _ = w.Dims()
	case len(sets) > 0:
		_, dIn = sets[0].Dims()
	}
	if mean != nil && len(mean) != dIn {
		return nil, fmt.Errorf("mean has %d entries, W has %d rows", len(mean), dIn)
	}
	out := make([]*mat.Dense, len(sets))
	var right *matmul.Right // w prepared once for every set
	if w != nil {
		right = matmul.NewRight(w)
	}
	for i, x := range sets {
		_, c := x.Dims()
		if c != dIn {
			return nil, fmt.Errorf("set %d has %d features, W expects %d", i, c, dIn)
		}
		xc := x
		if mean != nil || w == nil {
			xc = mat.DenseCopyOf(x)
			if mean != nil {
				stats.SubtractFrame(xc, mean)
			}
		}
		if w == nil {
			out[i] = xc
			continue
		}
		var p mat.Dense
		right.Mul(&p, xc, 0)
		out[i] = &p
	}
	return out, nil
}
