package features

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"math"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// trainingSets returns the pre-PCA features of three small sets of frames.
func trainingSets(t testing.TB, f Fitted) ([]*mat.Dense, [][]*image.Gray) {
	t.Helper()
	var sets []*mat.Dense
	var frames [][]*image.Gray
	for s := range 3 {
		var imgs []*image.Gray
		for k := range 5 {
			imgs = append(imgs, ToGray(scene(24, 18, 5*s+k)))
		}
		x, err := f.ExtractFrames(imgs)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, x)
		frames = append(frames, imgs)
	}
	return sets, frames
}

func fittedPCA(t testing.TB) Fitted {
	t.Helper()
	p, err := Parse("intensity:6x4+pca:3")
	if err != nil {
		t.Fatal(err)
	}
	sets, _ := trainingSets(t, Fitted{Pipeline: p})
	f, err := FitPipeline(p, sets)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFitPipelineProjects(t *testing.T) {
	p, _ := Parse("intensity:6x4+pca:3")
	unfitted := Fitted{Pipeline: p}
	sets, frames := trainingSets(t, unfitted)
	f, err := FitPipeline(p, sets)
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := f.InputDim(); !ok || d != 24 {
		t.Errorf("InputDim %d %v", d, ok)
	}
	if d, ok := f.OutputDim(); !ok || d != 3 {
		t.Errorf("OutputDim %d %v", d, ok)
	}
	// The fit is FitPCA on the pooled rows, the projection PCA.Transform.
	all := mat.NewDense(15, 24, nil)
	for i, s := range sets {
		all.Slice(5*i, 5*i+5, 0, 24).(*mat.Dense).Copy(s)
	}
	pca, err := FitPCA(all, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, imgs := range frames {
		got, err := f.Apply(imgs)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got, pca.Transform(sets[i])) {
			t.Errorf("set %d: Apply differs from FitPCA + Transform", i)
		}
	}
	if _, err := unfitted.Apply(frames[0]); err == nil || !strings.Contains(err.Error(), "not fitted") {
		t.Errorf("unfitted: %v", err)
	}
	if _, err := f.Project(mat.NewDense(2, 5, nil)); err == nil {
		t.Error("wrong width accepted")
	}
	if _, err := NewFitted(p, nil); err == nil {
		t.Error("pca stage without PCA accepted")
	}
	q, _ := Parse("intensity:6x4")
	if _, err := NewFitted(q, pca); err == nil {
		t.Error("PCA without pca stage accepted")
	}
	r, _ := Parse("intensity:5x4+pca:3")
	if _, err := NewFitted(r, pca); err == nil {
		t.Error("PCA of the wrong input width accepted")
	}
}

func TestFittedBinaryRoundTrip(t *testing.T) {
	for _, f := range []Fitted{mustFitted(t, "lbp:4x4@64x64"), mustFitted(t, "hog:8"), fittedPCA(t)} {
		b, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var g Fitted
		if err := g.UnmarshalBinary(b); err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
		if g.Name() != f.Name() {
			t.Errorf("name %q, want %q", g.Name(), f.Name())
		}
		b2, err := g.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, b2) {
			t.Errorf("%s: encoding does not round-trip", f.Name())
		}
		imgs := []*image.Gray{ToGray(scene(24, 18, 1)), ToGray(scene(24, 18, 7))}
		x, err := f.Apply(imgs)
		if err != nil {
			t.Fatal(err)
		}
		y, err := g.Apply(imgs)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(x, y) {
			t.Errorf("%s: decoded pipeline computes different features", f.Name())
		}
	}
	p, _ := Parse("intensity:6x4+pca:3")
	if _, err := (Fitted{Pipeline: p}).MarshalBinary(); err == nil {
		t.Error("unfitted pipeline encoded")
	}
	for _, f := range []Fitted{
		{Pipeline: mustFitted(t, "lbp:4x4@64x64").Pipeline, FrameSize: image.Pt(24, 18)},
		{Pipeline: mustFitted(t, "hist:16").Pipeline, FrameSize: image.Pt(24, 18)},
		{Pipeline: mustFitted(t, "lbp:4x4").Pipeline, FrameSize: image.Pt(-1, 18)},
		{Pipeline: mustFitted(t, "lbp:4x4").Pipeline, FrameSize: image.Pt(5, 18)},
		{Pipeline: mustFitted(t, "hog:8").Pipeline, FrameSize: image.Pt(15, 18)},
	} {
		if _, err := f.MarshalBinary(); err == nil {
			t.Errorf("%s with training image size %v encoded", f.Name(), f.FrameSize)
		}
	}
}

// TestFittedBinaryFrameSize: a pipeline without a recorded training image
// size is encoded as version 1, as before sizes were recorded (golden
// bytes); one with a size as version 2, which decodes to the same size
// (with and without a PCA) and refuses frames of another size as the
// encoded pipeline does.
func TestFittedBinaryFrameSize(t *testing.T) {
	plain, err := mustFitted(t, "lbp:4x4").MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	want := []byte(fittedMagic + "\x01\x00\x07\x00lbp:4x4")
	if !bytes.Equal(plain[:len(plain)-4], want) {
		t.Errorf("version 1 encoding %q, want %q and its checksum", plain, want)
	}
	resized := map[string]string{"lbp:4x4": "lbp:4x4@24x18", "hog:4": "hog:4@24x18", "hog:8+pca:2": "hog:8@24x18+pca:2"}
	for _, f := range []Fitted{mustFitted(t, "lbp:4x4"), mustFitted(t, "hog:4"), hogPCA24x18(t)} {
		f.FrameSize = image.Pt(24, 18)
		b, err := f.MarshalBinary()
		if err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
		if b[4] != 2 || b[5]&fittedFlagSize == 0 {
			t.Errorf("%s: version %d, flags %#x; want version 2 with the size flag", f.Name(), b[4], b[5])
		}
		var g Fitted
		if err := g.UnmarshalBinary(b); err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
		if g.FrameSize != f.FrameSize || g.Name() != f.Name() {
			t.Errorf("decoded %s at %v, want %s at %v", g.Name(), g.FrameSize, f.Name(), f.FrameSize)
		}
		if _, err := g.Apply([]*image.Gray{ToGray(scene(24, 18, 5))}); err != nil {
			t.Errorf("%s: a frame of the training size: %v", f.Name(), err)
		}
		_, err = g.Apply([]*image.Gray{ToGray(scene(48, 36, 5))})
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "frame is 48x36 but the model's training images were 24x18") ||
			!strings.Contains(err.Error(), "send frames of 24x18, or train again with a size (e.g. "+resized[f.Name()]+")") {
			t.Errorf("%s: a frame of another size: %v", f.Name(), err)
		}
	}
}

// hogPCA24x18 returns hog:8+pca:2 fitted on three frames of 24x18,
// which give 72 features each.
func hogPCA24x18(t *testing.T) Fitted {
	t.Helper()
	p, _ := Parse("hog:8+pca:2")
	x, err := Fitted{Pipeline: p}.ExtractFrames([]*image.Gray{ToGray(scene(24, 18, 1)), ToGray(scene(24, 18, 2)), ToGray(scene(24, 18, 3))})
	if err != nil {
		t.Fatal(err)
	}
	f, err := FitPipeline(p, []*mat.Dense{x})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// reseal recomputes the checksum of an edited encoding.
func reseal(b []byte) []byte {
	b = bytes.Clone(b)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	return b
}

func TestFittedBinaryRefusals(t *testing.T) {
	good, err := fittedPCA(t).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := mustFitted(t, "lbp:4x4").MarshalBinary()
	edit := func(b []byte, f func([]byte)) []byte { b = bytes.Clone(b); f(b); return reseal(b) }
	specAt := func(spec string, rest []byte) []byte {
		b := []byte(fittedMagic + "\x01\x00")
		b = binary.LittleEndian.AppendUint16(b, uint16(len(spec)))
		b = append(b, spec...)
		return reseal(append(append(b, rest...), 0, 0, 0, 0))
	}
	sizedAt := func(spec string, w, h uint32) []byte {
		b := []byte(fittedMagic + "\x02\x02")
		b = binary.LittleEndian.AppendUint16(b, uint16(len(spec)))
		b = append(b, spec...)
		b = binary.LittleEndian.AppendUint32(b, w)
		b = binary.LittleEndian.AppendUint32(b, h)
		return reseal(append(b, 0, 0, 0, 0))
	}
	L := 8 + len("intensity:6x4+pca:3")
	const D = 6 * 4
	// hog without a size has no fixed dimension: only N ≤ D bounds a PCA
	// of 3 components, here on 2 features.
	hogPCA := []byte(fittedMagic + "\x01\x01")
	hogPCA = binary.LittleEndian.AppendUint16(hogPCA, uint16(len("hog:8+pca:3")))
	hogPCA = append(hogPCA, "hog:8+pca:3"...)
	hogPCA = binary.LittleEndian.AppendUint32(hogPCA, 2)
	hogPCA = binary.LittleEndian.AppendUint32(hogPCA, 3)
	hogPCA = reseal(append(hogPCA, make([]byte, 8*(2+3+1+2*3)+4)...))
	// hog:8+pca:2 fitted on frames of 24x18, which give 72 features.
	hogSized := func() []byte {
		f := hogPCA24x18(t)
		f.FrameSize = image.Pt(24, 18)
		b, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}()
	cases := map[string]struct {
		b    []byte
		want string
	}{
		"empty":                  {nil, "not a fitted feature pipeline"},
		"short":                  {reseal([]byte(fittedMagic + "\x01\x00\x00\x00\x00")), "not a fitted feature pipeline"},
		"trailing after the PCA": {reseal(append(bytes.Clone(good[:len(good)-4]), make([]byte, 8+4)...)), "needs"},
		"negative variance": {edit(good, func(b []byte) {
			binary.LittleEndian.PutUint64(b[L+8+8*D:], math.Float64bits(-1))
		}), "variance[0] is negative"},
		"more components than features": {hogPCA, "PCA shape 2×3 does not match hog:8+pca:3"},
		"magic":                         {append([]byte("XXXX"), good[4:]...), "not a fitted feature pipeline"},
		"version":                       {edit(good, func(b []byte) { b[4] = 3 }), "encoding version 3"},
		"size flag in version 1":        {edit(plain, func(b []byte) { b[5] = fittedFlagSize }), "unknown flags 0x2 for version 1"},
		"size truncated":                {edit(plain, func(b []byte) { b[4], b[5] = fittedSizeVersion, fittedFlagSize }), "training image size truncated"},
		"version 2 without the size":    {edit(plain, func(b []byte) { b[4] = fittedSizeVersion }), "version 2 without the training images' size"},
		"size of a resizing pipeline":   {sizedAt("lbp:4x4@64x64", 64, 64), "computes the same features at any image size"},
		"size of a histogram":           {sizedAt("hist:32", 64, 64), "computes the same features at any image size"},
		"zero width":                    {sizedAt("lbp:4x4", 0, 64), "out of range"},
		"huge height":                   {sizedAt("lbp:4x4", 64, fittedMaxSide+1), "out of range"},
		"size finer than the grid":      {sizedAt("lbp:4x4", 64, 5), "training image size 64x5, at which no features are extracted: lbp grid 4x4 is finer"},
		"size smaller than hog's cells": {sizedAt("hog:8", 15, 64), "training image size 15x64, at which no features are extracted"},
		"hog size of another width than the PCA's": {edit(hogSized, func(b []byte) {
			binary.LittleEndian.PutUint32(b[8+len("hog:8+pca:2"):], 32)
		}), "training images of 32x18 give 108 features per frame but the PCA takes 72"},
		"checksum":      {append(bytes.Clone(good[:len(good)-1]), good[len(good)-1]^1), "checksum mismatch"},
		"truncated":     {good[:len(good)-9], "checksum mismatch"},
		"flags":         {edit(plain, func(b []byte) { b[5] = 4 }), "unknown flags"},
		"spec length":   {edit(plain, func(b []byte) { b[6] = 200 }), "spec length 200"},
		"bad spec":      {specAt("lbp:0x4", nil), "bad feature spec"},
		"not canonical": {specAt("lbp:04x4", nil), "not in canonical form"},
		"flag missing":  {edit(good, func(b []byte) { b[5] = 0 }), "disagree"},
		"trailing":      {specAt("lbp:4x4", []byte{1}), "1 bytes after the spec"},
		"shape":         {edit(good, func(b []byte) { binary.LittleEndian.PutUint32(b[L+4:], 2) }), "does not match"},
		"width":         {edit(good, func(b []byte) { binary.LittleEndian.PutUint32(b[L:], 25) }), "needs"},
		"huge":          {edit(good, func(b []byte) { binary.LittleEndian.PutUint32(b[L:], math.MaxUint32) }), "needs"},
		"NaN": {edit(good, func(b []byte) {
			binary.LittleEndian.PutUint64(b[L+8:], math.Float64bits(math.NaN()))
		}), "mean[0] is NaN"},
	}
	for name, c := range cases {
		var f Fitted
		err := f.UnmarshalBinary(c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		} else if strings.Count(err.Error(), "features: ") > 1 {
			t.Errorf("%s: %q says %q more than once", name, err, "features: ")
		}
	}
}

// A PCA shape that claims 2^32−1 × 65536 is refused before anything of that
// size is allocated.
func TestFittedBinaryHugeShapeAllocatesNothing(t *testing.T) {
	b := []byte(fittedMagic + "\x01\x01")
	spec := "intensity:20x20+pca:65536"
	b = binary.LittleEndian.AppendUint16(b, uint16(len(spec)))
	b = append(b, spec...)
	b = binary.LittleEndian.AppendUint32(b, math.MaxUint32)
	b = binary.LittleEndian.AppendUint32(b, 65536)
	b = reseal(append(b, make([]byte, 64+4)...))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var f Fitted
	err := f.UnmarshalBinary(b)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("accepted")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("refusing allocated %d bytes", n)
	}
}

func FuzzFittedUnmarshal(f *testing.F) {
	sized := mustFitted(f, "lbp:4x4")
	sized.FrameSize = image.Pt(92, 112)
	for _, g := range []Fitted{mustFitted(f, "lbp:4x4@64x64"), mustFitted(f, "intensity:20x20:norm"), fittedPCA(f), sized} {
		b, err := g.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte(fittedMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFitted(t, data)
		// The same bytes with their checksum made right, so that the
		// fuzzer's changes reach the checks behind it.
		if len(data) >= 8+4 {
			fuzzFitted(t, reseal(data))
		}
	})
}

// fuzzFitted checks the properties of FuzzFittedUnmarshal on data.
func fuzzFitted(t *testing.T, data []byte) {
	t.Helper()
	var g Fitted
	if err := g.UnmarshalBinary(data); err != nil {
		return
	}
	// Whatever decodes encodes back to the same bytes and applies.
	b, err := g.MarshalBinary()
	if err != nil {
		t.Fatalf("decoded pipeline does not encode: %v", err)
	}
	if !bytes.Equal(b, data) {
		t.Fatal("encoding does not round-trip")
	}
	if d, ok := g.InputDim(); ok && d > 1<<16 {
		return // valid but too costly to apply in a fuzz run
	}
	w, h := 16, 16
	if g.FrameSize != (image.Point{}) {
		if g.FrameSize.X*g.FrameSize.Y > 1<<16 {
			return // valid but too costly to apply in a fuzz run
		}
		w, h = g.FrameSize.X, g.FrameSize.Y // a frame of another size is refused
	}
	x, err := g.Apply([]*image.Gray{ToGray(scene(w, h, 0))})
	if err != nil {
		if g.PCA == nil {
			t.Fatal(err)
		}
		return
	}
	if d, ok := g.OutputDim(); ok {
		if _, c := x.Dims(); c != d {
			t.Fatalf("%d columns, OutputDim %d", c, d)
		}
	}
}

// TestNewFittedRefusesMismatchedPCA: NewFitted refuses a PCA whose mean,
// components or variances disagree with each other or with the spec.
func TestNewFittedRefusesMismatchedPCA(t *testing.T) {
	p, err := Parse("intensity:2x2+pca:2")
	if err != nil {
		t.Fatal(err)
	}
	for name, pca := range map[string]*PCA{
		"mean":       {Mean: make([]float64, 3), Components: mat.NewDense(4, 2, nil), Variances: make([]float64, 2)},
		"components": {Mean: make([]float64, 4), Components: mat.NewDense(4, 3, nil), Variances: make([]float64, 2)},
		"variances":  {Mean: make([]float64, 4), Components: mat.NewDense(4, 2, nil), Variances: make([]float64, 1)},
		"input":      {Mean: make([]float64, 5), Components: mat.NewDense(5, 2, nil), Variances: make([]float64, 2)},
	} {
		if _, err := NewFitted(p, pca); err == nil {
			t.Errorf("%s: a PCA of mean %d, components %v and %d variances accepted for %s", name, len(pca.Mean), shape(pca.Components), len(pca.Variances), p)
		}
	}
	if _, err := NewFitted(p, &PCA{Mean: make([]float64, 4), Components: mat.NewDense(4, 2, nil), Variances: make([]float64, 2)}); err != nil {
		t.Errorf("a matching PCA: %v", err)
	}
}

func shape(m *mat.Dense) [2]int { r, c := m.Dims(); return [2]int{r, c} }

// TestFitPipelineRefusesMixedWidths: the training sets of a PCA must all
// have the same features per frame.
func TestFitPipelineRefusesMixedWidths(t *testing.T) {
	p, err := Parse("intensity:2x2+pca:1")
	if err != nil {
		t.Fatal(err)
	}
	sets := []*mat.Dense{testSet(3, 4, 1), testSet(3, 5, 2)}
	if _, err := FitPipeline(p, sets); err == nil || !strings.Contains(err.Error(), "training set 1 has 5 features per frame, set 0 has 4") {
		t.Errorf("sets of 4 and 5 features: %v", err)
	}
}

// testSet returns an n×d set of distinct values.
func testSet(n, d int, seed float64) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, seed+float64(i*i+3*j)+float64(i*j)/7)
		}
	}
	return x
}

// TestSizeNote: only hog without a size gives a number of features that
// follows the image size, and only its note says so; a fitted PCA of it
// given frames of another size than its training frames refuses them
// with that note.
func TestSizeNote(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want string // in the note; "" for none
	}{
		{"hog:8", "hog:8 computes its features at each frame's own size"},
		{"hog:8+pca:2", "give frames of the size the training images had, or train with a size (e.g. hog:8@64x64+pca:2)"},
		{"hog:8@64x64", ""},
		{"lbp:4x4", ""},
		{"hist:32", ""},
		{"intensity:20x20", ""},
	} {
		p, err := Parse(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		got := p.SizeNote()
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: SizeNote() = %q, want one with %q", tc.spec, got, tc.want)
		}
	}

	p, err := Parse("hog:8+pca:2")
	if err != nil {
		t.Fatal(err)
	}
	frames := func(w, h int) []*image.Gray {
		var imgs []*image.Gray
		for k := range 4 {
			imgs = append(imgs, ToGray(scene(w, h, k)))
		}
		return imgs
	}
	x, err := Fitted{Pipeline: p}.ExtractFrames(frames(32, 32))
	if err != nil {
		t.Fatal(err)
	}
	f, err := FitPipeline(p, []*mat.Dense{x})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Apply(frames(32, 32)); err != nil {
		t.Fatalf("frames of the training size: %v", err)
	}
	_, err = f.Apply(frames(48, 40))
	if err == nil || !strings.Contains(err.Error(), "the fitted PCA takes 324: "+p.SizeNote()) {
		t.Errorf("frames of another size: %v, want the PCA's width and the size note", err)
	}
}

// TestWithSize: the spec suggested where frames must be resized is the
// pipeline's own with @WxH, its options and PCA stage kept; intensity,
// which has a size already, is left as it is.
func TestWithSize(t *testing.T) {
	for spec, want := range map[string]string{
		"lbp:4x4":              "lbp:4x4@32x24",
		"lbp:4x4@64x64+pca:10": "lbp:4x4@32x24+pca:10",
		"hog:8+pca:2":          "hog:8@32x24+pca:2",
		"hist:16:plain":        "hist:16:plain@32x24",
		"intensity:20x20:norm": "intensity:20x20:norm",
	} {
		p, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		got := p.WithSize(32, 24).Name()
		if got != want {
			t.Errorf("%s.WithSize(32, 24) = %s, want %s", spec, got, want)
		}
		if _, err := Parse(got); err != nil {
			t.Errorf("%s: %v", got, err)
		}
	}
}
