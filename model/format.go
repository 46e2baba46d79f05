package model

// The model file (format 7), all integers little-endian:
//
//	offset       size  field
//	0            8     magic "SETMATCH"
//	8            4     format version, uint32 (7)
//	12           8     header length H, uint64
//	20           H     header: UTF-8 JSON object (fileHeader)
//	20+H         8·F   float64 arrays, IEEE 754 bits: W (D×d, row-major;
//	                   absent when the header's projection is "identity"),
//	                   Mean (D), the samples of each gallery set in order
//	                   (n_i×d, row-major), and with a kFDA solution (m
//	                   gallery sets, r latent dimensions) its column means
//	                   (m), eigenvalues (r), coefficients (m×r) and the
//	                   gallery's latent coordinates (m×r);
//	                   F = [D·d +] D + Σ n_i·d [+ m + r + 2·m·r]
//	20+H+8F      P     the fitted feature pipeline (features.Fitted's
//	                   binary encoding), P = header's features_bytes (0:
//	                   none)
//	20+H+8F+P    V     the voters of a vote (Model.Voters): each a whole
//	                   model file of format 7 (without a pipeline or
//	                   voters of its own), of the lengths in the header's
//	                   voter_bytes, in order; V is their sum (0: none)
//	20+H+8F+P+V  4     CRC-32C (Castagnoli) of every byte before it
//
// The file ends right after the checksum. Format 6 is format 7 without
// the header's spread (one threshold for every class). Format 5 is format
// 6 without voters. Format 4 is format 5 without
// the identity projection (W always stored; an identity W is read as
// one). Format 3 is format 4 without
// the sums of kernels (kfda kernel sum, with its terms). Format 2 is
// format 3 without the set kernels (kfda kernel gda or cdl, with its p or
// lambda). Format 1
// is format 2 without the kFDA arrays and the pipeline (its header has no
// selection, kfda or features_bytes; they are ignored if present). docs/FORMATS.md is the user
// reference, with the compatibility policy.

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"strconv"
	"time"

	"setmatch/method"
)

// Magic is the first 8 bytes of every model file.
const Magic = "SETMATCH"

// FormatVersion is the format version this package writes and the newest
// it reads.
const FormatVersion = 7

// MaxFileBytes is the largest model file ReadFile and Decode accept.
const MaxFileBytes = 1 << 30

// maxHeaderBytes caps the JSON header (labels, names, parameters).
const maxHeaderBytes = 16 << 20

const (
	prefixLen   = 8 + 4 + 8 // magic, version, header length
	checksumLen = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is the CRC-32C of b, as the last 4 bytes of a file hold it.
func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// timeLayout is the layout of the times in the header (created, history).
const timeLayout = time.RFC3339Nano

// Errors wrapped by Decode and ReadFile, for errors.Is.
var (
	ErrNotModelFile = errors.New("not a setmatch model file")
	// ErrEmpty is an empty file's, as an ErrNotModelFile: most likely
	// one read while it was being written in place.
	ErrEmpty       = fmt.Errorf("%w: the file is empty", ErrNotModelFile)
	ErrNewerFormat = errors.New("model file written by a newer setmatch")
	ErrChecksum    = errors.New("checksum mismatch: file is corrupt or truncated")
	ErrTruncated   = errors.New("model file is truncated")
	ErrMalformed   = errors.New("malformed model file")
	ErrTooLarge    = errors.New("model file too large")
)

// fileHeader is the JSON header. Numbers that may be infinite are written
// as jsonFloat. Unknown fields are ignored when reading (see the
// compatibility policy in docs/FORMATS.md).
type fileHeader struct {
	InputDim       int               `json:"input_dim"`
	Dim            int               `json:"dim"`
	Divergence     string            `json:"divergence"`
	QueryBandwidth string            `json:"query_bandwidth"`
	Threshold      jsonFloat         `json:"threshold"`
	Sets           []fileSet         `json:"sets"`
	Created        string            `json:"created"`
	Tool           string            `json:"tool"`
	Data           string            `json:"data"`
	Params         map[string]string `json:"params"`
	FinalCost      jsonFloat         `json:"final_cost"`
	Iterations     int               `json:"iterations"`

	// Format 2.
	Selection     *fileSelection `json:"selection,omitempty"`
	KFDA          *fileKFDA      `json:"kfda,omitempty"`
	FeaturesBytes int            `json:"features_bytes,omitempty"`
	FeaturesSpec  string         `json:"features,omitempty"` // informational: the pipeline's spec

	// Format 5: "identity" when W is the D×D identity and not stored.
	Projection string `json:"projection,omitempty"`

	// Format 6: the length in bytes of each voter's model file.
	VoterBytes []int `json:"voter_bytes,omitempty"`

	// Format 7: a threshold for each class (Model.Spread).
	Spread *fileSpread `json:"spread,omitempty"`

	// Informational (any format; older readers ignore it): the
	// enrolments and forgettings since training (Meta.History).
	History []fileChange `json:"history,omitempty"`
}

// fileSpread is the header's Spread: the exponent and every class's
// factor, by label.
type fileSpread struct {
	Exponent float64            `json:"exponent"`
	Factors  map[string]float64 `json:"factors"`
}

func newFileSpread(s *Spread) *fileSpread {
	if s == nil {
		return nil
	}
	return &fileSpread{Exponent: s.Exponent, Factors: s.Factors}
}

func (f *fileSpread) spread() *Spread {
	if f == nil {
		return nil
	}
	return &Spread{Exponent: f.Exponent, Factors: f.Factors}
}

// fileChange is one entry of the header's history (Change).
type fileChange struct {
	Time    string `json:"time"`
	Op      string `json:"op"`
	Sets    int    `json:"sets"`
	Classes int    `json:"classes"`
}

// projectionIdentity is the header's projection of a model whose W is the
// identity (Model.Identity).
const projectionIdentity = "identity"

type fileSelection struct {
	Method     method.Name       `json:"method"`
	Params     map[string]string `json:"params,omitempty"`
	CVAccuracy jsonMaybe         `json:"cv_accuracy"`
	Candidates []fileCandidate   `json:"candidates,omitempty"`
}

type fileCandidate struct {
	Name       method.Name `json:"name"`
	Params     string      `json:"params"`
	CVAccuracy jsonMaybe   `json:"cv_accuracy"`
	Seconds    jsonFloat   `json:"seconds"`
}

type fileKFDA struct {
	fileKernel
	Reg     jsonFloat  `json:"reg"`
	Epsilon jsonFloat  `json:"epsilon"`
	AllMean jsonFloat  `json:"all_mean"`
	Dim     int        `json:"latent_dim"`
	Terms   []fileTerm `json:"terms,omitempty"`    // kernel sum (format ≥ 4)
	OpenSet string     `json:"open_set,omitempty"` // format ≥ 4; latent before
}

// fileKernel is a kernel and its parameters: a Term without its weight,
// as a kFDA model and each kernel of a sum carry them.
type fileKernel struct {
	Kernel     string    `json:"kernel"`
	Width      jsonFloat `json:"width"`
	Scale      jsonFloat `json:"scale"`
	WidthScale string    `json:"width_scale"`
	P          int       `json:"p,omitempty"`      // gda (format ≥ 3)
	Lambda     jsonFloat `json:"lambda,omitempty"` // cdl (format ≥ 3)
}

func newFileKernel(t Term) fileKernel {
	return fileKernel{t.Kernel, jsonFloat(t.Width), jsonFloat(t.Scale), t.WidthScale, t.P, jsonFloat(t.Lambda)}
}

// term returns k as a Term of the given weight.
func (k fileKernel) term(weight float64) Term {
	return Term{Kernel: k.Kernel, Width: float64(k.Width), Scale: float64(k.Scale), WidthScale: k.WidthScale,
		P: k.P, Lambda: float64(k.Lambda), Weight: weight}
}

// fileTerm is one kernel of a sum (Term).
type fileTerm struct {
	fileKernel
	Weight jsonFloat `json:"weight"`
}

// jsonMaybe is a float64 that may be NaN, written as null.
type jsonMaybe float64

func (f jsonMaybe) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) {
		return []byte("null"), nil
	}
	return jsonFloat(f).MarshalJSON()
}

func (f *jsonMaybe) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = jsonMaybe(math.NaN())
		return nil
	}
	return (*jsonFloat)(f).UnmarshalJSON(b)
}

type fileSet struct {
	Label     string    `json:"label"`
	Name      string    `json:"name"`
	Frames    int       `json:"frames"`
	Bandwidth jsonFloat `json:"bandwidth"`
}

// jsonFloat is a float64 that JSON can carry when infinite: ±Inf are
// written as the strings "+Inf" and "-Inf". Finite values use the shortest
// decimal that reads back to the same bits.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	case math.IsNaN(v):
		return nil, errors.New("NaN cannot be stored")
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"+Inf"`:
		*f = jsonFloat(math.Inf(1))
		return nil
	case `"-Inf"`:
		*f = jsonFloat(math.Inf(-1))
		return nil
	case "null": // not left at 0: no writer writes null
		return errors.New("want a number, \"+Inf\" or \"-Inf\", got null")
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("want a number, \"+Inf\" or \"-Inf\", got %.40s", b)
	}
	*f = jsonFloat(v)
	return nil
}
