package learn

import (
	"encoding/json"
	"fmt"
	"io"
)

// IterLog is one iteration as setmatch train --log-json writes it: one
// JSON object per line.
type IterLog struct {
	Iteration int     `json:"iteration"`
	Cost      float64 `json:"cost"`
	GradNorm  float64 `json:"grad_norm"`
	Step      float64 `json:"step"`
	Seconds   float64 `json:"seconds"`
	Evals     int     `json:"evals"`
	Restart   bool    `json:"restart"`
}

// ProgressLines returns a TrainOptions.Progress that writes one line per
// iteration to w, as setmatch train prints them, with the time at most
// left of total iterations (MaxIter × Rounds). With log not nil, it also
// writes each iteration to log as an IterLog; logErr returns the first
// error of those writes (after which it writes no more of them).
func ProgressLines(w, log io.Writer, total int) (progress func(IterStats), logErr func() error) {
	var err error
	var enc *json.Encoder
	if log != nil {
		enc = json.NewEncoder(log)
	}
	progress = func(s IterStats) {
		left := ""
		if s.Iteration > 0 && s.Iteration < total {
			left = fmt.Sprintf("  at most %.0fs left", s.Seconds/float64(s.Iteration)*float64(total-s.Iteration))
		}
		fmt.Fprintf(w, "iter %4d/%d  cost %-13.7g  grad %-10.4g  step %-10.4g  evals %2d  %6.2fs%s\n",
			s.Iteration, total, s.Cost, s.GradNorm, s.Step, s.Evals, s.Seconds, left)
		if enc != nil && err == nil {
			err = enc.Encode(IterLog{Iteration: s.Iteration, Cost: s.Cost, GradNorm: s.GradNorm,
				Step: s.Step, Seconds: s.Seconds, Evals: s.Evals, Restart: s.Restart})
		}
	}
	return progress, func() error { return err }
}
