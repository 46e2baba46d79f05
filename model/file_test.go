package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/match"
)

func mfEncode(t testing.TB, m *Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// mfRoundTrip encodes m, decodes the bytes, fails t unless the decoded
// model equals m (mfEqual), and returns the decoded model and the bytes.
func mfRoundTrip(t testing.TB, m *Model) (*Model, []byte) {
	t.Helper()
	b := mfEncode(t, m)
	got, err := Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if diff := mfEqual(m, got); diff != "" {
		t.Fatalf("round trip differs in %s", diff)
	}
	return got, b
}

// mfSameBits reports whether a and b hold bit-identical numbers.
func mfSameBits(a, b *mat.Dense) bool {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for i := range ra {
		for j := range ca {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				return false
			}
		}
	}
	return true
}

// mfEqual reports the first difference between two models, bit for bit.
func mfEqual(a, b *Model) string {
	switch {
	case a.Divergence != b.Divergence:
		return "divergence"
	case a.QueryBandwidth != b.QueryBandwidth:
		return "query bandwidth"
	case (a.Identity || IsIdentity(a.W)) != (b.Identity || IsIdentity(b.W)):
		return "identity projection"
	case !a.Identity && !b.Identity && !IsIdentity(a.W) && !mfSameBits(a.W, b.W):
		return "W"
	case math.Float64bits(a.Threshold) != math.Float64bits(b.Threshold):
		return "threshold"
	case len(a.Mean) != len(b.Mean) || len(a.Sets) != len(b.Sets):
		return "lengths"
	case !a.Meta.Created.Equal(b.Meta.Created):
		return "created"
	case a.Meta.Tool != b.Meta.Tool || a.Meta.Data != b.Meta.Data || a.Meta.Iterations != b.Meta.Iterations:
		return "meta"
	case math.Float64bits(a.Meta.FinalCost) != math.Float64bits(b.Meta.FinalCost):
		return "final cost"
	case !reflect.DeepEqual(a.Meta.Params, b.Meta.Params) && (len(a.Meta.Params) > 0 || len(b.Meta.Params) > 0):
		return "params"
	case !mfSameSelection(a.Selection, b.Selection):
		return "selection"
	case (a.Discriminant == nil) != (b.Discriminant == nil):
		return "kfda presence"
	case (a.Features == nil) != (b.Features == nil):
		return "features presence"
	}
	if a.Discriminant != nil {
		ka, kb := a.Discriminant, b.Discriminant
		if ka.Kernel != kb.Kernel || ka.WidthScale != kb.WidthScale || !mfSameFloats(
			[]float64{ka.Width, ka.Scale, ka.Reg, ka.Solution.Reg, ka.Solution.AllMean}, []float64{kb.Width, kb.Scale, kb.Reg, kb.Solution.Reg, kb.Solution.AllMean}) ||
			!mfSameFloats(ka.Solution.ColMean, kb.Solution.ColMean) || !mfSameFloats(ka.Solution.Values, kb.Solution.Values) || !mfSameBits(ka.Solution.Alpha, kb.Solution.Alpha) || !mfSameBits(ka.Solution.Train, kb.Solution.Train) {
			return "kfda"
		}
	}
	if a.Features != nil {
		ea, _ := a.Features.MarshalBinary()
		eb, _ := b.Features.MarshalBinary()
		if !bytes.Equal(ea, eb) {
			return "features"
		}
	}
	for j := range a.Mean {
		if math.Float64bits(a.Mean[j]) != math.Float64bits(b.Mean[j]) {
			return "mean"
		}
	}
	for i := range a.Sets {
		sa, sb := a.Sets[i], b.Sets[i]
		if sa.Label != sb.Label || sa.Name != sb.Name || math.Float64bits(sa.Bandwidth) != math.Float64bits(sb.Bandwidth) || !mfSameBits(sa.Samples, sb.Samples) {
			return "set " + sa.Name
		}
	}
	return ""
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(m *Model)
	}{
		{"closed set", func(m *Model) {}},
		{"open set", func(m *Model) { m.Threshold = 0.1 + 0.2 }},
		{"zero threshold", func(m *Model) { m.Threshold = 0 }},
		{"jeffrey fixed bandwidth", func(m *Model) {
			m.Divergence = match.Jeffrey
			m.QueryBandwidth = match.BandwidthRule{Kind: match.Fixed, Fixed: 1.0 / 3}
		}},
		{"silverman", func(m *Model) { m.QueryBandwidth = match.BandwidthRule{Kind: match.Silverman} }},
		{"awkward numbers", func(m *Model) {
			m.Sets[0].Samples.Set(0, 0, math.SmallestNonzeroFloat64)
			m.Sets[0].Samples.Set(0, 1, -6e153) // a KDE takes squared norms up to MaxSqNorm, about 4.5e307
			m.Sets[1].Samples.Set(0, 0, math.Copysign(0, -1))
			m.Sets[1].Bandwidth = math.Nextafter(1, 2)
			m.Mean[0] = 5e-324
			m.Mean[1] = -math.MaxFloat64
			m.Meta.FinalCost = -math.MaxFloat64
		}},
		{"empty meta", func(m *Model) { m.Meta = Meta{} }},
		{"unicode labels", func(m *Model) { m.Sets[0].Label = "Zoë \"quoted\" / ünïcode"; m.Sets[2].Name = "" }},
	} {
		m := mfModel(21, 9, 4, []int{5, 1, 7})
		tc.setup(m)
		b := mfEncode(t, m)
		got, err := Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := mfEqual(m, got); diff != "" {
			t.Errorf("%s: round trip differs in %s", tc.name, diff)
		}
		if again := mfEncode(t, got); !bytes.Equal(again, b) {
			t.Errorf("%s: re-encoding the decoded model gives different bytes", tc.name)
		}
	}
}

func TestLayout(t *testing.T) {
	m := mfModel(22, 5, 2, []int{3, 4})
	b := mfEncode(t, m)
	if string(b[:8]) != "SETMATCH" || binary.LittleEndian.Uint32(b[8:]) != FormatVersion {
		t.Fatalf("prefix % x", b[:12])
	}
	h := binary.LittleEndian.Uint64(b[12:])
	var hdr map[string]any
	if err := json.Unmarshal(b[20:20+h], &hdr); err != nil {
		t.Fatalf("header is not JSON: %v", err)
	}
	if hdr["threshold"] != "+Inf" || hdr["divergence"] != "hellinger" || hdr["query_bandwidth"] != "scott" {
		t.Errorf("header %v", hdr)
	}
	floats := 5*2 + 5 + 3*2 + 4*2
	if want := 20 + int(h) + 8*floats + 4; len(b) != want {
		t.Fatalf("file is %d bytes, want %d", len(b), want)
	}
	// W[1,0] is the third float (row-major), the mean follows W.
	off := 20 + int(h)
	if v := math.Float64frombits(binary.LittleEndian.Uint64(b[off+16:])); v != m.W.At(1, 0) {
		t.Errorf("W[1,0] at its offset is %v, want %v", v, m.W.At(1, 0))
	}
	if v := math.Float64frombits(binary.LittleEndian.Uint64(b[off+8*10:])); v != m.Mean[0] {
		t.Errorf("mean[0] at its offset is %v, want %v", v, m.Mean[0])
	}
	if crc := crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)); binary.LittleEndian.Uint32(b[len(b)-4:]) != crc {
		t.Error("trailer is not the CRC-32C of the rest")
	}
}

// A model whose time of writing is unknown (a header with "created": "")
// is written back with "", as FORMATS.md says, not as the year 1.
func TestUnknownCreatedStaysEmpty(t *testing.T) {
	m := mfModel(22, 5, 2, []int{3, 4})
	m.Meta.Created = time.Time{}
	b := mfEncode(t, m)
	h := binary.LittleEndian.Uint64(b[12:])
	var hdr map[string]any
	if err := json.Unmarshal(b[20:20+h], &hdr); err != nil {
		t.Fatal(err)
	}
	if hdr["created"] != "" {
		t.Errorf("created of a model of unknown time is %q, want \"\"", hdr["created"])
	}
	got, err := Decode(bytes.NewReader(b))
	if err != nil || !got.Meta.Created.IsZero() {
		t.Errorf("read back: created %v, %v", got.Meta.Created, err)
	}
}

// failingWriter fails its first fail writes, and takes those after.
type failingWriter struct {
	fail int
	bytes.Buffer
}

var errWrite = errors.New("write failed")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.fail > 0 {
		w.fail--
		return 0, errWrite
	}
	return w.Buffer.Write(p)
}

// TestEncodeReportsWriteError: a write of the model's bytes that fails is
// Encode's error, also where the writer takes the checksum written after
// them: a caller must never take a file with bytes missing for written.
func TestEncodeReportsWriteError(t *testing.T) {
	for _, fail := range []int{1, 1 << 20} {
		w := &failingWriter{fail: fail}
		if err := Encode(w, mfModel(23, 5, 2, []int{3})); !errors.Is(err, errWrite) {
			t.Errorf("a writer failing %d writes: %v, want the write's error", fail, err)
		}
	}
}

func TestEncodeRefusesInvalid(t *testing.T) {
	m := mfModel(23, 5, 2, []int{3})
	m.Threshold = math.NaN()
	var b bytes.Buffer
	if err := Encode(&b, m); !errors.Is(err, ErrInvalidModel) || b.Len() != 0 {
		t.Errorf("Encode of an invalid model: %v, %d bytes written", err, b.Len())
	}
	if err := WriteFile(filepath.Join(t.TempDir(), "m.smm"), m); !errors.Is(err, ErrInvalidModel) {
		t.Errorf("WriteFile of an invalid model: %v", err)
	}
}

// writtenModel writes a small model to m.smm in a fresh folder and
// returns the folder, the model's path and the model.
func writtenModel(t *testing.T) (dir, p string, m *Model) {
	t.Helper()
	dir = t.TempDir()
	p = filepath.Join(dir, "m.smm")
	m = mfModel(24, 7, 3, []int{4, 6})
	if err := WriteFile(p, m); err != nil {
		t.Fatal(err)
	}
	return dir, p, m
}

func TestWriteReadFile(t *testing.T) {
	dir, p, m := writtenModel(t)
	// Replace it: readers must only ever see a whole file.
	m.Threshold = 0.5
	if err := WriteFile(p, m); err != nil {
		t.Fatal(err)
	}
	got, info, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := mfEqual(m, got); diff != "" {
		t.Errorf("differs in %s", diff)
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	want := FileInfo{Path: p, Size: int64(len(raw)), SHA256: hex.EncodeToString(sum[:]), Version: FormatVersion}
	if info != want {
		t.Errorf("file info %+v, want %+v", info, want)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only the model (no temporary files)", len(ents))
	}
	fi, _ := os.Stat(p)
	if _, _, err := ReadFileLimit(p, fi.Size()-1); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Errorf("limit: %v", err)
	}
	if _, _, err := ReadFile(filepath.Join(dir, "missing.smm")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, _, err := ReadFile(dir); !errors.Is(err, ErrNotModelFile) {
		t.Errorf("directory: %v", err)
	}
	bad := filepath.Join(dir, "bad.smm")
	os.WriteFile(bad, []byte("hello world, this is text"), 0o644)
	if _, _, err := ReadFile(bad); !errors.Is(err, ErrNotModelFile) || !strings.HasPrefix(err.Error(), "model "+bad+": not a setmatch model file") ||
		!strings.Contains(err.Error(), "setmatch train") {
		t.Errorf("text file: %v, want what it is not and what writes a model file", err)
	}
}

// TestWriteFileRenameFails: where the new model cannot be renamed into
// place (a directory stands at the path), WriteFile says so, leaves the
// directory as it was and no temporary file beside it: a caller must
// never take the model for written.
func TestWriteFileRenameFails(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.smm")
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, mfModel(24, 7, 3, []int{4, 6})); err == nil {
		t.Fatal("WriteFile over a directory: no error")
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		t.Errorf("the directory at the path: %v, %v", fi, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries beside the directory, want none (no temporary file)", len(ents)-1)
	}
}

// mfDecodeErr decodes b and checks the error wraps kind and contains want.
func mfDecodeErr(t *testing.T, what string, b []byte, kind error, want string) {
	t.Helper()
	m, err := Decode(bytes.NewReader(b))
	if err == nil {
		t.Errorf("%s: decoded without error: %+v", what, m)
		return
	}
	if !errors.Is(err, kind) {
		t.Errorf("%s: error %q does not wrap %q", what, err, kind)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error %q does not contain %q", what, err, want)
	}
}

// mfReseal recomputes the checksum of a modified file.
func mfReseal(b []byte) []byte {
	c := crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli))
	binary.LittleEndian.PutUint32(b[len(b)-4:], c)
	return b
}

func TestMagicAndVersion(t *testing.T) {
	good := mfEncode(t, mfModel(25, 5, 2, []int{3}))
	mfDecodeErr(t, "empty", nil, ErrNotModelFile, "the file is empty")
	mfDecodeErr(t, "png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), ErrNotModelFile, "not a setmatch model file")
	mfDecodeErr(t, "npy", []byte("\x93NUMPY\x01\x00v\x00{'descr'"), ErrNotModelFile, `starts with "\x93NUMPY`)
	mfDecodeErr(t, "prefix of magic", []byte("SETM"), ErrTruncated, "4 bytes")

	b := bytes.Clone(good)
	b[0] = 's'
	mfDecodeErr(t, "magic", b, ErrNotModelFile, "not a setmatch model file")

	b = bytes.Clone(good)
	binary.LittleEndian.PutUint32(b[8:], FormatVersion+1)
	// A version byte damaged, or a newer format sealed otherwise: both said.
	mfDecodeErr(t, "newer", b, ErrNewerFormat, fmt.Sprintf("written by a newer setmatch (format %d; this one reads ≤ %d), or corrupt (its checksum fails as this setmatch computes it): upgrade", FormatVersion+1, FormatVersion))
	b = mfReseal(b) // with this format's checksum: a newer format
	mfDecodeErr(t, "newer resealed", b, ErrNewerFormat, fmt.Sprintf("written by a newer setmatch (format %d; this one reads ≤ %d): upgrade setmatch", FormatVersion+1, FormatVersion))

	b = mfReseal(bytes.Clone(good))
	binary.LittleEndian.PutUint32(b[8:], 0)
	mfDecodeErr(t, "version 0", mfReseal(b), ErrMalformed, "format version 0")
}

func TestFlippedBytes(t *testing.T) {
	good := mfEncode(t, mfModel(26, 5, 2, []int{3, 2}))
	hlen := int(binary.LittleEndian.Uint64(good[12:]))
	for off := 12; off < len(good); off++ {
		for _, bit := range []byte{0x01, 0x80} {
			b := bytes.Clone(good)
			b[off] ^= bit
			_, err := Decode(bytes.NewReader(b))
			switch {
			case err == nil:
				t.Fatalf("flipping bit %#x of byte %d went unnoticed", bit, off)
			case off < 20 && errors.Is(err, ErrTruncated):
				// A length now past the end reads as a file cut short.
				if !strings.Contains(err.Error(), "truncated, or corrupt: its header's length") {
					t.Fatalf("byte %d bit %#x: %v, want it to say both", off, bit, err)
				}
			case off >= 20+hlen || off < 20:
				// Data, checksum and length: only the checksum can tell.
				if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "file is corrupt or truncated") {
					t.Fatalf("byte %d bit %#x: %v, want a checksum mismatch", off, bit, err)
				}
			default:
				// In the header, a changed shape may look like truncation.
				if !errors.Is(err, ErrChecksum) && !errors.Is(err, ErrTruncated) {
					t.Fatalf("byte %d bit %#x in the header: %v", off, bit, err)
				}
			}
		}
	}
}

func TestTruncated(t *testing.T) {
	good := mfEncode(t, mfModel(27, 5, 2, []int{3, 2}))
	hlen := int(binary.LittleEndian.Uint64(good[12:]))
	step := 1
	if testing.Short() {
		step = 7
	}
	for n := 0; n < len(good); n += step {
		_, err := Decode(bytes.NewReader(good[:n]))
		switch {
		case err == nil:
			t.Fatalf("truncated at %d of %d bytes: no error", n, len(good))
		case n == 0:
			if !errors.Is(err, ErrNotModelFile) {
				t.Errorf("empty: %v", err)
			}
		case n >= 20+hlen:
			// The header is whole: it says how long the file must be.
			if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), "the file has") {
				t.Fatalf("truncated at %d (header whole): %v, want truncated", n, err)
			}
		default:
			// Cut inside the prefix, or inside the header, whose length
			// then runs past the end.
			if !errors.Is(err, ErrTruncated) {
				t.Fatalf("truncated at %d: %v, want truncated", n, err)
			}
		}
	}
	// Extra bytes at the end are corruption too.
	mfDecodeErr(t, "appended", append(bytes.Clone(good), 0), ErrChecksum, "checksum mismatch")
}

// mfRawFile builds a file from a header and numbers with a valid checksum,
// so that the checks after the checksum can be reached.
func mfRawFile(t *testing.T, hdr any, floats []float64) []byte {
	t.Helper()
	var h []byte
	switch v := hdr.(type) {
	case string:
		h = []byte(v)
	default:
		var err error
		if h, err = json.Marshal(hdr); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	b.WriteString(Magic)
	binary.Write(&b, binary.LittleEndian, uint32(FormatVersion))
	binary.Write(&b, binary.LittleEndian, uint64(len(h)))
	b.Write(h)
	for _, f := range floats {
		binary.Write(&b, binary.LittleEndian, math.Float64bits(f))
	}
	b.Write([]byte{0, 0, 0, 0})
	return mfReseal(b.Bytes())
}

func TestInconsistentShapes(t *testing.T) {
	m := mfModel(28, 4, 2, []int{3})
	var floats []float64
	floats = append(floats, m.W.RawMatrix().Data...)
	floats = append(floats, m.Mean...)
	floats = append(floats, m.Sets[0].Samples.RawMatrix().Data...)
	hdr := func() map[string]any {
		return map[string]any{
			"input_dim": 4, "dim": 2, "divergence": "hellinger", "query_bandwidth": "scott", "threshold": "+Inf",
			"sets":    []map[string]any{{"label": "a", "name": "s", "frames": 3, "bandwidth": 0.5}},
			"created": "2026-11-22T13:00:00Z",
		}
	}
	if _, err := Decode(bytes.NewReader(mfRawFile(t, hdr(), floats))); err != nil {
		t.Fatalf("hand-built file: %v", err)
	}
	with := func(k string, v any) map[string]any { h := hdr(); h[k] = v; return h }
	// The scales at the ends of the range load, as does a selection of
	// nearest neighbour by name or by none (a W learned at a given d).
	for _, h := range []map[string]any{
		with("query_bandwidth", "nn*1e300"), with("query_bandwidth", "silverman*1e-300"),
		with("selection", map[string]any{"method": "nn-h-dr"}), with("selection", map[string]any{"method": ""}),
	} {
		if _, err := Decode(bytes.NewReader(mfRawFile(t, h, floats))); err != nil {
			t.Errorf("query_bandwidth %v, selection %v: %v", h["query_bandwidth"], h["selection"], err)
		}
	}
	setWith := func(k string, v any) map[string]any {
		s := map[string]any{"label": "a", "name": "s", "frames": 3, "bandwidth": 0.5}
		s[k] = v
		return with("sets", []map[string]any{s})
	}
	for _, tc := range []struct {
		name   string
		hdr    any
		floats []float64
		kind   error
		want   string
	}{
		{"fewer numbers", hdr(), floats[:len(floats)-2], ErrMalformed, "need more numbers than the 128 bytes of data hold (at gallery set 0 (3×2))"},
		{"more numbers", hdr(), append(floats, 1), ErrMalformed, "the file holds 152 bytes"},
		{"frames", setWith("frames", 4), floats, ErrMalformed, "(at gallery set 0 (4×2))"},
		{"zero frames", setWith("frames", 0), floats, ErrMalformed, "gallery set 0 has 0 frames"},
		{"d > D", with("dim", 5), floats, ErrMalformed, "dimensions 4→5"},
		{"negative D", with("input_dim", -4), floats, ErrMalformed, "dimensions -4→2"},
		{"huge D", with("input_dim", 1<<40), floats, ErrMalformed, "(at W (1099511627776×2))"},
		{"huge frames", setWith("frames", 1<<50), floats, ErrMalformed, "need more numbers"},
		{"no sets", with("sets", []any{}), floats, ErrMalformed, "no gallery sets"},
		{"divergence", with("divergence", "cosine"), floats, ErrMalformed, `divergence "cosine"`},
		{"rule", with("query_bandwidth", "-1"), floats, ErrMalformed, "query bandwidth"},
		{"rule's scale too large", with("query_bandwidth", "nn*1e308"), floats, ErrInvalidModel,
			"query_bandwidth nn*1e+308: the nn rule's scale is 1e+308, outside 1e-300 to 1e+300: scaled by it, no bandwidth a KDE takes (1e-150 to 1e+150) stays one, so every batch would fail: this model file was edited, or written by another program or a newer setmatch; train the model again with this one (setmatch train), or upgrade setmatch"},
		{"rule's scale too small", with("query_bandwidth", "scott*1e-301"), floats, ErrInvalidModel, "query_bandwidth scott*1e-301: the scott rule's scale is 1e-301, outside 1e-300 to 1e+300"},
		{"selection's method", with("selection", map[string]any{"method": "bogus"}), floats, ErrInvalidModel,
			`selection: method "bogus" is not one this setmatch knows (want one of nn-h, nn-j, kfda-hg, kfda-hl, kfda-j, nn-h-dr, nn-j-dr, nn-h-lda, gda, cdl, kfda-mix, or empty for nearest neighbour after a learned W): this model file was edited, or written by another program or a newer setmatch; train the model again with this one (setmatch train), or upgrade setmatch`},
		{"selection's method auto", with("selection", map[string]any{"method": "auto"}), floats, ErrInvalidModel, `selection: method "auto" is not one this setmatch knows`},
		{"threshold NaN", with("threshold", "NaN"), floats, ErrMalformed, `want a number, "+Inf" or "-Inf", got "NaN"`},
		{"threshold null", with("threshold", nil), floats, ErrMalformed, `want a number, "+Inf" or "-Inf", got null`},
		{"created", with("created", "yesterday"), floats, ErrMalformed, "created"},
		{"not JSON", `{"input_dim": 4,`, floats, ErrMalformed, "header"},
		{"bandwidth", setWith("bandwidth", -1), floats, ErrInvalidModel, "bandwidth is -1"},
		{"empty label", setWith("label", ""), floats, ErrInvalidModel, "empty label"},
		{"pipeline named, none stored", with("features", "intensity:4x4"), floats, ErrMalformed, `names the feature pipeline "intensity:4x4" but none is stored`},
	} {
		mfDecodeErr(t, tc.name, mfRawFile(t, tc.hdr, tc.floats), tc.kind, tc.want)
	}

	// A header length past the end, or into the checksum, with a valid
	// checksum.
	b := mfRawFile(t, hdr(), floats)
	for _, n := range []int{len(b), len(b) - checksumLen, len(b) - checksumLen - prefixLen + 1} {
		binary.LittleEndian.PutUint64(b[12:], uint64(n))
		mfDecodeErr(t, fmt.Sprintf("header length %d of a file of %d bytes", n, len(b)), mfReseal(b), ErrMalformed, "runs past the end")
	}

	// A header over the limit is refused before it is parsed.
	if !testing.Short() {
		big := "{" + strings.Repeat(" ", maxHeaderBytes) + "}"
		mfDecodeErr(t, "huge header", mfRawFile(t, big, floats), ErrMalformed, "exceeds the limit")
	}
}

func TestBadNumbers(t *testing.T) {
	m := mfModel(29, 5, 2, []int{3, 4})
	m.W.Set(1, 1, math.NaN())
	var b bytes.Buffer
	if err := encode(&b, m); err != nil {
		t.Fatal(err)
	}
	mfDecodeErr(t, "NaN in W", b.Bytes(), ErrInvalidModel, "W[1, 1] is NaN")

	m = mfModel(29, 5, 2, []int{3, 4})
	m.Sets[1].Samples.Set(3, 0, math.Inf(1))
	b.Reset()
	encode(&b, m)
	mfDecodeErr(t, "Inf in samples", b.Bytes(), ErrInvalidModel, `gallery set 1 ("b") samples[3, 0] is +Inf`)

	m = mfModel(29, 5, 2, []int{3, 4})
	m.Mean[4] = math.NaN()
	b.Reset()
	encode(&b, m)
	mfDecodeErr(t, "NaN in mean", b.Bytes(), ErrInvalidModel, "mean[4] is NaN")

	// Finite, but too large for a KDE: the daemon could not build the
	// matcher of a model Decode accepted (found by FuzzDecodeMatch).
	m = mfModel(29, 5, 2, []int{3, 4})
	m.Sets[1].Samples.Set(2, 1, 1.5e175)
	b.Reset()
	encode(&b, m)
	mfDecodeErr(t, "samples too large for a KDE", b.Bytes(), ErrInvalidModel, `gallery set 1 ("b"/"set1"): values too large for the squared distances of a KDE: frame 2`)

	m = mfModel(29, 5, 2, []int{3, 4})
	m.W.Set(0, 0, m.W.At(0, 0)*1.01)
	b.Reset()
	encode(&b, m)
	mfDecodeErr(t, "non-orthonormal W", b.Bytes(), ErrInvalidModel, "does not have orthonormal columns")
}

// FuzzDecode checks that no input makes Decode panic or accept an invalid
// model, and that whatever it accepts re-encodes stably.
func FuzzDecode(f *testing.F) {
	var b bytes.Buffer
	Encode(&b, mfModel(30, 3, 2, []int{2, 1}))
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:40])
	f.Add([]byte(Magic))
	f.Add([]byte{})
	// Format 2: a kFDA model with a feature pipeline, whole and cut.
	b.Reset()
	Encode(&b, goldenModel(f))
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:b.Len()-100])
	f.Fuzz(mfFuzzDecode)
}

// FuzzDecodeSealed is FuzzDecode with the checksum recomputed on every
// input, so that mutations reach the header and shape checks behind it.
func FuzzDecodeSealed(f *testing.F) {
	var b bytes.Buffer
	Encode(&b, mfModel(31, 3, 2, []int{2, 1}))
	f.Add(b.Bytes())
	b.Reset()
	Encode(&b, goldenModel(f))
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) >= prefixLen+checksumLen {
			data = mfReseal(bytes.Clone(data))
		}
		mfFuzzDecode(t, data)
	})
}

func mfFuzzDecode(t *testing.T, data []byte) {
	m, err := Decode(bytes.NewReader(data))
	if err != nil {
		if m != nil {
			t.Fatal("model returned with an error")
		}
		return
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("decoded an invalid model: %v", err)
	}
	var e1 bytes.Buffer
	if err := Encode(&e1, m); err != nil {
		t.Fatalf("decoded model does not encode: %v", err)
	}
	m2, err := Decode(bytes.NewReader(e1.Bytes()))
	if err != nil {
		t.Fatalf("re-encoded model does not decode: %v", err)
	}
	if diff := mfEqual(m, m2); diff != "" {
		t.Fatalf("round trip of a decoded model differs in %s", diff)
	}
}

func mfSameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

func mfSameSelection(a, b Selection) bool {
	if a.Method != b.Method || len(a.Candidates) != len(b.Candidates) || !mfSameFloats([]float64{a.CVAccuracy}, []float64{b.CVAccuracy}) {
		return false
	}
	if (len(a.Params) > 0 || len(b.Params) > 0) && !reflect.DeepEqual(a.Params, b.Params) {
		return false
	}
	for i, c := range a.Candidates {
		d := b.Candidates[i]
		if c.Name != d.Name || c.Params != d.Params || !mfSameFloats([]float64{c.CVAccuracy, c.Seconds}, []float64{d.CVAccuracy, d.Seconds}) {
			return false
		}
	}
	return true
}

// TestWriteRefusesWhatReadRefuses: a model whose file ReadFile would refuse
// (a header over its limit: tens of thousands of gallery sets with long
// names; or a file over MaxFileBytes: a full-space model of 4096 features
// a frame holding 129 bursts of 256 frames) is refused by WriteFile before
// anything is written, with ErrTooLarge and what to do, and the model file
// it was to replace stays as it was. Such a model was written, and then
// no setmatchd, test or enroll could read it.
func TestWriteRefusesWhatReadRefuses(t *testing.T) {
	header := mfModel(1, 4, 2, []int{3, 3, 3})
	long := strings.Repeat("x", 240)
	x := mat.NewDense(2, 2, []float64{0, 1, 1, 2})
	for i := range 40000 {
		header.Sets = append(header.Sets, Set{Label: fmt.Sprintf("%s-%05d", long[:200], i), Name: fmt.Sprintf("%s-%05d", long, i), Samples: x, Bandwidth: 0.5})
	}
	const D = 4096
	size := mfModel(1, 2, 2, nil) // then D features, W the identity
	size.W, size.Identity, size.Mean = nil, true, make([]float64, D)
	burst := testutil.RandSet(rand.New(rand.NewPCG(3, 3)), 256, D, 0, 1) // shared by every set: little memory
	for i := range 129 {
		size.Sets = append(size.Sets, Set{Label: fmt.Sprintf("p%03d", i%40), Name: fmt.Sprintf("burst-%03d", i), Samples: burst, Bandwidth: 0.5})
	}
	path := filepath.Join(t.TempDir(), "m.smm")
	if err := WriteFile(path, mfModel(2, 4, 2, []int{3, 3})); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		m    *Model
		want string
	}{
		"header": {header, "shorter class and set names"},
		"size":   {size, "more than the 1073741824 a model file may hold"},
	} {
		err := WriteFile(path, tc.m)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: WriteFile = %v, want ErrTooLarge saying %q", name, err, tc.want)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
			t.Errorf("%s: the model file changed", name)
		}
	}
}
