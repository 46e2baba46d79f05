package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/features"
	"setmatch/internal/finite"
	"setmatch/kfda"
	"setmatch/match"
	"setmatch/method"
)

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
	m, _, err := decodeFile(b)
	if err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// decodeFile is DecodeBytes but for Model.Validate, which its callers
// make (DecodeBytes; ReadFile and ReadMatcher, by readFile): every check
// of the file's bytes, and the model they hold with the format version.
func decodeFile(b []byte) (*Model, uint32, error) {
	m, err := decodeModel(b, false)
	if err != nil {
		return nil, 0, err
	}
	return m, binary.LittleEndian.Uint32(b[8:12]), nil
}

// decodeModel decodes the file of a model (voter false) or of a voter
// inside one (voter true), which may hold no voters: so decoding never
// nests deeper than one level, whatever the file says. It does not
// validate the model: its voters are validated with it, once, by the
// model's Validate (validateVoter).
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
	if got := checksum(body); got != stored {
		if err := truncated(b, hlen); err != nil {
			return nil, err
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
		return fmt.Errorf("%w (it starts with %q, a model file starts with %q): give a model file that setmatch train, enroll or forget wrote", ErrNotModelFile, b[:n], Magic)
	}
	if len(b) < 12 {
		if len(b) == 0 {
			return ErrEmpty
		}
		return fmt.Errorf("%w: %d bytes, too short for the format version", ErrTruncated, len(b))
	}
	v := binary.LittleEndian.Uint32(b[8:12])
	if v > FormatVersion {
		// A newer format may seal its files otherwise; but where this
		// format's checksum fails, a damaged version is as likely.
		if len(b) >= prefixLen+checksumLen && checksum(b[:len(b)-checksumLen]) != binary.LittleEndian.Uint32(b[len(b)-checksumLen:]) {
			return fmt.Errorf("%w (format %d; this one reads ≤ %d), or corrupt (its checksum fails as this setmatch computes it): upgrade setmatch, or, where this setmatch's format wrote the file, copy or write the model again", ErrNewerFormat, v, FormatVersion)
		}
		return fmt.Errorf("%w (format %d; this one reads ≤ %d): upgrade setmatch", ErrNewerFormat, v, FormatVersion)
	}
	if v == 0 {
		return fmt.Errorf("%w: format version 0", ErrMalformed)
	}
	return nil
}

// truncated returns the error of the model file b, whose checksum fails,
// where its header (of hlen bytes) says that bytes are missing: its
// length runs past the file's end (where the length may be what is
// corrupt, so both are said), or the size it describes is past it. It
// returns nil where the header says nothing of the file's size.
func truncated(b []byte, hlen uint64) error {
	if hlen > maxHeaderBytes {
		return nil
	}
	end := uint64(prefixLen) + hlen
	if want, ok := describedSize(b, end); ok && want > uint64(len(b)) {
		return fmt.Errorf("%w: its header describes %d bytes, the file has %d", ErrTruncated, want, len(b))
	}
	if end > uint64(len(b)-checksumLen) {
		return fmt.Errorf("%w, or corrupt: its header's length, %d bytes, runs past the end of the file (%d bytes)", ErrTruncated, hlen, len(b))
	}
	return nil
}

// describedSize returns the file size the header of b, ending at end,
// describes, where the header is in b and can be read.
func describedSize(b []byte, end uint64) (uint64, bool) {
	if end > uint64(len(b)) {
		return 0, false
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
		if method.Kernel(h.KFDA.Kernel).OnSets() {
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
	if v < 7 {
		h.Spread = nil
	}
	if h.Projection != "" && h.Projection != projectionIdentity {
		return nil, fmt.Errorf("%w: projection %q (want %q or none)", ErrMalformed, h.Projection, projectionIdentity)
	}
	if v < 4 && h.KFDA != nil {
		if method.Kernel(h.KFDA.Kernel) == method.KernelSum {
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
	rule, err := match.ParseRecordedBandwidthRule(h.QueryBandwidth) // its range is checked where a KDE uses it (Validate)
	if err != nil {
		return nil, fmt.Errorf("%w: query %w", ErrMalformed, err)
	}
	var created time.Time
	if h.Created != "" {
		created, err = time.Parse(timeLayout, h.Created)
		if err != nil {
			return nil, fmt.Errorf("%w: created: %w", ErrMalformed, err)
		}
	}
	var history []Change
	for i, c := range h.History {
		t, err := time.Parse(timeLayout, c.Time)
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
			if nonFinite == nil && !finite.Is(v[k]) {
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
		Spread:         h.Spread.spread(),
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
		m.Discriminant = &Discriminant{
			Term:    fk.term(0),
			OpenSet: fk.OpenSet,
			Reg:     float64(fk.Reg),
			Solution: kfda.KFDA{
				Reg: float64(fk.Epsilon), AllMean: float64(fk.AllMean),
				ColMean: next("kfda column means", 1, n),
				Values:  next("kfda eigenvalues", 1, r),
				Alpha:   mat.NewDense(n, r, next("kfda coefficients", n, r)),
				Train:   mat.NewDense(n, r, next("kfda latent coordinates", n, r)),
			},
		}
		for _, t := range fk.Terms {
			m.Discriminant.Terms = append(m.Discriminant.Terms, t.term(float64(t.Weight)))
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
