package openeval

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/deploy"
	"setmatch/eval"
	"setmatch/method"
	"setmatch/openset"
)

// TestWriteTable: a method that ran and one that failed on every split,
// the default threshold named, the failed probes counted and every
// split's deployment listed.
func TestWriteTable(t *testing.T) {
	st := Stat{Mean: 0.5, Std: 0.125}
	ok := &MethodResult{Figures: &Figures[Stat]{st, st, st, st, st, st, st}, Failed: 2, Seconds: 3,
		Common:   &CommonThreshold{Balanced: 0.75, Fractions: map[string]float64{"nn-h": 0.8125, "kfda-mix": 0.25}, Transfer: Stat{Mean: 0.625, Std: 0.25}, TransferSplits: 2, AtThreshold: Stat{Mean: 0.5, Std: 0.125}},
		PerSplit: []Row{{Split: 1, Deployed: "nn-h", StrangerClasses: []string{"x", "y"}}, {Split: 2, Deployed: "kfda-mix", ClosedChoice: "nn-h", StrangerClasses: []string{"z"}, Approximate: true}}}
	failed := &MethodResult{Errors: []string{"split 1: no"}}
	res := &Result{Methods: map[method.Name]*MethodResult{method.Auto: ok, method.GDA: failed}, Splits: 2, TotalSeconds: 4}
	run := eval.Run{Data: "d", Features: "files", Protocol: eval.Protocol{Kind: eval.RandomSplits, Gallery: 1, Probe: 1, Splits: 2, Strangers: 2},
		Methods: []method.Name{method.Auto, method.GDA}, Seed: 1, LoadSeconds: 1}
	var b bytes.Buffer
	if err := res.WriteTable(&b, run); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := `data d, features files, protocol gallery=1,probe=1,splits=2,strangers=2, seed 1
open set: 2 stranger class(es) per split, left out of its gallery; each method trained as setmatch train, with its own threshold (--threshold auto:balanced)

  method            known right (closed)  known right @thr  strangers out @thr  balanced @thr  best balanced  strangers in @95% known    @99% known  seconds
    auto                     50.0 ± 12.5       50.0 ± 12.5         50.0 ± 12.5    50.0 ± 12.5    50.0 ± 12.5              50.0 ± 12.5   50.0 ± 12.5      3.0
     gda  (failed on every split, below)                                                                                                                    

percent, mean ± std over the splits; @thr: at the model's own threshold; best balanced: the best balanced accuracy any single threshold reaches on the probes; strangers in @95%/@99% known: the strangers' sets let in by the threshold that lets in 95%/99% of the known sets
a vote's scores are its deciding members', on different scales: its best balanced accuracy and strangers let in are approximate
2 probe sets could not be decided and are left out of the rates
gda failed on split 1: no (left out of its figures)

one threshold for every split, as one fraction of each split's model scale (the median distance between the classes of its gallery, the unit the calibration sets a threshold in), a fraction for each method deployed: the mean balanced accuracy at the fractions best over all the splits; and over the splits whose method another split deployed too, the balanced accuracy at the model's threshold and at the fraction best on those other splits (mean ± std)
  method  best over all splits                   fraction  splits  balanced @thr  chosen on the other splits
    auto                  75.0  kfda-mix 0.25, nn-h 0.812  2 of 2    50.0 ± 12.5                 62.5 ± 25.0

deployed per split:
  auto: 1: nn-h (strangers x,y); 2: kfda-mix, chosen for the open set over nn-h (strangers z)
  gda: 

loading 1.0 s; total 5.0 s
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if r := res.Record(run); !r.OpenSet || r.Threshold != deploy.DefaultThreshold || r.Protocol != run.Protocol.String() || len(r.Order) != 2 {
		t.Errorf("record %+v", r)
	}
	res.Threshold = "0.5"
	if r := res.Record(run); r.Threshold != "0.5" {
		t.Errorf("record of a run with --threshold 0.5: threshold %q", r.Threshold)
	}
}

// TestWriteTableOneSplit: a method's rates over one split have no spread
// to print, rather than a measured-looking ± 0.0, and the table says why.
func TestWriteTableOneSplit(t *testing.T) {
	st := Stat{Mean: 0.5}
	one := &MethodResult{Figures: &Figures[Stat]{st, st, st, st, st, st, st}, Seconds: 3, PerSplit: []Row{{Split: 1, Deployed: "nn-h"}},
		Common: &CommonThreshold{Balanced: 0.75, Fractions: map[string]float64{"nn-h": 0.5}, Transfer: st, TransferSplits: 1, AtThreshold: st}}
	res := &Result{Methods: map[method.Name]*MethodResult{method.NNH: one}, Splits: 1, TotalSeconds: 4}
	run := eval.Run{Data: "d", Features: "files", Protocol: eval.Protocol{Kind: eval.RandomSplits, Gallery: 1, Probe: 1, Splits: 1, Strangers: 2},
		Methods: []method.Name{method.NNH}, Seed: 1}
	var b bytes.Buffer
	if err := res.WriteTable(&b, run); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "50.0 ±") || !strings.Contains(out, "a rate of one split has no standard deviation") {
		t.Errorf("one split printed with a spread, or without the note:\n%s", out)
	}
}

// TestReportWriteTable: the counts, the rates free of the threshold and
// the confusion table, its labels most frequent first.
func TestReportWriteTable(t *testing.T) {
	bal, thr := 62.5, 0.5
	r := &Report{Model: "m.smm", Data: "d", Method: "nn-h", Threshold: &thr, Accuracy: 60, Sets: 5, Correct: 3, Unknown: 2,
		KnownRejected: 1, UnknownAccepted: 1, Failed: 1, MsPerSet: 1.5, BalancedAccuracy: &bal,
		OpenSet: &FreeRates{ThresholdFree: openset.ThresholdFree{StrangersIn95: 0.5, Threshold95: 0.25, StrangersIn99: 1, Threshold99: 0.75, BestThreshold: 0.5, BestBalanced: 0.75}},
		PerClass: map[string]ClassOutcome{
			"b": {Known: true, Sets: 3, Correct: 2, Accuracy: 66.7, Predicted: map[string]int{"b": 2, "unknown": 1}},
			"a": {Known: false, Sets: 2, Correct: 1, Accuracy: 50, Predicted: map[string]int{"unknown": 1, "b": 1}},
		}}
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `model m.smm (nn-h, threshold 0.5) on d
accuracy 60.0% (3 of 5 sets)
known classes: 3 sets, 1 rejected as unknown, 0 given another label
unknown classes: 2 sets, 1 accepted as a known class
balanced accuracy 62.5% (the mean of the shares of known sets named right and of unknown sets rejected: the accuracy if both came as often)
whatever the threshold: 50.0% of the unknown sets are let in when 95% of the known sets are (threshold 0.25), 100.0% at 99% (threshold 0.75)
the best single threshold on these sets, 0.5, reaches a balanced accuracy of 75.0%
failed: 1 set could not be read or decided, counted as wrong (see above)
1.5 ms per set

class  in model  sets  right  accuracy  decided as
a      no        2     1      50.0%     b×1 unknown×1
b      yes       3     2      66.7%     b×2 unknown×1
`
	if b.String() != want {
		t.Errorf("report\n%s\nwant\n%s", b.String(), want)
	}
	// One set, a stranger's: each count in the singular or plural it takes.
	one := &Report{Model: "m.smm", Data: "d", Method: "nn-h", Threshold: &thr, Accuracy: 100, Sets: 1, Correct: 1, Unknown: 1,
		PerClass: map[string]ClassOutcome{"a": {Sets: 1, Correct: 1, Accuracy: 100, Predicted: map[string]int{"unknown": 1}}}}
	b.Reset()
	if err := one.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"accuracy 100.0% (1 of 1 set)", "known classes: 0 sets, ", "unknown classes: 1 set, "} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("report lacks %q:\n%s", line, b.String())
		}
	}
}

func TestProgressLines(t *testing.T) {
	var b bytes.Buffer
	ProgressLines(&b)(Progress{Split: 2, Splits: 3, Method: method.Auto, Row: Row{Deployed: "nn-h", Figures: Figures[float64]{KnownRightClosed: 1, BalancedAtThreshold: 0.5, BestBalanced: 0.75}},
		Elapsed: 2 * time.Second, ETA: time.Second})
	if want := "eval: split 2/3, auto (deployed nn-h): known right 100.0% closed, balanced 50.0% at its threshold, 75.0% at best; 2s elapsed, ETA 1s\n"; b.String() != want {
		t.Errorf("%q, want %q", b.String(), want)
	}
}

// TestRecordFailedMethod: a method that ran on no split has no rates in
// the JSON record (not rates of 0 that read as measured) and an empty
// list of rows.
func TestRecordFailedMethod(t *testing.T) {
	mr := &MethodResult{Errors: []string{"split 1: no"}}
	mr.summarise()
	js, err := json.Marshal(mr)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(js); strings.Contains(s, "known_right_closed") || !strings.Contains(s, `"per_split":[]`) {
		t.Errorf("record of a method that failed on every split: %s", s)
	}
}

// TestSetName: a model trained on a split records each gallery set by its
// set name beside its label, as train does, not as "class/set".
func TestSetName(t *testing.T) {
	d := &eval.Data{Classes: []string{"c03"}, Sets: make([]*mat.Dense, 1), Labels: []int{0}, Names: []string{"c03/s003"}}
	if got := setName(d, eval.Split{Sets: d.Sets, Labels: d.Labels}, 0); got != "s003" {
		t.Errorf("setName = %q, want s003", got)
	}
}
