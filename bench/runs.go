package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

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
// error naming the file, not the end of the records.
func ReadRuns(path string) ([]Run, error) {
	// Opened without blocking: a pipe (/dev/stdin, <(…)) is read as it
	// comes, and a named FIFO no one writes to reads as empty rather than
	// waiting for a writer forever.
	f, err := regfile.OpenAny(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var runs []Run
	dec := json.NewDecoder(f)
	for {
		var r Run
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: %w (want the runs.jsonl a sweep keeps, or its outcomes as JSON objects, one after the other)", path, ErrNoRuns)
	}
	return runs, nil
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
