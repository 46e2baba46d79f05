package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"setmatch/dataset"
	"setmatch/learn"
	"setmatch/match"
	"setmatch/model"
	"setmatch/report"
	"setmatch/setfile"
	"setmatch/synth"
)

type benchTrainOptions struct {
	classes, sets, frames, inDim, outDim, maxIter, workers int
	seed                                                   uint64
	rule                                                   match.BandwidthRule
	json                                                   bool
}

// benchTrainResult is what `setmatch bench --mode train` reports.
type benchTrainResult struct {
	Mode          string  `json:"mode"`
	Sets          int     `json:"sets"`
	Classes       int     `json:"classes"`
	Frames        int     `json:"frames_per_set"`
	InDim         int     `json:"in_dim"`
	OutDim        int     `json:"out_dim"`
	Pairs         int     `json:"affinity_pairs"`
	Iterations    int     `json:"iterations"`
	SecPerIter    float64 `json:"sec_per_iteration"`     // median over iterations ≥ 1
	SecPerIterMax float64 `json:"sec_per_iteration_max"` // slowest iteration
	SecTotal      float64 `json:"sec_total"`             // the whole Train call, PCA start included
	InitialCost   float64 `json:"initial_cost"`
	FinalCost     float64 `json:"final_cost"`
	Stop          string  `json:"stop"`
	GOARCH        string  `json:"goarch"`
	CPU           string  `json:"cpu"`
	GOMAXPROCS    int     `json:"gomaxprocs"`
}

// benchTrain times one training run on a generated data set shaped like the
// paper's YouTube Celebrities protocol (47 classes × 3 sets by default).
func benchTrain(stdout, stderr io.Writer, o benchTrainOptions) error {
	if o.classes < 2 || o.sets < 2 || o.frames < 2 || o.outDim < 1 || o.inDim < o.outDim {
		return usagef("train benchmark needs ≥ 2 classes, ≥ 2 sets per class, ≥ 2 frames and 1 ≤ out-dim ≤ in-dim")
	}
	fmt.Fprintf(stderr, "generating %d classes × %d sets × %d frames in %d dimensions...\n", o.classes, o.sets, o.frames, o.inDim)
	ds, err := synth.Generate(synth.Options{
		Kind: synth.Subspace, Classes: o.classes, Sets: o.sets, Frames: o.frames, Dim: o.inDim,
		InfoDim: min(o.outDim, o.inDim), Seed: int64(o.seed),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "training %d → %d...\n", o.inDim, o.outDim)
	start := time.Now()
	res, err := learn.Train(ds.Matrices(), ds.Labels(), learn.TrainOptions{
		Dim: o.outDim, Divergence: match.Hellinger, Bandwidth: o.rule, MaxIter: o.maxIter, Workers: o.workers,
		Progress: func(s learn.IterStats) {
			fmt.Fprintf(stderr, "  iter %3d  cost %12.6g  |grad| %10.3g  %6.3f s\n", s.Iteration, s.Cost, s.GradNorm, s.Seconds)
		},
	})
	if err != nil {
		return err
	}
	total := time.Since(start).Seconds()
	var secs []float64
	for _, s := range res.History {
		if s.Iteration > 0 {
			secs = append(secs, s.Seconds)
		}
	}
	slices.Sort(secs)
	out := benchTrainResult{
		Mode: "train", Sets: len(ds.Sets), Classes: o.classes, Frames: o.frames, InDim: o.inDim, OutDim: o.outDim,
		Pairs: len(res.Pairs), Iterations: res.Iterations, SecTotal: total,
		InitialCost: res.InitialCost, FinalCost: res.FinalCost, Stop: res.Stop,
		GOARCH: runtime.GOARCH, CPU: cpuModel(), GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	if len(secs) > 0 {
		out.SecPerIter = secs[len(secs)/2]
		out.SecPerIterMax = secs[len(secs)-1]
	}
	if o.json {
		return json.NewEncoder(stdout).Encode(out)
	}
	fmt.Fprintf(stdout, "training: %d sets (%d classes) × %d frames, D = %d → d = %d, %d affinity pairs\n",
		out.Sets, out.Classes, out.Frames, out.InDim, out.OutDim, out.Pairs)
	fmt.Fprintf(stdout, "machine: %s, %s, GOMAXPROCS %d\n\n", out.CPU, out.GOARCH, out.GOMAXPROCS)
	fmt.Fprintf(stdout, "  %-28s %12.3f\n", "s per iteration (median)", out.SecPerIter)
	fmt.Fprintf(stdout, "  %-28s %12.3f\n", "s per iteration (slowest)", out.SecPerIterMax)
	fmt.Fprintf(stdout, "  %-28s %12d\n", "iterations", out.Iterations)
	fmt.Fprintf(stdout, "  %-28s %12.2f\n", "s total", out.SecTotal)
	fmt.Fprintf(stdout, "  %-28s %12.6g → %.6g (%s)\n", "cost", out.InitialCost, out.FinalCost, out.Stop)
	return nil
}

// benchTrainAutoSynopsis is the usage line and description of setmatch
// bench train.
const benchTrainAutoSynopsis = `train [--sizes CxSxFxD,...] [--kind lighting|subspace|...] [--probe-sets P] [--timeout T] [--plot FILE] [--json] [flags]

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

// benchTrainSize is one size of setmatch bench train.
type benchTrainSize struct {
	Classes, Sets, Frames, Dim int
}

// parseBenchSizes reads "CxSxFxD,..." (classes × training sets per class ×
// frames per set × features).
func parseBenchSizes(s string) ([]benchTrainSize, error) {
	var out []benchTrainSize
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		parts := strings.Split(f, "x")
		if len(parts) != 4 {
			return nil, fmt.Errorf("size %q: want CxSxFxD, e.g. 100x2x18x944", f)
		}
		var v [4]int
		for i, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("size %q: %q is not a number ≥ 1", f, p)
			}
			v[i] = n
		}
		sz := benchTrainSize{Classes: v[0], Sets: v[1], Frames: v[2], Dim: v[3]}
		if sz.Classes < 3 || sz.Sets < 1 || sz.Frames < 4 || sz.Dim < 2 {
			return nil, fmt.Errorf("size %q: want ≥ 3 classes, ≥ 1 set per class, ≥ 4 frames, ≥ 2 features", f)
		}
		out = append(out, sz)
	}
	if len(out) == 0 {
		return nil, errors.New("no sizes given")
	}
	return out, nil
}

// benchTrainRun is one size's outcome in setmatch bench train.
type benchTrainRun struct {
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
	PeakRSSMiB   float64 `json:"peak_rss_mib"`
	Deployed     string  `json:"deployed,omitempty"`
	Candidates   string  `json:"candidates,omitempty"` // each candidate's held-out score, or why it was not scored in full
	ProbeSets    int     `json:"probe_sets"`
	Accuracy     float64 `json:"accuracy"`        // percent of probe sets named right at the model's threshold
	ClosedSet    float64 `json:"closed_accuracy"` // percent of probe sets whose nearest gallery set is of their class
	MsPerQuery   float64 `json:"ms_per_query"`
	Log          string  `json:"log,omitempty"` // train's output, when kept
}

type benchTrainAutoOptions struct {
	exe              string   // the setmatch to run train with (empty: this one)
	env              []string // added to the child's environment
	sizes            []benchTrainSize
	kind             synth.Kind
	probes, workers  int
	seed             int64
	timeout          time.Duration
	plot, keep, json string
}

// runBenchTrainAuto is setmatch bench train.
func runBenchTrainAuto(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", benchTrainAutoSynopsis, stderr)
	sizes := fs.String("sizes", "100x2x18x944", "comma-separated sizes `CxSxFxD`: classes × training sets per class × frames per set × features")
	kind := fs.String("kind", "lighting", "synthetic data `KIND` (setmatch synth --kind)")
	probes := fs.Int("probe-sets", 1, "held-out sets per class `P` the model decides after training")
	seed := fs.Int64("seed", 1, "seed `N` of the data")
	timeout := fs.Duration("timeout", 0, "stop a training run after `T` (e.g. 30m) and report it as not finished; 0: no limit")
	workers := fs.Int("workers", 0, "train's --workers `N` (0: one per CPU)")
	plotPath := fs.String("plot", "", "write training time and peak memory against the number of training sets to `FILE` (.png)")
	keep := fs.String("keep", "", "keep the data, models and train's output in folder `DIR`, and every size's outcome as a line of DIR/runs.jsonl (default: a temporary folder, removed)")
	from := fs.String("from", "", "train nothing: print and plot the outcomes recorded in `FILE` (a runs.jsonl of --keep, or the output of --json)")
	asJSON := fs.Bool("json", false, "print one JSON object per size")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("bench train takes no arguments, got %q", fs.Args())
	}
	if *from != "" {
		runs, err := readBenchRuns(*from)
		if err != nil {
			return err
		}
		return benchTrainReport(stdout, stderr, runs, *kind, *plotPath, *asJSON)
	}
	szs, err := parseBenchSizes(*sizes)
	if err != nil {
		return usagef("--sizes: %v", err)
	}
	k, err := synth.ParseKind(*kind)
	if err != nil {
		return usagef("--kind: %v", err)
	}
	if *probes < 1 {
		return usagef("--probe-sets must be at least 1, got %d", *probes)
	}
	o := benchTrainAutoOptions{sizes: szs, kind: k, probes: *probes, workers: *workers, seed: *seed, timeout: *timeout, plot: *plotPath, keep: *keep}
	return benchTrainAuto(stdout, stderr, o, *asJSON)
}

func benchTrainAuto(stdout, stderr io.Writer, o benchTrainAutoOptions, asJSON bool) error {
	exe, err := o.exe, error(nil)
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return err
		}
	}
	root := o.keep
	if root == "" {
		if root, err = os.MkdirTemp("", "setmatch-bench-train-"); err != nil {
			return err
		}
		defer os.RemoveAll(root)
	} else if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	var runs []benchTrainRun
	for _, sz := range o.sizes {
		r, err := benchTrainOne(exe, root, sz, o, stderr)
		if err != nil {
			return err
		}
		runs = append(runs, r)
		if o.keep != "" {
			if err := appendBenchRun(filepath.Join(root, "runs.jsonl"), r); err != nil {
				return err
			}
		}
	}
	return benchTrainReport(stdout, stderr, runs, o.kind.String(), o.plot, asJSON)
}

// appendBenchRun appends r as one line of JSON to the file path.
func appendBenchRun(path string, r benchTrainRun) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := json.NewEncoder(f).Encode(r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readBenchRuns reads the outcomes of setmatch bench train, one JSON
// object after the other.
func readBenchRuns(path string) ([]benchTrainRun, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var runs []benchTrainRun
	dec := json.NewDecoder(f)
	for {
		var r benchTrainRun
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no outcomes", path)
	}
	return runs, nil
}

// benchTrainReport prints the outcomes (a table, or JSON) and plots them.
func benchTrainReport(stdout, stderr io.Writer, runs []benchTrainRun, kind, plotPath string, asJSON bool) error {
	if !asJSON {
		fmt.Fprintf(stdout, "setmatch train (defaults) on synthetic %s data; machine: %s, %s, %d CPUs\n\n", kind, cpuModel(), runtime.GOARCH, runtime.NumCPU())
		fmt.Fprintf(stdout, "%8s %8s %6s %5s %9s %10s %10s %10s  %-28s %8s %8s %9s\n", "classes", "sets", "frames", "dim", "finished", "wall s", "CPU s", "peak MiB", "deployed", "right %", "closed %", "ms/query")
	}
	for _, r := range runs {
		if asJSON {
			if err := json.NewEncoder(stdout).Encode(r); err != nil {
				return err
			}
			continue
		}
		done := "yes"
		if !r.Finished {
			done = "no"
		}
		fmt.Fprintf(stdout, "%8d %8d %6d %5d %9s %10.1f %10.1f %10.1f  %-28s %8.1f %8.1f %9.1f\n", r.Classes, r.TrainSets, r.Frames, r.Dim, done, r.WallSeconds, r.UserSeconds+r.SysSeconds, r.PeakRSSMiB, r.Deployed, r.Accuracy, r.ClosedSet, r.MsPerQuery)
		if r.Error != "" {
			fmt.Fprintf(stdout, "         %s\n", r.Error)
		}
		if r.Candidates != "" {
			fmt.Fprintf(stdout, "         candidates: %s\n", r.Candidates)
		}
	}
	if plotPath != "" {
		pts := make([]report.ScalePoint, len(runs))
		for i, r := range runs {
			wall, mem := r.WallSeconds, r.PeakRSSMiB
			if !r.Finished {
				wall, mem = math.NaN(), math.NaN()
			}
			pts[i] = report.ScalePoint{X: float64(r.TrainSets), Values: []float64{wall, mem}}
		}
		title := fmt.Sprintf("setmatch train on synthetic %s data", kind)
		if err := report.ScalingPlot(plotPath, pts, "training sets", []string{"wall time (s)", "peak memory (MiB)"}, title); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "bench: wrote %s\n", plotPath)
	}
	return nil
}

// benchTrainOne generates one size's data, trains on it in a child
// process and decides the held-out sets with the model.
func benchTrainOne(exe, root string, sz benchTrainSize, o benchTrainAutoOptions, stderr io.Writer) (benchTrainRun, error) {
	r := benchTrainRun{Kind: o.kind.String(), Classes: sz.Classes, SetsPerClass: sz.Sets, TrainSets: sz.Classes * sz.Sets, Frames: sz.Frames, Dim: sz.Dim}
	name := fmt.Sprintf("%dx%dx%dx%d", sz.Classes, sz.Sets, sz.Frames, sz.Dim)
	dir := filepath.Join(root, name)
	trainDir, probeDir, modelPath, logPath := filepath.Join(dir, "train"), filepath.Join(dir, "probe"), filepath.Join(dir, "model.smm"), filepath.Join(dir, "train.log")
	if err := os.RemoveAll(dir); err != nil {
		return r, err
	}
	fmt.Fprintf(stderr, "bench: generating %s (%d classes × %d + %d sets × %d frames × %d features)...\n", name, sz.Classes, sz.Sets, o.probes, sz.Frames, sz.Dim)
	ds, err := synth.Generate(synth.Options{Kind: o.kind, Classes: sz.Classes, Sets: sz.Sets + o.probes, Frames: sz.Frames, Dim: sz.Dim, Seed: o.seed})
	if err != nil {
		return r, err
	}
	train, probe := &dataset.Dataset{Classes: ds.Classes}, &dataset.Dataset{Classes: ds.Classes}
	seen := map[string]int{}
	for _, s := range ds.Sets {
		if seen[s.Class] < sz.Sets {
			train.Sets = append(train.Sets, s)
			r.TrainFrames += sz.Frames
		} else {
			probe.Sets = append(probe.Sets, s)
		}
		seen[s.Class]++
	}
	r.ProbeSets = len(probe.Sets)
	if err := dataset.Write(trainDir, train); err != nil {
		return r, err
	}
	if err := dataset.Write(probeDir, probe); err != nil {
		return r, err
	}
	ds, train, probe = nil, nil, nil
	runtime.GC()

	ctx := context.Background()
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	log, err := os.Create(logPath)
	if err != nil {
		return r, err
	}
	defer log.Close()
	args := []string{"train", "--data", trainDir, "--out", modelPath}
	if o.workers > 0 {
		args = append(args, "--workers", strconv.Itoa(o.workers))
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if len(o.env) > 0 {
		cmd.Env = append(os.Environ(), o.env...)
	}
	fmt.Fprintf(stderr, "bench: setmatch %s\n", strings.Join(args, " "))
	start := time.Now()
	runErr := cmd.Run()
	r.WallSeconds = time.Since(start).Seconds()
	if st := cmd.ProcessState; st != nil {
		r.UserSeconds, r.SysSeconds = st.UserTime().Seconds(), st.SystemTime().Seconds()
		if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
			r.PeakRSSMiB = float64(ru.Maxrss) / 1024 // kB on Linux
		}
	}
	if o.keep != "" {
		r.Log = logPath
	}
	switch {
	case ctx.Err() != nil:
		r.Error = fmt.Sprintf("not finished in %s (stopped); peak memory until then", o.timeout)
		return r, nil
	case runErr != nil:
		r.Error = fmt.Sprintf("train failed: %v (see %s)", runErr, logPath)
		return r, nil
	}
	r.Finished = true
	m, _, err := model.ReadFile(modelPath)
	if err != nil {
		return r, err
	}
	r.Deployed = m.MethodName()
	var cs []string
	for _, c := range m.Selection.Candidates {
		what := strings.TrimSpace(string(c.Name) + " " + c.Params)
		if math.IsNaN(c.CVAccuracy) {
			cs = append(cs, what+" -")
		} else {
			cs = append(cs, fmt.Sprintf("%s %.1f%%", what, 100*c.CVAccuracy))
		}
	}
	r.Candidates = strings.Join(cs, ", ")
	mt, err := m.NewMatcherWorkers(o.workers)
	if err != nil {
		return r, err
	}
	pds, err := dataset.Load(probeDir, dataset.Options{Limits: setfile.DefaultLimits()})
	if err != nil {
		return r, err
	}
	var spent time.Duration
	right, closed := 0, 0
	for _, s := range pds.Sets {
		t0 := time.Now()
		res, err := mt.Match(s.Frames)
		spent += time.Since(t0)
		if err != nil {
			return r, fmt.Errorf("%s/%s: %w", s.Class, s.Name, err)
		}
		d := res.Decision
		if d.Known && d.Label == s.Class {
			right++
		}
		if d.Best >= 0 && m.Sets[d.Best].Label == s.Class {
			closed++
		}
	}
	n := float64(len(pds.Sets))
	r.Accuracy, r.ClosedSet = 100*float64(right)/n, 100*float64(closed)/n
	r.MsPerQuery = float64(spent.Microseconds()) / 1000 / n
	return r, nil
}
