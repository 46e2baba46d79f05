package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

// benchRefused runs setmatch with args and checks that it is refused as
// a usage error (exit 2) saying want, before it does anything.
func benchRefused(t *testing.T, want string, args ...string) {
	t.Helper()
	code, out, errOut := runCmd(args...)
	if code != 2 || !strings.Contains(errOut, want) || out != "" || strings.Contains(errOut, "generating") {
		t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 saying %q, before anything is generated", args, code, out, errOut, want)
	}
}

// TestBenchMatchSizeBound: sizes whose gallery and queries are more than
// a benchmark generates are refused before anything is allocated (they
// ran out of memory, 800 GB asked for in one piece here).
func TestBenchMatchSizeBound(t *testing.T) {
	benchRefused(t, "--gallery, --frames, --queries, --query-frames, --dim: the gallery and the queries would be 3e+11 numbers ((gallery sets × frames per set + queries × frames per query) × features per frame), more than the 268435456 (2 GiB) a benchmark generates: give smaller sizes",
		"bench", "--gallery", "2", "--frames", "100", "--dim", "1000000000", "--queries", "1")
	benchRefused(t, "--gallery: gallery sets must be at least 1, got 0", "bench", "--gallery", "0")
	benchRefused(t, "--query-frames: sets need at least 2 frames: a query has 1", "bench", "--query-frames", "1")
}

// TestBenchTrainSizeBound: a training benchmark of more sets than the
// divergences of every pair fit in 2 GiB, or of more data than synth
// makes, is refused before anything is generated (200000 classes × 2
// sets asked for a 1.28 TB matrix and died of it).
func TestBenchTrainSizeBound(t *testing.T) {
	benchRefused(t, "--classes, --sets: 200000 classes × 2 sets are more than the 16384 sets a training benchmark takes",
		"bench", "--mode", "train", "--classes", "200000", "--sets", "2", "--frames", "2", "--in-dim", "10", "--out-dim", "2")
	benchRefused(t, "more than the 4096 features per frame", "bench", "--mode", "train", "--in-dim", "5000")
	benchRefused(t, "--classes: the training benchmark needs ≥ 2 classes", "bench", "--mode", "train", "--classes", "1")
	benchRefused(t, "--out-dim, --in-dim: the training benchmark needs ≥ 2 classes, ≥ 2 sets per class, ≥ 2 frames a set and a learned dimension from 1 to the input dimension",
		"bench", "--mode", "train", "--in-dim", "5", "--out-dim", "6")
}

// TestBenchTrainMaxIter: --max-iter 0 or less is refused; it ran 100
// iterations (training's own default) and reported them.
func TestBenchTrainMaxIter(t *testing.T) {
	for _, n := range []string{"0", "-3"} {
		benchRefused(t, "--max-iter: the iteration cap must be at least 1, got "+n,
			"bench", "--mode", "train", "--classes", "2", "--sets", "2", "--frames", "4", "--in-dim", "5", "--out-dim", "2", "--max-iter", n)
	}
}

// TestBenchFlagOfOtherMode: a flag of the other mode is refused; it was
// ignored, and the run timed the defaults where the user had given a
// size (--mode train --dim 5 trained in the default 400 dimensions).
func TestBenchFlagOfOtherMode(t *testing.T) {
	small := []string{"--frames", "4", "--workers", "1"}
	benchRefused(t, "--dim is a flag of --mode match, not of --mode train",
		append([]string{"bench", "--mode", "train", "--classes", "2", "--sets", "2", "--in-dim", "5", "--out-dim", "2", "--max-iter", "1", "--dim", "5"}, small...)...)
	benchRefused(t, "--classes is a flag of --mode train, not of --mode match",
		append([]string{"bench", "--gallery", "2", "--query-frames", "2", "--queries", "1", "--dim", "1", "--classes", "5"}, small...)...)
	// The flags both modes take are taken by both.
	if code, _, errOut := runCmd(append([]string{"bench", "--gallery", "2", "--query-frames", "2", "--queries", "1", "--dim", "1", "--seed", "2", "--bandwidth", "1"}, small...)...); code != 0 {
		t.Errorf("match with its own flags: exit %d: %s", code, errOut)
	}
}

// TestBenchTrainNegativeTimeout: a negative --timeout is refused; it
// meant no limit at all.
func TestBenchTrainNegativeTimeout(t *testing.T) {
	t.Setenv("SETMATCH_TEST_AS_MAIN", "1") // a child run without the check is this binary as setmatch
	benchRefused(t, "--timeout must be ≥ 0 (0: no limit), got -1s", "bench", "train", "--sizes", "3x1x4x4", "--timeout", "-1s")
}

// TestBenchTrainSizeRefused: a size synth cannot generate is refused
// before anything is generated, after the flag that gave it.
func TestBenchTrainSizeRefused(t *testing.T) {
	benchRefused(t, "--sizes: size 3x1x4x5000, with 1 more held-out per class: dim 5000 is more than the 4096 features",
		"bench", "train", "--sizes", "3x1x4x4,3x1x4x5000")
}

// TestBenchTrainFromSaysWhatRecordsSay: --from prints the kind of data
// and the machine its records hold, not --kind's default and the machine
// it is printed on (a sweep of subspace data measured elsewhere was
// headed "synthetic lighting data; machine: <this one>").
func TestBenchTrainFromSaysWhatRecordsSay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	recs := `{"kind":"subspace","machine":"Test CPU, riscv64, 64 CPUs","classes":3,"sets_per_class":2,"training_sets":6,"frames_per_set":4,"dim":4,"finished":true,"wall_seconds":1,"user_seconds":1,"sys_seconds":0}
{"kind":"subspace","classes":5,"sets_per_class":2,"training_sets":10,"frames_per_set":4,"dim":4,"finished":true,"wall_seconds":1,"user_seconds":1,"sys_seconds":0}
`
	if err := os.WriteFile(path, []byte(recs), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd("bench", "train", "--from", path)
	want := "setmatch train (defaults) on synthetic subspace data; machine: Test CPU, riscv64, 64 CPUs; not recorded\n"
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("exit %d, %s\nwant it to begin %q", code, out+errOut, want)
	}
}

// TestBenchTrainFromRefusesSweepFlags: the flags of a sweep do nothing
// with --from, and are refused (a --kind or --sizes given with it was
// ignored); and a FIFO given to --from is refused, not waited on.
func TestBenchTrainFromRefusesSweepFlags(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "runs.jsonl")
	if err := os.WriteFile(path, []byte(`{"kind":"subspace","classes":3,"training_sets":6,"frames_per_set":4,"dim":4,"finished":true,"wall_seconds":1,"user_seconds":1,"sys_seconds":0}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range [][]string{{"--kind", "cone"}, {"--sizes", "5x2x12x64"}, {"--timeout", "1m"}, {"--keep", dir}, {"--seed", "2"}, {"--workers", "1"}, {"--probe-sets", "2"}} {
		benchRefused(t, f[0]+" does nothing with --from, which trains nothing", append([]string{"bench", "train", "--from", path}, f...)...)
	}
	if code, out, errOut := runCmd("bench", "train", "--from", path, "--json"); code != 0 || !strings.Contains(out, `"kind":"subspace"`) {
		t.Errorf("--from with --json: exit %d, %q %q", code, out, errOut)
	}
	fifo := testutil.FIFO(t, dir, "fifo")
	done := make(chan string, 1)
	go func() {
		_, _, errOut := runCmd("bench", "train", "--from", fifo)
		done <- errOut
	}()
	select {
	case errOut := <-done:
		if !strings.Contains(errOut, "fifo: no outcomes (want the runs.jsonl of --keep, or the output of --json)") {
			t.Errorf("--from FIFO: %q", errOut)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("--from a FIFO waits for a writer")
	}
	// A pipe (setmatch bench train --from /dev/stdin) is read.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.WriteString(`{"kind":"cone","classes":3,"training_sets":6,"frames_per_set":4,"dim":4,"finished":true,"wall_seconds":1,"user_seconds":1,"sys_seconds":0}` + "\n")
		w.Close()
	}()
	if code, out, errOut := runCmd("bench", "train", "--from", fmt.Sprintf("/proc/self/fd/%d", r.Fd())); code != 0 || !strings.Contains(out, "synthetic cone data") {
		t.Errorf("--from a pipe: exit %d, %q %q", code, out, errOut)
	}
}

// TestBenchTrainPlotCheckedFirst: a --plot name the plot cannot be
// written to is refused before the sweep; it was found after every size
// had trained.
func TestBenchTrainPlotCheckedFirst(t *testing.T) {
	t.Setenv("SETMATCH_TEST_AS_MAIN", "1") // a child run without the check is this binary as setmatch
	dir := t.TempDir()
	benchRefused(t, "--plot "+filepath.Join(dir, "x.svg")+": want a .png file name", "bench", "train", "--sizes", "3x1x4x4", "--plot", filepath.Join(dir, "x.svg"))
	missing := filepath.Join(dir, "no", "x.png")
	benchRefused(t, "--plot "+missing+": its folder "+filepath.Join(dir, "no")+" is not there", "bench", "train", "--sizes", "3x1x4x4", "--plot", missing)
}

// TestBenchDefaultBandwidth: without --bandwidth, --mode match times a
// fixed bandwidth of 1 and --mode train learns W with the nn rule, as
// -h says: the run is the one given that bandwidth, not another.
func TestBenchDefaultBandwidth(t *testing.T) {
	match := []string{"bench", "--json", "--gallery", "2", "--frames", "3", "--dim", "2", "--query-frames", "3", "--queries", "1"}
	code, stdout, stderr := runCmd(match...)
	var m struct {
		Bandwidth string `json:"bandwidth"`
	}
	if err := json.Unmarshal([]byte(stdout), &m); code != 0 || err != nil || m.Bandwidth != "1" {
		t.Errorf("bench --mode match: exit %d, bandwidth %q, want 1: %v\n%s", code, m.Bandwidth, err, stderr)
	}
	// One goroutine: the costs are the same from run to run.
	train := []string{"bench", "--mode", "train", "--json", "--classes", "3", "--sets", "2", "--frames", "12", "--in-dim", "6", "--out-dim", "2", "--max-iter", "1", "--workers", "1"}
	cost := func(extra ...string) float64 {
		t.Helper()
		code, stdout, stderr := runCmd(append(slices.Clone(train), extra...)...)
		var r struct {
			InitialCost *float64 `json:"initial_cost"`
		}
		if err := json.Unmarshal([]byte(stdout), &r); code != 0 || err != nil || r.InitialCost == nil {
			t.Fatalf("%q: exit %d, %v\n%s%s", extra, code, err, stdout, stderr)
		}
		return *r.InitialCost
	}
	def, nn, one := cost(), cost("--bandwidth", "nn"), cost("--bandwidth", "1")
	if def != nn || def == one {
		t.Errorf("bench --mode train: initial cost %v without --bandwidth, %v with nn, %v with 1: want nn's", def, nn, one)
	}
}

// TestBenchTrainKeepRefused: --keep with a size's folder there already
// is refused before anything is generated, saying what to do, and what
// was in the folder stays; a size given twice is refused too. The sweep
// deleted the folder and wrote the size in its place.
func TestBenchTrainKeepRefused(t *testing.T) {
	t.Setenv("SETMATCH_TEST_AS_MAIN", "1") // a child run without the check is this binary as setmatch
	keep := t.TempDir()
	notes := filepath.Join(keep, "3x1x4x4", "notes.txt")
	if err := os.Mkdir(filepath.Dir(notes), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notes, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	benchRefused(t, "--keep: "+filepath.Dir(notes)+" is there already (an earlier sweep's size?): the sweep keeps each size in a folder of its own and writes over nothing; give another folder to keep the sweep in, or remove "+filepath.Dir(notes),
		"bench", "train", "--sizes", "3x1x4x4", "--kind", "subspace", "--keep", keep)
	if b, err := os.ReadFile(notes); err != nil || string(b) != "x\n" {
		t.Errorf("%s: %q, %v; want it as it was", notes, b, err)
	}
	benchRefused(t, "--sizes: size 3x1x4x4 is given twice", "bench", "train", "--sizes", "3x1x4x4,3x1x4x4", "--keep", filepath.Join(keep, "other"))
	if _, err := os.Stat(filepath.Join(keep, "other")); err == nil {
		t.Error("the refused sweep made its keep folder")
	}
}

// TestBenchTrainFromRefusesNonOutcomes: --from a file of records that
// are not outcomes ({}, or negative figures) is refused naming the line
// and the field, and prints nothing; {} printed a row of zeros of
// "synthetic unknown data".
func TestBenchTrainFromRefusesNonOutcomes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	for _, c := range []struct{ recs, want string }{
		{"{}\n", `line 1: no "kind", "classes", "training_sets"`},
		{`{"kind":"subspace","classes":3,"training_sets":6,"frames_per_set":4,"dim":4,"finished":true,"wall_seconds":1,"user_seconds":1,"sys_seconds":0}` + "\n" +
			`{"kind":"x","classes":-3,"training_sets":5,"frames_per_set":4,"dim":4,"finished":true,"wall_seconds":-2,"user_seconds":1,"sys_seconds":0,"peak_rss_mib":1e308}` + "\n", "line 2: classes: -3, want at least 1"},
	} {
		if err := os.WriteFile(path, []byte(c.recs), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCmd("bench", "train", "--from", path, "--plot", filepath.Join(filepath.Dir(path), "p.png"))
		if code != 1 || out != "" || !strings.Contains(errOut, path+": "+c.want) {
			t.Errorf("%s: exit %d, %q %q; want exit 1 saying %q", c.recs, code, out, errOut, c.want)
		}
	}
}
