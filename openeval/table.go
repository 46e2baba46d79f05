package openeval

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"setmatch/deploy"
	"setmatch/eval"
	"setmatch/method"
)

// Record is the JSON record of a run with strangers (setmatch eval --json
// on a protocol with strangers=K).
type Record struct {
	OpenSet   bool                          `json:"open_set"` // true: the rates of openeval
	Methods   map[method.Name]*MethodResult `json:"methods"`
	Order     []method.Name                 `json:"order"`
	Protocol  string                        `json:"protocol"`
	Threshold string                        `json:"threshold_rule"` // the models' --threshold, as train reads it (a rule, or a number)
	// SpreadExponents are eval's --spread-exponents where given: the
	// exponents the calibration chose each class's threshold from.
	SpreadExponents []float64 `json:"spread_exponents,omitempty"`
	Features        string    `json:"features"`
	Data            string    `json:"data"`
	Splits          int       `json:"splits"`
	Seed            uint64    `json:"seed"`
	LoadSeconds     float64   `json:"load_seconds"`
	TotalSeconds    float64   `json:"total_seconds"`
}

// Record returns the JSON record of the result of run.
func (r *Result) Record(run eval.Run) Record {
	threshold := r.Threshold
	if threshold == "" {
		threshold = deploy.DefaultThreshold
	}
	return Record{true, r.Methods, run.Methods, run.Protocol.String(), threshold, r.SpreadExponents, run.Features, run.Data, r.Splits,
		run.Seed, run.LoadSeconds, r.TotalSeconds}
}

// WriteTable writes the result of run as the table of setmatch eval with
// strangers: every method's rates, mean ± std over the splits in percent,
// what failed, and what each method deployed on each split.
func (r *Result) WriteTable(w io.Writer, run eval.Run) error {
	rec := r.Record(run)
	fmt.Fprintf(w, "data %s, features %s, protocol %s, seed %d\n", run.Data, run.Features, run.Protocol, run.Seed)
	rule := "--threshold " + rec.Threshold
	if e := rec.SpreadExponents; e != nil {
		rule += ", --spread-exponents " + deploy.FormatSpreadExponents(e)
	}
	given := ""
	if v := run.Protocol.Visitors; v > 0 {
		given += fmt.Sprintf("; %d of them visitors, whose probe sets train takes as strangers' sets (--strangers) and which are not decided", v)
	}
	if o := run.Protocol.Others; o > 0 {
		given += fmt.Sprintf("; %d of them others, whose probe sets train takes as others' sets (--others: they shape the method, then leave the gallery) and which are not decided", o)
	}
	fmt.Fprintf(w, "open set: %d stranger class(es) per split, left out of its gallery%s; each method trained as setmatch train, with its own threshold (%s)\n\n", run.Protocol.Strangers, given, rule)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tknown right (closed)\tknown right @thr\tstrangers out @thr\tbalanced @thr\tbest balanced\tstrangers in @95% known\t@99% known\tseconds\t")
	var n int       // the splits of the row
	single := false // a row of one split, printed without a spread
	pct := func(s Stat) string { return fmt.Sprintf("%5.1f %s", 100*s.Mean, eval.Spread("%4.1f", 100*s.Std, n)) }
	approx, failed := false, 0
	for _, m := range run.Methods {
		mr := r.Methods[m]
		if len(mr.PerSplit) == 0 {
			fmt.Fprintf(tw, "%s\t(failed on every split, below)\t\t\t\t\t\t\t\t\n", m)
			continue
		}
		n = len(mr.PerSplit)
		single = single || n < 2
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t\n", m, pct(mr.KnownRightClosed), pct(mr.KnownRightAtThreshold),
			pct(mr.StrangersOutAtThreshold), pct(mr.BalancedAtThreshold), pct(mr.BestBalanced), pct(mr.StrangersIn95), pct(mr.StrangersIn99), mr.Seconds)
		for _, row := range mr.PerSplit {
			approx = approx || row.Approximate
		}
		failed += mr.Failed
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\npercent, mean ± std over the splits; @thr: at the model's own threshold; best balanced: the best balanced accuracy any single threshold reaches on the probes; strangers in @95%%/@99%% known: the strangers' sets let in by the threshold that lets in 95%%/99%% of the known sets\n")
	if single {
		fmt.Fprintf(w, "a rate of one split has no standard deviation\n")
	}
	if approx {
		fmt.Fprintf(w, "a vote's scores are its deciding members', on different scales: its best balanced accuracy and strangers let in are approximate\n")
	}
	if failed > 0 {
		fmt.Fprintf(w, "%d probe sets could not be decided and are left out of the rates\n", failed)
	}
	for _, m := range run.Methods {
		for _, e := range r.Methods[m].Errors {
			fmt.Fprintf(w, "%s failed on %s (left out of its figures)\n", m, e)
		}
	}
	if err := r.writeCommon(w, run.Methods); err != nil {
		return err
	}
	r.writeDeployed(w, run.Methods)
	_, err := fmt.Fprintf(w, "\nloading %.1f s; total %.1f s\n", run.LoadSeconds, r.TotalSeconds+run.LoadSeconds)
	return err
}

// writeDeployed writes, for every method, what it deployed on each split
// and the split's stranger classes.
func (r *Result) writeDeployed(w io.Writer, ms []method.Name) {
	fmt.Fprintf(w, "\ndeployed per split:\n")
	for _, m := range ms {
		var parts []string
		for _, row := range r.Methods[m].PerSplit {
			dep := row.Deployed
			if row.ClosedChoice != "" {
				dep += ", chosen for the open set over " + row.ClosedChoice
			}
			who := "strangers " + strings.Join(row.StrangerClasses, ",")
			if len(row.VisitorClasses) > 0 {
				who += "; visitors " + strings.Join(row.VisitorClasses, ",")
			}
			if len(row.OtherClasses) > 0 {
				who += "; others " + strings.Join(row.OtherClasses, ",")
			}
			parts = append(parts, fmt.Sprintf("%d: %s (%s)", row.Split, dep, who))
		}
		fmt.Fprintf(w, "  %s: %s\n", m, strings.Join(parts, "; "))
	}
}

// writeCommon writes, for every method that has it, what one threshold
// for every split reaches (MethodResult.Common).
func (r *Result) writeCommon(w io.Writer, ms []method.Name) error {
	var have []method.Name
	for _, m := range ms {
		if r.Methods[m].Common != nil {
			have = append(have, m)
		}
	}
	if len(have) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\none threshold for every split, as one fraction of each split's model scale (the median distance between the classes of its gallery, the unit the calibration sets a threshold in), a fraction for each method deployed: the mean balanced accuracy at the fractions best over all the splits; and over the splits whose method another split deployed too, the balanced accuracy at the model's threshold and at the fraction best on those other splits (mean ± std)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tbest over all splits\tfraction\tsplits\tbalanced @thr\tchosen on the other splits\t")
	for _, m := range have {
		mr := r.Methods[m]
		c := mr.Common
		var fr []string
		for _, d := range slices.Sorted(maps.Keys(c.Fractions)) {
			fr = append(fr, fmt.Sprintf("%s %.3g", d, c.Fractions[d]))
		}
		n := c.TransferSplits
		fmt.Fprintf(tw, "%s\t%5.1f\t%s\t%d of %d\t%5.1f %s\t%5.1f %s\t\n", m, 100*c.Balanced, strings.Join(fr, ", "),
			n, len(mr.PerSplit), 100*c.AtThreshold.Mean, eval.Spread("%4.1f", 100*c.AtThreshold.Std, n), 100*c.Transfer.Mean, eval.Spread("%4.1f", 100*c.Transfer.Std, n))
	}
	return tw.Flush()
}
