package model

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"setmatch/kfda"
	"setmatch/match"
	"setmatch/setkernel"
)

// Matcher matches batches against a model's gallery and decides by the
// model's method. Nearest neighbour: the nearest gallery set under the
// model's divergence, known if its divergence is within the threshold.
// kFDA (Model.Discriminant): the batch's kernel against every gallery set is its
// kernel vector and, centred and projected, its latent point; the nearest
// gallery set in the latent space gives the label, and the batch is known
// if the distance the kernel induces to the nearest set of that label is
// within the threshold (Discriminant.OpenSet; in models of formats 2 and 3 the
// latent distance). A kernel on divergences takes the batch's
// divergences to the gallery sets; a set kernel (GDA, CDL) compares the
// projected batch with every gallery set directly (no KDE is built when
// no kernel needs one); a sum adds its weighted terms. The gallery KDEs
// (and bases, or spectra) are built once, in NewMatcher. Where the model
// gives each class a threshold of its own (Model.Spread), "the
// threshold" is the matcher's times the nearest class's factor.
//
// A Matcher is safe for concurrent use by several goroutines: Match keeps
// all its working memory local to the call and only reads the Matcher. The
// model it was built from must not be modified while the Matcher is in use
// (the KDEs share the gallery samples).
type Matcher struct {
	model     *Model
	labels    []string
	gallery   *match.Gallery
	threshold float64
	disc      *kfda.KFDA    // nil for nearest neighbour
	terms     []matcherTerm // the kFDA kernel, a sum of terms
	diag      []float64     // OpenSetKernel: the kernel of each gallery set with itself
	workers   int
	voters    []*Matcher // the matchers of Model.Voters
}

// matcherTerm is one kernel of a kFDA matcher, times weight: on the
// divergences of measure meas (div), or on the sets (sets).
type matcherTerm struct {
	weight float64
	div    func(div float64) float64
	meas   match.Measure
	sets   *setkernel.Gallery
}

// Decision is the outcome of matching a batch: the nearest gallery set,
// the nearest set of another label, and whether the best divergence is
// within the threshold (Known; Label is "" when it is not).
type Decision = match.Decision

// ErrNoDecision is returned by Match when no gallery set is at a finite
// divergence from the batch, so that there is no nearest set.
var ErrNoDecision = errors.New("no finite divergence to any gallery set")

// Result is the outcome of matching one batch.
type Result struct {
	// Decision is the nearest gallery set under the model's divergence,
	// the runner-up of another label, and whether the best score is within
	// the matcher's threshold (Known).
	Decision Decision
	// Divergences holds the batch's divergences to every gallery set, in
	// gallery order (len = number of gallery sets); nil for a set kernel
	// (a kFDA kernel with no term on divergences).
	Divergences []match.Divergences
	// Frames is the number of frames n of the batch.
	Frames int
	// Bandwidth is the bandwidth h chosen for the projected batch (0 for
	// a set kernel, which uses no KDE, as Divergences).
	Bandwidth float64
	// Latent is the batch's point in the kFDA latent space (len r), and
	// Distances its Euclidean distances to the gallery sets' latent points
	// (the scores of Decision); both nil for nearest-neighbour models.
	Latent    []float64
	Distances []float64
	// KernelDistances are the distances the kFDA kernel induces from the
	// batch to every gallery set, √(k(q,q) + k(j,j) − 2k(q,j)), for models
	// whose open set is decided by them (Discriminant.OpenSet); nil otherwise.
	KernelDistances []float64
	// Votes, for a model that decides by a vote (Model.Voters), holds the
	// label of the nearest gallery set every member gives (the model
	// itself first, then its voters), whether known or not, and "" for
	// the members not matched because the others had decided the vote
	// (with three members: the third, when the first two agree); nil
	// otherwise. The rest of the Result is that of the member Member
	// (index into Votes), the first whose label the vote decided for:
	// its divergences, its scores and its open-set decision, by its own
	// threshold.
	Votes  []string
	Member int
	// Threshold is the one Decision.Score was held against: the
	// matcher's times Factor, the factor of the nearest class's threshold
	// (Model.Spread; 1 without one). For a vote, the deciding member's.
	Threshold, Factor float64
}

// NewMatcher validates the model and builds its gallery. Comparisons use
// GOMAXPROCS goroutines per batch.
func (m *Model) NewMatcher() (*Matcher, error) {
	return m.NewMatcherWorkers(0)
}

// NewMatcherWorkers is NewMatcher with the number of goroutines that
// compare one batch with the gallery sets (0 means GOMAXPROCS).
func (m *Model) NewMatcherWorkers(workers int) (*Matcher, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m.newMatcher(workers)
}

// newMatcher is NewMatcherWorkers of a model Validate has just checked,
// with its voters (validateVoter): the matchers of the voters are built
// by it, not checked again.
func (m *Model) newMatcher(workers int) (*Matcher, error) {
	mt := &Matcher{model: m, labels: m.Labels(), threshold: m.Threshold, workers: max(workers, 0)}
	if err := mt.newVoters(); err != nil {
		return nil, err
	}
	if k := m.Discriminant; k != nil {
		mt.disc = &k.Solution
		for _, t := range k.Kernels() {
			mtt := matcherTerm{weight: t.Weight}
			if t.Kind().OnSets() {
				g, err := m.TermGallery(t, workers)
				if err != nil {
					return nil, err
				}
				mtt.sets = g
			} else {
				mtt.div, mtt.meas = t.KernelFunc(), t.Measure()
			}
			mt.terms = append(mt.terms, mtt)
		}
		if k.OpenSet == OpenSetKernel {
			mt.diag = make([]float64, len(m.Sets))
			for _, t := range mt.terms {
				if t.sets != nil {
					for j, v := range t.sets.Diag(workers) {
						mt.diag[j] += t.weight * v
					}
					continue
				}
				for j := range mt.diag {
					mt.diag[j] += t.weight * t.div(0) // δ(j, j) = 0
				}
			}
		}
	}
	if !m.UsesKDE() {
		return mt, nil
	}
	kdes := make([]*match.KDE, len(m.Sets))
	for i, s := range m.Sets {
		k, err := match.NewKDE(s.Samples, s.Bandwidth)
		if err != nil {
			return nil, fmt.Errorf("gallery set %d (%q/%q): %w", i, s.Label, s.Name, err)
		}
		kdes[i] = k
	}
	g, err := match.NewGallery(kdes)
	if err != nil {
		return nil, err
	}
	g.Workers = mt.workers
	mt.gallery = g
	return mt, nil
}

// WithThreshold returns a matcher that shares mt's gallery (building
// nothing) but decides with the open-set threshold t instead of the model's,
// as when a daemon's configuration overrides it; each class's threshold
// is t times its factor (Model.Spread), as the model's. +Inf makes a closed-set
// decision; t must be ≥ 0 and not NaN, as a model's threshold
// (Model.Validate). A model that decides by a vote takes only +Inf, for
// every member (ErrVoteThreshold).
func (mt *Matcher) WithThreshold(t float64) (*Matcher, error) {
	if math.IsNaN(t) {
		return nil, errors.New("threshold is NaN (use +Inf for a closed-set decision)")
	}
	if len(mt.voters) > 0 {
		return mt.withThresholdVote(t)
	}
	if t < 0 {
		return nil, fmt.Errorf("threshold is %v: scores are never below 0, so every batch would be unknown (want a number ≥ 0, or +Inf for a closed-set decision)", t)
	}
	c := *mt
	c.threshold = t
	return &c, nil
}

// Threshold returns the open-set threshold the matcher decides with: the
// model's, unless set by WithThreshold; for a vote, its first member's
// (Thresholds gives every member's).
func (mt *Matcher) Threshold() float64 { return mt.threshold }

// Model returns the model the matcher was built from.
func (mt *Matcher) Model() *Model { return mt.model }

// Labels returns the label of each gallery set (do not modify).
func (mt *Matcher) Labels() []string { return mt.labels }

// Match projects the n×D batch, estimates its density with the bandwidth
// the model's QueryBandwidth rule gives for the projected batch, compares it
// with every gallery set and decides by the nearest set under the model's
// divergence (or in the kFDA latent space) and the matcher's threshold. A
// set kernel's model compares the projected batch itself. It fails with
// ErrNoDecision if no gallery set is at a finite divergence.
func (mt *Matcher) Match(batch *mat.Dense) (Result, error) {
	return mt.MatchContext(context.Background(), batch)
}

// MatchContext is Match that gives up with ctx's error when ctx ends
// (checked between tiles of the comparisons), as a daemon does for a batch
// over its time limit or at a stop. A model with voters matches the batch
// with every member and decides by their vote (Result.Votes).
func (mt *Matcher) MatchContext(ctx context.Context, batch *mat.Dense) (Result, error) {
	if len(mt.voters) > 0 {
		return mt.matchVote(ctx, batch)
	}
	p, err := mt.model.Project(batch)
	if err != nil {
		return Result{}, err
	}
	res, err := mt.matchProjected(ctx, p)
	if errors.Is(err, match.ErrNoSpread) {
		if lost := mt.model.lostSpread(batch); lost != nil {
			return Result{}, lost
		}
	}
	return res, err
}

// lostSpread returns, for a batch whose frames differ but not once
// projected (the matcher found every projected frame the same), an error
// saying that their differences are below the rounding of the model's
// mean frame: features of another scale than the model's, not a frozen
// camera. It returns nil where the batch's frames are all the same.
func (m *Model) lostSpread(batch *mat.Dense) error {
	// WhyNoSpread of frames that differ is a *ScaleError holding the
	// largest magnitude of their values about their mean frame.
	var se *match.ScaleError
	if !errors.As(match.WhyNoSpread(batch), &se) {
		return nil
	}
	mean := floats.Norm(m.Mean, math.Inf(1)) // the largest magnitude
	return fmt.Errorf("the batch's frames differ (by up to %.3g), but not once the model's mean frame (values up to %.3g) is taken from them: their differences are below its rounding, so the batch is not on the scale of the features the model was trained on; give features made as the training features were (the same extractor and scale)", se.Largest, mean)
}

// MatchProjected is Match for a batch that is already projected (n×d).
// A model with voters has no one projection: it fails.
func (mt *Matcher) MatchProjected(p *mat.Dense) (Result, error) {
	if len(mt.voters) > 0 {
		return Result{}, errors.New("a model that decides by a vote projects a batch once for each member: use Match")
	}
	return mt.matchProjected(context.Background(), p)
}

func (mt *Matcher) matchProjected(ctx context.Context, p *mat.Dense) (Result, error) {
	if p == nil || p.IsEmpty() {
		return Result{}, fmt.Errorf("batch has no frames")
	}
	n, d := p.Dims()
	if d != mt.model.Dim() {
		return Result{}, fmt.Errorf("projected batch has %d columns, model dimension is %d", d, mt.model.Dim())
	}
	res := Result{Frames: n}
	if mt.gallery != nil {
		h, err := mt.model.QueryBandwidth.Bandwidth(p)
		if err != nil {
			return Result{}, fmt.Errorf("batch of %d frames: %w", n, err)
		}
		q, err := match.NewKDE(p, h)
		if err != nil {
			return Result{}, fmt.Errorf("batch: %w", err)
		}
		if res.Divergences, err = mt.gallery.CompareContext(ctx, q, nil); err != nil {
			return Result{}, err
		}
		res.Bandwidth = h
	}
	if mt.disc == nil {
		res.Decision = match.Nearest(res.Divergences, mt.labels, mt.model.Divergence, math.Inf(1))
	} else {
		k, self, err := mt.kernelVector(ctx, p, res.Divergences)
		if err != nil {
			return Result{}, fmt.Errorf("batch of %d frames: %w", n, err)
		}
		if err := mt.decideKFDA(&res, k, self); err != nil {
			return Result{}, err
		}
	}
	if res.Decision.Best < 0 {
		return Result{}, ErrNoDecision
	}
	mt.gate(&res)
	return res, nil
}

// gate decides whether the batch, decided closed-set so far, is known:
// by the threshold of its nearest class, the matcher's times the class's
// factor (Model.Spread).
func (mt *Matcher) gate(res *Result) {
	d := &res.Decision
	res.Factor = mt.model.Spread.Factor(mt.labels[d.Best])
	res.Threshold = mt.threshold * res.Factor
	d.Accept(mt.labels, res.Threshold)
}

// kernelVector returns the kFDA kernel of the projected batch p against
// every gallery set, and with itself: the weighted sums of its terms,
// from the batch's divergences div for the terms on divergences.
func (mt *Matcher) kernelVector(ctx context.Context, p *mat.Dense, div []match.Divergences) ([]float64, float64, error) {
	k := make([]float64, len(mt.labels))
	var self float64
	for _, t := range mt.terms {
		if t.sets != nil {
			v, s, err := t.sets.Vector(ctx, p, mt.workers)
			if err != nil {
				return nil, 0, err
			}
			for j, x := range v {
				k[j] += t.weight * x
			}
			self += t.weight * s
			continue
		}
		for j, d := range div {
			k[j] += t.weight * t.div(d.Of(t.meas))
		}
		self += t.weight * t.div(0)
	}
	return k, self, nil
}

// decideKFDA maps the batch's kernel vector k (against every gallery
// set) to the latent space, where the nearest gallery set gives the
// label, closed-set; the score the threshold is held against (gate) is
// its distance there (OpenSetLatent), or the distance its kernel induces
// to the nearest set of that label (OpenSetKernel, from self, its kernel
// with itself).
func (mt *Matcher) decideKFDA(res *Result, k []float64, self float64) error {
	if mt.diag != nil {
		// Before TransformRow, which centres k in place.
		res.KernelDistances = make([]float64, len(k))
		for j, v := range k {
			res.KernelDistances[j] = kfda.KernelDistance(self, mt.diag[j], v)
		}
	}
	z, err := mt.disc.TransformRow(k)
	if err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	lat := mt.disc.Train
	dist := make([]float64, len(k))
	for j := range dist {
		var s float64
		for c, v := range lat.RawRowView(j) {
			e := z[c] - v
			s += e * e
		}
		dist[j] = math.Sqrt(s)
	}
	res.Latent, res.Distances = z, dist
	if mt.diag == nil {
		res.Decision = match.NearestScores(dist, mt.labels, math.Inf(1))
		return nil
	}
	res.Decision = match.NearestGated(dist, res.KernelDistances, mt.labels, math.Inf(1))
	return nil
}
