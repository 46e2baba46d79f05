package features

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
)

// Binary encoding of a Fitted (version 1, or 2 where it records the
// training images' size). All integers little-endian, numbers IEEE 754
// binary64:
//
//	offset  size      field
//	0       4         magic "SMFP"
//	4       1         version: 2 where flag bit 1 is set, else 1
//	5       1         flags: bit 0 set when a fitted PCA follows, bit 1
//	                  when the training images' size follows (version 2
//	                  only); others 0
//	6       2         L, length of the spec, 1..fittedMaxSpec
//	8       L         the canonical spec (Pipeline.Name), ASCII
//	with the size (lbp or hog without @WxH only):
//	…       4         width of every training image (uint32, 1..fittedMaxSide)
//	…       4         height (uint32, 1..fittedMaxSide); a size the
//	                  feature is extracted at, giving the PCA's D if any
//	with a PCA:
//	…       4         D, features before PCA (uint32, ≥ 1)
//	…       4         N, components (uint32, = the spec's pca:N, ≤ D)
//	…       8·D       mean
//	…       8·N       variances
//	…       8         total variance
//	…       8·D·N     components, D×N row-major
//	end−4   4         CRC-32C of every byte before it
//
// The encoding ends right after the checksum.
const (
	fittedMagic       = "SMFP"
	fittedVersion     = 1
	fittedSizeVersion = 2 // the version that may record the training images' size
	fittedMaxSpec     = 256
	fittedFlagPCA     = 1
	fittedFlagSize    = 2
	fittedMaxSide     = 1 << 24
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MarshalBinary encodes f (see the layout above): as version 1 unless it
// records the training images' size. An unfitted pipeline (a pca stage
// without a PCA) is refused, and so is a size where the pipeline resizes
// every image or a size out of range.
func (f Fitted) MarshalBinary() ([]byte, error) {
	if _, err := NewFitted(f.Pipeline, f.PCA); err != nil {
		return nil, err
	}
	if err := f.checkFrameSize(); err != nil {
		return nil, err
	}
	sized := f.FrameSize != (image.Point{})
	spec := f.Name()
	if len(spec) > fittedMaxSpec {
		return nil, fmt.Errorf("features: spec %q is longer than %d bytes", spec, fittedMaxSpec)
	}
	size := 8 + len(spec) + 4
	if sized {
		size += 8
	}
	var D, N int
	if f.PCA != nil {
		D, N = f.PCA.Components.Dims()
		size += 8 + 8*(D+N+1+D*N)
	}
	b := make([]byte, 0, size)
	b = append(b, fittedMagic...)
	var flags byte
	if f.PCA != nil {
		flags |= fittedFlagPCA
	}
	if sized {
		b = append(b, fittedSizeVersion)
		flags |= fittedFlagSize
	} else {
		b = append(b, fittedVersion)
	}
	b = append(b, flags)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(spec)))
	b = append(b, spec...)
	if sized {
		b = binary.LittleEndian.AppendUint32(b, uint32(f.FrameSize.X))
		b = binary.LittleEndian.AppendUint32(b, uint32(f.FrameSize.Y))
	}
	if f.PCA != nil {
		b = binary.LittleEndian.AppendUint32(b, uint32(D))
		b = binary.LittleEndian.AppendUint32(b, uint32(N))
		put := func(v float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) }
		for _, v := range f.PCA.Mean {
			put(v)
		}
		for _, v := range f.PCA.Variances {
			put(v)
		}
		put(f.PCA.Total)
		for j := range D {
			for k := range N {
				put(f.PCA.Components.At(j, k))
			}
		}
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	return b, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote. It checks the magic, the
// version, the checksum, that the spec parses and is canonical, that the
// training images' size is one the pipeline records and can extract at
// (checkFrameSize), that the PCA's shape matches the spec, that the sizes
// fill the input exactly and that every number is finite; it allocates
// nothing beyond what the input's length accounts for.
func (f *Fitted) UnmarshalBinary(b []byte) error {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("features: fitted pipeline: %s", fmt.Sprintf(format, a...))
	}
	// failErr wraps an error of this package, its "features: " said once.
	failErr := func(err error) error { return fail("%s", strings.TrimPrefix(err.Error(), "features: ")) }
	if len(b) < 8+4 || string(b[:4]) != fittedMagic {
		return fail("not a fitted feature pipeline (want the magic %q)", fittedMagic)
	}
	version := b[4]
	if version != fittedVersion && version != fittedSizeVersion {
		return fail("encoding version %d; this program reads versions %d and %d: upgrade setmatch", version, fittedVersion, fittedSizeVersion)
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return fail("checksum mismatch: the data are corrupt or truncated")
	}
	flags := body[5]
	known := byte(fittedFlagPCA)
	if version == fittedSizeVersion {
		known |= fittedFlagSize
	}
	if flags&^known != 0 {
		return fail("unknown flags %#x for version %d", flags, version)
	}
	if version == fittedSizeVersion && flags&fittedFlagSize == 0 {
		// MarshalBinary writes version 1 where no size follows: one
		// pipeline has one encoding.
		return fail("version %d without the training images' size (flag %#x)", version, fittedFlagSize)
	}
	L := int(binary.LittleEndian.Uint16(body[6:8]))
	if L < 1 || L > fittedMaxSpec || 8+L > len(body) {
		return fail("spec length %d does not fit (1 to %d bytes, %d present)", L, fittedMaxSpec, len(body)-8)
	}
	spec := string(body[8 : 8+L])
	p, err := Parse(spec)
	if err != nil {
		return failErr(err)
	}
	if p.Name() != spec {
		return fail("spec %q is not in canonical form (%q)", spec, p.Name())
	}
	rest := body[8+L:]
	var frame image.Point
	if flags&fittedFlagSize != 0 {
		if len(rest) < 8 {
			return fail("training image size truncated")
		}
		frame = image.Pt(int(binary.LittleEndian.Uint32(rest[0:4])), int(binary.LittleEndian.Uint32(rest[4:8])))
		rest = rest[8:]
		if err := (Fitted{Pipeline: p, FrameSize: frame}).checkFrameSize(); err != nil {
			return failErr(err)
		}
	}
	hasPCA := flags&fittedFlagPCA != 0
	if hasPCA != (p.PCA > 0) {
		return fail("spec %q and the PCA flag disagree", spec)
	}
	if !hasPCA {
		if len(rest) != 0 {
			return fail("%d bytes after the spec, want none", len(rest))
		}
		*f = Fitted{Pipeline: p, FrameSize: frame}
		return nil
	}
	if len(rest) < 8 {
		return fail("PCA shape truncated")
	}
	D := uint64(binary.LittleEndian.Uint32(rest[0:4]))
	N := uint64(binary.LittleEndian.Uint32(rest[4:8]))
	rest = rest[8:]
	floats := uint64(len(rest)) / 8
	if D < 1 || N != uint64(p.PCA) || N > D {
		return fail("PCA shape %d×%d does not match %s (want D ≥ %d, N = %d)", D, N, spec, p.PCA, p.PCA)
	}
	// D and N are at most 2^32, so D+N+1 cannot overflow; D·N can, so it
	// is compared by division.
	if D+N+1 > floats || (floats-D-N-1)/D < N || uint64(len(rest)) != 8*(D+N+1+D*N) {
		return fail("PCA of %d×%d needs %d bytes, %d present", D, N, 8*(D+N+1)+8*D*N, len(rest))
	}
	if want, ok := p.OutputDim(); ok && uint64(want) != D {
		return fail("%s gives %d features per frame but the PCA takes %d", spec, want, D)
	}
	next := func(what string, i int) (float64, error) {
		v := math.Float64frombits(binary.LittleEndian.Uint64(rest))
		rest = rest[8:]
		if !finite.Is(v) {
			return 0, fail("%s[%d] is %v", what, i, v)
		}
		return v, nil
	}
	pca := &PCA{Mean: make([]float64, D), Variances: make([]float64, N), Components: mat.NewDense(int(D), int(N), nil)}
	for i := range pca.Mean {
		if pca.Mean[i], err = next("mean", i); err != nil {
			return err
		}
	}
	for i := range pca.Variances {
		if pca.Variances[i], err = next("variance", i); err != nil {
			return err
		}
		if pca.Variances[i] < 0 {
			return fail("variance[%d] is negative", i)
		}
	}
	if pca.Total, err = next("total variance", 0); err != nil {
		return err
	}
	raw := pca.Components.RawMatrix().Data
	for i := range raw {
		if raw[i], err = next("component", i); err != nil {
			return err
		}
	}
	g, err := NewFitted(p, pca)
	if err != nil {
		return failErr(err)
	}
	g.FrameSize = frame
	if err := g.checkFrameSize(); err != nil { // now with the PCA
		return failErr(err)
	}
	*f = g
	return nil
}

// checkFrameSize refuses a recorded training image size where the
// pipeline's features are not bound to the images' scale (scaleBound: it
// would not be used), a side out of 1..fittedMaxSide, a size the feature
// cannot be extracted at (no training image could have had it), and one
// whose number of features is not the fitted PCA's input; the zero Point
// (none recorded) is valid.
func (f Fitted) checkFrameSize() error {
	t := f.FrameSize
	switch {
	case t == image.Point{}:
		return nil
	case !f.Pipeline.scaleBound():
		return fmt.Errorf("features: %s computes the same features at any image size (it resizes every image, or counts grey levels), so it records no training image size (got %dx%d)", f.Name(), t.X, t.Y)
	case t.X < 1 || t.Y < 1 || t.X > fittedMaxSide || t.Y > fittedMaxSide:
		return fmt.Errorf("features: %s: training image size %dx%d out of range (1 to %d pixels a side)", f.Name(), t.X, t.Y, fittedMaxSide)
	}
	d, err := f.Pipeline.Feature.Dim(t.X, t.Y)
	if err != nil {
		return fmt.Errorf("features: %s: training image size %dx%d, at which no features are extracted: %s", f.Name(), t.X, t.Y, strings.TrimPrefix(err.Error(), "features: "))
	}
	if f.PCA != nil && d != f.PCA.InputDim() {
		return fmt.Errorf("features: %s: training images of %dx%d give %d features per frame but the PCA takes %d", f.Name(), t.X, t.Y, d, f.PCA.InputDim())
	}
	return nil
}
