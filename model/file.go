package model

// The model file (format 6), all integers little-endian:
//
//	offset       size  field
//	0            8     magic "SETMATCH"
//	8            4     format version, uint32 (5)
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
//	                   model file of format 6 (without a pipeline or
//	                   voters of its own), of the lengths in the header's
//	                   voter_bytes, in order; V is their sum (0: none)
//	20+H+8F+P+V  4     CRC-32C (Castagnoli) of every byte before it
//
// The file ends right after the checksum. Format 5 is format 6 without
// voters. Format 4 is format 5 without
// the identity projection (W always stored; an identity W is read as
// one). Format 3 is format 4 without
// the sums of kernels (kfda kernel sum, with its terms). Format 2 is
// format 3 without the set kernels (kfda kernel gda or cdl, with its p or
// lambda). Format 1
// is format 2 without the kFDA arrays and the pipeline (its header has no
// selection, kfda or features_bytes; they are ignored if present). docs/FORMATS.md is the user
// reference, with the compatibility policy.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/google/renameio/v2"
	"gonum.org/v1/gonum/mat"

	"setmatch/features"
	"setmatch/match"
	"setmatch/method"
)

// Magic is the first 8 bytes of every model file.
const Magic = "SETMATCH"

// FormatVersion is the format version this package writes and the newest
// it reads.
const FormatVersion = 6

// MaxFileBytes is the largest model file ReadFile and Decode accept.
const MaxFileBytes = 1 << 30

// maxHeaderBytes caps the JSON header (labels, names, parameters).
const maxHeaderBytes = 16 << 20

const (
	prefixLen   = 8 + 4 + 8 // magic, version, header length
	checksumLen = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Errors wrapped by Decode and ReadFile, for errors.Is.
var (
	ErrNotModelFile = errors.New("not a setmatch model file")
	ErrNewerFormat  = errors.New("model file written by a newer setmatch")
	ErrChecksum     = errors.New("checksum mismatch: file is corrupt or truncated")
	ErrTruncated    = errors.New("model file is truncated")
	ErrMalformed    = errors.New("malformed model file")
	ErrTooLarge     = errors.New("model file too large")
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

	// Informational (any format; older readers ignore it): the
	// enrolments and forgettings since training (Meta.History).
	History []fileChange `json:"history,omitempty"`
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
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("want a number, \"+Inf\" or \"-Inf\", got %.40s", b)
	}
	*f = jsonFloat(v)
	return nil
}

// Encode writes m to w in the model file format. It validates m first and
// writes nothing if m is invalid. The output is deterministic.
func Encode(w io.Writer, m *Model) error {
	if err := m.Validate(); err != nil {
		return err
	}
	return encode(w, m)
}

// encode writes m without validating it (tests use it to build bad files).
func encode(w io.Writer, m *Model) error {
	h := fileHeader{
		InputDim:       m.InputDim(),
		Dim:            m.Dim(),
		Divergence:     m.Divergence.String(),
		QueryBandwidth: m.QueryBandwidth.String(),
		Threshold:      jsonFloat(m.Threshold),
		Sets:           make([]fileSet, len(m.Sets)),
		Created:        m.Meta.Created.Format(time.RFC3339Nano),
		Tool:           m.Meta.Tool,
		Data:           m.Meta.Data,
		Params:         m.Meta.Params,
		FinalCost:      jsonFloat(m.Meta.FinalCost),
		Iterations:     m.Meta.Iterations,
	}
	for _, c := range m.Meta.History {
		h.History = append(h.History, fileChange{Time: c.Time.Format(time.RFC3339Nano), Op: c.Op, Sets: c.Sets, Classes: c.Classes})
	}
	// An identity W is stored as one, without its D² numbers.
	identity := m.Identity || IsIdentity(m.W)
	if identity {
		h.Projection = projectionIdentity
	}
	for i, s := range m.Sets {
		n := 0
		if s.Samples != nil {
			n, _ = s.Samples.Dims()
		}
		h.Sets[i] = fileSet{Label: s.Label, Name: s.Name, Frames: n, Bandwidth: jsonFloat(s.Bandwidth)}
	}
	if sel := m.Selection; sel.Method != "" || len(sel.Params) > 0 || len(sel.Candidates) > 0 {
		fs := &fileSelection{Method: sel.Method, Params: sel.Params, CVAccuracy: jsonMaybe(sel.CVAccuracy)}
		for _, c := range sel.Candidates {
			fs.Candidates = append(fs.Candidates, fileCandidate{c.Name, c.Params, jsonMaybe(c.CVAccuracy), jsonFloat(c.Seconds)})
		}
		h.Selection = fs
	}
	if k := m.KFDA; k != nil {
		h.KFDA = &fileKFDA{
			fileKernel: newFileKernel(k.Term),
			Reg:        jsonFloat(k.Reg), Epsilon: jsonFloat(k.Epsilon), AllMean: jsonFloat(k.AllMean), Dim: k.Dim(),
			OpenSet: k.OpenSet,
		}
		for _, t := range k.Terms {
			h.KFDA.Terms = append(h.KFDA.Terms, fileTerm{newFileKernel(t), jsonFloat(t.Weight)})
		}
	}
	var pipeline []byte
	if m.Features != nil {
		var err error
		if pipeline, err = m.Features.MarshalBinary(); err != nil {
			return fmt.Errorf("encoding the feature pipeline: %w", err)
		}
		h.FeaturesBytes, h.FeaturesSpec = len(pipeline), m.Features.Name()
	}
	var voters []byte
	for i, v := range m.Voters {
		var b bytes.Buffer
		if err := encode(&b, v); err != nil {
			return fmt.Errorf("encoding voter %d: %w", i+1, err)
		}
		h.VoterBytes = append(h.VoterBytes, b.Len())
		voters = append(voters, b.Bytes()...)
	}
	hdr, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encoding model header: %w", err)
	}

	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 64<<10)
	var pre [prefixLen]byte
	copy(pre[:], Magic)
	binary.LittleEndian.PutUint32(pre[8:], FormatVersion)
	binary.LittleEndian.PutUint64(pre[12:], uint64(len(hdr)))
	bw.Write(pre[:])
	bw.Write(hdr)
	var buf [8]byte
	putMatrix := func(x *mat.Dense) {
		if x == nil {
			return
		}
		r, _ := x.Dims()
		for i := range r {
			for _, v := range x.RawRowView(i) {
				binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
				bw.Write(buf[:])
			}
		}
	}
	if !identity {
		putMatrix(m.W)
	}
	for _, v := range m.Mean {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
		bw.Write(buf[:])
	}
	for _, s := range m.Sets {
		putMatrix(s.Samples)
	}
	if k := m.KFDA; k != nil {
		for _, v := range k.ColMean {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
			bw.Write(buf[:])
		}
		for _, v := range k.Values {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
			bw.Write(buf[:])
		}
		putMatrix(k.Alpha)
		putMatrix(k.Latent)
	}
	bw.Write(pipeline)
	bw.Write(voters)
	if err := bw.Flush(); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(buf[:4], crc.Sum32())
	_, err = w.Write(buf[:4])
	return err
}

// Decode reads a model file from r (at most MaxFileBytes) and validates it:
// magic, format version, checksum, shapes against the bytes present, finite
// numbers, and then Model.Validate. Errors wrap ErrNotModelFile,
// ErrNewerFormat, ErrChecksum, ErrTruncated, ErrMalformed, ErrTooLarge or
// ErrInvalidModel.
func Decode(r io.Reader) (*Model, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, MaxFileBytes)
	}
	return DecodeBytes(b)
}

// DecodeBytes is Decode for a file held in memory. The model does not keep
// references to b.
func DecodeBytes(b []byte) (*Model, error) {
	m, _, err := decodeBytes(b)
	return m, err
}

// decodeBytes is DecodeBytes that also returns the format version.
func decodeBytes(b []byte) (*Model, uint32, error) {
	m, err := decodeChecked(b)
	if err != nil {
		return nil, 0, err
	}
	return m, binary.LittleEndian.Uint32(b[8:12]), nil
}

func decodeChecked(b []byte) (*Model, error) { return decodeModel(b, false) }

// decodeModel is decodeChecked for the file of a model (voter false) or
// of a voter inside one (voter true), which may hold no voters: so
// decoding never nests deeper than one level, whatever the file says.
func decodeModel(b []byte, voter bool) (*Model, error) {
	if err := checkPrefix(b); err != nil {
		return nil, err
	}
	if len(b) < prefixLen+checksumLen {
		return nil, fmt.Errorf("%w: %d bytes, less than the %d of an empty model file", ErrTruncated, len(b), prefixLen+checksumLen)
	}
	hlen := binary.LittleEndian.Uint64(b[12:20])
	body := b[:len(b)-checksumLen]
	stored := binary.LittleEndian.Uint32(b[len(b)-checksumLen:])
	if got := crc32.Checksum(body, castagnoli); got != stored {
		// Say "truncated" when the header shows that bytes are missing.
		if want, ok := expectedSize(b, hlen); ok && want > uint64(len(b)) {
			return nil, fmt.Errorf("%w: its header describes %d bytes, the file has %d", ErrTruncated, want, len(b))
		}
		return nil, fmt.Errorf("%w (stored CRC-32C %08x, computed %08x)", ErrChecksum, stored, got)
	}
	if hlen > uint64(len(body)-prefixLen) {
		return nil, fmt.Errorf("%w: header length %d runs past the end of the file (%d bytes)", ErrMalformed, hlen, len(b))
	}
	if hlen > maxHeaderBytes {
		return nil, fmt.Errorf("%w: header length %d exceeds the limit of %d", ErrMalformed, hlen, maxHeaderBytes)
	}
	h, err := parseHeader(b[prefixLen:prefixLen+int(hlen)], binary.LittleEndian.Uint32(b[8:12]))
	if err != nil {
		return nil, err
	}
	data := body[prefixLen+int(hlen):]
	voterData, err := h.splitVoters(data, voter)
	if err != nil {
		return nil, err
	}
	data = data[:len(data)-len(voterData)]
	if h.FeaturesBytes < 0 || h.FeaturesBytes > len(data) {
		return nil, fmt.Errorf("%w: the header gives the feature pipeline %d bytes, the file holds %d bytes after the header", ErrMalformed, h.FeaturesBytes, len(data))
	}
	pipeline := data[len(data)-h.FeaturesBytes:]
	data = data[:len(data)-h.FeaturesBytes]
	floats, err := h.floatCount(len(data))
	if err != nil {
		return nil, err
	}
	if 8*floats != len(data) {
		return nil, fmt.Errorf("%w: header describes %d numbers (%d bytes), the file holds %d bytes of numbers", ErrMalformed, floats, 8*floats, len(data))
	}
	m, err := h.model(data)
	if err != nil {
		return nil, err
	}
	if len(pipeline) > 0 {
		var f features.Fitted
		if err := f.UnmarshalBinary(pipeline); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		if h.FeaturesSpec != "" && h.FeaturesSpec != f.Name() {
			return nil, fmt.Errorf("%w: the header names the feature pipeline %q, the pipeline stored is %q", ErrMalformed, h.FeaturesSpec, f.Name())
		}
		m.Features = &f
	} else if h.FeaturesSpec != "" {
		return nil, fmt.Errorf("%w: the header names the feature pipeline %q but none is stored", ErrMalformed, h.FeaturesSpec)
	}
	for i, n := range h.VoterBytes {
		v, err := decodeModel(voterData[:n], true)
		if err != nil {
			return nil, fmt.Errorf("voter %d: %w", i+1, err)
		}
		m.Voters, voterData = append(m.Voters, v), voterData[n:]
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// splitVoters returns the bytes of the voters at the end of data (after
// the header, without the checksum), checking the header's voter lengths
// against the bytes present; a voter's file (voter) may hold none.
func (h *fileHeader) splitVoters(data []byte, voter bool) ([]byte, error) {
	if len(h.VoterBytes) == 0 {
		return nil, nil
	}
	if voter {
		return nil, fmt.Errorf("%w: a voter holds voters of its own", ErrMalformed)
	}
	if len(h.VoterBytes) > MaxVoters {
		return nil, fmt.Errorf("%w: %d voters, at most %d", ErrMalformed, len(h.VoterBytes), MaxVoters)
	}
	total := 0
	for i, n := range h.VoterBytes {
		if n < prefixLen+checksumLen || n > len(data)-total {
			return nil, fmt.Errorf("%w: voter %d of %d bytes, the file holds %d bytes after the header and the voters before it", ErrMalformed, i+1, n, len(data)-total)
		}
		total += n
	}
	return data[len(data)-total:], nil
}

// checkPrefix checks the magic and the format version of b.
func checkPrefix(b []byte) error {
	n := min(len(b), len(Magic))
	if !bytes.Equal(b[:n], []byte(Magic[:n])) {
		return fmt.Errorf("%w (it starts with %q, a model file starts with %q)", ErrNotModelFile, b[:n], Magic)
	}
	if len(b) < 12 {
		if len(b) == 0 {
			return fmt.Errorf("%w: the file is empty", ErrNotModelFile)
		}
		return fmt.Errorf("%w: %d bytes, too short for the format version", ErrTruncated, len(b))
	}
	v := binary.LittleEndian.Uint32(b[8:12])
	if v > FormatVersion {
		return fmt.Errorf("%w (format %d; this one reads ≤ %d): upgrade setmatch", ErrNewerFormat, v, FormatVersion)
	}
	if v == 0 {
		return fmt.Errorf("%w: format version 0", ErrMalformed)
	}
	return nil
}

// expectedSize returns the file size the header of b describes, if the
// header can be read.
func expectedSize(b []byte, hlen uint64) (uint64, bool) {
	if hlen > maxHeaderBytes {
		return 0, false
	}
	end := uint64(prefixLen) + hlen
	if end > uint64(len(b)) {
		return 0, false // the length itself may be what is corrupt
	}
	h, err := parseHeader(b[prefixLen:end], binary.LittleEndian.Uint32(b[8:12]))
	if err != nil || h.FeaturesBytes < 0 || h.FeaturesBytes > MaxFileBytes {
		return 0, false
	}
	floats, err := h.floatCount(MaxFileBytes)
	if err != nil {
		return 0, false
	}
	var voters uint64
	for _, n := range h.VoterBytes {
		if n < 0 || n > MaxFileBytes {
			return 0, false
		}
		voters += uint64(n)
	}
	return end + 8*uint64(floats) + uint64(h.FeaturesBytes) + voters + checksumLen, true
}

// parseHeader reads the JSON header of a file of format version v; the
// fields of later versions are ignored.
func parseHeader(b []byte, v uint32) (*fileHeader, error) {
	var h fileHeader
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrMalformed, err)
	}
	if v < 2 {
		h.Selection, h.KFDA, h.FeaturesBytes, h.FeaturesSpec = nil, nil, 0, ""
	}
	if v < 3 && h.KFDA != nil {
		if IsSetKernel(h.KFDA.Kernel) {
			return nil, fmt.Errorf("%w: kfda kernel %q in a file of format %d (set kernels came with format 3)", ErrMalformed, h.KFDA.Kernel, v)
		}
		h.KFDA.P, h.KFDA.Lambda = 0, 0
	}
	if v < 5 {
		h.Projection = ""
	}
	if v < 6 {
		h.VoterBytes = nil
	}
	if h.Projection != "" && h.Projection != projectionIdentity {
		return nil, fmt.Errorf("%w: projection %q (want %q or none)", ErrMalformed, h.Projection, projectionIdentity)
	}
	if v < 4 && h.KFDA != nil {
		if h.KFDA.Kernel == KernelSum {
			return nil, fmt.Errorf("%w: kfda kernel %q in a file of format %d (sums of kernels came with format 4)", ErrMalformed, h.KFDA.Kernel, v)
		}
		h.KFDA.Terms, h.KFDA.OpenSet = nil, OpenSetLatent
	}
	return &h, nil
}

// floatCount returns the number of float64 values the header describes,
// checking every size against avail bytes before multiplying, so that no
// size in the file can overflow or cause a large allocation.
func (h *fileHeader) floatCount(avail int) (int, error) {
	if h.InputDim < 1 || h.Dim < 1 || h.Dim > h.InputDim {
		return 0, fmt.Errorf("%w: dimensions %d→%d (want 1 ≤ d ≤ D)", ErrMalformed, h.InputDim, h.Dim)
	}
	if len(h.Sets) == 0 {
		return 0, fmt.Errorf("%w: no gallery sets", ErrMalformed)
	}
	limit := avail / 8
	tooMany := func(what string) error {
		return fmt.Errorf("%w: the header's shapes need more numbers than the %d bytes of data hold (at %s)", ErrMalformed, avail, what)
	}
	if h.Projection == projectionIdentity && h.Dim != h.InputDim {
		return 0, fmt.Errorf("%w: identity projection from %d to %d dimensions", ErrMalformed, h.InputDim, h.Dim)
	}
	total := h.InputDim // the mean; W too unless it is the identity
	if h.Projection != projectionIdentity {
		if h.InputDim > limit/h.Dim {
			return 0, tooMany(fmt.Sprintf("W (%d×%d)", h.InputDim, h.Dim))
		}
		total += h.InputDim * h.Dim
	}
	if total > limit {
		return 0, tooMany("W and the mean")
	}
	for i, s := range h.Sets {
		if s.Frames < 1 {
			return 0, fmt.Errorf("%w: gallery set %d has %d frames", ErrMalformed, i, s.Frames)
		}
		if s.Frames > (limit-total)/h.Dim {
			return 0, tooMany(fmt.Sprintf("gallery set %d (%d×%d)", i, s.Frames, h.Dim))
		}
		total += s.Frames * h.Dim
	}
	if h.KFDA != nil {
		// m + r + 2·m·r numbers, with 1 ≤ r < m (r ≤ C−1 and C ≤ m).
		m, r := len(h.Sets), h.KFDA.Dim
		if r < 1 || r >= m {
			return 0, fmt.Errorf("%w: kfda latent dimension %d for %d gallery sets (want 1 ≤ r < %d)", ErrMalformed, r, m, m)
		}
		// r < m ≤ limit, so m + r cannot overflow; 2·m·r is compared by
		// division.
		if m+r > limit-total || (limit-total-m-r)/(2*m) < r {
			return 0, tooMany(fmt.Sprintf("kfda (%d×%d)", m, r))
		}
		total += m + r + 2*m*r
	}
	return total, nil
}

// model builds the Model from the header and the float data, whose length
// floatCount has checked.
func (h *fileHeader) model(data []byte) (*Model, error) {
	div, err := match.ParseMeasure(h.Divergence)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	rule, err := match.ParseBandwidthRule(h.QueryBandwidth)
	if err != nil {
		return nil, fmt.Errorf("%w: query %w", ErrMalformed, err)
	}
	var created time.Time
	if h.Created != "" {
		created, err = time.Parse(time.RFC3339Nano, h.Created)
		if err != nil {
			return nil, fmt.Errorf("%w: created: %w", ErrMalformed, err)
		}
	}
	var history []Change
	for i, c := range h.History {
		t, err := time.Parse(time.RFC3339Nano, c.Time)
		if err != nil {
			return nil, fmt.Errorf("%w: history entry %d: time: %w", ErrMalformed, i, err)
		}
		history = append(history, Change{Time: t, Op: c.Op, Sets: c.Sets, Classes: c.Classes})
	}
	off := 0
	var nonFinite error
	next := func(what string, rows, cols int) []float64 {
		v := make([]float64, rows*cols)
		for k := range v {
			v[k] = math.Float64frombits(binary.LittleEndian.Uint64(data[off:]))
			off += 8
			if nonFinite == nil && !finite(v[k]) {
				if rows == 1 {
					nonFinite = fmt.Errorf("%w: %s[%d] is %v", ErrInvalidModel, what, k, v[k])
				} else {
					nonFinite = fmt.Errorf("%w: %s[%d, %d] is %v", ErrInvalidModel, what, k/cols, k%cols, v[k])
				}
			}
		}
		return v
	}
	m := &Model{
		Divergence:     div,
		QueryBandwidth: rule,
		Identity:       h.Projection == projectionIdentity,
		Sets:           make([]Set, len(h.Sets)),
		Threshold:      float64(h.Threshold),
		Meta: Meta{
			Created:    created,
			Tool:       h.Tool,
			Data:       h.Data,
			Params:     h.Params,
			FinalCost:  float64(h.FinalCost),
			Iterations: h.Iterations,
			History:    history,
		},
	}
	if !m.Identity {
		m.W = mat.NewDense(h.InputDim, h.Dim, next("W", h.InputDim, h.Dim))
		// A stored identity (full-space models before format 5) is held
		// as one: the same numbers, without the D×D product per batch.
		if IsIdentity(m.W) {
			m.W, m.Identity = nil, true
		}
	}
	m.Mean = next("mean", 1, h.InputDim)
	for i, s := range h.Sets {
		x := next(fmt.Sprintf("gallery set %d (%q) samples", i, s.Label), s.Frames, h.Dim)
		m.Sets[i] = Set{Label: s.Label, Name: s.Name, Samples: mat.NewDense(s.Frames, h.Dim, x), Bandwidth: float64(s.Bandwidth)}
	}
	if fk := h.KFDA; fk != nil {
		n, r := len(h.Sets), fk.Dim
		m.KFDA = &KFDA{
			Term:    fk.term(0),
			OpenSet: fk.OpenSet,
			Reg:     float64(fk.Reg), Epsilon: float64(fk.Epsilon), AllMean: float64(fk.AllMean),
			ColMean: next("kfda column means", 1, n),
			Values:  next("kfda eigenvalues", 1, r),
			Alpha:   mat.NewDense(n, r, next("kfda coefficients", n, r)),
			Latent:  mat.NewDense(n, r, next("kfda latent coordinates", n, r)),
		}
		for _, t := range fk.Terms {
			m.KFDA.Terms = append(m.KFDA.Terms, t.term(float64(t.Weight)))
		}
	}
	if sel := h.Selection; sel != nil {
		m.Selection = Selection{Method: sel.Method, Params: sel.Params, CVAccuracy: float64(sel.CVAccuracy)}
		for _, c := range sel.Candidates {
			m.Selection.Candidates = append(m.Selection.Candidates, Candidate{c.Name, c.Params, float64(c.CVAccuracy), float64(c.Seconds)})
		}
	}
	if nonFinite != nil {
		return nil, nonFinite
	}
	return m, nil
}

// WriteFile writes m to path atomically: to a temporary file in the same
// directory, synced, then renamed over path, and the directory synced, so
// that readers see the old or the new model, never a partial one.
func WriteFile(path string, m *Model) error {
	if err := m.Validate(); err != nil {
		return err
	}
	// A new file is 0644; a replaced one keeps its mode, owner and group (as
	// far as the writer may set them), so that replacing a deployed model, e.g.
	// root:setmatch 0640, leaves it readable by the daemon.
	f, err := renameio.NewPendingFile(path, renameio.WithPermissions(0o644), renameio.WithExistingPermissions())
	if err != nil {
		return err
	}
	defer f.Cleanup()
	keepOwner(f.File, path)
	if err := encode(f, m); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.CloseAtomicallyReplace(); err != nil {
		return err
	}
	// The rename is durable only once the directory is synced.
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil {
			return fmt.Errorf("syncing the directory of %s: %w", path, err)
		}
	}
	return nil
}

// FileInfo holds what a model file says beyond the model: where it was read
// from, its size, its checksum and its format version.
type FileInfo struct {
	Path    string
	Size    int64  // bytes
	SHA256  string // hex SHA-256 of the bytes decoded
	Version uint32 // format version
}

// ID is a short form of the file's checksum (its first 16 hex digits), as
// the daemon's journal records it.
func (fi FileInfo) ID() string { return fi.SHA256[:min(16, len(fi.SHA256))] }

// ReadFile reads and validates the model file at path (at most
// MaxFileBytes) and returns the model with the facts of the file; the
// checksum is of the very bytes decoded. Errors name the file.
func ReadFile(path string) (*Model, FileInfo, error) {
	return ReadFileLimit(path, MaxFileBytes)
}

// ReadFileLimit is ReadFile with a size limit in bytes (at most
// MaxFileBytes).
func ReadFileLimit(path string, maxBytes int64) (*Model, FileInfo, error) {
	maxBytes = min(maxBytes, MaxFileBytes)
	f, err := os.Open(path)
	if err != nil {
		return nil, FileInfo{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, FileInfo{}, fmt.Errorf("model %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, FileInfo{}, fmt.Errorf("model %s: %w: not a regular file", path, ErrNotModelFile)
	}
	if st.Size() > maxBytes {
		return nil, FileInfo{}, fmt.Errorf("model %s: %w: %d bytes, the limit is %d", path, ErrTooLarge, st.Size(), maxBytes)
	}
	// Read into a buffer of the file's size, plus room to see a file that
	// grew: io.ReadAll's doubling would briefly hold twice the model.
	b := make([]byte, st.Size()+bytes.MinRead)
	n, err := io.ReadFull(io.LimitReader(f, maxBytes+1), b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, FileInfo{}, fmt.Errorf("model %s: %w", path, err)
	}
	if n == len(b) {
		return nil, FileInfo{}, fmt.Errorf("model %s: the file is growing while being read (write models with `setmatch train`, which replaces them atomically)", path)
	}
	b = b[:n]
	if int64(len(b)) > maxBytes {
		return nil, FileInfo{}, fmt.Errorf("model %s: %w: more than %d bytes", path, ErrTooLarge, maxBytes)
	}
	m, version, err := decodeBytes(b)
	if err != nil {
		return nil, FileInfo{}, fmt.Errorf("model %s: %w", path, err)
	}
	sum := sha256.Sum256(b)
	return m, FileInfo{Path: path, Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:]), Version: version}, nil
}
