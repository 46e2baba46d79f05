package method

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
)

// Name is a method's name, as on the command line, in the paper's
// tables and in a model file.
type Name string

// The methods.
const (
	NNH    Name = "nn-h"
	NNJ    Name = "nn-j"
	KFDAHG Name = "kfda-hg"
	KFDAHL Name = "kfda-hl"
	KFDAJ  Name = "kfda-j"
	NNHDR  Name = "nn-h-dr"
	NNJDR  Name = "nn-j-dr"
	// NNHLDA is nearest neighbour on the Hellinger divergence after a
	// fixed Fisher discriminant W (lda.go).
	NNHLDA Name = "nn-h-lda"
	GDA    Name = "gda"
	CDL    Name = "cdl"
	// KFDAMix is kFDA on a KDE kernel, GDA's or CDL's set kernel, or a
	// sum of them, chosen by cross-validation (mix.go).
	KFDAMix Name = "kfda-mix"
	// Auto chooses among the deployable methods by cross-validation on
	// the training sets (Choose) and runs the winner: what setmatch train
	// --method auto deploys.
	Auto Name = "auto"
)

// Kernel returns the kernel of a single-kernel kFDA method as a model
// names it: "hg", "hl" and "j" for kfda-hg, kfda-hl and kfda-j, "gda" and
// "cdl" for the set kernels; "" for the other methods.
func (n Name) Kernel() string {
	switch n {
	case KFDAHG, KFDAHL, KFDAJ:
		return strings.TrimPrefix(string(n), "kfda-")
	case GDA, CDL:
		return string(n)
	}
	return ""
}

// IsDR reports whether n is nearest neighbour after a learned W (nn-h-dr,
// nn-j-dr).
func (n Name) IsDR() bool { return n == NNHDR || n == NNJDR }

// IsKFDA reports whether n decides by kFDA: the kfda-* methods and the
// set kernels (gda, cdl).
func (n Name) IsKFDA() bool {
	return strings.HasPrefix(string(n), "kfda") || n == GDA || n == CDL
}

// OfKernel returns the kFDA method on kernel k, as Name.Kernel names
// it: the inverse of Kernel.
func OfKernel(k string) Name {
	if k == string(GDA) || k == string(CDL) {
		return Name(k)
	}
	return "kfda-" + Name(k)
}

// Names lists every method in table order.
var Names = []Name{NNH, NNJ, KFDAHG, KFDAHL, KFDAJ, NNHDR, NNJDR, NNHLDA, GDA, CDL, KFDAMix, Auto}

// Join joins the names with sep between them, as strings.Join.
func Join(names []Name, sep string) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, sep)
}

// ParseNames reads a comma-separated list of method names ("all" for
// every method), each once, in the order given.
func ParseNames(s string) ([]Name, error) {
	if strings.TrimSpace(s) == "all" {
		return slices.Clone(Names), nil
	}
	var out []Name
	for _, f := range strings.Split(s, ",") {
		n := Name(strings.ToLower(strings.TrimSpace(f)))
		if n == "" {
			continue
		}
		if !slices.Contains(Names, n) {
			return nil, fmt.Errorf("unknown method %q: want some of %s (or all)", n, Join(Names, ","))
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no methods given")
	}
	return out, nil
}

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
	// training sets (model.GlobalTrainingBandwidth), instead of Rule.
	Scale float64
	// Start: no learning, W is the learner's starting point (the PCA
	// start); the guard candidate that a learned W must beat.
	Start bool
}

// Grid holds the candidate hyper-parameters tried by cross-validation.
type Grid struct {
	// KDE bandwidths (NN and kFDA on divergences).
	Bandwidths []Bandwidth
	// Kernel widths s of k = exp(−s·δ) as in the paper's grid.
	Widths []float64
	// WidthScale: "raw" uses δ as it is, "median" divides δ by its median
	// over training pairs first, "both" tries the two.
	WidthScale string
	// Regs: kFDA regulariser ε relative to tr(S_w)/m.
	Regs []float64
	// Dims: latent dimensions tried (clamped to C−1; 0 = C−1). Empty means
	// C−1, ⌈(C−1)/2⌉ and ⌈(C−1)/4⌉.
	Dims []int
	// GDAP: subspace dimensions p for GDA.
	GDAP []int
	// CDLRegs: covariance regulariser λ relative to the median tr(C)/d.
	CDLRegs []float64
	// Folds: inner cross-validation folds.
	Folds int
	// Learn is the projection learner for the -dr methods (nil: those
	// methods report an error).
	Learn Learner
	// DRDims and DRRules are the candidate dimensions d and training
	// bandwidth rules of the -dr methods, crossed and chosen by
	// cross-validation (see runDR); the first of each is the default when
	// there is nothing to cross-validate on. Empty DRDims means {10};
	// empty DRRules means the learner's default rule.
	DRDims  []int
	DRRules []match.BandwidthRule
	// DRScales are candidate global training bandwidths relative to the
	// projected data (LearnParams.Scale), tried after DRRules.
	DRScales []float64
	// DRGuard adds, for every d, the start of training (LearnParams.Start)
	// as a candidate: the cross-validation then keeps the PCA start when
	// the learned W does not beat it on held-out training sets.
	DRGuard bool
	// DRFolds: folds of the -dr cross-validation (W is learned once per
	// fold and candidate, so fewer than Folds; 0 means 3).
	DRFolds int
	// DRIter and DRFoldIter: iteration caps when learning the final W and
	// W inside the cross-validation folds (0: the learner's default).
	DRIter, DRFoldIter int
	// The auto method's candidates (AutoCandidates; empty: AutoMethods,
	// AutoDims, AutoScales) and its outer folds (0: 3).
	AutoMethods []Name
	AutoDims    []int
	AutoScales  []float64
	AutoFolds   int
	AutoRepeats int // dealings of the training sets to the outer folds (0: AutoRepeats)
	// AutoScoreAll scores every candidate even when the earlier ones
	// settle the choice (Choose stops early otherwise), for studies that
	// compare rules on every candidate's outcomes.
	AutoScoreAll bool
}

// PaperWidths is the grid of kernel widths of the paper's experiments.
var PaperWidths = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1}

// DefaultGrid returns the grid used by setmatch eval.
func DefaultGrid() Grid {
	// The first entry of each list is the default used when a split
	// leaves nothing to cross-validate on (one gallery set per class).
	var bws []Bandwidth
	for _, s := range []float64{1, 0.25, 0.5, 2, 4, 8} {
		bws = append(bws, Bandwidth{Mode: Global, Scale: s})
	}
	for _, s := range []float64{1, 2, 4} {
		bws = append(bws, Bandwidth{Mode: PerSet, Scale: s}, Bandwidth{Mode: Adaptive, K: 3, Scale: s})
	}
	return Grid{
		Bandwidths: bws,
		Widths:     PaperWidths,
		WidthScale: "both",
		Regs:       []float64{1e-3, 1e-2, 1e-1, 1},
		GDAP:       []int{3, 1, 2, 5, 10, 15},
		CDLRegs:    []float64{1e-3, 1e-5, 1e-4, 1e-2, 1e-1, 1, 10, 100},
		Folds:      5,
		// The -dr methods learn W with one global training bandwidth
		// (global*S, S chosen by cross-validation) and keep the PCA start
		// when learning does not beat it on held-out gallery sets: per-set
		// bandwidths froze the cost on face-like data.
		DRDims:     []int{10, 20, 40},
		DRScales:   []float64{0.25, 1, 2},
		DRGuard:    true,
		DRFolds:    3,
		DRIter:     25,
		DRFoldIter: 10,
	}
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
	case KFDAHG, KFDAHL, KFDAJ:
		return runKFDADiv(t, g, method)
	case GDA:
		return runGDA(t, g)
	case KFDAMix:
		return runMix(t, g)
	case CDL:
		return runCDL(t, g)
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

// divMatrix returns the pool's divergence matrix for bandwidth b (its
// global base from the sets train), covering at least the sets of sets
// (nil: every set), cached.
func (p *Pool) divMatrix(b Bandwidth, train, sets []int) (*DivMatrix, error) {
	h, err := p.FrameBandwidths(b, train)
	if err != nil {
		return nil, err
	}
	sets = sortedSets(sets)
	key := divKey(b, h)
	if dm := p.cachedDiv(key, sets); dm != nil {
		return dm, nil
	}
	dms, err := p.divergencesOn([][]float64{h}, [][]int{sets})
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.divCache == nil {
		p.divCache = map[string][]*DivMatrix{}
	}
	p.divCache[key] = append(p.divCache[key], dms[0])
	return dms[0], nil
}

// cachedDiv returns a cached matrix of key that covers sets, or nil.
func (p *Pool) cachedDiv(key string, sets []int) *DivMatrix {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, dm := range p.divCache[key] {
		if dm.covers(sets) {
			return dm
		}
	}
	return nil
}

// sortedSets returns the distinct sets of sets in ascending order (nil
// stays nil: every set).
func sortedSets(sets []int) []int {
	if sets == nil {
		return nil
	}
	out := slices.Clone(sets)
	slices.Sort(out)
	return slices.Compact(out)
}

// divSets returns the sets whose divergences a method run on t looks at:
// its training and test sets, and the halves of its training sets when
// the pool holds them (withHalves).
func (t *Task) divSets() []int {
	out := append(append([]int(nil), t.Train...), t.Test...)
	for _, h := range t.halves {
		for _, j := range h {
			if j >= 0 {
				out = append(out, j)
			}
		}
	}
	return sortedSets(out)
}

// divKey is the cache key of the divergences of bandwidth b with the
// frames' bandwidths h. The divergences depend on the bandwidths only;
// which of them depend on the training sets varies (the global base,
// and the fallback of a set whose frames are mostly identical), so the
// key is all of them.
func divKey(b Bandwidth, h []float64) string {
	hash := fnv.New64a()
	var buf [8]byte
	for _, v := range h {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
		hash.Write(buf[:])
	}
	return fmt.Sprintf("%s/%x", b, hash.Sum64())
}

// divRequest asks prefetch for the divergences of the sets sets (nil:
// every set) with the global base of the sets train.
type divRequest struct {
	train, sets []int
}

// prefetch computes the divergence matrices of every bandwidth of bws for
// every request of reqs that the cache does not hold yet, in one pass over
// the pairs of sets (divergencesOn): the frames' distances, the costly
// part, once for all. It is only a head start: a bandwidth that cannot be
// derived is left out, for divMatrix to report when it is asked for.
func (p *Pool) prefetch(bws []Bandwidth, reqs []divRequest) {
	var hs [][]float64
	var keys []string
	var sets [][]int
	for _, r := range reqs {
		s := sortedSets(r.sets)
		for _, b := range bws {
			h, err := p.FrameBandwidths(b, r.train)
			if err != nil || validBandwidths(h) != nil {
				continue
			}
			key := divKey(b, h)
			if p.cachedDiv(key, s) != nil {
				continue
			}
			// Requests of the same key (a bandwidth per set does not
			// depend on the training sets): one matrix over their union.
			if k := slices.Index(keys, key); k >= 0 {
				if sets[k] != nil {
					sets[k] = sortedSets(append(sets[k], s...))
				}
				if s == nil {
					sets[k] = nil
				}
				continue
			}
			hs, keys, sets = append(hs, h), append(keys, key), append(sets, s)
		}
	}
	if len(hs) == 0 {
		return
	}
	dms, err := p.divergencesOn(hs, sets)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.divCache == nil {
		p.divCache = map[string][]*DivMatrix{}
	}
	for k, key := range keys {
		p.divCache[key] = append(p.divCache[key], dms[k])
	}
}

func runNN(t *Task, g Grid, m match.Measure) (Prediction, error) {
	bws := g.Bandwidths
	if len(bws) == 0 {
		bws = []Bandwidth{{Mode: Global, Scale: 1}}
	}
	cvTrain, cvLabels, fold := t.cv(max(g.Folds, 2))
	bestI, best := 0, score{acc: -1}
	mats := make([]Divs, len(bws))
	if fold == nil {
		t.progress().count("bandwidths", 1)
	} else {
		t.progress().count("bandwidths", len(bws))
	}
	sets := t.divSets()
	if fold != nil {
		t.Pool.prefetch(bws, []divRequest{{t.Train, sets}})
	}
	for i, b := range bws {
		dm, err := t.Pool.divMatrix(b, t.Train, sets)
		if err != nil {
			return Prediction{}, fmt.Errorf("bandwidth %v: %w", b, err)
		}
		mats[i] = dm.Of(m)
		if fold == nil {
			t.progress().inc()
			break
		}
		s := cvNN(mats[i], cvTrain, cvLabels, fold)
		if s.better(best) {
			bestI, best = i, s
		}
		t.progress().inc()
	}
	d := mats[bestI]
	pred := make([]int, len(t.Test))
	for k, q := range t.Test {
		pred[k], _ = nnOutcome(func(j int) float64 { return d.At(q, j) }, t.Train, t.Labels, -1)
	}
	params := fmt.Sprintf("bw=%v", bws[bestI])
	if best.acc >= 0 {
		params += fmt.Sprintf(" cv=%.1f%%", 100*best.acc)
	}
	fit := &Fitted{Method: NNH, Divergence: m, Bandwidth: bws[bestI], CV: best.acc}
	if m == match.Jeffrey {
		fit.Method = NNJ
	}
	if err := fit.setBandwidths(t); err != nil {
		return Prediction{}, err
	}
	return Prediction{Labels: pred, Params: params, Fit: fit}, nil
}

// cvNN scores 1-NN on the divergence matrix d by the folds of the sets
// train (pool indices) with their labels.
func cvNN(d Divs, train, labels, fold []int) score {
	var s score
	var n int
	nf := 0
	for _, f := range fold {
		nf = max(nf, f+1)
	}
	for f := range nf {
		var tr, lab []int
		for k, j := range train {
			if fold[k] != f {
				tr = append(tr, j)
				lab = append(lab, labels[k])
			}
		}
		for k, q := range train {
			if fold[k] != f {
				continue
			}
			p, mg := nnOutcome(func(j int) float64 { return d.At(q, j) }, tr, lab, labels[k])
			if p == labels[k] {
				s.acc++
			}
			s.margin += mg
			n++
		}
	}
	if n > 0 {
		s.acc /= float64(n)
		s.margin /= float64(n)
	}
	return s
}
