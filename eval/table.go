package eval

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"setmatch/method"
)

// Run names an evaluation run as its table and its JSON record head it.
type Run struct {
	Data     string // the data set's folder
	Features string // the features of the run, as the command names them
	Protocol Protocol
	Methods  []method.Name // the rows, in order
	Seed     uint64
	// LoadSeconds is the time the data took to load, counted in the total.
	LoadSeconds float64
}

// Record is the JSON record of a run of Evaluate (setmatch eval --json).
type Record struct {
	Methods       map[method.Name]*MethodResult `json:"methods"`
	Order         []method.Name                 `json:"order"`
	Protocol      string                        `json:"protocol"`
	Features      string                        `json:"features"`
	Data          string                        `json:"data"`
	Splits        int                           `json:"splits"`
	Seed          uint64                        `json:"seed"`
	LoadSeconds   float64                       `json:"load_seconds"`
	SharedSeconds float64                       `json:"shared_seconds"`
	TotalSeconds  float64                       `json:"total_seconds"`
}

// Record returns the JSON record of the result of run.
func (r *Result) Record(run Run) Record {
	return Record{r.Methods, run.Methods, run.Protocol.String(), run.Features, run.Data, r.Splits, run.Seed,
		run.LoadSeconds, r.SharedSeconds, r.TotalSeconds}
}

// WriteTable writes the result of run as the table of setmatch eval: a
// method's mean accuracy ± its standard deviation over the splits and its
// seconds, with auto's paired difference where there is one.
func (r *Result) WriteTable(w io.Writer, run Run) error {
	fmt.Fprintf(w, "data %s, features %s, protocol %s, seed %d\n\n", run.Data, run.Features, run.Protocol, run.Seed)
	paired := false
	for _, m := range run.Methods {
		paired = paired || r.Methods[m].AutoMinus != nil
	}
	if paired {
		fmt.Fprintf(w, "%-9s %15s %9s %17s\n", "method", "accuracy (%)", "seconds", "auto − it (SE)")
	} else {
		fmt.Fprintf(w, "%-9s %15s %9s\n", "method", "accuracy (%)", "seconds")
	}
	for _, m := range run.Methods {
		mr := r.Methods[m]
		fmt.Fprintf(w, "%-9s %7.1f %s %9.1f", m, mr.Mean, Spread("%5.1f", mr.Std, r.Splits), mr.Seconds)
		if d := mr.AutoMinus; d != nil {
			fmt.Fprintf(w, " %+8.1f (%4.1f)", d.Mean, d.SE)
		}
		fmt.Fprintln(w)
	}
	if r.Splits < 2 {
		fmt.Fprintf(w, "\none split: accuracies without a standard deviation\n")
	}
	if paired {
		fmt.Fprintf(w, "\nauto − it: auto's accuracy minus the method's, split by split, mean over the splits (standard error of that mean, the splits taken as independent)\n")
	}
	_, err := fmt.Fprintf(w, "\nshared work (features, distances, divergence grid, subspaces, covariances): %.1f s; loading %.1f s; total %.1f s\n",
		r.SharedSeconds, run.LoadSeconds, r.TotalSeconds+run.LoadSeconds)
	return err
}

// Spread formats "± std" with the verb of format, or as many blanks where
// splits < 2, whose standard deviation is not measured.
func Spread(format string, std float64, splits int) string {
	s := fmt.Sprintf("± "+format, std)
	if splits < 2 {
		return strings.Repeat(" ", utf8.RuneCountInString(s))
	}
	return s
}
