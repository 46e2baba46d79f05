package deploy

import (
	"fmt"
	"io"
	"strings"
	"time"

	"setmatch/method"
)

// ProgressLines returns an Options.Progress that writes the progress of
// the cross-validation to w, one line per run, as setmatch train prints
// it: runs made of runs to make, and, once that total has changed, the
// runs no longer made and why.
func ProgressLines(w io.Writer) func(method.AutoProgress) {
	return func(p method.AutoProgress) {
		left := fmt.Sprintf("about %s left", p.ETA.Round(time.Second))
		if len(p.Untimed) > 0 {
			left = fmt.Sprintf("at least %s left (%s not timed yet)", p.ETA.Round(time.Second), strings.Join(p.Untimed, ", "))
		}
		var why []string
		if n := p.CutShort + p.LeftOut; n > 0 {
			why = append(why, fmt.Sprintf("%s not made, of candidates %s, as they cannot change the choice", runs(n), cutOrLeft(p.CutShort, p.LeftOut)))
		}
		if p.Failed > 0 {
			why = append(why, fmt.Sprintf("%s of failed candidates not made", runs(p.Failed)))
		}
		changed := ""
		if len(why) > 0 {
			changed = "; " + strings.Join(why, "; ")
		}
		fmt.Fprintf(w, "train: cross-validation %d/%d (%s), %s elapsed, %s%s\n",
			p.Done, p.Total, p.Candidate, p.Elapsed.Round(time.Second), left, changed)
	}
}

// cutOrLeft says which candidates the runs not made are of, in the
// words of the summary's count of candidates (WriteSummary): "cut short",
// "left out", or with some of each "cut short (cut) and left out (left)",
// runs of each.
func cutOrLeft(cut, left int) string {
	switch {
	case left == 0:
		return "cut short"
	case cut == 0:
		return "left out"
	}
	return fmt.Sprintf("cut short (%d) and left out (%d)", cut, left)
}

// runs is n runs, in words.
func runs(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// StageLines returns an Options.Stage that writes each stage to w on a
// line of its own, with the time since StageLines was called, as setmatch
// train prints it.
func StageLines(w io.Writer) func(string) {
	t0 := time.Now()
	return func(what string) {
		fmt.Fprintf(w, "train: %s, %s elapsed\n", what, time.Since(t0).Round(time.Second))
	}
}

// WriteTrainLines writes what setmatch train says of the result once it
// is built: the learning of W, when there was one, and the summary of the
// choice (WriteSummary), every line prefixed "train: ".
func (r *Result) WriteTrainLines(w io.Writer) {
	if tr := r.Trained; tr != nil {
		fmt.Fprintf(w, "train: %d iterations (%s), cost %.6g -> %.6g, affinity ν_w = %d, ν_b = %d (%d pairs), %.1fs\n",
			tr.Iterations, tr.Stop, tr.InitialCost, tr.FinalCost, tr.NuW, tr.NuB, len(tr.Pairs), tr.Seconds)
	}
	r.WriteSummary(prefixWriter{w, "train: "})
}

// prefixWriter writes every line with a prefix.
type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p prefixWriter) Write(b []byte) (int, error) {
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l != "" {
			if _, err := io.WriteString(p.w, p.prefix+l); err != nil {
				return 0, err
			}
		}
	}
	return len(b), nil
}
