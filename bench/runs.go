package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"setmatch/internal/regfile"
	"setmatch/report"
)

// appendRun appends r as one line of JSON to the file path.
func appendRun(path string, r Run) error {
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

// ErrNoRuns is ReadRuns' error of a file that holds no outcome.
var ErrNoRuns = errors.New("no outcomes")

// ReadRuns reads the outcomes of a sweep, one JSON object after the
// other (a runs.jsonl of SweepOptions.Keep, or the output of setmatch
// bench train --json). A record cut short (a file truncated) is an
// error naming the file, not the end of the records; so is a record
// that is not an outcome (checkRun), naming its line and the field.
func ReadRuns(path string) ([]Run, error) {
	// Opened without blocking: a pipe (/dev/stdin, <(…)) is read as it
	// comes, and a named FIFO no one writes to reads as empty rather than
	// waiting for a writer forever.
	f, err := regfile.OpenAny(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lines := &lineCounter{r: f}
	var runs []Run
	dec := json.NewDecoder(lines)
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r, err := decodeRun(raw)
		if err != nil {
			// The record's line, counted only for its error: one past
			// the newlines read, less those of the record and of what
			// the decoder has read beyond it.
			ahead, _ := io.ReadAll(dec.Buffered())
			line := 1 + lines.newlines - bytes.Count(raw, newline) - bytes.Count(ahead, newline)
			return nil, fmt.Errorf("%s: line %d: %w", path, line, err)
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: %w (want the runs.jsonl a sweep keeps, or its outcomes as JSON objects, one after the other)", path, ErrNoRuns)
	}
	return runs, nil
}

// lineCounter reads r and counts the newlines it read.
type lineCounter struct {
	r        io.Reader
	newlines int
}

var newline = []byte{'\n'}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.newlines += bytes.Count(p[:n], newline)
	return n, err
}

// runFields are the keys of Run every record must have: those of its
// row in the table and of its point in the plot that would read as 0
// (or false) when missing. Every sweep has written them.
var runFields = []string{"kind", "classes", "training_sets", "frames_per_set", "dim", "finished", "wall_seconds", "user_seconds", "sys_seconds"}

// maxSeconds is the longest time a record may hold: the longest a
// time.Duration measures, about 292 years.
var maxSeconds = time.Duration(math.MaxInt64).Seconds()

// maxMiB is the most memory a record may hold: a 64-bit address space,
// in MiB.
const maxMiB = 1 << 44

// decodeRun returns the outcome of one record, or why it is none: not a
// JSON object, a key of runFields missing, or a value out of its range.
func decodeRun(raw json.RawMessage) (Run, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil || keys == nil {
		return Run{}, fmt.Errorf("%.40s is not an outcome of bench train (a JSON object)", raw)
	}
	var missing []string
	for _, k := range runFields {
		if v, ok := keys[k]; !ok || string(v) == "null" {
			missing = append(missing, strconv.Quote(k))
		}
	}
	if len(missing) > 0 {
		return Run{}, fmt.Errorf("no %s: not an outcome of bench train, whose every record has them", strings.Join(missing, ", "))
	}
	var r Run
	if err := json.Unmarshal(raw, &r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			want := map[reflect.Kind]string{reflect.Int: "a whole number", reflect.Float64: "a finite number", reflect.Pointer: "a finite number or null", reflect.Bool: "true or false", reflect.String: "a string"}[te.Type.Kind()]
			return Run{}, fmt.Errorf("%s: got %s, want %s", te.Field, te.Value, want)
		}
		return Run{}, err
	}
	return r, checkRun(r)
}

// checkRun reports whether the figures of r are in their ranges: the
// counts of the data at least 1 (the held-out sets and training frames
// at least 0), times from 0 to maxSeconds, the peak memory from 0 to
// maxMiB, the shares from 0 to 100 percent, the time of a query from 0
// to maxSeconds. The error names the field by its JSON key.
func checkRun(r Run) error {
	for _, c := range []struct {
		key   string
		v, lo int
	}{{"classes", r.Classes, 1}, {"training_sets", r.TrainSets, 1}, {"frames_per_set", r.Frames, 1}, {"dim", r.Dim, 1},
		{"sets_per_class", r.SetsPerClass, 0}, {"training_frames", r.TrainFrames, 0}, {"probe_sets", r.ProbeSets, 0}} {
		if c.v < c.lo {
			return fmt.Errorf("%s: %d, want at least %d", c.key, c.v, c.lo)
		}
	}
	const (
		years = "the 292 years a time can measure"
		mem   = "a 64-bit address space (16 EiB)"
		pct   = "100 percent"
	)
	for _, c := range []struct {
		key  string
		v    *float64
		hi   float64
		what string
	}{{"wall_seconds", &r.WallSeconds, maxSeconds, years}, {"user_seconds", &r.UserSeconds, maxSeconds, years}, {"sys_seconds", &r.SysSeconds, maxSeconds, years},
		{"peak_rss_mib", r.PeakRSSMiB, maxMiB, mem}, {"accuracy", r.Accuracy, 100, pct}, {"closed_accuracy", r.ClosedSet, 100, pct}, {"ms_per_query", r.MsPerQuery, maxSeconds * 1000, years}} {
		switch {
		case c.v == nil:
		case *c.v < 0:
			return fmt.Errorf("%s: %g is negative", c.key, *c.v)
		case !(*c.v <= c.hi):
			return fmt.Errorf("%s: %g is more than %s", c.key, *c.v, c.what)
		}
	}
	return nil
}

// Plot writes the wall time and the peak memory of the runs against the
// number of training sets, log-log, to the PNG file path (report.ScalingPlot),
// titled by the kind of data the runs record; a run not finished is left
// out.
func Plot(path string, runs []Run) error {
	pts := make([]report.ScalePoint, len(runs))
	for i, r := range runs {
		wall, mem := r.WallSeconds, math.NaN()
		if r.PeakRSSMiB != nil {
			mem = *r.PeakRSSMiB
		}
		if !r.Finished {
			wall, mem = math.NaN(), math.NaN()
		}
		pts[i] = report.ScalePoint{X: float64(r.TrainSets), Values: []float64{wall, mem}}
	}
	title := fmt.Sprintf("setmatch train on synthetic %s data", RunsKind(runs))
	return report.ScalingPlot(path, pts, "training sets", []string{"wall time (s)", "peak memory (MiB)"}, title)
}
