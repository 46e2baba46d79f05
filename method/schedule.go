package method

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"setmatch/internal/par"
)

// How Choose spends its runs.
//
// A candidate's score is its held-out accuracy pooled over every fold of
// every dealing (a run each). The one-standard-error rule keeps the first
// candidate, in the order of preference, within one standard error of
// the highest score; a candidate outside that margin is neither chosen
// nor among the candidates the rule holds equal (Selection.Eligible). So
// once some candidate's score is known in full, a candidate whose score
// could not come within one standard error of it even if it recognised
// every held-out set of the runs it has not made cannot change what
// Choose returns, and its other runs are not made (ErrCutShort):
//
//	(right so far + held out in the runs left) / Held < L − SE(L)
//
// L being the highest complete score and SE(L) its standard error. The
// final highest score T is at least L, and T − SE(T) grows with T
// (its derivative is at least 1/2), so the candidate stays below
// T − SE(T). A candidate is complete when it has run every fold (a run
// that fails fails the candidate, which is then out of the choice).
//
// To have a complete score early, the cheap candidates run first:
// nearest neighbour in the full space, whose divergence matrices kFDA on
// the divergences (and kfda-mix's KDE kernel) takes from the same cache,
// so that they cost little beyond what the others need anyway. The
// others then run in the order of preference, each fold by fold, so that
// a choice settled by the first of them leaves the later ones out
// (Selection.settled: ErrNotScored). After every run, the candidates not
// complete are cut if they can no longer come within one standard error
// of a complete score. With Grid.AutoScoreAll
// every candidate runs every fold, in the order of preference.

// ErrCutShort is the Err of a candidate Choose cut short (errors.Is; the
// error is a *CutShort, which says by how much it could not win).
var ErrCutShort = errors.New("cut short")

// CutShort says why Choose stopped scoring a candidate: even right on
// every held-out set of the runs it had not made, its score would be
// more than one standard error below a complete score.
type CutShort struct {
	Runs, Of    int // runs made, of all
	Right, Seen int // held-out outcomes right, of those made
	Held        int // outcomes of all runs
	Leader      Candidate
	LeaderAcc   float64
	SE          float64 // the leader's standard error
}

// Error says how far the candidate was from the leader.
func (c *CutShort) Error() string {
	return fmt.Sprintf("cut short after %d of %d folds: %d of %d held-out sets right, so at most %.1f%% even if right on the %d left, more than one standard error (%.1f points) below %s's %.1f%%",
		c.Runs, c.Of, c.Right, c.Seen, 100*float64(c.Right+c.Held-c.Seen)/float64(c.Held), c.Held-c.Seen, 100*c.SE, c.Leader, 100*c.LeaderAcc)
}

// Is makes errors.Is(err, ErrCutShort) true.
func (c *CutShort) Is(target error) bool { return target == ErrCutShort }

// candRun is what Choose knows of one candidate.
type candRun struct {
	correct [][]bool // per run: whether each held-out set was recognised; nil until run
	runs    int      // runs made, in fold order
	made    int      // runs ended, those of a candidate that failed too
	right   int      // outcomes right in those runs
	seen    int      // outcomes of those runs
	err     error    // the first failed run's error: the candidate failed
	stop    error    // why its other runs were not made
	secs    float64
}

// chooser runs the (candidate, fold) runs of Choose.
type chooser struct {
	t           *Task
	g           Grid
	outers      []*outer
	nf, perCand int
	cands       []Candidate
	sel         *Selection
	runs        []candRun
	trainFrames int
	progress    func(AutoProgress)

	start time.Time
	last  time.Time
	done  int
	spent map[string]time.Duration
	count map[string]int
}

func newChooser(t *Task, g Grid, outers []*outer, cands []Candidate, sel *Selection, trainFrames int, progress func(AutoProgress)) *chooser {
	ch := &chooser{t: t, g: g, outers: outers, nf: outers[0].nf, cands: cands, sel: sel, trainFrames: trainFrames, progress: progress,
		start: time.Now(), spent: map[string]time.Duration{}, count: map[string]int{}}
	ch.last = ch.start
	ch.perCand = ch.nf * len(outers)
	ch.runs = make([]candRun, len(cands))
	return ch
}

// kind is the kind of a candidate for the estimate of the time left.
func kind(c Candidate) string {
	if c.Method.IsDR() && c.Learn.Dim > 0 && !c.Learn.Start {
		return fmt.Sprintf("%s/%d", c.Method, c.Learn.Dim)
	}
	return c.String()
}

// cheap reports whether a candidate costs little beyond what the others
// need anyway: nearest neighbour in the full space, on the divergence
// matrices that the kFDA candidates on divergences take from the same
// cache.
func cheap(c Candidate) bool { return c.Method == NNH || c.Method == NNJ }

// resolved reports whether candidate i makes no more runs.
func (ch *chooser) resolved(i int) bool {
	r := &ch.runs[i]
	return r.err != nil || r.stop != nil || r.runs == ch.perCand
}

// complete reports whether candidate i has its full score.
func (ch *chooser) complete(i int) bool {
	r := &ch.runs[i]
	return r.err == nil && r.stop == nil && r.runs == ch.perCand
}

// conc is how many runs of candidate i go at once.
func (ch *chooser) conc(i int) int {
	if ch.cands[i].Method.IsDR() && ch.trainFrames <= concurrentRunFrames {
		return min(2, par.Workers(ch.t.Pool.Workers))
	}
	return 1
}

// runNext makes the next runs of candidate i (as many as go at once),
// each keeping its result at its own index, read in fold order, so that
// the outcomes do not depend on the order the runs end in.
func (ch *chooser) runNext(i int) {
	r := &ch.runs[i]
	c := ch.cands[i]
	conc := ch.conc(i)
	ks := make([]int, 0, conc)
	for k := r.runs; k < ch.perCand && len(ks) < conc; k++ {
		ks = append(ks, k)
	}
	if len(ks) == 0 {
		return
	}
	g2 := c.grid(ch.g, ch.t.Pool.Dim(), ch.g.DRFoldIter)
	if conc > 1 {
		// The runs' own progress would overwrite each other's: the
		// stage counts whole runs instead.
		ch.t.progress().countFrom(string(c.Method)+" folds", r.runs, ch.perCand)
	}
	preds := make([]Prediction, len(ks))
	errs := make([]error, len(ks))
	var mu sync.Mutex
	failedBefore := func(j int) bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.ContainsFunc(errs[:j], func(err error) bool { return err != nil })
	}
	var ended []time.Duration // each run is charged the time since the previous one ended
	par.For(len(ks), conc, func(_, j int) {
		k := ks[j]
		of, f := ch.outers[k/ch.nf], k%ch.nf
		var pred Prediction
		var err error
		// As one after the other: no run after a fold that failed.
		if !failedBefore(j) {
			st := of.sub(f)
			if conc > 1 {
				st.Progress = nil
			}
			if len(st.Test) > 0 {
				pred, err = run(c.Method, st, g2)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		preds[j], errs[j] = pred, err
		if conc > 1 {
			ch.t.progress().inc()
		}
		now := time.Now()
		ended = append(ended, now.Sub(ch.last))
		ch.last = now
	})
	for j, k := range ks {
		of, f := ch.outers[k/ch.nf], k%ch.nf
		if errs[j] != nil {
			r.err = fmt.Errorf("fold %d of %d: %w", f+1, of.nf, errs[j])
			break
		}
		truth := of.truth(f)
		out := make([]bool, len(truth))
		for a, l := range truth {
			out[a] = preds[j].Labels[a] == l
			if out[a] {
				r.right++
			}
		}
		r.correct = append(r.correct, out)
		r.seen += len(truth)
		r.runs++
	}
	r.made += len(ended)
	for _, el := range ended {
		r.secs += el.Seconds()
		ch.spent[kind(c)] += el
		ch.count[kind(c)]++
	}
	ch.check()
	ch.done += len(ended)
	for j := range ended {
		ch.report(i, ch.done-len(ended)+j+1)
	}
}

// check cuts short the candidates that cannot come within one standard
// error of a complete score and leaves out those after a settled choice.
func (ch *chooser) check() {
	if ch.g.AutoScoreAll {
		return
	}
	held := ch.sel.Held
	n := ch.sel.Sets
	if n == 0 {
		n = held
	}
	lead := -1
	for i := range ch.cands {
		if ch.complete(i) && (lead < 0 || ch.runs[i].right > ch.runs[lead].right) {
			lead = i
		}
	}
	if lead >= 0 {
		l := float64(ch.runs[lead].right) / float64(held)
		se := standardError(l, n)
		for i := range ch.cands {
			r := &ch.runs[i]
			if ch.resolved(i) {
				continue
			}
			if best := float64(r.right+held-r.seen) / float64(held); best < l-se-1e-12 {
				r.stop = &CutShort{Runs: r.runs, Of: ch.perCand, Right: r.right, Seen: r.seen, Held: held,
					Leader: ch.cands[lead], LeaderAcc: l, SE: se}
			}
		}
	}
	// The longest run of candidates, in the order of preference, whose
	// outcome is known: complete, failed or cut short (a candidate cut
	// short cannot be chosen, nor be the highest: as failed).
	p := 0
	for p < len(ch.cands) && ch.resolved(p) {
		p++
	}
	if p == len(ch.cands) {
		return
	}
	scores := make([]CandidateScore, p)
	for i := range p {
		scores[i] = ch.score(i)
	}
	s := &Selection{Held: held, Sets: ch.sel.Sets, Scores: scores}
	if !s.settled(p) {
		return
	}
	for i := p; i < len(ch.cands); i++ {
		if !ch.resolved(i) {
			ch.runs[i].stop = ErrNotScored
		}
	}
}

// score returns candidate i's outcome as known now (complete, failed, or
// not scored in full).
func (ch *chooser) score(i int) CandidateScore {
	r := &ch.runs[i]
	cs := CandidateScore{Candidate: ch.cands[i], Seconds: r.secs, Accuracy: -1}
	switch {
	case r.err != nil:
		cs.Err = r.err
	case r.stop != nil:
		cs.Err = r.stop
	case r.runs < ch.perCand:
		cs.Err = ErrNotScored // not run (only while Choose runs)
	default:
		cs.Accuracy = float64(r.right) / float64(ch.sel.Held)
		cs.Correct = slices.Concat(r.correct...)
	}
	return cs
}

// record puts every candidate's outcome into the selection.
func (ch *chooser) record() {
	for i := range ch.cands {
		ch.sel.Scores[i] = ch.score(i)
	}
}

// report calls progress after a run of candidate i, the done-th.
func (ch *chooser) report(i, done int) {
	if ch.progress == nil {
		return
	}
	total := ch.done // the runs made, some maybe not reported yet
	var eta time.Duration
	var untimed []string
	var spent time.Duration
	for _, d := range ch.spent {
		spent += d
	}
	all := spent / time.Duration(max(ch.done, 1))
	var cutShort, leftOut, failed int
	for j := range ch.cands {
		r := &ch.runs[j]
		switch {
		case r.err != nil:
			failed += ch.perCand - r.made
		case errors.Is(r.stop, ErrCutShort):
			cutShort += ch.perCand - r.made
		case r.stop != nil:
			leftOut += ch.perCand - r.made
		}
		if ch.resolved(j) {
			continue
		}
		left := ch.perCand - r.runs
		total += left
		per := all
		if k := kind(ch.cands[j]); ch.count[k] > 0 {
			per = ch.spent[k] / time.Duration(ch.count[k])
		} else if !slices.Contains(untimed, k) {
			untimed = append(untimed, k)
		}
		eta += per * time.Duration(left)
	}
	ch.progress(AutoProgress{Done: done, Total: total, Candidate: ch.cands[i], Elapsed: time.Since(ch.start), ETA: eta, Untimed: untimed,
		CutShort: cutShort, LeftOut: leftOut, Failed: failed})
}

// runAll makes every remaining run of candidate i, stopping when it is
// cut short or left out.
func (ch *chooser) runAll(i int) {
	for !ch.resolved(i) {
		ch.runNext(i)
	}
}

// scoreAll scores every candidate in full, in the order of preference.
func (ch *chooser) scoreAll() {
	for i := range ch.cands {
		ch.runAll(i)
	}
}

// schedule scores the candidates as the comment at the top of this file
// says: the cheap candidates first, then the others in the order of
// preference.
func (ch *chooser) schedule() {
	order := make([]int, len(ch.cands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(b2i(!cheap(ch.cands[a])), b2i(!cheap(ch.cands[b])))
	})
	for _, i := range order {
		ch.runAll(i)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
