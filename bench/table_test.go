package bench

import (
	"bytes"
	"strings"
	"testing"
)

func TestMatchResultWriteTable(t *testing.T) {
	r := MatchResult{Gallery: 3, Frames: 4, Dim: 2, QueryFrames: 5, Bandwidth: "nn", Workers: 1, MsPerQuery: 1.5, MsP99: 2, MsMin: 1,
		UsPerDistance: 500, BytesPerQuery: 64, ScratchBytes: 128, SetupMs: 0.25, GOARCH: "amd64", CPU: "cpu", GOMAXPROCS: 2}
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `gallery matcher: 3 sets × 4 frames, d = 2, query 5 frames, bandwidth nn
machine: cpu, amd64, GOMAXPROCS 2, 1 workers

  ms per query (median)               1.500
  ms per query (p99)                  2.000
  ms per query (fastest)              1.000
  µs per distance (median)          500.000
  heap bytes per query                   64
  working bytes per query               128
  gallery setup ms                      0.2
`
	if b.String() != want {
		t.Errorf("table\n%s\nwant\n%s", b.String(), want)
	}
}

func TestTrainResultWriteTable(t *testing.T) {
	r := TrainResult{Sets: 6, Classes: 2, Frames: 4, InDim: 10, OutDim: 2, Pairs: 12, Iterations: 3, SecPerIter: 0.5,
		SecPerIterMax: 1, SecTotal: 2, InitialCost: -1, FinalCost: -2, Stop: "max-iter", GOARCH: "arm64", CPU: "cpu", GOMAXPROCS: 4}
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `training: 6 sets (2 classes) × 4 frames, D = 10 → d = 2, 12 affinity pairs
machine: cpu, arm64, GOMAXPROCS 4

  s per iteration (median)            0.500
  s per iteration (slowest)           1.000
  iterations                              3
  s total                              2.00
  cost                                   -1 → -2 (max-iter)
`
	if b.String() != want {
		t.Errorf("table\n%s\nwant\n%s", b.String(), want)
	}
}

// TestTrainResultNoIteration: a run that stopped at its start (the
// gradient already below its tolerance) timed no iteration, and says so;
// it printed "s per iteration (median) 0.000".
func TestTrainResultNoIteration(t *testing.T) {
	r := TrainResult{Sets: 4, Classes: 2, Frames: 4, InDim: 2, OutDim: 2, Pairs: 4, Iterations: 0, SecTotal: 0.001,
		InitialCost: -5, FinalCost: -5, Stop: "gradient norm below tolerance", GOARCH: "amd64", CPU: "cpu", GOMAXPROCS: 2}
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  s per iteration (median)                -\n", "  s per iteration (slowest)               -\n", "  iterations                              0\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table\n%s\nwants the line %q", b.String(), want)
		}
	}
}

func TestWriteRuns(t *testing.T) {
	acc, closed, ms := 75.0, 100.0, 1.0
	runs := []Run{{Kind: "lighting", Machine: "cpu, arm64, 4 CPUs", Classes: 4, TrainSets: 8, Frames: 6, Dim: 10, Finished: true, WallSeconds: 2, UserSeconds: 1, SysSeconds: 0.5, PeakRSSMiB: new(30.0),
		Deployed: "nn-h", Accuracy: &acc, ClosedSet: &closed, MsPerQuery: &ms, Candidates: "nn-h 75%"},
		{Kind: "lighting", Classes: 8, TrainSets: 16, Frames: 6, Dim: 10, Error: "timed out"}}
	var b bytes.Buffer
	if err := WriteRuns(&b, runs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if lines[0] != "setmatch train (defaults) on synthetic lighting data; machine: cpu, arm64, 4 CPUs; not recorded" || len(lines) != 8 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	// The sets column counts the training sets, classes × sets per class
	// (--sizes gives the sets per class), and says so.
	if !strings.HasPrefix(lines[2], " classes train sets frames") {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	want := []string{
		"       4          8      6    10       yes        2.0        1.5       30.0  nn-h                             75.0    100.0       1.0",
		"         candidates: nn-h 75%",
		"       8         16      6    10        no        0.0        0.0          -                                      -        -         -",
		"         timed out",
	}
	for i, w := range want {
		if lines[3+i] != w {
			t.Errorf("line %d\n%q\nwant\n%q", 3+i, lines[3+i], w)
		}
	}
}
