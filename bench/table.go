package bench

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// WriteTable writes the result as setmatch bench --mode match prints it.
func (r MatchResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "gallery matcher: %d sets × %d frames, d = %d, query %d frames, bandwidth %s\n",
		r.Gallery, r.Frames, r.Dim, r.QueryFrames, r.Bandwidth)
	fmt.Fprintf(w, "machine: %s, %s, GOMAXPROCS %d, %d workers\n\n", r.CPU, r.GOARCH, r.GOMAXPROCS, r.Workers)
	fmt.Fprintf(w, "  %-28s %12.3f\n", "ms per query (median)", r.MsPerQuery)
	fmt.Fprintf(w, "  %-28s %12.3f\n", "ms per query (p99)", r.MsP99)
	fmt.Fprintf(w, "  %-28s %12.3f\n", "ms per query (fastest)", r.MsMin)
	fmt.Fprintf(w, "  %-28s %12.3f\n", "µs per distance (median)", r.UsPerDistance)
	fmt.Fprintf(w, "  %-28s %12d\n", "heap bytes per query", r.BytesPerQuery)
	fmt.Fprintf(w, "  %-28s %12d\n", "working bytes per query", r.ScratchBytes)
	_, err := fmt.Fprintf(w, "  %-28s %12.1f\n", "gallery setup ms", r.SetupMs)
	return err
}

// WriteTable writes the result as setmatch bench --mode train prints it.
func (r TrainResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "training: %d sets (%d classes) × %d frames, D = %d → d = %d, %d affinity pairs\n",
		r.Sets, r.Classes, r.Frames, r.InDim, r.OutDim, r.Pairs)
	fmt.Fprintf(w, "machine: %s, %s, GOMAXPROCS %d\n\n", r.CPU, r.GOARCH, r.GOMAXPROCS)
	if r.Iterations > 0 {
		fmt.Fprintf(w, "  %-28s %12.3f\n", "s per iteration (median)", r.SecPerIter)
		fmt.Fprintf(w, "  %-28s %12.3f\n", "s per iteration (slowest)", r.SecPerIterMax)
	} else {
		// Training stopped at its start: no iteration was timed.
		fmt.Fprintf(w, "  %-28s %12s\n", "s per iteration (median)", "-")
		fmt.Fprintf(w, "  %-28s %12s\n", "s per iteration (slowest)", "-")
	}
	fmt.Fprintf(w, "  %-28s %12d\n", "iterations", r.Iterations)
	fmt.Fprintf(w, "  %-28s %12.2f\n", "s total", r.SecTotal)
	_, err := fmt.Fprintf(w, "  %-28s %12.6g → %.6g (%s)\n", "cost", r.InitialCost, r.FinalCost, r.Stop)
	return err
}

// WriteRuns writes the outcomes of a sweep as the table of setmatch
// bench train, headed by the kind of data and the machine the runs
// record (they may be read back from another machine's records).
func WriteRuns(w io.Writer, runs []Run) error {
	fmt.Fprintf(w, "setmatch train (defaults) on synthetic %s data; machine: %s\n\n", RunsKind(runs), runsMachine(runs))
	fmt.Fprintf(w, "%8s %10s %6s %5s %9s %10s %10s %10s  %-28s %8s %8s %9s\n", "classes", "train sets", "frames", "dim", "finished", "wall s", "CPU s", "peak MiB", "deployed", "right %", "closed %", "ms/query")
	for _, r := range runs {
		done := "yes"
		if !r.Finished {
			done = "no"
		}
		fmt.Fprintf(w, "%8d %10d %6d %5d %9s %10.1f %10.1f %10s  %-28s %8s %8s %9s\n", r.Classes, r.TrainSets, r.Frames, r.Dim, done, r.WallSeconds, r.UserSeconds+r.SysSeconds, orDash(r.PeakRSSMiB), r.Deployed, orDash(r.Accuracy), orDash(r.ClosedSet), orDash(r.MsPerQuery))
		if r.Error != "" {
			fmt.Fprintf(w, "         %s\n", r.Error)
		}
		if r.Candidates != "" {
			if _, err := fmt.Fprintf(w, "         candidates: %s\n", r.Candidates); err != nil {
				return err
			}
		}
	}
	return nil
}

// RunsKind names the kinds of data of runs, in the order they come
// ("lighting", or "subspace, lighting" for a mix).
func RunsKind(runs []Run) string {
	return distinct(runs, func(r Run) string { return r.Kind }, "unknown", ", ")
}

// runsMachine names the machines the runs were measured on.
func runsMachine(runs []Run) string {
	return distinct(runs, func(r Run) string { return r.Machine }, "not recorded", "; ")
}

// distinct joins the distinct values of f over runs, in order, with sep;
// none for a run without one.
func distinct(runs []Run, f func(Run) string, none, sep string) string {
	var seen []string
	for _, r := range runs {
		v := f(r)
		if v == "" {
			v = none
		}
		if !slices.Contains(seen, v) {
			seen = append(seen, v)
		}
	}
	return strings.Join(seen, sep)
}

// orDash writes a figure of a sweep's run to one decimal, or "-" where the
// run measured none.
func orDash(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', 1, 64)
}
