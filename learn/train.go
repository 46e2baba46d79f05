package learn

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
	"setmatch/internal/matmul"
	"setmatch/internal/stats"
	"setmatch/match"
	"setmatch/model"
)

// IterStats describes one iteration of training (grassmann.IterStats).
type IterStats = grassmann.IterStats

// TrainOptions controls Train. Zero values select the defaults.
type TrainOptions struct {
	Dim        int                 // d, the dimension of the learned space (required)
	Divergence match.Measure       // δ in the cost
	Bandwidth  match.BandwidthRule // per-set bandwidth rule; the zero value means the nearest-neighbour rule
	NuW, NuB   int                 // neighbours for the affinity (0: ν_w = smallest class − 1, ν_b = ν_w)
	// MaxIter, GradTol, CostRelTol and MinStep are passed to
	// grassmann.MinimizeCG for each round; zero selects its defaults
	// (grassmann.DefaultMaxIter and so on).
	MaxIter    int
	GradTol    float64
	CostRelTol float64
	MinStep    float64
	// Rounds is the number of CG runs (default 1). Bandwidths are computed
	// from the projected sets at the start of each run and held fixed during
	// it, so that the cost is a smooth function of W.
	Rounds int
	// GlobalScale > 0 holds one bandwidth for every set during each CG run
	// instead of the per-set Bandwidth rule: GlobalScale × the median over
	// the projected training sets of their nn-rule bandwidths
	// (GlobalTrainingBandwidth), re-estimated at the start of each round.
	// Bandwidth still gives the gallery's and queries' bandwidths after
	// training.
	GlobalScale float64
	// WarmScale is the global scale of a warm start: where it differs
	// from GlobalScale, the affinity is chosen and W learned for
	// ⌈MaxIter/2⌉ iterations under WarmScale × the same base before the
	// runs under GlobalScale. 0 selects 1 when
	// 0 < GlobalScale < 1, and no warm start otherwise; < 0: none. Under a
	// narrow bandwidth the sets of a class can lie too far apart for their
	// kernels to overlap, and the cost then has no gradient to follow
	// from the PCA start (docs/DESIGN-NOTES.md, "A narrow training bandwidth starts wide").
	WarmScale float64
	// Start, if set, gives the start of CG from the training sets (D×d,
	// orthonormal columns, and the mean frame): for example the PCA start
	// from a PCACache shared by several trainings on the same sets, or
	// the Fisher start (FisherCache). nil: PCABasis, the
	// paper's start.
	Start StartFunc
	Seed  int64 // only used by the PCA start when D > 2000; training is otherwise deterministic
	// WAlone says the caller takes W (and Mean) alone: each CG run
	// stops without the gradient at its last point
	// (grassmann.CGOptions.NoFinalGradient), so that the last GradNorm
	// of History is NaN and a run stopped by MaxIter says "iteration
	// limit", and the training sets are not projected at the end
	// (TrainResult.Projected and Bandwidths are nil). W and every other
	// result are those of a run without it.
	WAlone bool
	// Prefixes, if set, holds the first iterations of trainings that
	// begin alike, shared with this one: the first ⌈MaxIter/2⌉ of its
	// first CG run (PrefixCache). Every result but the iterations'
	// Seconds is that of a training without it.
	Prefixes *PrefixCache
	Workers  int // goroutines (≤ 0: GOMAXPROCS); the result does not depend on it
	Progress func(IterStats)
}

// StartFunc gives the start of training from the n_i×D training sets:
// W, D×d with orthonormal columns, and the mean frame (len D) subtracted
// before projecting. The seed matters only where the start is randomised
// (PCABasis above pca.CovarianceMaxDim features).
type StartFunc func(sets []*mat.Dense, d int, seed int64) (w *mat.Dense, mean []float64, err error)

// checkStart reports a start that is not D×d with orthonormal columns
// (to model.OrthonormalTol, as a model's W) and a mean of D entries.
func checkStart(w *mat.Dense, mean []float64, sets []*mat.Dense, d int) error {
	_, bigD := sets[0].Dims()
	if r, c := w.Dims(); r != bigD || c != d || len(mean) != bigD {
		return fmt.Errorf("the start of training is %d×%d with a mean of %d, want %d×%d and %d", r, c, len(mean), bigD, d, bigD)
	}
	if e := grassmann.OrthoError(w); !(e <= model.OrthonormalTol) {
		return fmt.Errorf("the start of training has columns %.3g from orthonormal", e)
	}
	return nil
}

// TrainResult is the outcome of Train. The learned space is x ↦ Wᵀ(x − Mean).
type TrainResult struct {
	// Divergence is the measure of the cost (TrainOptions.Divergence).
	Divergence match.Measure
	// Bandwidth is the bandwidth rule used, after the default.
	Bandwidth match.BandwidthRule
	W         *mat.Dense // D×d, orthonormal columns
	Mean      []float64  // len D
	InitialW  *mat.Dense // D×d, the start (the PCA start unless TrainOptions.Start)
	// Projected holds each training set in the learned space (n_i×d);
	// nil for W alone (TrainOptions.WAlone).
	Projected []*mat.Dense
	// Bandwidths are those of Projected by the bandwidth rule: what a
	// gallery built from the training sets uses, consistent with the rule
	// applied to incoming sets.
	Bandwidths []float64
	// TrainBandwidths are the bandwidths held fixed during the last CG run.
	TrainBandwidths []float64
	// Pairs are the affinity pairs, chosen in the PCA space.
	Pairs []PairWeight
	// InitialDivergences is the m×m divergence matrix in the PCA space with
	// the initial bandwidths, from which the affinity was chosen.
	InitialDivergences *mat.SymDense
	NuW, NuB           int
	InitialCost        float64 // at the start, under the first run's bandwidths (the warm start's, if any)
	FinalCost          float64
	Iterations         int
	Stop               string
	History            []IterStats // iteration 0 is the start; numbering continues across rounds
	Seconds            float64     // wall time of the whole training
}

// Train learns the projection W (paper Sec. 4): it minimises
// L(W) = Σ_{pairs} a_ij·δ(WᵀX_i, WᵀX_j) over the Grassmann manifold by
// Riemannian conjugate gradient from the PCA of all frames. sets holds the
// training sets (each n_i×D, rows = frames) and labels their class indices.
//
// The affinity is chosen once, from the divergences in the initial (PCA)
// space. The bandwidth of each set is chosen by opt.Bandwidth on its
// projection at the start of each CG run and held fixed during the run.
func Train(sets []*mat.Dense, labels []int, opt TrainOptions) (*TrainResult, error) {
	start := time.Now()
	if len(sets) < 2 {
		return nil, fmt.Errorf("training needs at least 2 sets, got %d", len(sets))
	}
	if len(labels) != len(sets) {
		return nil, fmt.Errorf("%d labels for %d sets", len(labels), len(sets))
	}
	rule := opt.Bandwidth
	if rule.Kind == match.Fixed && rule.Fixed == 0 {
		rule = match.BandwidthRule{Kind: match.NearestNeighbour}
	}
	if opt.Rounds <= 0 {
		opt.Rounds = 1
	}
	basis := opt.Start
	if basis == nil {
		basis = PCABasis
	}
	w, mean, err := basis(sets, opt.Dim, opt.Seed)
	if err != nil {
		return nil, err
	}
	if err := checkStart(w, mean, sets, opt.Dim); err != nil {
		return nil, err
	}
	res := &TrainResult{Divergence: opt.Divergence, Bandwidth: rule, Mean: mean, InitialW: mat.DenseCopyOf(w)}

	centred := make([]*mat.Dense, len(sets))
	for i, s := range sets {
		c := mat.DenseCopyOf(s)
		stats.SubtractFrame(c, mean)
		centred[i] = c
	}
	runs := trainingRuns(opt)
	h, y, err := trainingBandwidths(centred, w, rule, runs[0].scale)
	if err != nil {
		return nil, err
	}
	res.InitialDivergences, err = match.DivergenceMatrix(y, h, opt.Divergence, opt.Workers)
	if se := (*match.SetError)(nil); errors.As(err, &se) {
		return nil, &SetError{Set: se.Set, Err: se.Err}
	}
	if err != nil {
		return nil, err
	}
	res.NuW, res.NuB = opt.NuW, opt.NuB
	if res.NuW <= 0 {
		res.NuW = DefaultNuW(labels)
	}
	if res.NuB <= 0 {
		res.NuB = res.NuW
	}
	res.Pairs, err = Affinity(res.InitialDivergences, labels, res.NuW, res.NuB)
	if err != nil {
		return nil, err
	}
	cost, err := NewCost(centred, res.Pairs, h, opt.Divergence, opt.Dim, opt.Workers)
	if err != nil {
		return nil, err
	}
	// From here on use the cost's copy of the centred frames, so that only
	// one copy stays alive.
	centred = cost.setViews()

	offset := 0
	for round, run := range runs {
		if round > 0 {
			if h, _, err = trainingBandwidths(centred, w, rule, run.scale); err != nil {
				return nil, err
			}
			if err = cost.SetBandwidths(h); err != nil {
				return nil, err
			}
		}
		first := round == 0
		cgOpt := grassmann.CGOptions{
			MaxIter: run.iter, GradTol: opt.GradTol, CostRelTol: opt.CostRelTol, MinStep: opt.MinStep,
			NoFinalGradient: opt.WAlone,
			Progress: func(s IterStats) {
				if s.Iteration == 0 && !first {
					return // the start of a later round: its cost differs only by the new bandwidths
				}
				s.Iteration += offset
				res.History = append(res.History, s)
				if opt.Progress != nil {
					opt.Progress(s)
				}
			},
		}
		var cg *grassmann.CGResult
		if first && opt.Prefixes != nil {
			cg, err = opt.Prefixes.run(sets, labels, mean, w, res.Pairs, h, opt, warmIter(opt), cost.Eval, cgOpt)
		} else {
			cg, err = grassmann.MinimizeCG(cost.Eval, w, cgOpt)
		}
		if err != nil {
			return nil, err
		}
		if first {
			res.InitialCost = cg.History[0].Cost
		}
		offset += cg.Iterations
		w = cg.W
		res.FinalCost, res.Stop = cg.Cost, cg.Stop
	}
	res.Iterations = offset
	res.W = w
	res.TrainBandwidths = h
	if !opt.WAlone {
		res.Bandwidths, res.Projected, err = projectAndBandwidths(centred, w, rule)
		if err != nil {
			return nil, err
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// trainingRun is one CG run of Train: its global bandwidth scale (0: the
// per-set rule) and iteration cap.
type trainingRun struct {
	scale float64
	iter  int
}

// trainingRuns returns the CG runs of Train under opt: opt.Rounds runs of
// opt.MaxIter iterations at opt.GlobalScale, preceded, where there is a
// warm start (TrainOptions.WarmScale), by one of ⌈MaxIter/2⌉ iterations
// at the warm scale.
func trainingRuns(opt TrainOptions) []trainingRun {
	iter := maxIter(opt)
	runs := make([]trainingRun, max(opt.Rounds, 1))
	for i := range runs {
		runs[i] = trainingRun{opt.GlobalScale, iter}
	}
	warm := opt.WarmScale
	if warm == 0 && opt.GlobalScale > 0 && opt.GlobalScale < 1 {
		warm = 1
	}
	if warm <= 0 || opt.GlobalScale <= 0 || warm == opt.GlobalScale {
		return runs
	}
	return append([]trainingRun{{warm, warmIter(opt)}}, runs...)
}

// maxIter returns the iteration cap of a CG run of Train under opt but
// a warm start's (warmIter).
func maxIter(opt TrainOptions) int {
	if opt.MaxIter <= 0 {
		return grassmann.DefaultMaxIter
	}
	return opt.MaxIter
}

// warmIter returns ⌈maxIter/2⌉, the iteration cap of a warm start under
// opt and the first iterations a PrefixCache shares.
func warmIter(opt TrainOptions) int { return (maxIter(opt) + 1) / 2 }

// SetError is an error of one training set, by its index in the sets
// given to Train, so that a caller can name it.
type SetError struct {
	Set int
	Err error
}

func (e *SetError) Error() string { return fmt.Sprintf("training set %d: %v", e.Set, e.Err) }

func (e *SetError) Unwrap() error { return e.Err }

// projectAndBandwidths returns each centred set projected by w (n_i×d) and
// its bandwidth by rule. A set whose projected frames are all the same (a
// frozen camera's, match.ErrNoSpread) takes the median of the others', as
// the method engine's bandwidths give such a set the global base.
func projectAndBandwidths(centred []*mat.Dense, w *mat.Dense, rule match.BandwidthRule) ([]float64, []*mat.Dense, error) {
	h := make([]float64, len(centred))
	y := make([]*mat.Dense, len(centred))
	right := matmul.NewRight(w)
	var frozen []int
	var spread []float64
	for i, c := range centred {
		y[i] = new(mat.Dense)
		right.Mul(y[i], c, 0)
		v, err := rule.Bandwidth(y[i])
		if errors.Is(err, match.ErrNoSpread) {
			frozen = append(frozen, i)
			continue
		}
		if err != nil {
			return nil, nil, &SetError{Set: i, Err: fmt.Errorf("bandwidth: %w", err)}
		}
		h[i] = v
		spread = append(spread, v)
	}
	if len(frozen) > 0 {
		if len(spread) == 0 {
			return nil, nil, &SetError{Set: frozen[0], Err: fmt.Errorf("bandwidth: %w, and so is every other set's: no bandwidth can be derived; train on sets whose frames differ", match.ErrNoSpread)}
		}
		m := stats.Median(spread)
		for _, i := range frozen {
			h[i] = m
		}
	}
	return h, y, nil
}

// SetBandwidths replaces the bandwidths (one per set) held fixed by the cost.
func (c *Cost) SetBandwidths(h []float64) error {
	if len(h) != len(c.h) {
		return fmt.Errorf("%d bandwidths for %d sets", len(h), len(c.h))
	}
	for i, v := range h {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("bandwidth of set %d is %v: want a finite number > 0", i, v)
		}
	}
	copy(c.h, h)
	for i := range c.sets {
		c.sets[i].h = h[i]
	}
	return nil
}

// Costs returns the cost of every iteration of History, in order.
func (r *TrainResult) Costs() []float64 {
	cost := make([]float64, len(r.History))
	for i, s := range r.History {
		cost[i] = s.Cost
	}
	return cost
}
