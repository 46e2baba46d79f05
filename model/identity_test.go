package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// identityPair returns a model whose W is the stored D×D identity and the
// same model holding its projection as the identity (no W).
func identityPair() (stored, identity *Model) {
	stored = mfModel(21, 5, 5, []int{6, 7, 5, 6, 8, 5})
	w := mat.NewDense(5, 5, nil)
	for i := range 5 {
		w.Set(i, i, 1)
	}
	stored.W = w
	c := *stored
	c.W, c.Identity = nil, true
	return stored, &c
}

// TestIdentityMatchesStoredIdentity checks that a model holding its
// projection as the identity decides every batch as the same model with
// the D×D identity stored, to the last bit.
func TestIdentityMatchesStoredIdentity(t *testing.T) {
	stored, identity := identityPair()
	if identity.InputDim() != 5 || identity.Dim() != 5 || identity.OrthonormalityError() != 0 {
		t.Fatalf("identity model: D %d, d %d, orthonormality error %v", identity.InputDim(), identity.Dim(), identity.OrthonormalityError())
	}
	ms := mustMatcher(t, stored)
	mi := mustMatcher(t, identity)
	rng := rand.New(rand.NewPCG(22, 1))
	for _, shift := range []float64{0, 3, 6, 40} {
		x := mfBatch(rng, stored, 9, shift)
		rs, err := ms.Match(x)
		if err != nil {
			t.Fatal(err)
		}
		ri, err := mi.Match(x)
		if err != nil {
			t.Fatal(err)
		}
		if rs.Decision != ri.Decision || math.Float64bits(rs.Bandwidth) != math.Float64bits(ri.Bandwidth) {
			t.Errorf("shift %v: decision %+v, bandwidth %v; with W stored %+v, %v", shift, ri.Decision, ri.Bandwidth, rs.Decision, rs.Bandwidth)
		}
		for j := range rs.Divergences {
			if rs.Divergences[j] != ri.Divergences[j] {
				t.Errorf("shift %v set %d: divergences %+v, with W stored %+v", shift, j, ri.Divergences[j], rs.Divergences[j])
			}
		}
	}
}

// TestIdentityFile checks that an identity projection is written without
// W (format 5: the header's projection), that the file reads back as
// one, and that a file of format 4 holding the identity as W reads as an
// identity model too.
func TestIdentityFile(t *testing.T) {
	stored, identity := identityPair()
	for _, m := range []*Model{stored, identity} {
		got, b := mfRoundTrip(t, m)
		if !got.Identity || got.W != nil {
			t.Errorf("decoded: identity %v, W %v", got.Identity, got.W != nil)
		}
		frames := 0
		for _, s := range m.Sets {
			n, _ := s.Samples.Dims()
			frames += n
		}
		hlen := binary.LittleEndian.Uint64(b[12:20])
		if want := prefixLen + int(hlen) + 8*(5+frames*5) + checksumLen; len(b) != want {
			t.Errorf("file of %d bytes, want %d (no W)", len(b), want)
		}
	}
	// Many features, few frames: the file holds fewer numbers than D², so
	// a reader that counted W would refuse it.
	wide := mfModel(23, 300, 300, []int{2, 2, 2})
	wide.W, wide.Identity = nil, true
	if got, _ := mfRoundTrip(t, wide); !got.Identity || got.InputDim() != 300 {
		t.Errorf("D = 300 with 6 frames: identity %v, D %d", got.Identity, got.InputDim())
	}
	// The same model as format 4 wrote it: W stored, no projection field.
	b := mfEncode(t, identity)
	hlen := binary.LittleEndian.Uint64(b[12:20])
	var hdr map[string]any
	if err := json.Unmarshal(b[prefixLen:prefixLen+int(hlen)], &hdr); err != nil {
		t.Fatal(err)
	}
	if hdr["projection"] != "identity" {
		t.Fatalf("header projection %v", hdr["projection"])
	}
	delete(hdr, "projection")
	h4, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	var v4 bytes.Buffer
	v4.WriteString(Magic)
	binary.Write(&v4, binary.LittleEndian, uint32(4))
	binary.Write(&v4, binary.LittleEndian, uint64(len(h4)))
	v4.Write(h4)
	for i := range 5 {
		for j := range 5 {
			v := 0.0
			if i == j {
				v = 1
			}
			binary.Write(&v4, binary.LittleEndian, v)
		}
	}
	v4.Write(b[prefixLen+int(hlen) : len(b)-checksumLen])
	binary.Write(&v4, binary.LittleEndian, crc32.Checksum(v4.Bytes(), castagnoli))
	got, err := DecodeBytes(v4.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !got.Identity || got.W != nil {
		t.Errorf("format 4 file with the identity stored: identity %v, W %v", got.Identity, got.W != nil)
	}
	if diff := mfEqual(identity, got); diff != "" {
		t.Errorf("format 4 file differs in %s", diff)
	}
	// Format 4 had no projection field: one in its header is ignored, so
	// a file without W is one of numbers missing, not an identity model.
	b4 := bytes.Clone(b)
	binary.LittleEndian.PutUint32(b4[8:12], 4)
	mfDecodeErr(t, "format 4 with the projection of format 5", mfReseal(b4), ErrMalformed, "need more numbers")
}

// TestIsIdentity: only the square matrix of ones on the diagonal and
// zeros elsewhere is the identity; a stored W of ones on the diagonal
// with another entry (a full-rank projection of nn-h-lda, which need not
// be orthonormal) is kept as it is, not read as the identity.
func TestIsIdentity(t *testing.T) {
	for _, c := range []struct {
		name string
		w    *mat.Dense
		want bool
	}{
		{"identity", mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}), true},
		{"off-diagonal entry", mat.NewDense(3, 3, []float64{1, 0.5, 0, 0, 1, 0, 0, 0, 1}), false},
		{"diagonal entry", mat.NewDense(3, 3, []float64{1, 0, 0, 0, -1, 0, 0, 0, 1}), false},
		{"not square", mat.NewDense(3, 2, []float64{1, 0, 0, 1, 0, 0}), false},
		{"nil", nil, false},
	} {
		if got := IsIdentity(c.w); got != c.want {
			t.Errorf("%s: IsIdentity = %v, want %v", c.name, got, c.want)
		}
	}

	m := mfModel(22, 3, 3, []int{4, 5})
	m.W = mat.NewDense(3, 3, []float64{1, 0.5, 0, 0, 1, 0, 0, 0, 1})
	m.Selection = Selection{Method: "nn-h-lda", CVAccuracy: math.NaN()}
	got, err := DecodeBytes(mfEncode(t, m))
	if err != nil {
		t.Fatal(err)
	}
	if got.Identity || got.W == nil || !mfSameBits(got.W, m.W) {
		t.Errorf("W with an entry off the diagonal: read as identity %v, W %v; want %v", got.Identity, got.W, m.W)
	}
}
