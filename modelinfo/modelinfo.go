// Package modelinfo summarises a model as setmatch inspect reports it:
// how it was made (file, tool, data, training), the method it decides by
// with its parameters and cross-validated accuracy, every candidate's
// score, the projection, the feature pipeline, the kFDA discriminant,
// the threshold, the gallery's classes and bandwidths, a vote's members
// and the history of enrolments and forgettings.
//
// Computation only: no I/O; Write writes the summary as inspect's table to
// a writer.
package modelinfo

import (
	"math"
	"slices"
	"time"

	"setmatch/internal/finite"
	"setmatch/internal/jsonname"
	"setmatch/method"
	"setmatch/model"
)

// Summary is what `setmatch inspect` reports of a model; --json prints
// it as is.
type Summary struct {
	// File, FileBytes, FormatVersion and SHA256 (the hex SHA-256 of the
	// file's bytes, whose first 16 digits setmatchd's journal records as
	// its model) are those of the file read; absent for a voter. A path
	// that is not valid UTF-8 is written by jsonname's convention: as
	// JSON writes it, U+FFFD for each bad byte, with its exact bytes in
	// base64 as FileB64.
	File           string   `json:"file,omitempty"`
	FileB64        string   `json:"file_b64,omitempty"`
	FileBytes      int64    `json:"file_bytes,omitempty"`
	FormatVersion  uint32   `json:"format_version,omitempty"`
	SHA256         string   `json:"sha256,omitempty"`
	Created        string   `json:"created"`
	Tool           string   `json:"tool"`
	Data           string   `json:"data"`
	InputDim       int      `json:"input_dim"`
	Dim            int      `json:"dim"`
	Divergence     string   `json:"divergence"`
	QueryBandwidth string   `json:"query_bandwidth"`
	Threshold      *float64 `json:"threshold"` // null for a closed set
	// SpreadExponent, for a model that gives each class a threshold of its
	// own (model.Spread), is how far they follow the classes' spread;
	// each class's threshold is then in Classes.
	SpreadExponent *float64 `json:"spread_exponent,omitempty"`
	Sets           int      `json:"sets"`
	Frames         int      `json:"frames"`
	Classes        []Class  `json:"classes"`
	BandwidthMin   float64  `json:"bandwidth_min"`
	BandwidthMax   float64  `json:"bandwidth_max"`
	OrthonormalErr float64  `json:"orthonormality_error"`
	// FreeW: W need not be orthonormal, only of full column rank
	// (model.Model.OrthonormalW; nn-h-lda's whitened Fisher basis).
	FreeW      bool              `json:"-"`
	Identity   bool              `json:"identity"` // the projection is the identity (the full space)
	Centred    bool              `json:"centred"`  // a centre other than 0 is subtracted from every frame
	FinalCost  float64           `json:"final_cost"`
	Iterations int               `json:"iterations"`
	Params     map[string]string `json:"params"`
	GalleryMiB float64           `json:"gallery_mib"`

	// Method is how the model decides (e.g. nn-h-dr, kfda-j), with the
	// chosen parameters and the cross-validated accuracy in percent (null:
	// not cross-validated) of it and of every candidate scored.
	Method       string            `json:"method"`
	MethodParams map[string]string `json:"method_params,omitempty"`
	CVAccuracy   *float64          `json:"cv_accuracy"`
	Candidates   []Candidate       `json:"candidates,omitempty"`
	// Features is the recorded feature pipeline; null when the model takes
	// feature vectors.
	Features *Features `json:"features"`
	// KFDA describes the discriminant of a kFDA model; absent otherwise.
	KFDA *KFDA `json:"kfda,omitempty"`
	// Members, for a model that decides by a vote, are the methods of its
	// members (this model's own first), and Voters the other members,
	// each described as a model (its file fields empty); the fields
	// above are then the first member's.
	Members []string   `json:"members,omitempty"`
	Voters  []*Summary `json:"voters,omitempty"`
	// History lists the enrolments and forgettings since training, oldest
	// first (setmatch enroll, setmatch forget): no labels or names.
	History []Change `json:"history,omitempty"`
}

// Change is one enrolment or forgetting of the model's history.
type Change struct {
	Time    string `json:"time"`
	Op      string `json:"op"`      // "enroll" or "forget"
	Sets    int    `json:"sets"`    // gallery sets added or removed
	Classes int    `json:"classes"` // classes of the gallery after it
}

// Candidate is one method scored when the model's method was chosen.
type Candidate struct {
	Name       string   `json:"name"`
	Params     string   `json:"params"`
	CVAccuracy *float64 `json:"cv_accuracy"` // percent; null if not scored
	Seconds    float64  `json:"seconds"`
}

// Features is the model's recorded feature pipeline.
type Features struct {
	Spec        string `json:"spec"`
	PCAInputDim int    `json:"pca_input_dim,omitempty"` // features before the PCA
	PCADim      int    `json:"pca_dim,omitempty"`
	// FrameWidth and FrameHeight are the size of every training image,
	// for an lbp or hog pipeline without a size, where all
	// had one (features.Fitted.FrameSize): frames of another size are
	// refused. Absent otherwise.
	FrameWidth  int `json:"frame_width,omitempty"`
	FrameHeight int `json:"frame_height,omitempty"`
}

// KFDA is the discriminant of a kFDA model.
type KFDA struct {
	Kernel
	Reg       float64 `json:"reg"`
	Epsilon   float64 `json:"epsilon"`
	LatentDim int     `json:"latent_dim"`
	// Terms are the kernels of a sum (kernel "sum"), each with its weight.
	Terms []Term `json:"terms,omitempty"`
	// Description says the same in words.
	Description string `json:"description"`
	// UsesDivergences: some kernel is on KDE divergences (the query
	// bandwidth and the divergence are used).
	UsesDivergences bool `json:"uses_divergences"`
	// OpenSet is what the threshold bounds: "kernel" (the distance the
	// kernel induces) or "latent" (models of formats 2 and 3).
	OpenSet string `json:"open_set"`
}

// Kernel is a kernel and its parameters (for a sum, the kernel
// "sum" alone).
type Kernel struct {
	Kernel      string  `json:"kernel"`
	Width       float64 `json:"width"`
	WidthScale  string  `json:"width_scale"`
	Scale       float64 `json:"scale"`
	KernelWidth float64 `json:"kernel_width"`     // width/scale, the s of exp(−s·δ)
	P           int     `json:"p,omitempty"`      // gda: subspace dimension
	Lambda      float64 `json:"lambda,omitempty"` // cdl: covariance regulariser
}

// newKernel describes the kernel of a model term.
func newKernel(t model.Term) Kernel {
	k := Kernel{Kernel: t.Kernel, Width: t.Width, WidthScale: t.WidthScale, Scale: t.Scale, P: t.P, Lambda: t.Lambda}
	if t.Kind() != method.KernelSum {
		k.KernelWidth = t.Width / t.Scale
	}
	return k
}

// Term is one kernel of a sum.
type Term struct {
	Kernel
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

// Class is one label of the gallery: its sets and frames.
type Class struct {
	Label  string `json:"label"`
	Sets   int    `json:"sets"`
	Frames int    `json:"frames"`
	// SetNames are the names of its sets in gallery order, the names
	// setmatch forget --set takes. They are valid UTF-8 (the model file's
	// rule), so they need no _b64 beside them.
	SetNames []string `json:"set_names"`
	// Threshold is the class's own open-set threshold
	// (Model.ClassThreshold), for a model with a spread; absent otherwise.
	Threshold *float64 `json:"threshold,omitempty"`
}

// Summarize returns the summary of model m, read from the file info
// describes (an empty FileInfo for a model not read from a file, such as
// a voter); a voter is summarised as a model of its own.
func Summarize(info model.FileInfo, m *model.Model) *Summary {
	s := &Summary{
		File:           info.Path,
		FileB64:        jsonname.B64(info.Path),
		FileBytes:      info.Size,
		FormatVersion:  info.Version,
		SHA256:         info.SHA256,
		Tool:           m.Meta.Tool,
		Data:           m.Meta.Data,
		InputDim:       m.InputDim(),
		Dim:            m.Dim(),
		Divergence:     m.Divergence.String(),
		QueryBandwidth: m.QueryBandwidth.String(),
		Threshold:      finite.Ptr(m.Threshold),
		Sets:           len(m.Sets),
		BandwidthMin:   math.Inf(1),
		BandwidthMax:   math.Inf(-1),
		OrthonormalErr: m.OrthonormalityError(),
		FreeW:          !m.Identity && !m.OrthonormalW(),
		Identity:       m.Identity,
		Centred:        slices.ContainsFunc(m.Mean, func(v float64) bool { return v != 0 }),
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
		s.Candidates = append(s.Candidates, Candidate{string(c.Name), c.Params, percent(c.CVAccuracy), c.Seconds})
	}
	if f := m.Features; f != nil {
		s.Features = &Features{Spec: f.Name(), FrameWidth: f.FrameSize.X, FrameHeight: f.FrameSize.Y}
		if f.PCA != nil {
			s.Features.PCAInputDim, s.Features.PCADim = f.PCA.Components.Dims()
		}
	}
	if k := m.Discriminant; k != nil {
		s.KFDA = &KFDA{Kernel: newKernel(k.Term), Reg: k.Reg, Epsilon: k.Solution.Reg, LatentDim: k.Dim(),
			Description: k.Describe(), UsesDivergences: k.UsesDivergences(), OpenSet: k.OpenSet}
		for _, t := range k.Terms {
			s.KFDA.Terms = append(s.KFDA.Terms, Term{newKernel(t), t.Weight})
		}
	}
	byLabel := make(map[string]*Class)
	for _, set := range m.Sets {
		n, _ := set.Samples.Dims()
		s.Frames += n
		c := byLabel[set.Label]
		if c == nil {
			c = &Class{Label: set.Label}
			byLabel[set.Label] = c
		}
		c.Sets++
		c.Frames += n
		c.SetNames = append(c.SetNames, set.Name)
		s.BandwidthMin = min(s.BandwidthMin, set.Bandwidth)
		s.BandwidthMax = max(s.BandwidthMax, set.Bandwidth)
	}
	if sp := m.Spread; sp != nil {
		s.SpreadExponent = &sp.Exponent
		for l, c := range byLabel {
			c.Threshold = finite.Ptr(m.ClassThreshold(l))
		}
	}
	for _, c := range byLabel {
		s.Classes = append(s.Classes, *c)
	}
	slices.SortFunc(s.Classes, func(a, b Class) int {
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
		vs := Summarize(model.FileInfo{}, v)
		s.Voters = append(s.Voters, vs)
	}
	for _, c := range m.Meta.History {
		s.History = append(s.History, Change{Time: c.Time.Format(time.RFC3339), Op: c.Op, Sets: c.Sets, Classes: c.Classes})
	}
	return s
}

// OwnMethod is the method s decides by alone: for a vote, its first
// member's.
func (s *Summary) OwnMethod() string {
	if len(s.Members) > 0 {
		return s.Members[0]
	}
	return s.Method
}
