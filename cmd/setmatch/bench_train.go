package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"setmatch/bench"
	"setmatch/synth"
)

// benchTrainAutoSynopsis is the usage line and description of setmatch
// bench train.
const benchTrainAutoSynopsis = `[--sizes CxSxFxD,...] [--kind lighting|subspace|...] [--probe-sets P] [--timeout T] [--plot FILE] [--json] [flags]

Times setmatch train as a user runs it (every option at its default:
the method chosen by cross-validation, the threshold calibrated on
stand-in strangers) on synthetic data of each size C classes × S training
sets × F frames × D features (setmatch synth's data, of --kind), in a
child process: its wall time, CPU time and peak resident memory (the
child's maximum RSS). Each class has P more sets of the same kind that
training never sees; the model then decides them as setmatch test does:
the share named right at the model's threshold, the share whose nearest
gallery set is of their class (the closed set), and the time of one
query. --plot writes the time and the peak memory against the number of
training sets, log-log, to a PNG file.`

// runBenchTrainAuto is setmatch bench train.
func runBenchTrainAuto(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench train", benchTrainAutoSynopsis, stderr)
	sizes := fs.String("sizes", "100x2x18x944", "comma-separated sizes `CxSxFxD`: classes × training sets per class × frames per set × features")
	kind := fs.String("kind", "lighting", "synthetic data `KIND` (setmatch synth --kind)")
	probes := fs.Int("probe-sets", 1, "held-out sets per class `P` the model decides after training")
	seed := fs.Int64("seed", 1, "seed `N` of the data")
	timeout := fs.Duration("timeout", 0, "stop a training run after `T` (e.g. 30m) and report it as not finished; 0: no limit")
	workers := new(int)
	workersVar(fs, workers, "train's --workers `N` (at most one per CPU; 0: one per CPU)")
	plotPath := fs.String("plot", "", "write training time and peak memory against the number of training sets to `FILE` (.png)")
	keep := fs.String("keep", "", "keep the data, models and train's output in folder `DIR` (each size's in DIR/CxSxFxD, which must not be there yet), and every size's outcome as a line of DIR/runs.jsonl (default: a temporary folder, removed)")
	from := fs.String("from", "", "train nothing: print and plot the outcomes recorded in `FILE` (a runs.jsonl of --keep, or the output of --json)")
	asJSON := fs.Bool("json", false, "print one JSON object per size")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("unexpected argument %q: all settings are flags", fs.Arg(0))
	}
	// The plot is written last: a name it cannot take is said before a
	// sweep of an hour, not after.
	if p := *plotPath; p != "" {
		if filepath.Ext(p) != ".png" {
			return usagef("--plot %s: want a .png file name", p)
		}
		if fi, err := os.Stat(filepath.Dir(p)); err != nil || !fi.IsDir() {
			return usagef("--plot %s: its folder %s is not there: make it first, or give another", p, filepath.Dir(p))
		}
	}
	if *from != "" {
		var extra error
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "from" && f.Name != "plot" && f.Name != "json" && extra == nil {
				extra = usagef("--%s does nothing with --from, which trains nothing and prints (and with --plot, plots) the outcomes recorded: leave it out", f.Name)
			}
		})
		if extra != nil {
			return extra
		}
		runs, err := bench.ReadRuns(*from)
		if errors.Is(err, bench.ErrNoRuns) {
			return fmt.Errorf("%s: %w (want the runs.jsonl of --keep, or the output of --json)", *from, bench.ErrNoRuns)
		}
		if err != nil {
			return err
		}
		return benchTrainReport(stdout, stderr, runs, *plotPath, *asJSON)
	}
	szs, err := bench.ParseSizes(*sizes)
	if err != nil {
		return usagef("--sizes: %v", err)
	}
	k, err := synth.ParseKind(*kind)
	if err != nil {
		return usagef("--kind: %v", err)
	}
	switch {
	case *probes < 1:
		return usagef("--probe-sets must be at least 1, got %d", *probes)
	case *timeout < 0:
		return usagef("--timeout must be ≥ 0 (0: no limit), got %v", *timeout)
	}
	o := bench.SweepOptions{Sizes: szs, Kind: k, Probes: *probes, Workers: *workers, Seed: *seed, Timeout: *timeout, Keep: *keep}
	if err := o.Check(); err != nil {
		return optionUsage(err, benchSweepFlags)
	}
	// An interrupt (Ctrl-C) or a stop (SIGTERM) stops train's child and
	// removes the sweep's temporary folder; a second one ends this
	// process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	return benchTrainAuto(ctx, stdout, stderr, o, *plotPath, *asJSON)
}

// benchTrainAuto runs the sweep (bench.Sweep) and reports it. Stopped by
// ctx, it prints the outcomes of the sizes done, not the plot, and says
// where those kept are.
func benchTrainAuto(ctx context.Context, stdout, stderr io.Writer, o bench.SweepOptions, plotPath string, asJSON bool) error {
	o.Log = stderr
	runs, err := bench.Sweep(ctx, o)
	if err != nil && ctx.Err() != nil {
		if len(runs) > 0 {
			if err := benchTrainReport(stdout, stderr, runs, "", asJSON); err != nil {
				return err
			}
		}
		kept := "the temporary folder is removed"
		if o.Keep != "" {
			kept = fmt.Sprintf("their outcomes are in %s", filepath.Join(o.Keep, "runs.jsonl"))
			if len(runs) == 0 {
				kept = "nothing is recorded"
			}
			if len(runs) < len(o.Sizes) {
				dir := filepath.Join(o.Keep, o.Sizes[len(runs)].String())
				if _, err := os.Lstat(dir); err == nil {
					kept += fmt.Sprintf("; %s holds what was written of the size stopped: remove it to run that size with --keep %s again", dir, o.Keep)
				}
			}
		}
		return fmt.Errorf("%v: stopped after %d of %d sizes; %s", context.Cause(ctx), len(runs), len(o.Sizes), kept)
	}
	if err != nil {
		return err
	}
	return benchTrainReport(stdout, stderr, runs, plotPath, asJSON)
}

// benchTrainReport prints the outcomes (a table, or JSON) and plots them.
func benchTrainReport(stdout, stderr io.Writer, runs []bench.Run, plotPath string, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range runs {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
	} else if err := bench.WriteRuns(stdout, runs); err != nil {
		return err
	}
	if plotPath != "" {
		if err := bench.Plot(plotPath, runs); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "bench: wrote %s\n", plotPath)
	}
	return nil
}
