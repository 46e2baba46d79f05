package eval

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"setmatch/method"
)

// Step reports progress within a split, for Options.Step: in stage Stage
// ("shared" for the work the methods share, else a method name), Done of
// Total units of work are finished.
type Step struct {
	Split, Splits int    // the split, from 1, and their number
	Stage         string // "shared" or a method
	Unit          string // what is counted, plural: "matrices", "kernels", …
	Done, Total   int
	// Elapsed is the time since the stage began; Left extrapolates it
	// linearly over the units still to do (0 when Done = Total).
	Elapsed, Left time.Duration
}

// StageShared is the Stage of the work shared by the methods of a split.
const StageShared = "shared"

// tracker counts the units of the stage under way and reports them to a
// Step callback: the method.Counter of a split's Task. Its methods are
// safe for concurrent use and do nothing on a nil tracker.
type tracker struct {
	fn func(Step)

	mu          sync.Mutex
	split       int
	splits      int
	stage, unit string
	start       time.Time
	done, total int
}

// begin begins stage s of split (from 1).
func (tr *tracker) begin(split int, s string) {
	if tr == nil {
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.split, tr.stage, tr.start = split, s, time.Now()
	tr.unit, tr.done, tr.total = "", 0, 0
}

// Inc marks one more unit done and reports it.
func (tr *tracker) Inc() {
	if tr == nil {
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.done++
	el := time.Since(tr.start)
	var left time.Duration
	if tr.done < tr.total {
		left = time.Duration(float64(el) / float64(tr.done) * float64(tr.total-tr.done))
	}
	tr.fn(Step{Split: tr.split, Splits: tr.splits, Stage: tr.stage, Unit: tr.unit,
		Done: tr.done, Total: tr.total, Elapsed: el, Left: left})
}

// Count says that total units of unit are to be done next in the stage,
// of which done already are (method.Counter).
func (tr *tracker) Count(unit string, done, total int) {
	if tr == nil {
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.unit, tr.done, tr.total = unit, done, total
}

// ProgressLines returns the Options.Progress of setmatch eval: it writes
// to w one line per split with the accuracy of each method of ms.
func ProgressLines(w io.Writer, ms []method.Name) func(Progress) {
	return func(pr Progress) {
		var b strings.Builder
		for _, m := range ms {
			fmt.Fprintf(&b, " %s=%.1f", m, pr.Accuracy[m])
		}
		fmt.Fprintf(w, "eval: split %d/%d done, %s elapsed, ETA %s:%s\n", pr.Split, pr.Splits,
			pr.Elapsed.Round(time.Second), pr.ETA.Round(time.Second), b.String())
	}
}

// StepEvery is how often setmatch eval reports progress within a split.
const StepEvery = 2 * time.Second

// StepLines returns the Options.Step of setmatch eval: it writes to w a
// line at most every interval, and one when a stage that took longer than
// that ends.
func StepLines(w io.Writer, every time.Duration) func(Step) {
	var last time.Time
	return func(s Step) {
		now := time.Now()
		end := s.Done == s.Total
		if now.Sub(last) < every && !(end && s.Elapsed >= every) {
			return
		}
		last = now
		stage := s.Stage
		if stage == StageShared {
			stage = "shared work"
		}
		left := ""
		if !end {
			left = fmt.Sprintf(", about %s left", s.Left.Round(time.Second))
		}
		fmt.Fprintf(w, "eval: split %d/%d, %s: %d/%d %s, %s%s\n", s.Split, s.Splits, stage, s.Done, s.Total, s.Unit,
			s.Elapsed.Round(time.Second), left)
	}
}
