package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/bench"
	"setmatch/internal/bytesize"
	"setmatch/internal/testexec"
	"setmatch/method"
	"setmatch/synth"
)

// TestMain lets the test binary stand in for setmatch in the child
// processes of setmatch bench train (TestBenchTrainAuto); with
// SETMATCH_TEST_TRAIN_HANG=FILE too, its train makes FILE, to say it
// runs, and sleeps for a minute instead (TestBenchTrainInterrupted).
func TestMain(m *testing.M) {
	if os.Getenv("SETMATCH_TEST_AS_MAIN") == "1" {
		if hang := os.Getenv("SETMATCH_TEST_TRAIN_HANG"); hang != "" && len(os.Args) > 1 && os.Args[1] == "train" {
			os.WriteFile(hang, nil, 0o644)
			time.Sleep(time.Minute)
			os.Exit(1)
		}
		os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestBenchTrainAuto runs setmatch bench train on two small sizes: train
// runs in a child process (this test binary as setmatch), finishes, and
// its time, peak memory and the model's accuracy on the held-out sets
// are reported, as JSON, and plotted.
func TestBenchTrainAuto(t *testing.T) {
	if testexec.Emulated() {
		t.Skip("child processes under qemu-user")
	}
	dir := t.TempDir()
	plot := filepath.Join(dir, "scale.png")
	var out, errb bytes.Buffer
	o := bench.SweepOptions{Exe: os.Args[0], Env: []string{"SETMATCH_TEST_AS_MAIN=1"},
		Sizes: []bench.Size{{Classes: 4, Sets: 2, Frames: 6, Dim: 5}, {Classes: 5, Sets: 3, Frames: 6, Dim: 5}}, Kind: synth.Lighting, Probes: 1, Seed: 3,
		Timeout: 3 * time.Minute, Keep: filepath.Join(dir, "runs")}
	if err := benchTrainAuto(context.Background(), &out, &errb, o, plot, true); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	dec := json.NewDecoder(&out)
	for i := range o.Sizes {
		var r bench.Run
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("size %d: %v", i, err)
		}
		if !r.Finished || r.Error != "" {
			log, _ := os.ReadFile(r.Log)
			t.Fatalf("size %d did not finish: %s\n%s", i, r.Error, log)
		}
		if r.TrainSets != o.Sizes[i].Classes*o.Sizes[i].Sets || r.ProbeSets != o.Sizes[i].Classes || r.PeakRSSMiB == nil || *r.PeakRSSMiB <= 0 || r.WallSeconds <= 0 {
			t.Errorf("size %d: %+v", i, r)
		}
		if r.Accuracy == nil || r.ClosedSet == nil || r.MsPerQuery == nil {
			t.Fatalf("size %d: a finished run without accuracy %v, closed set %v or ms per query %v", i, r.Accuracy, r.ClosedSet, r.MsPerQuery)
		}
		if *r.Accuracy < 0 || *r.Accuracy > 100 || *r.ClosedSet < *r.Accuracy || *r.ClosedSet > 100 || r.Deployed == "" || !strings.Contains(r.Candidates, "%") {
			t.Errorf("size %d: accuracy %v, closed set %v, deployed %q, candidates %q", i, *r.Accuracy, *r.ClosedSet, r.Deployed, r.Candidates)
		}
	}
	f, err := os.Open(plot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("plot: %v", err)
	}
	// The outcomes kept in runs.jsonl print and plot again (--from).
	runs, err := bench.ReadRuns(filepath.Join(o.Keep, "runs.jsonl"))
	if err != nil || len(runs) != len(o.Sizes) {
		t.Fatalf("runs.jsonl: %d outcomes (%v), want %d", len(runs), err, len(o.Sizes))
	}
	var table bytes.Buffer
	again := filepath.Join(dir, "again.png")
	if err := benchTrainReport(&table, &errb, runs, again, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "ms/query") || strings.Count(table.String(), "candidates:") != len(runs) {
		t.Errorf("table from runs.jsonl:\n%s", table.String())
	}
	if _, err := os.Stat(again); err != nil {
		t.Error(err)
	}
}

// TestCheckTrainMemory: train warns before it starts when the working
// memory the choice needs is more than the machine has (by a byte
// included), and is silent otherwise (the same memory included) or when
// the machine's memory is not known. Its sizes are in the project's one
// wording of a size (bytesize.Over, exact where the need and the
// memory would read the same): a machine of 1 MiB is not said as
// "0.0 GiB".
func TestCheckTrainMemory(t *testing.T) {
	ds, err := synth.Generate(synth.Options{Kind: synth.Lighting, Classes: 10, Sets: 2, Frames: 8, Dim: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	g := method.DefaultGrid()
	counts, _ := ds.FrameCounts()
	need, live := method.MemoryNeed(counts, ds.Dim(), ds.Labels(), g, 2, 1)
	for _, c := range []struct {
		have int64
		warn bool
	}{{1 << 20, true}, {1 << 40, false}, {0, false}, {need - 1, true}, {need, false}} {
		var b bytes.Buffer
		checkTrainMemory(ds, g, 2, 1, c.have, &b)
		if got := strings.Contains(b.String(), "warning: this run needs about"); got != c.warn {
			t.Errorf("%d bytes: warned %v, want %v (%q)", c.have, got, c.warn, b.String())
		}
		if !c.warn {
			continue
		}
		n, h := bytesize.Over(float64(need), float64(c.have))
		for _, want := range []string{
			"about " + n + " of memory (" + bytesize.Of(float64(live)) + " of working data",
			"more than the " + h + " this machine has",
		} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%d bytes: %q, want %q in it", c.have, b.String(), want)
			}
		}
	}
}
