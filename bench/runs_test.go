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
	recs := `{"kind":"lighting","classes":5,"training_sets":10,"frames_per_set":4,"dim":4,"finished":true,"wall_seconds":1,"user_seconds":1,"sys_seconds":0}
{"kind":"lighting","classes":15,"training_sets":30,"frames_per_set":4,"dim":4,"finished":true,"wall_seconds":1,"user_seconds":1,"sys_seconds":0}
{"kind":"lighting","classes":50,"training_sets":100,"fini`
	if err := os.WriteFile(path, []byte(recs), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := ReadRuns(path)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("ReadRuns of a record cut short: %d runs, %v; want an error naming the file", len(runs), err)
	}
}

// TestReadRunsRefusesNonOutcomes: a record that is not an outcome of
// bench train (an empty object, a key of the row missing, a count or a
// time below 0, a figure past what can be measured) is refused, naming
// the file, the line the record begins on and the field; it was printed
// as a row of zeros, or of -3 classes and -2 s, and plotted.
func TestReadRunsRefusesNonOutcomes(t *testing.T) {
	const good = `{"kind":"lighting","classes":5,"sets_per_class":2,"training_sets":10,"training_frames":40,"frames_per_set":4,"dim":4,"finished":true,"wall_seconds":1.5,"user_seconds":2,"sys_seconds":0.1,"peak_rss_mib":20,"probe_sets":5,"accuracy":80,"closed_accuracy":100,"ms_per_query":0.2}`
	with := func(key, value string) string {
		t.Helper()
		i := strings.Index(good, `"`+key+`":`)
		if i < 0 {
			t.Fatalf("no %s in the record", key)
		}
		j := i + len(key) + 3
		k := j + strings.IndexAny(good[j:], ",}")
		return good[:j] + value + good[k:]
	}
	dir := t.TempDir()
	for _, c := range []struct{ recs, want string }{
		{"{}", `line 1: no "kind", "classes", "training_sets", "frames_per_set", "dim", "finished", "wall_seconds", "user_seconds", "sys_seconds"`},
		{good + "\n" + strings.Replace(good, `"classes":5,`, "", 1), `line 2: no "classes"`},
		{good + "\n" + with("training_sets", "null"), `line 2: no "training_sets"`},
		{good + "\n\n" + with("classes", "-3"), "line 3: classes: -3, want at least 1"},
		// A record is named by the line it begins on, past records and
		// blank lines of several lines each.
		{"{\n" + good[1:] + "\n\n\n  {\n\"kind\": \"x\"\n}\n" + good, `line 5: no "classes"`},
		{with("training_sets", "0"), "line 1: training_sets: 0, want at least 1"},
		{with("probe_sets", "-1"), "line 1: probe_sets: -1, want at least 0"},
		{with("wall_seconds", "-2"), "line 1: wall_seconds: -2 is negative"},
		{with("sys_seconds", "1e300"), "line 1: sys_seconds: 1e+300 is more than the 292 years"},
		{with("wall_seconds", "1e400"), "line 1: wall_seconds: got number 1e400, want a finite number"},
		{with("peak_rss_mib", "1e308"), "line 1: peak_rss_mib: 1e+308 is more than a 64-bit address space"},
		{with("peak_rss_mib", "-1"), "line 1: peak_rss_mib: -1 is negative"},
		{with("accuracy", "101"), "line 1: accuracy: 101 is more than 100 percent"},
		{with("ms_per_query", "-0.5"), "line 1: ms_per_query: -0.5 is negative"},
		{with("classes", "2.5"), "line 1: classes: got number 2.5, want a whole number"},
		{good + "\n  \n  null", "line 3: null is not an outcome of bench train"},
		{"[1, 2]", "line 1: [1, 2] is not an outcome of bench train"},
	} {
		path := filepath.Join(dir, "runs.jsonl")
		if err := os.WriteFile(path, []byte(c.recs), 0o644); err != nil {
			t.Fatal(err)
		}
		runs, err := ReadRuns(path)
		if err == nil || !strings.HasPrefix(err.Error(), path+": "+c.want) {
			t.Errorf("%s\n%d runs, %v\nwant %q", c.recs, len(runs), err, path+": "+c.want)
		}
	}
	// The outcomes bench train writes are read: null where a figure was
	// not measured, a record over several lines, an unfinished run.
	recs := good + "\n" + with("accuracy", "null") + "\n" + strings.ReplaceAll(with("finished", "false"), ",", ",\n")
	path := filepath.Join(dir, "runs.jsonl")
	if err := os.WriteFile(path, []byte(recs), 0o644); err != nil {
		t.Fatal(err)
	}
	if runs, err := ReadRuns(path); err != nil || len(runs) != 3 || runs[1].Accuracy != nil || runs[2].Finished || runs[2].Classes != 5 {
		t.Errorf("%d runs, %v; want 3", len(runs), err)
	}
}
