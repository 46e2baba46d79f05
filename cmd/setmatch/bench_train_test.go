package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testexec"
	"setmatch/method"
	"setmatch/synth"
)

// TestMain lets the test binary stand in for setmatch in the child
// processes of setmatch bench train (TestBenchTrainAuto).
func TestMain(m *testing.M) {
	if os.Getenv("SETMATCH_TEST_AS_MAIN") == "1" {
		os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestParseBenchSizes(t *testing.T) {
	got, err := parseBenchSizes("100x2x18x944, 1000x3x20x256")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (benchTrainSize{100, 2, 18, 944}) || got[1] != (benchTrainSize{1000, 3, 20, 256}) {
		t.Errorf("got %+v", got)
	}
	for _, bad := range []string{"", "100x2x18", "2x2x18x944", "10x2x3x5", "10x2xAx5", "10x0x8x5"} {
		if _, err := parseBenchSizes(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
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
	o := benchTrainAutoOptions{exe: os.Args[0], env: []string{"SETMATCH_TEST_AS_MAIN=1"},
		sizes: []benchTrainSize{{4, 2, 6, 5}, {5, 3, 6, 5}}, kind: synth.Lighting, probes: 1, seed: 3,
		timeout: 3 * time.Minute, plot: plot, keep: filepath.Join(dir, "runs")}
	if err := benchTrainAuto(&out, &errb, o, true); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	dec := json.NewDecoder(&out)
	for i := range o.sizes {
		var r benchTrainRun
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("size %d: %v", i, err)
		}
		if !r.Finished || r.Error != "" {
			log, _ := os.ReadFile(r.Log)
			t.Fatalf("size %d did not finish: %s\n%s", i, r.Error, log)
		}
		if r.TrainSets != o.sizes[i].Classes*o.sizes[i].Sets || r.ProbeSets != o.sizes[i].Classes || r.PeakRSSMiB <= 0 || r.WallSeconds <= 0 {
			t.Errorf("size %d: %+v", i, r)
		}
		if r.Accuracy < 0 || r.Accuracy > 100 || r.ClosedSet < r.Accuracy || r.ClosedSet > 100 || r.Deployed == "" || !strings.Contains(r.Candidates, "%") {
			t.Errorf("size %d: accuracy %v, closed set %v, deployed %q, candidates %q", i, r.Accuracy, r.ClosedSet, r.Deployed, r.Candidates)
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
	runs, err := readBenchRuns(filepath.Join(o.keep, "runs.jsonl"))
	if err != nil || len(runs) != len(o.sizes) {
		t.Fatalf("runs.jsonl: %d outcomes (%v), want %d", len(runs), err, len(o.sizes))
	}
	var table bytes.Buffer
	again := filepath.Join(dir, "again.png")
	if err := benchTrainReport(&table, &errb, runs, "lighting", again, false); err != nil {
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
// memory the choice needs is more than the machine has, and is silent
// otherwise or when the machine's memory is not known.
func TestCheckTrainMemory(t *testing.T) {
	ds, err := synth.Generate(synth.Options{Kind: synth.Lighting, Classes: 10, Sets: 2, Frames: 8, Dim: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	g := method.DefaultGrid()
	for _, c := range []struct {
		have int64
		warn bool
	}{{1 << 20, true}, {1 << 40, false}, {0, false}} {
		var b bytes.Buffer
		checkTrainMemory(ds, g, 2, c.have, &b)
		if got := strings.Contains(b.String(), "warning: this run needs about"); got != c.warn {
			t.Errorf("%d bytes: warned %v, want %v (%q)", c.have, got, c.warn, b.String())
		}
	}
}
