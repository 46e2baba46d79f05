package match

import (
	"context"
	"fmt"
	"math"
	"sync"

	"setmatch/internal/par"
)

// Gallery matches one query set against m gallery sets at a time.
//
// What does not depend on the query, each gallery set's log density at its
// own samples, is computed once in NewGallery. Per query, the query's own
// log density is computed once, and the only per-pair work is the block of
// squared distances between the gallery set's samples and the query's, from
// one matrix product. Gallery sets are handed to Workers goroutines one at a
// time, each with its own scratch, so the working memory of a query is
// Workers × (a fixed tile + O(largest n_k + n_q)) floats whatever m is: the
// distance block of a pair is reduced one tile at a time.
type Gallery struct {
	sets    []*KDE
	selfLog [][]float64 // selfLog[k][i] = log p_k(x_i^(k))
	dim     int
	maxLen  int

	// Workers is the number of goroutines Compare uses, at most one per
	// CPU (par.Workers); 0 means one per CPU.
	Workers int

	scratch sync.Pool // *pairScratch, reused across queries
}

// NewGallery prepares the sets for matching. All sets must have the same
// dimension. The KDEs are kept, not copied.
func NewGallery(sets []*KDE) (*Gallery, error) {
	if len(sets) == 0 {
		return nil, fmt.Errorf("gallery has no sets")
	}
	g := &Gallery{sets: sets, selfLog: make([][]float64, len(sets)), dim: sets[0].Dim()}
	for k, s := range sets {
		if s.Dim() != g.dim {
			return nil, fmt.Errorf("gallery set %d: %w: %d, want %d", k, ErrDimMismatch, s.Dim(), g.dim)
		}
		lp, err := s.LogDensity(s.x, nil)
		if err != nil {
			return nil, fmt.Errorf("gallery set %d: %w", k, err)
		}
		g.selfLog[k] = lp
		g.maxLen = max(g.maxLen, s.Len())
	}
	return g, nil
}

// Len returns the number of gallery sets m.
func (g *Gallery) Len() int { return len(g.sets) }

// Dim returns the feature dimension d of the gallery.
func (g *Gallery) Dim() int { return g.dim }

// Set returns gallery set k.
func (g *Gallery) Set(k int) *KDE { return g.sets[k] }

// ScratchBytes returns the working memory Compare allocates for a query of
// nq frames, beyond the query itself and the m results.
func (g *Gallery) ScratchBytes(nq int) int {
	return g.workers() * scratchFloats(g.maxLen, nq) * 8
}

func (g *Gallery) workers() int {
	return min(par.Workers(g.Workers), len(g.sets))
}

// Goroutines returns how many goroutines Compare runs: Workers (at most
// one per CPU; 0: one per CPU), but no more than the gallery has sets.
func (g *Gallery) Goroutines() int { return g.workers() }

// Compare returns the divergences between q and every gallery set, in
// gallery order, in dst if it has room (len m). The values equal those of
// Compare(g.Set(k), q) for every k.
func (g *Gallery) Compare(q *KDE, dst []Divergences) ([]Divergences, error) {
	return g.CompareContext(context.Background(), q, dst)
}

// CompareContext is Compare that gives up when ctx ends: it checks ctx
// between tiles of the query's own density and of every gallery set's
// distance block, so a cancelled query returns ctx's error within the time
// of one tile per worker.
func (g *Gallery) CompareContext(ctx context.Context, q *KDE, dst []Divergences) ([]Divergences, error) {
	if q.Dim() != g.dim {
		return nil, fmt.Errorf("query: %w: %d, gallery has %d", ErrDimMismatch, q.Dim(), g.dim)
	}
	qp, err := prepareQuery(ctx, q, g.Workers)
	if err != nil {
		return nil, err
	}
	return g.compare(ctx, qp, -1, dst)
}

// compare returns the divergences between the prepared query and every
// gallery set but skip (−1: none; its entry is zero), in dst if it has
// room (len m).
func (g *Gallery) compare(ctx context.Context, qp *query, skip int, dst []Divergences) ([]Divergences, error) {
	if cap(dst) < len(g.sets) {
		dst = make([]Divergences, len(g.sets))
	}
	dst = dst[:len(g.sets)]
	if skip >= 0 {
		dst[skip] = Divergences{}
	}
	// One scratch per worker, each with room for the largest gallery set
	// against this query, reused across queries through g.scratch.
	scratch := make([]*pairScratch, g.workers())
	var mu sync.Mutex
	var failure error // the first panic in a worker, or ctx's error
	par.For(len(g.sets), len(scratch), func(w, k int) {
		// A panic here would end the process whatever the caller
		// recovers: turn it into this query's error instead.
		defer func() {
			if p := recover(); p != nil {
				mu.Lock()
				if failure == nil {
					failure = fmt.Errorf("match: internal error comparing the query with the gallery: %v", p)
				}
				mu.Unlock()
			}
		}()
		if k == skip || ctx.Err() != nil {
			return
		}
		if scratch[w] == nil {
			scratch[w] = g.getScratch(qp.stride)
		}
		dk, err := scratch[w].compare(ctx, g.sets[k], g.selfLog[k], qp)
		if err != nil {
			return // ctx ended: reported below
		}
		dst[k] = dk
	})
	for _, s := range scratch {
		if s != nil {
			g.scratch.Put(s)
		}
	}
	if failure != nil {
		return nil, failure
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return dst, nil
}

// CompareMember returns the divergences between gallery set i and every
// gallery set, in gallery order, in dst if it has room (len m): set i as
// the query, its own log density the one NewGallery computed, and the
// pair of set i with itself not computed (its divergences are 0). The
// other values equal those of Compare(g.Set(i), dst).
func (g *Gallery) CompareMember(i int, dst []Divergences) ([]Divergences, error) {
	if i < 0 || i >= len(g.sets) {
		return nil, fmt.Errorf("gallery set %d of %d", i, len(g.sets))
	}
	qp := newQuery(g.sets[i], g.selfLog[i])
	return g.compare(context.Background(), qp, i, dst)
}

// getScratch returns a worker's scratch with room for the largest gallery
// set against a query of nq frames, reusing one from an earlier query when
// it is large enough.
func (g *Gallery) getScratch(nq int) *pairScratch {
	if s, ok := g.scratch.Get().(*pairScratch); ok && s.fits(g.maxLen, nq) {
		return s
	}
	return newPairScratch(g.maxLen, nq)
}

// Decision is the outcome of matching a query against a labelled gallery:
// the nearest gallery set, and the nearest set of any other label.
type Decision struct {
	Best        int     // index of the nearest gallery set
	Label       string  // its label, or "" when Known is false
	Score       float64 // its divergence
	RunnerUp    int     // nearest set with another label, −1 if none
	RunnerLabel string
	RunnerScore float64 // +Inf if none
	Known       bool    // Score ≤ threshold
}

// Nearest decides by nearest neighbour under measure m: the query gets the
// label of the nearest gallery set if its divergence is at most threshold
// (use +Inf for a closed-set decision), else it is unknown.
func Nearest(div []Divergences, labels []string, m Measure, threshold float64) Decision {
	score := make([]float64, len(div))
	for k, v := range div {
		score[k] = v.Of(m)
	}
	return NearestScores(score, labels, threshold)
}

// NearestScores is Nearest for one score per gallery set, smaller nearer
// (a divergence, or a distance in a latent space): Best is the first set
// of smallest score (NaN never wins), Best is −1 if no score is below +Inf.
func NearestScores(score []float64, labels []string, threshold float64) Decision {
	d := Decision{Best: -1, Score: math.Inf(1), RunnerUp: -1, RunnerScore: math.Inf(1)}
	for k, s := range score {
		if s < d.Score {
			d.Best, d.Score = k, s
		}
	}
	if d.Best < 0 {
		return d
	}
	for k, s := range score {
		if labels[k] != labels[d.Best] && s < d.RunnerScore {
			d.RunnerUp, d.RunnerScore = k, s
		}
	}
	if d.RunnerUp >= 0 {
		d.RunnerLabel = labels[d.RunnerUp]
	}
	d.Accept(labels, threshold)
	return d
}

// Accept decides whether the query is known by threshold: Known if there
// is a nearest set and Score ≤ threshold, and Label its label (labels,
// one per gallery set) then, "" otherwise. A caller whose threshold
// depends on the nearest set's label decides closed-set (+Inf) first and
// accepts with that label's threshold.
func (d *Decision) Accept(labels []string, threshold float64) {
	d.Known, d.Label = d.Best >= 0 && d.Score <= threshold, ""
	if d.Known {
		d.Label = labels[d.Best]
	}
}

// NearestGated is NearestScores with the label chosen by one score and
// accepted by another: Best, and RunnerUp (the nearest set of another
// label), by rank as NearestScores chooses them; Score (RunnerScore) is
// the smallest gate score among the gallery sets of Best's (RunnerUp's)
// label, and the query is known if Score ≤ threshold. A kFDA model ranks
// by the distance in its latent space, which keeps only the directions
// that separate the known classes, and gates by the distance its kernel
// induces, which keeps them all.
func NearestGated(rank, gate []float64, labels []string, threshold float64) Decision {
	d := NearestScores(rank, labels, math.Inf(1))
	if d.Best < 0 {
		return d
	}
	nearest := func(l string) float64 {
		m := math.Inf(1)
		for k, g := range gate {
			if labels[k] == l && g < m {
				m = g
			}
		}
		return m
	}
	d.Score = nearest(labels[d.Best])
	if d.RunnerUp >= 0 {
		d.RunnerScore = nearest(d.RunnerLabel)
	}
	d.Accept(labels, threshold)
	return d
}
