package eval

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"setmatch/method"
)

func TestStepLines(t *testing.T) {
	steps := []Step{
		{Split: 1, Splits: 1, Stage: StageShared, Unit: "matrices", Done: 1, Total: 12, Elapsed: 2 * time.Second, Left: 22 * time.Second},
		{Split: 1, Splits: 1, Stage: StageShared, Unit: "matrices", Done: 2, Total: 12, Elapsed: 4 * time.Second, Left: 20 * time.Second},
		{Split: 1, Splits: 1, Stage: "nn-h-dr", Unit: "projections", Done: 13, Total: 13, Elapsed: 65 * time.Second},
		{Split: 1, Splits: 1, Stage: "nn-h", Unit: "bandwidths", Done: 12, Total: 12, Elapsed: time.Millisecond},
	}
	var every bytes.Buffer
	f := StepLines(&every, 0)
	for _, s := range steps {
		f(s)
	}
	want := "eval: split 1/1, shared work: 1/12 matrices, 2s, about 22s left\n" +
		"eval: split 1/1, shared work: 2/12 matrices, 4s, about 20s left\n" +
		"eval: split 1/1, nn-h-dr: 13/13 projections, 1m5s\n" +
		"eval: split 1/1, nn-h: 12/12 bandwidths, 0s\n"
	if every.String() != want {
		t.Errorf("every step:\n%s\nwant\n%s", every.String(), want)
	}
	// Throttled: the first line, then only the end of a long stage.
	var some bytes.Buffer
	f = StepLines(&some, time.Hour)
	for _, s := range steps {
		s.Elapsed *= 3600
		f(s)
	}
	if got := some.String(); strings.Count(got, "\n") != 2 || !strings.Contains(got, "1/12 matrices") || !strings.Contains(got, "13/13 projections") {
		t.Errorf("throttled:\n%s", got)
	}
}

func TestProgressLines(t *testing.T) {
	var b bytes.Buffer
	ProgressLines(&b, []method.Name{method.NNH, method.Auto})(Progress{Split: 1, Splits: 2, Elapsed: 1500 * time.Millisecond, ETA: time.Minute,
		Accuracy: map[method.Name]float64{method.NNH: 50, method.Auto: 75}})
	if want := "eval: split 1/2 done, 2s elapsed, ETA 1m0s: nn-h=50.0 auto=75.0\n"; b.String() != want {
		t.Errorf("%q, want %q", b.String(), want)
	}
}
