package model

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"
)

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
	h, identity := newFileHeader(m)
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
	if err := checkSize(&h, len(hdr), len(pipeline), len(voters)); err != nil {
		return err
	}
	return writeParts(w, m, hdr, !identity, pipeline, voters)
}

// checkSize refuses, before anything is written, a model whose file Decode
// would refuse: one whose JSON header (of hdr bytes, describing h) is over
// maxHeaderBytes, or whose file, with pipeline and voters bytes beyond its
// numbers, is over MaxFileBytes. Training or enrolment then fails with what
// to do, and a model file being replaced stays as it was.
func checkSize(h *fileHeader, hdr, pipeline, voters int) error {
	if hdr > maxHeaderBytes {
		return fmt.Errorf("%w: its header (labels, set names, parameters) takes %d bytes, more than the %d a model file may hold: use fewer gallery sets, or shorter class and set names", ErrTooLarge, hdr, maxHeaderBytes)
	}
	// Counted without a limit: shapes that are not a model's are Validate's
	// to refuse (encode writes them for tests).
	floats, err := h.floatCount(math.MaxInt / 8)
	if err != nil {
		return nil
	}
	if size := int64(prefixLen+hdr+pipeline+voters+checksumLen) + 8*int64(floats); size > MaxFileBytes {
		return fmt.Errorf("%w: it would take %d bytes, more than the %d a model file may hold: use fewer or shorter gallery sets (train --max-frames), or fewer dimensions (a projection W, or features with +pca:N)", ErrTooLarge, size, int64(MaxFileBytes))
	}
	return nil
}

// newFileHeader returns the header of m, without the lengths of its
// pipeline and voters, and whether W is stored as the identity.
func newFileHeader(m *Model) (fileHeader, bool) {
	h := fileHeader{
		InputDim:       m.InputDim(),
		Dim:            m.Dim(),
		Divergence:     m.Divergence.String(),
		QueryBandwidth: m.QueryBandwidth.String(),
		Threshold:      jsonFloat(m.Threshold),
		Sets:           make([]fileSet, len(m.Sets)),
		Tool:           m.Meta.Tool,
		Data:           m.Meta.Data,
		Params:         m.Meta.Params,
		FinalCost:      jsonFloat(m.Meta.FinalCost),
		Iterations:     m.Meta.Iterations,
		Spread:         newFileSpread(m.Spread),
	}
	if !m.Meta.Created.IsZero() { // "" for unknown, as read
		h.Created = m.Meta.Created.Format(timeLayout)
	}
	for _, c := range m.Meta.History {
		h.History = append(h.History, fileChange{Time: c.Time.Format(timeLayout), Op: c.Op, Sets: c.Sets, Classes: c.Classes})
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
	if k := m.Discriminant; k != nil {
		h.KFDA = &fileKFDA{
			fileKernel: newFileKernel(k.Term),
			Reg:        jsonFloat(k.Reg), Epsilon: jsonFloat(k.Solution.Reg), AllMean: jsonFloat(k.Solution.AllMean), Dim: k.Dim(),
			OpenSet: k.OpenSet,
		}
		for _, t := range k.Terms {
			h.KFDA.Terms = append(h.KFDA.Terms, fileTerm{newFileKernel(t), jsonFloat(t.Weight)})
		}
	}
	return h, identity
}

// writeParts writes the file of m to w: the prefix, the JSON header hdr,
// the float64 arrays (W only withW), the pipeline's and the voters'
// bytes, and the checksum of them all.
func writeParts(w io.Writer, m *Model, hdr []byte, withW bool, pipeline, voters []byte) error {
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
	if withW {
		putMatrix(m.W)
	}
	for _, v := range m.Mean {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
		bw.Write(buf[:])
	}
	for _, s := range m.Sets {
		putMatrix(s.Samples)
	}
	if k := m.Discriminant; k != nil {
		for _, v := range k.Solution.ColMean {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
			bw.Write(buf[:])
		}
		for _, v := range k.Solution.Values {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
			bw.Write(buf[:])
		}
		putMatrix(k.Solution.Alpha)
		putMatrix(k.Solution.Train)
	}
	bw.Write(pipeline)
	bw.Write(voters)
	if err := bw.Flush(); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(buf[:4], crc.Sum32())
	_, err := w.Write(buf[:4])
	return err
}
