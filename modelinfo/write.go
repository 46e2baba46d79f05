package modelinfo

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"setmatch/internal/bytesize"
	"setmatch/method"
	"setmatch/model"
)

// Write writes the summary as the table of setmatch inspect.
func Write(w io.Writer, s *Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, a...)...) }
	orUnknown := func(v string) string {
		if v == "" {
			return "(not recorded)"
		}
		return printable(v)
	}
	row("file", "%s (%d bytes, format %d)", s.File, s.FileBytes, s.FormatVersion)
	if s.SHA256 != "" {
		row("sha256", "%s (the journal's model: its first 16 digits)", s.SHA256)
	}
	row("created", "%s", orUnknown(s.Created))
	row("tool", "%s", orUnknown(s.Tool))
	row("data", "%s", orUnknown(s.Data))
	projectionRow(row, s)
	if len(s.Voters) > 0 {
		row("decides by", "a vote of %s: the label two or more members give, %s's where all differ; a batch is known if the first member that gives that label accepts it, by its own threshold (member 1 below, then the voters)",
			strings.Join(s.Members, ", "), s.Members[0])
	}
	changed := len(s.History) > 0
	methodRows(row, s, changed, s.cleared())
	if f := s.Features; f != nil {
		if f.PCADim > 0 {
			row("features", "%s (fitted PCA %d → %d)", printable(f.Spec), f.PCAInputDim, f.PCADim)
		} else {
			row("features", "%s", printable(f.Spec))
		}
		if f.FrameWidth > 0 {
			row("frame size", "%dx%d, the training images' (the features are computed at each frame's own size: frames of another size are refused)", f.FrameWidth, f.FrameHeight)
		}
	} else {
		row("features", "(none recorded: the model takes feature vectors)")
	}
	decisionRows(row, s)
	for i, v := range s.Voters {
		fmt.Fprintf(tw, "member %d\t%s (a voter)\n", i+2, v.Method)
		vrow := func(k, format string, a ...any) { row("  "+k, format, a...) }
		projectionRow(vrow, v)
		methodRows(vrow, v, changed, s.cleared() && v.CVAccuracy == nil)
		decisionRows(vrow, v)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Params) > 0 {
		fmt.Fprintln(w, "\nparameters:")
		keys := make([]string, 0, len(s.Params))
		for k := range s.Params {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			v := printable(s.Params[k])
			if v == "" {
				v = "(not given: the default)"
			}
			fmt.Fprintf(tw, "  %s\t%s\n", printable(k), v)
		}
		tw.Flush()
	}
	if len(s.Candidates) > 0 {
		switch {
		case s.cleared():
			fmt.Fprintln(w, "\ncandidates (cross-validated at training, on the training sets; the figures are not in the file, a forget removed them: setmatch test measures the model as it is):")
		case changed:
			fmt.Fprintln(w, "\ncandidates (cross-validated at training, on the training sets: what chose the method; the gallery has changed since, see the history):")
		default:
			fmt.Fprintln(w, "\ncandidates (cross-validated at training, on the training sets):")
		}
		fmt.Fprintf(tw, "  method\taccuracy\ttime\tparameters\n")
		for _, c := range s.Candidates {
			acc := "-"
			if c.CVAccuracy != nil {
				acc = fmt.Sprintf("%.1f%%", *c.CVAccuracy)
			}
			mark := ""
			if c.Name == s.OwnMethod() {
				mark = " *"
			}
			took := "-" // not scored, as train prints it
			if c.CVAccuracy != nil || c.Seconds != 0 {
				took = fmt.Sprintf("%.1fs", c.Seconds)
			}
			fmt.Fprintf(tw, "  %s%s\t%s\t%s\t%s\n", printable(c.Name), mark, acc, took, printable(c.Params))
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\nclasses:")
	// A model with a threshold for each class has a column for it.
	threshold := func(c Class) string { return "" }
	head := ""
	if s.SpreadExponent != nil {
		threshold = func(c Class) string { return "\t" + thresholdText(c.Threshold, 6) }
		head = "\tthreshold"
	}
	fmt.Fprintf(tw, "  label\tsets\tframes%s\n", head)
	for _, c := range s.Classes {
		fmt.Fprintf(tw, "  %s\t%d\t%d%s\n", printable(c.Label), c.Sets, c.Frames, threshold(c))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.History) > 0 {
		fmt.Fprintln(w, "\nhistory (setmatch enroll and forget since training):")
		fmt.Fprintf(tw, "  time\toperation\tsets\tclasses after\n")
		for _, c := range s.History {
			verb := "added"
			if c.Op == model.ChangeForget {
				verb = "removed"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d %s\t%d\n", c.Time, printable(c.Op), c.Sets, verb, c.Classes)
		}
	}
	return tw.Flush()
}

// projectionRow writes the projection of s (one model, or one
// member of a vote).
func projectionRow(row func(k, format string, a ...any), s *Summary) {
	switch {
	case s.Identity && s.Centred:
		row("projection", "none: the full space of D = %d features (frames centred only)", s.InputDim)
	case s.Identity:
		row("projection", "none: the full space of D = %d features, frames as given", s.InputDim)
	case s.FreeW:
		row("projection", "D = %d → d = %d (%s's W: of full column rank, not orthonormal by its method's design; max|WᵀW − I| = %.2g)", s.InputDim, s.Dim, s.OwnMethod(), s.OrthonormalErr)
	default:
		row("projection", "D = %d → d = %d (orthonormality error max|WᵀW − I| = %.2g)", s.InputDim, s.Dim, s.OrthonormalErr)
	}
}

// forgotten reports whether sets were forgotten since training.
func (s *Summary) forgotten() bool {
	return slices.ContainsFunc(s.History, func(c Change) bool { return c.Op == model.ChangeForget })
}

// cleared reports whether s is a model whose cross-validated figures a
// forget removed: sets were forgotten, and its candidates, scored at
// training, have neither an accuracy nor a time left (model.Selection's
// Measured, read from the summary).
func (s *Summary) cleared() bool {
	if !s.forgotten() || s.CVAccuracy != nil || len(s.Candidates) == 0 {
		return false
	}
	return !slices.ContainsFunc(s.Candidates, func(c Candidate) bool { return c.CVAccuracy != nil || c.Seconds != 0 })
}

// methodRows writes the method of s (one model, or one member of a
// vote) and its parameters; changed says that the gallery has changed
// since training (enroll, forget), and cleared that the cross-validated
// figures are not in the file (Summary.cleared).
func methodRows(row func(k, format string, a ...any), s *Summary, changed, cleared bool) {
	method := s.OwnMethod()
	switch {
	case s.CVAccuracy != nil && changed:
		method += fmt.Sprintf(" (cross-validated accuracy %.1f%% at training, on the training sets, before the gallery changed: setmatch test measures the model as it is)", *s.CVAccuracy)
	case s.CVAccuracy != nil:
		method += fmt.Sprintf(" (cross-validated accuracy %.1f%% at training, on the training sets)", *s.CVAccuracy)
	case s.Params["method"] == "learned":
		method += " (train --method learned: W learned at the given --dim, not cross-validated)"
	case cleared:
		method += " (its cross-validated accuracy is not in the file, a forget removed it: setmatch test measures the model as it is)"
	default:
		method += " (not cross-validated)"
	}
	row("method", "%s", method)
	if len(s.MethodParams) > 0 {
		keys := make([]string, 0, len(s.MethodParams))
		for k := range s.MethodParams {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var parts []string
		for _, k := range keys {
			if k == "threshold" {
				continue // how the threshold was set: its own row
			}
			parts = append(parts, printable(k)+"="+printable(s.MethodParams[k]))
		}
		row("method parameters", "%s", strings.Join(parts, " "))
	}
}

// decisionRows writes how s (one model, or one member of a vote)
// decides: its kernel, divergence, bandwidths, threshold and training.
func decisionRows(row func(k, format string, a ...any), s *Summary) {
	if k := s.KFDA; k != nil {
		row("kfda", "%s, %d latent dimensions, regulariser %g (ε = %.3g)", k.Description, k.LatentDim, k.Reg, k.Epsilon)
	}
	// A model on a set kernel builds no KDE: its divergence and bandwidths
	// are recorded but not used.
	noKDE := s.KFDA != nil && !s.KFDA.UsesDivergences
	unused := ""
	if noKDE {
		row("divergence", "%s (not used: the %s kernel compares the frames, not KDEs)", s.Divergence, s.KFDA.Kernel.Kernel)
		unused = " (not used)"
	} else {
		row("divergence", "%s", s.Divergence)
	}
	row("query bandwidth", "%s%s", s.QueryBandwidth, unused)
	th := thresholdText(s.Threshold, -1)
	switch {
	case s.Threshold == nil:
		th += " (closed set: every batch gets a label)"
	case s.KFDA != nil && s.KFDA.OpenSet == model.OpenSetKernel:
		th += " (open set: a batch whose distance, as the kernel measures it, to the nearest set of the class it is given is above it is unknown)"
	case s.KFDA != nil:
		th += " (open set: a latent distance to the nearest set above it is unknown)"
	default:
		th += " (open set: a best divergence above it is unknown)"
	}
	row("threshold", "%s", th)
	if s.SpreadExponent != nil {
		where := "classes, below"
		if s.File == "" { // a voter: the classes table is the model's
			var each []string
			for _, c := range s.Classes {
				each = append(each, printable(c.Label)+" "+thresholdText(c.Threshold, 6))
			}
			where = strings.Join(each, ", ")
		}
		row("class thresholds", "each class has its own: the threshold times (how widely the class's sets spread over the typical class's) to the power %g (%s)", *s.SpreadExponent, where)
	}
	if how, ok := s.MethodParams["threshold"]; ok {
		row("threshold set", "%s", printable(how))
	}
	row("gallery", "%d sets, %d classes, %d frames (%s of samples)", s.Sets, len(s.Classes), s.Frames, bytesize.Of(8*float64(s.Frames)*float64(s.Dim)))
	row("bandwidths", "%.4g – %.4g%s", s.BandwidthMin, s.BandwidthMax, unused)
	switch tb := s.MethodParams["train-bandwidth"]; {
	case s.Iterations > 0 || s.FinalCost != 0:
		row("learning W", "final cost %.6g after %d iterations", s.FinalCost, s.Iterations)
	case s.Identity:
	case s.Method == string(method.NNHLDA):
		row("learning W", "none: W is the Fisher discriminant of the training frames")
	case tb == "start":
		row("learning W", "none: W is its start, which train's cross-validation kept over a learned W")
	case tb != "":
		row("learning W", "by conjugate gradient at training bandwidth %s, as train's cross-validation chose (its cost and iterations are not recorded)", printable(tb))
	default:
		row("learning W", "(not recorded)")
	}
}

// thresholdText writes a threshold with digits significant digits (-1:
// in full), or +Inf for none.
func thresholdText(t *float64, digits int) string {
	if t == nil {
		return "+Inf"
	}
	return strconv.FormatFloat(*t, 'g', digits, 64)
}

// printable quotes s if it holds characters that would break the table.
func printable(s string) string {
	for _, r := range s {
		if !unicode.IsGraphic(r) || r == '\t' {
			return strconv.Quote(s)
		}
	}
	return s
}
