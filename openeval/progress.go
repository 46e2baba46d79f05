package openeval

import (
	"fmt"
	"io"
	"time"
)

// ProgressLines returns the Options.Progress of setmatch eval with
// strangers: it writes to w one line per split and method with its rates.
func ProgressLines(w io.Writer) func(Progress) {
	return func(pr Progress) {
		r := pr.Row
		fmt.Fprintf(w, "eval: split %d/%d, %s (deployed %s): known right %.1f%% closed, balanced %.1f%% at its threshold, %.1f%% at best; %s elapsed, ETA %s\n",
			pr.Split, pr.Splits, pr.Method, r.Deployed, 100*r.KnownRightClosed, 100*r.BalancedAtThreshold, 100*r.BestBalanced,
			pr.Elapsed.Round(time.Second), pr.ETA.Round(time.Second))
	}
}
