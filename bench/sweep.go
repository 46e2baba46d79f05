package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"setmatch/dataset"
	"setmatch/synth"
)

// Run is one size's outcome in the sweep of setmatch bench train; the
// JSON keys are stable (the lines of runs.jsonl and of --json).
type Run struct {
	Kind         string  `json:"kind"`
	Classes      int     `json:"classes"`
	SetsPerClass int     `json:"sets_per_class"`
	TrainSets    int     `json:"training_sets"`
	Frames       int     `json:"frames_per_set"`
	Dim          int     `json:"dim"`
	TrainFrames  int     `json:"training_frames"`
	Finished     bool    `json:"finished"`
	Error        string  `json:"error,omitempty"`
	WallSeconds  float64 `json:"wall_seconds"`
	UserSeconds  float64 `json:"user_seconds"`
	SysSeconds   float64 `json:"sys_seconds"`
	// PeakRSSMiB is null where the platform gives no peak memory of the
	// child (Windows).
	PeakRSSMiB *float64 `json:"peak_rss_mib"`
	Deployed   string   `json:"deployed,omitempty"`
	Candidates string   `json:"candidates,omitempty"` // each candidate's held-out score, or why it was not scored in full
	ProbeSets  int      `json:"probe_sets"`
	// Accuracy, ClosedSet and MsPerQuery are null where no model was
	// trained to decide the probes with (not Finished, or an Error).
	Accuracy   *float64 `json:"accuracy"`        // percent of probe sets named right at the model's threshold
	ClosedSet  *float64 `json:"closed_accuracy"` // percent of probe sets whose nearest gallery set is of their class
	MsPerQuery *float64 `json:"ms_per_query"`
	Log        string   `json:"log,omitempty"` // train's output, when kept
	// Machine is where the run was measured: CPU model, architecture and
	// CPUs (absent from records written before it was kept).
	Machine string `json:"machine,omitempty"`
}

// SweepOptions configures Sweep.
type SweepOptions struct {
	Exe     string   // the setmatch to run train with (empty: this executable)
	Env     []string // added to the child's environment
	Sizes   []Size
	Kind    synth.Kind
	Probes  int // held-out sets per class
	Workers int // train's --workers (0: its default)
	Seed    int64
	Timeout time.Duration // 0: no limit
	// Keep is the folder to keep the data, models, train's output and
	// runs.jsonl in; empty: a temporary folder, removed.
	Keep string
	Log  io.Writer // where Sweep says what it does
}

// Sweep runs setmatch train (every option at its default) in a child
// process on synthetic data of every size, and decides each size's
// held-out sets with the model written. With Keep, every outcome is
// appended to Keep/runs.jsonl as it comes, and each size's data, model
// and train's output are in Keep/CxSxFxD, a folder Sweep makes: it
// refuses (Check) a size whose folder is there already, and deletes
// nothing it did not write.
//
// When ctx is done (an interrupt) Sweep stops train's child process,
// removes its temporary folder (without Keep) and returns the outcomes
// of the sizes before, with ctx's error; the size it was at is not an
// outcome, and with Keep its folder stays as far as it was written.
func Sweep(ctx context.Context, o SweepOptions) ([]Run, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	exe, err := o.Exe, error(nil)
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	root := o.Keep
	if root == "" {
		if root, err = os.MkdirTemp("", "setmatch-bench-train-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(root)
	} else if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	var runs []Run
	for _, sz := range o.Sizes {
		if err := ctx.Err(); err != nil {
			return runs, err
		}
		r, err := one(ctx, exe, root, sz, o)
		if err != nil {
			return runs, err
		}
		runs = append(runs, r)
		if o.Keep != "" {
			if err := appendRun(filepath.Join(root, "runs.jsonl"), r); err != nil {
				return runs, err
			}
		}
	}
	return runs, nil
}

// Check reports whether every size of o can be generated (synth's
// limits, with the held-out sets), each once, and with Keep whether the
// folder of every size is still to be made, so that a sweep refuses a
// size before it trains any: a size refused in the middle would end the
// sweep and lose the outcomes of the sizes before it. Its errors are
// OptionErrors, but for an error reading Keep.
func (o SweepOptions) Check() error {
	if o.Probes < 1 {
		return optionErr([]string{"Probes"}, "held-out sets per class must be at least 1, got %d", o.Probes)
	}
	seen := map[Size]bool{}
	for _, sz := range o.Sizes {
		if seen[sz] {
			return optionErr([]string{"Sizes"}, "size %s is given twice: its second run would write over the first's data, model and train's output; give each size once", sz)
		}
		seen[sz] = true
		so := synth.Options{Kind: o.Kind, Classes: sz.Classes, Sets: sz.Sets + o.Probes, Frames: sz.Frames, Dim: sz.Dim, Seed: o.Seed}
		if err := so.Validate(); err != nil {
			return optionErr([]string{"Sizes"}, "size %s, with %d more held-out per class: %s", sz, o.Probes, strings.TrimPrefix(err.Error(), "synth: "))
		}
	}
	if o.Keep == "" {
		return nil
	}
	for _, sz := range o.Sizes {
		dir := filepath.Join(o.Keep, sz.String())
		_, err := os.Lstat(dir)
		switch {
		case err == nil:
			return optionErr([]string{"Keep"}, "%s is there already (an earlier sweep's size?): the sweep keeps each size in a folder of its own and writes over nothing; give another folder to keep the sweep in, or remove %s", dir, dir)
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	return nil
}

// sizePaths are the files of one size in the sweep's folder.
type sizePaths struct {
	dir, train, probe, model, log string
}

// one generates one size's data, trains on it in a child process and
// decides the held-out sets with the model.
func one(ctx context.Context, exe, root string, sz Size, o SweepOptions) (Run, error) {
	r := Run{Machine: Machine(), Kind: o.Kind.String(), Classes: sz.Classes, SetsPerClass: sz.Sets, TrainSets: sz.Classes * sz.Sets, Frames: sz.Frames, Dim: sz.Dim}
	dir := filepath.Join(root, sz.String())
	p := sizePaths{dir, filepath.Join(dir, "train"), filepath.Join(dir, "probe"), filepath.Join(dir, "model.smm"), filepath.Join(dir, "train.log")}
	// Mkdir, not MkdirAll: a folder made since Check is not written into.
	if err := os.Mkdir(dir, 0o755); err != nil {
		return r, err
	}
	fmt.Fprintf(o.Log, "bench: generating %s (%d classes × %d + %d sets × %d frames × %d features)...\n", sz, sz.Classes, sz.Sets, o.Probes, sz.Frames, sz.Dim)
	var err error
	if r.TrainFrames, r.ProbeSets, err = writeData(ctx, p, sz, o); err != nil {
		return r, err
	}
	runtime.GC()
	if err := ctx.Err(); err != nil {
		return r, err
	}
	if err := trainChild(ctx, exe, p, o, &r); err != nil || !r.Finished {
		return r, err
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	return r, decideProbes(p, o.Workers, &r)
}

// writeData writes the training and probe sets of one size and returns
// the training frames and the probe sets; when ctx is done once the
// data is generated, it writes none.
func writeData(ctx context.Context, p sizePaths, sz Size, o SweepOptions) (trainFrames, probes int, err error) {
	ds, err := synth.Generate(synth.Options{Kind: o.Kind, Classes: sz.Classes, Sets: sz.Sets + o.Probes, Frames: sz.Frames, Dim: sz.Dim, Seed: o.Seed})
	if err != nil {
		return 0, 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	train, probe := &dataset.Dataset{Classes: ds.Classes}, &dataset.Dataset{Classes: ds.Classes}
	seen := map[string]int{}
	for _, s := range ds.Sets {
		if seen[s.Class] < sz.Sets {
			train.Sets = append(train.Sets, s)
			trainFrames += sz.Frames
		} else {
			probe.Sets = append(probe.Sets, s)
		}
		seen[s.Class]++
	}
	if err := dataset.Write(p.train, train); err != nil {
		return 0, 0, err
	}
	return trainFrames, len(probe.Sets), dataset.Write(p.probe, probe)
}

// trainChild runs setmatch train on the training sets and records its
// times and peak memory in r; r.Finished says whether it wrote a model,
// r.Error why not. When ctx is done before the child ends, the child is
// stopped and the error is ctx's: an interrupt is not an outcome.
func trainChild(parent context.Context, exe string, p sizePaths, o SweepOptions, r *Run) error {
	ctx := parent
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	log, err := os.Create(p.log)
	if err != nil {
		return err
	}
	defer log.Close()
	args := []string{"train", "--data", p.train, "--out", p.model}
	if o.Workers > 0 {
		args = append(args, "--workers", strconv.Itoa(o.Workers))
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if len(o.Env) > 0 {
		cmd.Env = append(os.Environ(), o.Env...)
	}
	fmt.Fprintf(o.Log, "bench: setmatch %s\n", strings.Join(args, " "))
	start := time.Now()
	runErr := cmd.Run()
	r.WallSeconds = time.Since(start).Seconds()
	if st := cmd.ProcessState; st != nil {
		r.UserSeconds, r.SysSeconds = st.UserTime().Seconds(), st.SystemTime().Seconds()
		if mib, ok := peakRSSMiB(st); ok {
			r.PeakRSSMiB = &mib
		}
	}
	if o.Keep != "" {
		r.Log = p.log
	}
	if runErr != nil && cmd.ProcessState != nil && !cmd.ProcessState.Exited() && ctx.Err() == nil {
		// Killed by a signal: a Ctrl-C reaches the child as well as this
		// process, and may end it before ctx says so. Give the interrupt
		// a moment to arrive rather than record it as train's failure.
		select {
		case <-parent.Done():
		case <-time.After(2 * time.Second):
		}
	}
	switch {
	case parent.Err() != nil:
		return parent.Err()
	case ctx.Err() != nil:
		r.Error = fmt.Sprintf("not finished in %s (stopped); peak memory until then", o.Timeout)
	case runErr != nil:
		r.Error = fmt.Sprintf("train failed: %v (see %s)", runErr, p.log)
	default:
		r.Finished = true
	}
	return nil
}
