package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/model"
	"setmatch/openset"
	"setmatch/setfile"
)

// testSummary is what `setmatch test` reports; --json prints it as is.
type testSummary struct {
	Model     string `json:"model"`
	Data      string `json:"data"`
	Method    string `json:"method"`
	Threshold string `json:"threshold"` // a number or "+Inf"; "members" for a vote
	// Thresholds, for a model that decides by a vote, are its members'
	// (in the order of Members), each a number or "+Inf".
	Members         []string             `json:"members,omitempty"`
	Thresholds      []string             `json:"thresholds,omitempty"`
	Accuracy        float64              `json:"accuracy"` // percent of sets decided right
	Sets            int                  `json:"sets"`
	Correct         int                  `json:"correct"`
	Unknown         int                  `json:"unknown"` // sets of classes the model does not know
	KnownRejected   int                  `json:"known_rejected"`
	UnknownAccepted int                  `json:"unknown_accepted"`
	Misclassified   int                  `json:"misclassified"` // known sets accepted with another label
	Failed          int                  `json:"failed"`        // sets that could not be read or decided (wrong), each with its error in per_set
	MsPerSet        float64              `json:"ms_per_set"`
	PerClass        map[string]testClass `json:"per_class"`
	PerSet          []testSet            `json:"per_set"`
	// BalancedAccuracy is the mean of the percent of known classes' sets
	// named right and the percent of unknown classes' sets rejected: the
	// accuracy if both came as often. Absent unless there are both.
	BalancedAccuracy *float64 `json:"balanced_accuracy,omitempty"`
	// OpenSet holds the rates that need no threshold of the model's, from
	// the sets' scores; absent unless the data hold sets of both known
	// and unknown classes (failed sets left out).
	OpenSet *testOpenSet `json:"open_set,omitempty"`
}

// testOpenSet is what the sets' scores say of the open set whatever the
// threshold, as shares in [0, 1] (as setmatch eval's open-set rates; the
// accuracies above are in percent), computed by package openset.
type testOpenSet struct {
	// StrangersIn95 and StrangersIn99 are the shares of unknown classes'
	// sets let in by the threshold that lets in 95% and 99% of the known
	// classes' sets (Threshold95, Threshold99).
	StrangersIn95 float64 `json:"strangers_in_at_95_known"`
	Threshold95   float64 `json:"threshold_95"`
	StrangersIn99 float64 `json:"strangers_in_at_99_known"`
	Threshold99   float64 `json:"threshold_99"`
	// BestBalanced is the highest balanced accuracy any single threshold
	// (BestThreshold) reaches on these sets.
	BestBalanced  float64 `json:"best_balanced"`
	BestThreshold float64 `json:"best_threshold"`
	// Approximate is true for a model that decides by a vote: the scores
	// are the deciding members', on different scales.
	Approximate bool `json:"approximate,omitempty"`
}

// testSet is the decision on one set: the nearest gallery set's label and
// score (a divergence, or for kFDA the distance its kernel induces, or in
// models of formats 2 and 3 a latent distance, as compared with the
// threshold) and the nearest set of another label, to see how far a
// threshold sits from the scores.
type testSet struct {
	Class       string   `json:"class"`
	Set         string   `json:"set"`
	Decided     string   `json:"decided"`               // a label, "unknown" or "failed"
	Nearest     string   `json:"nearest,omitempty"`     // label of the nearest gallery set
	NearestSet  string   `json:"nearest_set,omitempty"` // its name
	Score       *float64 `json:"score,omitempty"`
	RunnerUp    string   `json:"runner_up,omitempty"`
	RunnerScore *float64 `json:"runner_score,omitempty"` // absent when the model knows one label
	// For a model that decides by a vote: every member's label, and the
	// member whose score and threshold decided (its method).
	Votes  []string `json:"votes,omitempty"`
	Member string   `json:"member,omitempty"`
	Error  string   `json:"error,omitempty"`
}

// testClass is one row of the confusion table: the sets of one true
// class and what they were decided as ("unknown" for rejected sets).
type testClass struct {
	Known     bool           `json:"known"` // the class is in the model
	Sets      int            `json:"sets"`
	Correct   int            `json:"correct"`
	Accuracy  float64        `json:"accuracy"`
	Predicted map[string]int `json:"predicted"`
}

const testUnknown = "unknown"

// testSynopsis is the usage line and description of setmatch test.
const testSynopsis = `--model MODEL --data DIR [--threshold X] [--json] [--workers N]

Decides every set of a labelled data folder as setmatchd would: the
model's recorded features, its method and its open-set threshold, through
the same matcher. Prints the accuracy (a set whose class is not in the
model is right when it is rejected), a confusion table per class, the
known sets rejected and the unknown sets accepted, and the milliseconds
per set.`

func runTest(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("test", testSynopsis, stderr)
	modelPath := fs.String("model", "", "model file `MODEL` to test (required)")
	data := fs.String("data", "", "labelled data set folder `DIR`, in a layout train reads: <class>/<set>.npy|.csv or <class>/<set>/<frames> (required)")
	thrFlag := fs.String("threshold", "", "open-set threshold `X` instead of the model's, as setmatchd's decision.threshold (inf: closed set)")
	asJSON := fs.Bool("json", false, "print the results as one JSON object")
	workers := fs.Int("workers", 0, "goroutines `N` per batch, as setmatchd's daemon.workers (0: one per CPU)")
	maxBytes := fs.Int64("max-bytes", setfile.DefaultLimits().MaxBytes, "refuse set files larger than `N` bytes")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *modelPath == "":
		return usagef("--model MODEL is required")
	case *data == "":
		return usagef("--data DIR is required")
	case fs.NArg() != 0:
		return usagef("unexpected argument %q: all settings are flags", fs.Arg(0))
	case *workers < 0:
		return usagef("--workers must be ≥ 0 (got %d)", *workers)
	}
	var override *float64
	if t := strings.TrimSpace(*thrFlag); t != "" {
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || !(v >= 0) {
			return usagef("--threshold: want a number ≥ 0 or inf, got %q", *thrFlag)
		}
		override = &v
	}

	m, _, err := model.ReadFile(*modelPath)
	if err != nil {
		return err
	}
	mt, err := m.NewMatcherWorkers(*workers)
	if err != nil {
		return err
	}
	if override != nil {
		if mt, err = mt.WithThreshold(*override); err != nil {
			return err
		}
	}
	ds, err := testLoad(*data, *modelPath, m, *workers, *maxBytes)
	if err != nil {
		return err
	}
	s, err := testSets(mt, ds, stderr)
	if err != nil {
		return err
	}
	s.Model, s.Data = *modelPath, *data
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	return testPrint(stdout, s)
}

// testLoad reads the labelled sets: image sets through the model's
// recorded feature pipeline, feature files as they are; it refuses images
// for a model without a pipeline and feature files of the wrong width.
func testLoad(dir, modelPath string, m *model.Model, workers int, maxBytes int64) (*dataset.Dataset, error) {
	opt := dataset.Options{Limits: setfile.DefaultLimits(), Workers: workers, KeepGoing: true}
	opt.Limits.MaxBytes = maxBytes
	var images atomic.Int64
	noPipeline := fmt.Errorf("the data in %s are images but model %s records no feature pipeline (it was trained on feature files): give the sets as feature files (setmatch features), or train the model on the images with --features SPEC", dir, modelPath)
	if m.Features != nil {
		read := m.Features.ImageSetReader()
		opt.Images = func(paths []string) (*mat.Dense, error) {
			images.Add(1)
			return read(paths)
		}
	} else {
		opt.Images = func([]string) (*mat.Dense, error) { return nil, noPipeline }
	}
	ds, err := dataset.Load(dir, opt)
	if errors.Is(err, noPipeline) {
		return nil, noPipeline
	}
	if err != nil {
		return nil, err
	}
	if len(ds.Sets) == 0 {
		if len(ds.Failed) > 0 {
			f := ds.Failed[0]
			return nil, fmt.Errorf("no set of %s could be read (%d failed); the first, %s/%s: %w", dir, len(ds.Failed), f.Class, f.Name, f.Err)
		}
		return nil, fmt.Errorf("%s holds no sets", dir)
	}
	// Sets of another width than the model's: the whole folder when none
	// fits (the wrong features), else those sets fail one by one.
	fit := ds.Sets[:0:0]
	var wrong []dataset.Set
	for _, set := range ds.Sets {
		if _, D := set.Frames.Dims(); D == m.InputDim() {
			fit = append(fit, set)
		} else {
			wrong = append(wrong, set)
		}
	}
	if len(fit) == 0 {
		D := ds.Dim()
		if images.Load() == 0 && m.Features != nil {
			return nil, fmt.Errorf("the sets of %s are feature files of %d features per frame, model %s takes %d, made from images by its pipeline %s: give the image folders instead", dir, D, modelPath, m.InputDim(), m.Features.Name())
		}
		return nil, fmt.Errorf("the sets of %s have %d features per frame, model %s expects %d (were they made with the same feature extractor as the model?)", dir, D, modelPath, m.InputDim())
	}
	for _, set := range wrong {
		_, D := set.Frames.Dims()
		set.Frames = nil
		ds.Failed = append(ds.Failed, dataset.FailedSet{Set: set, Err: fmt.Errorf("%s has %d features per frame, model %s expects %d", set.Path, D, modelPath, m.InputDim())})
	}
	ds.Sets = fit
	return ds, nil
}

// testSets decides every set with the matcher and scores the decisions;
// the sets that could not be read (ds.Failed) count as failed.
func testSets(mt *model.Matcher, ds *dataset.Dataset, stderr io.Writer) (*testSummary, error) {
	m := mt.Model()
	known := map[string]bool{}
	for _, c := range m.Classes() {
		known[c] = true
	}
	s := &testSummary{Method: m.MethodName(), Threshold: formatThreshold(mt.Threshold()), PerClass: map[string]testClass{}}
	if len(m.Voters) > 0 {
		s.Threshold, s.Members = "members", m.MemberMethods()
		for _, t := range mt.Thresholds() {
			s.Thresholds = append(s.Thresholds, formatThreshold(t))
		}
	}
	items := make([]dataset.FailedSet, 0, len(ds.Sets)+len(ds.Failed))
	for _, set := range ds.Sets {
		items = append(items, dataset.FailedSet{Set: set})
	}
	items = append(items, ds.Failed...)
	slices.SortStableFunc(items, func(a, b dataset.FailedSet) int {
		if c := strings.Compare(a.Class, b.Class); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	var spent time.Duration
	matched := 0
	var samples []openset.Sample // the decided sets' scores
	for _, it := range items {
		set, err := it.Set, it.Err
		var res model.Result
		if err == nil {
			start := time.Now()
			res, err = mt.Match(set.Frames)
			spent += time.Since(start)
			matched++
		}
		pred := testUnknown
		one := testSet{Class: set.Class, Set: set.Name}
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "test: %s/%s: %v\n", set.Class, set.Name, err)
			s.Failed++
			pred = "failed"
			one.Error = err.Error()
		case res.Decision.Known:
			pred = res.Decision.Label
		}
		if err == nil {
			d := res.Decision
			one.Nearest, one.NearestSet, one.Score = m.Sets[d.Best].Label, m.Sets[d.Best].Name, &d.Score
			if d.RunnerUp >= 0 {
				one.RunnerUp, one.RunnerScore = d.RunnerLabel, &d.RunnerScore
			}
			if res.Votes != nil {
				one.Votes, one.Member = res.Votes, s.Members[res.Member]
			}
			// For a vote, the deciding member's score: the members' scores
			// are on different scales, so the rates from them are
			// approximate.
			samples = append(samples, openset.Sample{Score: d.Score, Stranger: !known[set.Class], Right: one.Nearest == set.Class})
		}
		one.Decided = pred
		s.PerSet = append(s.PerSet, one)
		row := s.PerClass[set.Class]
		if row.Predicted == nil {
			row.Predicted = map[string]int{}
		}
		row.Known = known[set.Class]
		row.Sets++
		row.Predicted[pred]++
		right := (row.Known && pred == set.Class) || (!row.Known && pred == testUnknown)
		if right {
			row.Correct++
			s.Correct++
		}
		switch {
		case err != nil:
		case row.Known && pred == testUnknown:
			s.KnownRejected++
		case row.Known && !right:
			s.Misclassified++
		case !row.Known && pred != testUnknown:
			s.UnknownAccepted++
		}
		if !row.Known {
			s.Unknown++
		}
		s.PerClass[set.Class] = row
		s.Sets++
	}
	for c, row := range s.PerClass {
		row.Accuracy = 100 * float64(row.Correct) / float64(row.Sets)
		s.PerClass[c] = row
	}
	s.Accuracy = 100 * float64(s.Correct) / float64(s.Sets)
	// Counted from the decisions rather than by openset.At on the scores:
	// the figure is the same for one model without failed sets, but a
	// vote decides by each member's own threshold, and a failed set
	// counts as wrong here, where openset leaves it out.
	if known, unknown := s.Sets-s.Unknown, s.Unknown; known > 0 && unknown > 0 {
		rejected := 0 // the unknown classes' sets decided right
		for _, row := range s.PerClass {
			if !row.Known {
				rejected += row.Correct
			}
		}
		b := 50 * (float64(s.Correct-rejected)/float64(known) + float64(rejected)/float64(unknown))
		s.BalancedAccuracy = &b
	}
	s.OpenSet = testOpenRates(samples, len(m.Voters) > 0)
	s.MsPerSet = spent.Seconds() * 1000 / float64(max(matched, 1))
	return s, nil
}

// testOpenRates returns the threshold-free rates of the samples, nil
// unless they hold both known sets and strangers'.
func testOpenRates(samples []openset.Sample, vote bool) *testOpenSet {
	o := &testOpenSet{Approximate: vote}
	best, err := openset.Balance(samples)
	if err != nil {
		return nil // one-sided
	}
	o.BestBalanced, o.BestThreshold = best.Balanced, best.Threshold
	if o.StrangersIn95, o.Threshold95, err = openset.StrangersIn(samples, 0.95); err != nil {
		return nil
	}
	if o.StrangersIn99, o.Threshold99, err = openset.StrangersIn(samples, 0.99); err != nil {
		return nil
	}
	return o
}

func formatThreshold(t float64) string {
	if math.IsInf(t, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(t, 'g', -1, 64)
}

func testPrint(w io.Writer, s *testSummary) error {
	if len(s.Members) > 0 {
		th := make([]string, len(s.Members))
		for i, m := range s.Members {
			th[i] = m + " " + s.Thresholds[i]
		}
		fmt.Fprintf(w, "model %s (%s, thresholds %s) on %s\n", s.Model, s.Method, strings.Join(th, ", "), s.Data)
	} else {
		fmt.Fprintf(w, "model %s (%s, threshold %s) on %s\n", s.Model, s.Method, s.Threshold, s.Data)
	}
	fmt.Fprintf(w, "accuracy %.1f%% (%d of %d sets)\n", s.Accuracy, s.Correct, s.Sets)
	fmt.Fprintf(w, "known classes: %d sets, %d rejected as unknown, %d given another label\n", s.Sets-s.Unknown, s.KnownRejected, s.Misclassified)
	fmt.Fprintf(w, "unknown classes: %d sets, %d accepted as a known class\n", s.Unknown, s.UnknownAccepted)
	if b := s.BalancedAccuracy; b != nil {
		fmt.Fprintf(w, "balanced accuracy %.1f%% (the mean of the shares of known sets named right and of unknown sets rejected: the accuracy if both came as often)\n", *b)
	}
	if o := s.OpenSet; o != nil {
		fmt.Fprintf(w, "whatever the threshold: %.1f%% of the unknown sets are let in when 95%% of the known sets are (threshold %.6g), %.1f%% at 99%% (threshold %.6g)\n",
			100*o.StrangersIn95, o.Threshold95, 100*o.StrangersIn99, o.Threshold99)
		fmt.Fprintf(w, "the best single threshold on these sets, %.6g, reaches a balanced accuracy of %.1f%%\n", o.BestThreshold, 100*o.BestBalanced)
		if o.Approximate {
			fmt.Fprintf(w, "(a vote: these come from the deciding members' scores, on different scales, so they are approximate)\n")
		}
	}
	if s.Failed > 0 {
		fmt.Fprintf(w, "failed: %d sets could not be read or decided, counted as wrong (see above)\n", s.Failed)
	}
	fmt.Fprintf(w, "%.3g ms per set\n\n", s.MsPerSet)
	classes := make([]string, 0, len(s.PerClass))
	for c := range s.PerClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tin model\tsets\tright\taccuracy\tdecided as")
	for _, c := range classes {
		row := s.PerClass[c]
		preds := make([]string, 0, len(row.Predicted))
		for p := range row.Predicted {
			preds = append(preds, p)
		}
		// Most frequent first, then by name.
		slices.SortFunc(preds, func(a, b string) int {
			if d := row.Predicted[b] - row.Predicted[a]; d != 0 {
				return d
			}
			return strings.Compare(a, b)
		})
		var parts []string
		for _, p := range preds {
			parts = append(parts, fmt.Sprintf("%s×%d", p, row.Predicted[p]))
		}
		in := "yes"
		if !row.Known {
			in = "no"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f%%\t%s\n", c, in, row.Sets, row.Correct, row.Accuracy, strings.Join(parts, " "))
	}
	return tw.Flush()
}
