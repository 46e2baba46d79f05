package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"setmatch/model"
)

// inspectSummary is what `setmatch inspect` reports; --json prints it as is.
type inspectSummary struct {
	File           string            `json:"file"`
	FileBytes      int64             `json:"file_bytes"`
	FormatVersion  uint32            `json:"format_version"`
	Created        string            `json:"created"`
	Tool           string            `json:"tool"`
	Data           string            `json:"data"`
	InputDim       int               `json:"input_dim"`
	Dim            int               `json:"dim"`
	Divergence     string            `json:"divergence"`
	QueryBandwidth string            `json:"query_bandwidth"`
	Threshold      string            `json:"threshold"` // a number or "+Inf"
	Sets           int               `json:"sets"`
	Frames         int               `json:"frames"`
	Classes        []inspectClass    `json:"classes"`
	BandwidthMin   float64           `json:"bandwidth_min"`
	BandwidthMax   float64           `json:"bandwidth_max"`
	OrthonormalErr float64           `json:"orthonormality_error"`
	Identity       bool              `json:"identity"` // the projection is the identity (the full space)
	FinalCost      float64           `json:"final_cost"`
	Iterations     int               `json:"iterations"`
	Params         map[string]string `json:"params"`
	GalleryMiB     float64           `json:"gallery_mib"`

	// Method is how the model decides (e.g. nn-h-dr, kfda-j), with the
	// chosen parameters and the cross-validated accuracy in percent (null:
	// not cross-validated) of it and of every candidate scored.
	Method       string             `json:"method"`
	MethodParams map[string]string  `json:"method_params,omitempty"`
	CVAccuracy   *float64           `json:"cv_accuracy"`
	Candidates   []inspectCandidate `json:"candidates,omitempty"`
	// Features is the recorded feature pipeline; null when the model takes
	// feature vectors.
	Features *inspectFeatures `json:"features"`
	// KFDA describes the discriminant of a kFDA model; absent otherwise.
	KFDA *inspectKFDA `json:"kfda,omitempty"`
	// Members, for a model that decides by a vote, are the methods of its
	// members (this model's own first), and Voters the other members,
	// each described as a model (its file fields empty); the fields
	// above are then the first member's.
	Members []string          `json:"members,omitempty"`
	Voters  []*inspectSummary `json:"voters,omitempty"`
	// History lists the enrolments and forgettings since training, oldest
	// first (setmatch enroll, setmatch forget): no labels or names.
	History []inspectChange `json:"history,omitempty"`
}

type inspectChange struct {
	Time    string `json:"time"`
	Op      string `json:"op"`      // "enroll" or "forget"
	Sets    int    `json:"sets"`    // gallery sets added or removed
	Classes int    `json:"classes"` // classes of the gallery after it
}

type inspectCandidate struct {
	Name       string   `json:"name"`
	Params     string   `json:"params"`
	CVAccuracy *float64 `json:"cv_accuracy"` // percent; null if not scored
	Seconds    float64  `json:"seconds"`
}

type inspectFeatures struct {
	Spec        string `json:"spec"`
	PCAInputDim int    `json:"pca_input_dim,omitempty"` // features before the PCA
	PCADim      int    `json:"pca_dim,omitempty"`
}

type inspectKFDA struct {
	inspectKernel
	Reg       float64 `json:"reg"`
	Epsilon   float64 `json:"epsilon"`
	LatentDim int     `json:"latent_dim"`
	// Terms are the kernels of a sum (kernel "sum"), each with its weight.
	Terms []inspectTerm `json:"terms,omitempty"`
	// Description says the same in words.
	Description string `json:"description"`
	// UsesDivergences: some kernel is on KDE divergences (the query
	// bandwidth and the divergence are used).
	UsesDivergences bool `json:"uses_divergences"`
	// OpenSet is what the threshold bounds: "kernel" (the distance the
	// kernel induces) or "latent" (models of formats 2 and 3).
	OpenSet string `json:"open_set"`
}

// inspectKernel is a kernel and its parameters (for a sum, the kernel
// "sum" alone).
type inspectKernel struct {
	Kernel      string  `json:"kernel"`
	Width       float64 `json:"width"`
	WidthScale  string  `json:"width_scale"`
	Scale       float64 `json:"scale"`
	KernelWidth float64 `json:"kernel_width"`     // width/scale, the s of exp(−s·δ)
	P           int     `json:"p,omitempty"`      // gda: subspace dimension
	Lambda      float64 `json:"lambda,omitempty"` // cdl: covariance regulariser
}

func newInspectKernel(t model.Term) inspectKernel {
	k := inspectKernel{Kernel: t.Kernel, Width: t.Width, WidthScale: t.WidthScale, Scale: t.Scale, P: t.P, Lambda: t.Lambda}
	if t.Kernel != model.KernelSum {
		k.KernelWidth = t.Width / t.Scale
	}
	return k
}

// inspectTerm is one kernel of a sum.
type inspectTerm struct {
	inspectKernel
	Weight float64 `json:"weight"`
}

// percent returns 100·v, or nil for NaN (not measured).
func percent(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	p := 100 * v
	return &p
}

type inspectClass struct {
	Label  string `json:"label"`
	Sets   int    `json:"sets"`
	Frames int    `json:"frames"`
}

// inspectSynopsis is the usage line and description of setmatch inspect.
const inspectSynopsis = `[--json] MODEL

Prints what a model file holds and how it was made: the method it
decides by with its parameters and cross-validated accuracy, every
candidate's score when it was chosen by --method auto, the projection,
the feature pipeline, the open-set threshold and the gallery.`

func runInspect(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("inspect", inspectSynopsis, stderr)
	asJSON := fs.Bool("json", false, "print the summary as one JSON object")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one model file, got %d arguments (usage: setmatch inspect [--json] MODEL)", fs.NArg())
	}
	path := fs.Arg(0)
	m, info, err := model.ReadFile(path)
	if err != nil {
		return err
	}
	s := inspectSummarize(info, m)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	return inspectPrint(stdout, s)
}

func inspectSummarize(info model.FileInfo, m *model.Model) *inspectSummary {
	s := &inspectSummary{
		File:           info.Path,
		FileBytes:      info.Size,
		FormatVersion:  info.Version,
		Tool:           m.Meta.Tool,
		Data:           m.Meta.Data,
		InputDim:       m.InputDim(),
		Dim:            m.Dim(),
		Divergence:     m.Divergence.String(),
		QueryBandwidth: m.QueryBandwidth.String(),
		Threshold:      inspectThreshold(m.Threshold),
		Sets:           len(m.Sets),
		BandwidthMin:   math.Inf(1),
		BandwidthMax:   math.Inf(-1),
		OrthonormalErr: m.OrthonormalityError(),
		Identity:       m.Identity,
		FinalCost:      m.Meta.FinalCost,
		Iterations:     m.Meta.Iterations,
		Params:         m.Meta.Params,
	}
	if !m.Meta.Created.IsZero() {
		s.Created = m.Meta.Created.Format(time.RFC3339)
	}
	s.Method, s.MethodParams = m.MethodName(), m.Selection.Params
	if m.Selection.Method != "" {
		s.CVAccuracy = percent(m.Selection.CVAccuracy)
	}
	for _, c := range m.Selection.Candidates {
		s.Candidates = append(s.Candidates, inspectCandidate{string(c.Name), c.Params, percent(c.CVAccuracy), c.Seconds})
	}
	if f := m.Features; f != nil {
		s.Features = &inspectFeatures{Spec: f.Name()}
		if f.PCA != nil {
			s.Features.PCAInputDim, s.Features.PCADim = f.PCA.Components.Dims()
		}
	}
	if k := m.KFDA; k != nil {
		s.KFDA = &inspectKFDA{inspectKernel: newInspectKernel(k.Term), Reg: k.Reg, Epsilon: k.Epsilon, LatentDim: k.Dim(),
			Description: k.Describe(), UsesDivergences: k.UsesDivergences(), OpenSet: k.OpenSet}
		for _, t := range k.Terms {
			s.KFDA.Terms = append(s.KFDA.Terms, inspectTerm{newInspectKernel(t), t.Weight})
		}
	}
	byLabel := make(map[string]*inspectClass)
	for _, set := range m.Sets {
		n, _ := set.Samples.Dims()
		s.Frames += n
		c := byLabel[set.Label]
		if c == nil {
			c = &inspectClass{Label: set.Label}
			byLabel[set.Label] = c
		}
		c.Sets++
		c.Frames += n
		s.BandwidthMin = min(s.BandwidthMin, set.Bandwidth)
		s.BandwidthMax = max(s.BandwidthMax, set.Bandwidth)
	}
	for _, c := range byLabel {
		s.Classes = append(s.Classes, *c)
	}
	slices.SortFunc(s.Classes, func(a, b inspectClass) int {
		switch {
		case a.Label < b.Label:
			return -1
		case a.Label > b.Label:
			return 1
		}
		return 0
	})
	s.GalleryMiB = float64(8*s.Frames*s.Dim) / (1 << 20)
	if len(m.Voters) > 0 {
		s.Members = m.MemberMethods()
	}
	for _, v := range m.Voters {
		vs := inspectSummarize(model.FileInfo{}, v)
		s.Voters = append(s.Voters, vs)
	}
	for _, c := range m.Meta.History {
		s.History = append(s.History, inspectChange{Time: c.Time.Format(time.RFC3339), Op: c.Op, Sets: c.Sets, Classes: c.Classes})
	}
	return s
}

func inspectThreshold(t float64) string {
	if math.IsInf(t, 0) {
		if t > 0 {
			return "+Inf"
		}
		return "-Inf"
	}
	return strconv.FormatFloat(t, 'g', -1, 64)
}

func inspectPrint(w io.Writer, s *inspectSummary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, a...)...) }
	orUnknown := func(v string) string {
		if v == "" {
			return "(not recorded)"
		}
		return inspectPrintable(v)
	}
	row("file", "%s (%d bytes, format %d)", s.File, s.FileBytes, s.FormatVersion)
	row("created", "%s", orUnknown(s.Created))
	row("tool", "%s", orUnknown(s.Tool))
	row("data", "%s", orUnknown(s.Data))
	inspectProjectionRow(row, s)
	if len(s.Voters) > 0 {
		row("decides by", "a vote of %s: the label two or more members give, %s's where all differ; a batch is known if the first member that gives that label accepts it, by its own threshold (member 1 below, then the voters)",
			strings.Join(s.Members, ", "), s.Members[0])
	}
	inspectMethodRows(row, s)
	if f := s.Features; f != nil {
		if f.PCADim > 0 {
			row("features", "%s (fitted PCA %d → %d)", inspectPrintable(f.Spec), f.PCAInputDim, f.PCADim)
		} else {
			row("features", "%s", inspectPrintable(f.Spec))
		}
	} else {
		row("features", "(none recorded: the model takes feature vectors)")
	}
	inspectDecisionRows(row, s)
	for i, v := range s.Voters {
		fmt.Fprintf(tw, "member %d\t%s (a voter)\n", i+2, v.Method)
		vrow := func(k, format string, a ...any) { row("  "+k, format, a...) }
		inspectProjectionRow(vrow, v)
		inspectMethodRows(vrow, v)
		inspectDecisionRows(vrow, v)
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
			fmt.Fprintf(tw, "  %s\t%s\n", inspectPrintable(k), inspectPrintable(s.Params[k]))
		}
		tw.Flush()
	}
	if len(s.Candidates) > 0 {
		fmt.Fprintln(w, "\ncandidates (cross-validated on the training sets):")
		fmt.Fprintf(tw, "  method\taccuracy\ttime\tparameters\n")
		for _, c := range s.Candidates {
			acc := "-"
			if c.CVAccuracy != nil {
				acc = fmt.Sprintf("%.1f%%", *c.CVAccuracy)
			}
			mark := ""
			if c.Name == s.ownMethod() {
				mark = " *"
			}
			fmt.Fprintf(tw, "  %s%s\t%s\t%.1fs\t%s\n", inspectPrintable(c.Name), mark, acc, c.Seconds, inspectPrintable(c.Params))
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\nclasses:")
	fmt.Fprintf(tw, "  label\tsets\tframes\n")
	for _, c := range s.Classes {
		fmt.Fprintf(tw, "  %s\t%d\t%d\n", inspectPrintable(c.Label), c.Sets, c.Frames)
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
			fmt.Fprintf(tw, "  %s\t%s\t%d %s\t%d\n", c.Time, inspectPrintable(c.Op), c.Sets, verb, c.Classes)
		}
	}
	return tw.Flush()
}

// ownMethod is the method s decides by alone: for a vote, its first
// member's.
func (s *inspectSummary) ownMethod() string {
	if len(s.Members) > 0 {
		return s.Members[0]
	}
	return s.Method
}

// inspectProjectionRow writes the projection of s (one model, or one
// member of a vote).
func inspectProjectionRow(row func(k, format string, a ...any), s *inspectSummary) {
	if s.Identity {
		row("projection", "none: the full space of D = %d features (frames centred only)", s.InputDim)
	} else {
		row("projection", "D = %d → d = %d (orthonormality error max|WᵀW − I| = %.2g)", s.InputDim, s.Dim, s.OrthonormalErr)
	}
}

// inspectMethodRows writes the method of s (one model, or one member of
// a vote) and its parameters.
func inspectMethodRows(row func(k, format string, a ...any), s *inspectSummary) {
	method := s.ownMethod()
	if s.CVAccuracy != nil {
		method += fmt.Sprintf(" (cross-validated accuracy %.1f%%)", *s.CVAccuracy)
	} else {
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
			parts = append(parts, inspectPrintable(k)+"="+inspectPrintable(s.MethodParams[k]))
		}
		row("method parameters", "%s", strings.Join(parts, " "))
	}
}

// inspectDecisionRows writes how s (one model, or one member of a vote)
// decides: its kernel, divergence, bandwidths, threshold and training.
func inspectDecisionRows(row func(k, format string, a ...any), s *inspectSummary) {
	if k := s.KFDA; k != nil {
		row("kfda", "%s, %d latent dimensions, regulariser %g (ε = %.3g)", k.Description, k.LatentDim, k.Reg, k.Epsilon)
	}
	// A model on a set kernel builds no KDE: its divergence and bandwidths
	// are recorded but not used.
	noKDE := s.KFDA != nil && !s.KFDA.UsesDivergences
	unused := ""
	if noKDE {
		row("divergence", "%s (not used: the %s kernel compares the frames, not KDEs)", s.Divergence, s.KFDA.Kernel)
		unused = " (not used)"
	} else {
		row("divergence", "%s", s.Divergence)
	}
	row("query bandwidth", "%s%s", s.QueryBandwidth, unused)
	th := s.Threshold
	switch {
	case th == "+Inf":
		th += " (closed set: every batch gets a label)"
	case s.KFDA != nil && s.KFDA.OpenSet == model.OpenSetKernel:
		th += " (open set: a batch whose distance, as the kernel measures it, to the nearest set of the class it is given is above it is unknown)"
	case s.KFDA != nil:
		th += " (open set: a latent distance to the nearest set above it is unknown)"
	default:
		th += " (open set: a best divergence above it is unknown)"
	}
	row("threshold", "%s", th)
	if how, ok := s.MethodParams["threshold"]; ok {
		row("threshold set", "%s", inspectPrintable(how))
	}
	row("gallery", "%d sets, %d classes, %d frames (%s of samples)", s.Sets, len(s.Classes), s.Frames, inspectBytes(8*int64(s.Frames)*int64(s.Dim)))
	row("bandwidths", "%.4g – %.4g%s", s.BandwidthMin, s.BandwidthMax, unused)
	if s.Iterations > 0 || s.FinalCost != 0 {
		row("training", "final cost %.6g after %d iterations", s.FinalCost, s.Iterations)
	} else {
		row("training", "(not recorded)")
	}
}

// inspectPrintable quotes s if it holds characters that would break the table.
func inspectPrintable(s string) string {
	for _, r := range s {
		if !unicode.IsGraphic(r) || r == '\t' {
			return strconv.Quote(s)
		}
	}
	return s
}

// inspectBytes writes n bytes with a binary unit.
func inspectBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
