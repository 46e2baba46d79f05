// Package openeval measures the open set of every method on the splits
// of a protocol with strangers (eval.Protocol.Strangers): in each split,
// each method is trained exactly as setmatch train would on the split's
// gallery sets only (deploy.Build, with the threshold setmatch train
// sets by default, or as its --threshold gives), and every probe set, of a known class or of a
// stranger class (one with no set in the gallery), is decided by the
// model's matcher, as setmatchd and setmatch test decide. The probes'
// scores and names give the open-set rates of package openset.
//
// Test decides labelled sets with one model, as setmatch test reports
// them (labelled.go): every set decided, the confusion table, the balanced
// accuracy of the decisions and the threshold-free rates.
//
// Shapes: the sets of a split are n_i×D (rows are frames), in the space
// the models are trained in (a split's Transform, if any, applied first).
//
// The results are written as setmatch eval and test print them
// (Result.WriteTable, Report.WriteTable) to a writer the command hands
// over. Computation only: no I/O.
package openeval

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/deploy"
	"setmatch/eval"
	"setmatch/internal/finite"
	"setmatch/internal/stats"
	"setmatch/method"
	"setmatch/openset"
)

// Options configures Run.
type Options struct {
	// Methods are the methods to train, each one of deploy.Methods
	// (the engine's methods, auto included).
	Methods []method.Name
	// Grid holds the candidate hyper-parameters, as setmatch eval builds
	// them (with Learn set for the -dr methods and auto).
	Grid    method.Grid
	Seed    uint64 // seed of the cross-validation folds
	Workers int    // goroutines; 0: GOMAXPROCS
	// Threshold is the open-set threshold as setmatch train's --threshold
	// reads it (deploy.ParseThreshold); "" is train's default.
	Threshold string
	// SpreadExponents are the exponents from which the calibration
	// chooses how far each class's threshold follows its spread, as
	// deploy.Options.SpreadExponents; nil: deploy's default.
	SpreadExponents []float64
	// Transform, if set, maps the sets of a split to features fitted on
	// its gallery sets only, as eval.Options.Transform.
	Transform func(sets []*mat.Dense, gallery []int) ([]*mat.Dense, error)
	// Progress, if set, is called after every method of every split.
	Progress func(Progress)
}

// Progress reports how far Run is.
type Progress struct {
	Split, Splits int // the split just done (1-based) and how many
	Method        method.Name
	Row           Row // the method's row of that split
	Done, Total   int // (split, method) runs done and in all
	Elapsed, ETA  time.Duration
}

// Stat is a rate's mean and sample standard deviation over the splits
// (0 for one split), as a share in [0, 1].
type Stat struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// Figures are the open-set rates of one method, each a share in [0, 1]:
// per split (T float64) in a Row, as a Stat over the splits in a
// MethodResult.
type Figures[T any] struct {
	// KnownRightClosed is the share of known probes whose nearest label
	// (before the threshold) is their class: the closed-set accuracy.
	KnownRightClosed T `json:"known_right_closed"`
	// KnownRightAtThreshold is the share of known probes let in by the
	// model's own threshold with the right name; StrangersOutAtThreshold
	// the share of strangers' probes it keeps out; BalancedAtThreshold
	// their mean. They are the matcher's own decisions (for a vote, each
	// by its deciding member's threshold).
	KnownRightAtThreshold   T `json:"known_right_at_threshold"`
	StrangersOutAtThreshold T `json:"strangers_out_at_threshold"`
	BalancedAtThreshold     T `json:"balanced_at_threshold"`
	// BestBalanced is the highest balanced accuracy any single threshold
	// reaches on the split's probes (openset.Balance): what a threshold
	// chosen with hindsight could do.
	BestBalanced T `json:"best_balanced"`
	// StrangersIn95 and StrangersIn99, free of any threshold, are the
	// shares of strangers' probes let in when 95% and 99% of the known
	// probes are let in (openset.StrangersIn).
	StrangersIn95 T `json:"strangers_in_at_95_known"`
	StrangersIn99 T `json:"strangers_in_at_99_known"`
}

// Row is one method's outcome on one split.
type Row struct {
	// Split is the split's number, from 1, as the table, the errors, the
	// progress lines and --splits-out number it.
	Split int `json:"split"`
	// Deployed is the method the model decides by (for auto, the one it
	// chose; a vote as "vote(a,b,c)").
	Deployed string `json:"deployed"`
	// Params are the hyper-parameters of the method deployed, as train
	// prints them (deploy.Describe); empty for a vote.
	Params string `json:"params,omitempty"`
	// ClosedChoice, for auto, is the candidate the closed set's rule
	// alone would have deployed (the first within one standard error),
	// where the open set chose another; empty otherwise.
	ClosedChoice string `json:"closed_choice,omitempty"`
	// OpenSetChoice, for auto where several candidates were held equal
	// on the closed set, says how the open set chose among them: each
	// one's figure on the stand-in strangers (deploy.Result.OpenSetChoice).
	OpenSetChoice string `json:"open_set_choice,omitempty"`
	// Threshold is the model's open-set threshold: null for none (a
	// closed set) and for a vote, whose members' are in Thresholds, in the
	// order Deployed names them (null for a closed-set member).
	Threshold  *float64   `json:"threshold"`
	Thresholds []*float64 `json:"thresholds,omitempty"`
	// ThresholdFraction is the threshold as a fraction of the model's
	// scale (deploy.Result.Scale), the unit of CommonThreshold; null for
	// a vote or no threshold (a closed set). A threshold of 0 is the
	// fraction 0.
	ThresholdFraction *float64 `json:"threshold_fraction"`
	// SpreadExponent is how far the model's classes' thresholds follow
	// their spread (model.Spread); 0 for one threshold for all.
	SpreadExponent float64 `json:"spread_exponent"`
	// StrangerClasses are the classes with no set in the split's gallery
	// whose probe sets were decided as strangers'; VisitorClasses those
	// whose probe sets were given to training as strangers' sets
	// (visitors=V) instead, and OtherClasses those whose probe sets were
	// given to training as others' sets (others=O).
	StrangerClasses []string `json:"stranger_classes"`
	VisitorClasses  []string `json:"visitor_classes,omitempty"`
	OtherClasses    []string `json:"other_classes,omitempty"`
	// Known and Strangers count the probes decided, Failed those the
	// matcher could not decide (left out of every rate).
	Known     int `json:"known"`
	Strangers int `json:"strangers"`
	Failed    int `json:"failed"`
	Figures[float64]
	// BestThreshold is the threshold of BestBalanced; Threshold95 and
	// Threshold99 those that let in 95% and 99% of the known probes.
	BestThreshold float64 `json:"best_threshold"`
	Threshold95   float64 `json:"threshold_95"`
	Threshold99   float64 `json:"threshold_99"`
	// Approximate is true for a vote: the scores are the deciding
	// members', on different scales, so the threshold-free rates and the
	// best balanced accuracy are approximate.
	Approximate bool    `json:"approximate,omitempty"`
	Seconds     float64 `json:"seconds"` // training and deciding
	// scaled are the probes' samples with their scores as fractions of
	// the model's scale (deploy.Result.Scale); nil for a vote.
	scaled []openset.Sample
}

// CommonThreshold is what one threshold for every split could reach,
// set as the same fraction of each split's model scale
// (deploy.Result.Scale, the unit in which the stand-in calibration sets
// a model's threshold), one fraction per method deployed, since each
// method's scores are on a scale of their own: openset.Common and
// openset.Transfer of the probes of the splits that deployed it. It
// tells a calibration that misses from probes too few for the best
// threshold of each split to mean much.
type CommonThreshold struct {
	// Balanced is the mean balanced accuracy over the splits at the
	// fraction best, with hindsight, on all the splits that deployed the
	// same method (Fractions, by method deployed).
	Balanced  float64            `json:"balanced"`
	Fractions map[string]float64 `json:"fractions"`
	// Transfer is the balanced accuracy of each split at the fraction
	// best on the other splits that deployed the same method: a
	// threshold not chosen on the probes it is measured on. A split whose
	// method no other split deployed has none: Transfer is over
	// TransferSplits splits.
	Transfer       Stat `json:"transfer"`
	TransferSplits int  `json:"transfer_splits"`
	// AtThreshold is the balanced accuracy at the models' own
	// thresholds over the same splits as Transfer.
	AtThreshold Stat `json:"at_threshold"`
}

// MethodResult is one method's rates over the splits: Figures is nil
// where the method ran on no split (Errors say why), so that no rate
// reads as a measured 0.
type MethodResult struct {
	*Figures[Stat]
	PerSplit []Row `json:"per_split"`
	// Errors say why the method could not be trained or run on a split
	// (that split is then left out of its figures).
	Errors  []string `json:"errors,omitempty"`
	Failed  int      `json:"failed"`  // probes not decided, all splits
	Seconds float64  `json:"seconds"` // all splits
	// Common is nil with fewer than two splits, a vote among them, or no
	// method deployed on two of them.
	Common *CommonThreshold `json:"common,omitempty"`
}

// Result is the outcome of Run.
type Result struct {
	Methods      map[method.Name]*MethodResult
	Splits       int
	TotalSeconds float64
	// Threshold and SpreadExponents are the run's Options.Threshold (""
	// for train's default) and Options.SpreadExponents (nil: deploy's
	// default), for its record.
	Threshold       string
	SpreadExponents []float64
}

// Run trains every method of opt on every split's gallery sets of d and
// decides the split's probe sets with the model. A probe is a stranger's
// when its class has no set in the split's gallery; every split needs
// probes of both kinds. d supplies the class names (and the set names,
// for data not pooled).
func Run(d *eval.Data, splits []eval.Split, opt Options) (*Result, error) {
	if len(splits) == 0 {
		return nil, errors.New("no splits")
	}
	if len(opt.Methods) == 0 {
		return nil, errors.New("no methods given")
	}
	if err := deploy.ParseThreshold(opt.Threshold, &deploy.Options{}); err != nil {
		return nil, err
	}
	start := time.Now()
	res := &Result{Methods: map[method.Name]*MethodResult{}, Splits: len(splits), Threshold: opt.Threshold, SpreadExponents: opt.SpreadExponents}
	for _, m := range opt.Methods {
		res.Methods[m] = &MethodResult{}
	}
	total, done := len(splits)*len(opt.Methods), 0
	for s, sp := range splits {
		sets := sp.AllSets()
		if opt.Transform != nil {
			var err error
			if sets, err = opt.Transform(sets, sp.Gallery); err != nil {
				return nil, fmt.Errorf("split %d: %w", s+1, err)
			}
		}
		g, err := gallery(d, sp, sets)
		if err != nil {
			return nil, fmt.Errorf("split %d: %w", s+1, err)
		}
		for _, m := range opt.Methods {
			row, err := runOne(d, sp, sets, g, m, opt)
			mr := res.Methods[m]
			if err != nil {
				mr.Errors = append(mr.Errors, fmt.Sprintf("split %d: %v", s+1, err))
				done++
				continue
			}
			row.Split = s + 1
			mr.PerSplit = append(mr.PerSplit, row)
			mr.Failed += row.Failed
			mr.Seconds += row.Seconds
			done++
			if opt.Progress != nil {
				el := time.Since(start)
				opt.Progress(Progress{Split: s + 1, Splits: len(splits), Method: m, Row: row, Done: done, Total: total,
					Elapsed: el, ETA: time.Duration(float64(el) / float64(done) * float64(total-done))})
			}
		}
	}
	for _, mr := range res.Methods {
		mr.summarise()
	}
	res.TotalSeconds = time.Since(start).Seconds()
	return res, nil
}

// galleryOf is a split's gallery as deploy.Build takes it, and which
// classes it holds.
type galleryOf struct {
	sets          []*mat.Dense
	labels, names []string
	known         map[int]bool
	strangers     []string
	// visitors are the probe sets of the split's visitor classes
	// (visitorClasses), given to training as strangers' sets.
	visitors       []*mat.Dense
	visitorClasses []string
	// others are the probe sets of the split's others' classes
	// (otherClasses), given to training as others' sets (train
	// --others), with their labels and names.
	others                  []*mat.Dense
	otherLabels, otherNames []string
	otherClasses            []string
}

func gallery(d *eval.Data, sp eval.Split, sets []*mat.Dense) (*galleryOf, error) {
	g := &galleryOf{known: map[int]bool{}}
	for _, i := range sp.Gallery {
		c := sp.Labels[i]
		g.known[c] = true
		g.sets = append(g.sets, sets[i])
		g.labels = append(g.labels, d.Classes[c])
		g.names = append(g.names, setName(d, sp, i))
	}
	seen, visiting, other := map[int]bool{}, map[int]bool{}, map[int]bool{}
	for _, i := range sp.Probe {
		c := sp.Labels[i]
		switch {
		case sp.IsVisitor(c):
			visiting[c] = true
			g.visitors = append(g.visitors, sets[i])
		case sp.IsOther(c):
			other[c] = true
			g.others = append(g.others, sets[i])
			g.otherLabels = append(g.otherLabels, d.Classes[c])
			g.otherNames = append(g.otherNames, setName(d, sp, i))
		case !g.known[c]:
			seen[c] = true
		}
	}
	for c, name := range d.Classes {
		if seen[c] {
			g.strangers = append(g.strangers, name)
		}
		if visiting[c] {
			g.visitorClasses = append(g.visitorClasses, name)
		}
		if other[c] {
			g.otherClasses = append(g.otherClasses, name)
		}
	}
	if len(g.strangers) == 0 {
		return nil, errors.New("no probe set is a stranger's (every probe's class is in the gallery): give the protocol strangers=K")
	}
	return g, nil
}

// setName is the name the model records for set i of the split, as train
// records it beside the set's label: its set name (the "set" of d's
// "class/set"), or for pooled data (whose split sets are drawn from the
// class's pool) "gallery<i>".
func setName(d *eval.Data, sp eval.Split, i int) string {
	if !d.Pooled && len(d.Names) == len(sp.Sets) && len(sp.Sets) == len(d.Sets) && i < len(d.Names) {
		return strings.TrimPrefix(d.Names[i], d.Classes[sp.Labels[i]]+"/")
	}
	return "gallery" + strconv.Itoa(i)
}

// runOne trains method m on the split's gallery and decides its probes.
func runOne(d *eval.Data, sp eval.Split, sets []*mat.Dense, g *galleryOf, m method.Name, opt Options) (Row, error) {
	t0 := time.Now()
	dopt := deploy.Options{Method: m, Grid: opt.Grid, Seed: opt.Seed, Workers: opt.Workers, Strangers: g.visitors, SpreadExponents: opt.SpreadExponents}
	if err := deploy.ParseThreshold(opt.Threshold, &dopt); err != nil {
		return Row{}, err
	}
	train, labels, names := g.sets, g.labels, g.names
	if len(g.others) > 0 {
		train = append(slices.Clone(train), g.others...)
		labels = append(slices.Clone(labels), g.otherLabels...)
		names = append(slices.Clone(names), g.otherNames...)
	}
	built, err := deploy.Build(train, labels, names, dopt)
	if err != nil {
		return Row{}, err
	}
	if len(g.others) > 0 {
		if _, err := built.WithoutOthers(g.otherClasses, g.visitors, opt.Workers); err != nil {
			return Row{}, fmt.Errorf("removing the others' classes: %w", err)
		}
	}
	mt, err := built.Model.NewMatcherWorkers(opt.Workers)
	if err != nil {
		return Row{}, err
	}
	row := Row{Deployed: built.Model.MethodName(), Params: describe(built), StrangerClasses: g.strangers, VisitorClasses: g.visitorClasses, OtherClasses: g.otherClasses, ClosedChoice: built.ClosedChoice, OpenSetChoice: built.OpenSetChoice}
	row.Approximate = len(built.Model.Voters) > 0
	if th := mt.Thresholds(); len(th) == 1 {
		row.Threshold = finite.Ptr(th[0])
	} else {
		for _, t := range th {
			row.Thresholds = append(row.Thresholds, finite.Ptr(t))
		}
	}
	scale := 0.0
	if !row.Approximate {
		if scale, err = built.Scale(); err != nil {
			return Row{}, err
		}
		if t := built.Model.Threshold; !math.IsInf(t, 1) {
			row.ThresholdFraction = finite.Ptr(t / scale)
		}
		if sp := built.Model.Spread; sp != nil {
			row.SpreadExponent = sp.Exponent
		}
	}
	var samples []openset.Sample
	var closedRight, rightIn, strangersOut int
	for _, i := range sp.Probe {
		if sp.IsVisitor(sp.Labels[i]) || sp.IsOther(sp.Labels[i]) {
			continue // given to training
		}
		res, err := mt.Match(sets[i])
		if err != nil {
			row.Failed++
			continue
		}
		class := d.Classes[sp.Labels[i]]
		dec := res.Decision
		s := Sample(mt, res, class, !g.known[sp.Labels[i]])
		samples = append(samples, s)
		if !row.Approximate {
			s.Score /= scale
			row.scaled = append(row.scaled, s)
		}
		switch {
		case s.Stranger:
			row.Strangers++
			if !dec.Known {
				strangersOut++
			}
		default:
			row.Known++
			if s.Right {
				closedRight++
			}
			if dec.Known && dec.Label == class {
				rightIn++
			}
		}
	}
	if row.Known == 0 || row.Strangers == 0 {
		return Row{}, fmt.Errorf("%d known and %d strangers' probes decided (%d failed): the rates need both", row.Known, row.Strangers, row.Failed)
	}
	row.KnownRightClosed = float64(closedRight) / float64(row.Known)
	row.KnownRightAtThreshold = float64(rightIn) / float64(row.Known)
	row.StrangersOutAtThreshold = float64(strangersOut) / float64(row.Strangers)
	row.BalancedAtThreshold = (row.KnownRightAtThreshold + row.StrangersOutAtThreshold) / 2
	f, err := openset.Free(samples)
	if err != nil {
		return Row{}, err
	}
	row.BestBalanced, row.BestThreshold = f.BestBalanced, f.BestThreshold
	row.StrangersIn95, row.Threshold95 = f.StrangersIn95, f.Threshold95
	row.StrangersIn99, row.Threshold99 = f.StrangersIn99, f.Threshold99
	row.Seconds = time.Since(t0).Seconds()
	return row, nil
}

func formatFloat(t float64) string {
	if math.IsInf(t, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(t, 'g', -1, 64)
}

// summarise sets the means and standard deviations over the splits; on
// no split, none (Figures and Common nil).
func (mr *MethodResult) summarise() {
	col := func(f func(Row) float64) (s Stat) {
		x := make([]float64, len(mr.PerSplit))
		for i, r := range mr.PerSplit {
			x[i] = f(r)
		}
		s.Mean, s.Std = stats.MeanStd(x)
		return s
	}
	if mr.PerSplit == nil {
		mr.PerSplit = []Row{}
	}
	if len(mr.PerSplit) == 0 {
		mr.Figures, mr.Common = nil, nil
		return
	}
	mr.Figures = &Figures[Stat]{}
	mr.KnownRightClosed = col(func(r Row) float64 { return r.KnownRightClosed })
	mr.KnownRightAtThreshold = col(func(r Row) float64 { return r.KnownRightAtThreshold })
	mr.StrangersOutAtThreshold = col(func(r Row) float64 { return r.StrangersOutAtThreshold })
	mr.BalancedAtThreshold = col(func(r Row) float64 { return r.BalancedAtThreshold })
	mr.BestBalanced = col(func(r Row) float64 { return r.BestBalanced })
	mr.StrangersIn95 = col(func(r Row) float64 { return r.StrangersIn95 })
	mr.StrangersIn99 = col(func(r Row) float64 { return r.StrangersIn99 })
	mr.Common = common(mr.PerSplit)
}

// common returns what one fraction of the model's scale per method
// deployed reaches over the splits' probes, or nil with fewer than two
// splits, a vote among them, or no method deployed on two of them.
func common(rows []Row) *CommonThreshold {
	if len(rows) < 2 {
		return nil
	}
	byMethod := map[string][]Row{}
	var order []string
	for _, r := range rows {
		if r.Approximate {
			return nil
		}
		if _, ok := byMethod[r.Deployed]; !ok {
			order = append(order, r.Deployed)
		}
		byMethod[r.Deployed] = append(byMethod[r.Deployed], r)
	}
	c := &CommonThreshold{Fractions: map[string]float64{}}
	var tr, at []float64
	for _, m := range order {
		probes := make([][]openset.Sample, len(byMethod[m]))
		for i, r := range byMethod[m] {
			probes[i] = r.scaled
		}
		frac, bal, err := openset.Common(probes)
		if err != nil {
			return nil // every row holds known and strangers' probes (runOne)
		}
		c.Fractions[m] = frac
		c.Balanced += bal * float64(len(probes)) / float64(len(rows))
		if len(probes) < 2 {
			continue
		}
		t, err := openset.Transfer(probes)
		if err != nil {
			return nil
		}
		tr = append(tr, t...)
		for _, r := range byMethod[m] {
			at = append(at, r.BalancedAtThreshold)
		}
	}
	if len(tr) == 0 {
		return nil // no method deployed twice
	}
	// tr is not empty, nor is at: it holds the rows of every method Transfer ran on.
	c.Transfer.Mean, c.Transfer.Std = stats.MeanStd(tr)
	c.AtThreshold.Mean, c.AtThreshold.Std = stats.MeanStd(at)
	c.TransferSplits = len(tr)
	return c
}

// describe returns the hyper-parameters of the method r deployed, as
// train prints them; "" when there is no one fitted method.
func describe(r *deploy.Result) string {
	if r.Fit == nil {
		return ""
	}
	return deploy.Describe(r.Fit)
}
