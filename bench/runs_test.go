package bench

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotLeavesOutUnfinished checks that Plot draws a run not finished
// (one that timed out, with the time and memory it had used) as if it
// were not there, and that the same run finished would be drawn.
func TestPlotLeavesOutUnfinished(t *testing.T) {
	runs := []Run{
		{Kind: "lighting", TrainSets: 10, Finished: true, WallSeconds: 1, PeakRSSMiB: new(20.0)},
		{Kind: "lighting", TrainSets: 100, Finished: true, WallSeconds: 8, PeakRSSMiB: new(60.0)},
		{Kind: "lighting", TrainSets: 1000, WallSeconds: 3600, PeakRSSMiB: new(900.0), Error: "timed out"},
	}
	plot := func(runs []Run) []byte {
		t.Helper()
		path := filepath.Join(t.TempDir(), "scaling.png")
		if err := Plot(path, runs); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	with, without := plot(runs), plot(runs[:2])
	if !bytes.Equal(with, without) {
		t.Error("a run not finished changed the plot")
	}
	runs[2].Finished = true
	if bytes.Equal(plot(runs), without) {
		t.Error("a third run finished did not change the plot")
	}
}

// TestReadRunsCutShort checks that ReadRuns refuses a file whose last
// record is cut short (a copy of a sweep's runs.jsonl truncated), naming
// the file, rather than reading the records before it as the whole sweep.
func TestReadRunsCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	recs := `{"kind":"lighting","training_sets":10,"finished":true}
{"kind":"lighting","training_sets":30,"finished":true}
{"kind":"lighting","training_sets":100,"fini`
	if err := os.WriteFile(path, []byte(recs), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := ReadRuns(path)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("ReadRuns of a record cut short: %d runs, %v; want an error naming the file", len(runs), err)
	}
}
