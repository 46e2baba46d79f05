// Package synth generates labelled image-set data sets of any shape for
// tests, benchmarks and demonstrations.
//
// Four kinds are available:
//
//   - Subspace: the class information lives in a few (InfoDim) directions,
//     the columns of a random orthonormal D×InfoDim basis B; the other
//     D−InfoDim directions carry stronger isotropic noise. Principal
//     component analysis therefore keeps the noise and discards the class
//     information, while a learned projection can recover span(B).
//   - BeyondGauss: every set has exactly zero mean and identity covariance
//     (each set is whitened after sampling), but the classes differ in the
//     shape of their distributions: class 0 is Gaussian, class 1 a thin
//     ring in a plane, the others two blobs, uniform, three blobs, Laplace
//     or skewed along ShapeDims class-specific directions (Gaussian in the
//     rest), repeated along new directions when there are more classes.
//     Any method that looks only at means and covariances is at chance by
//     construction; density-based methods are not, though the differences
//     fade in high dimensions with few frames.
//   - Lighting: a face-like data set. The identity of a class lives in
//     InfoDim directions (class centres on a sphere, small per-set offsets
//     and per-frame jitter); NuisanceDim other directions carry a strong
//     "lighting" component that differs from set to set (each set its own
//     lighting, varying within the set too) and is shared by all classes,
//     with a standard deviation NuisanceStd far above the identity signal;
//     weak isotropic noise fills the rest. The top principal directions of
//     such data are the lighting, not the identity, as with faces under
//     strong illumination changes.
//   - Cone: Lambertian faces. Each class is a D×NuisanceDim face matrix
//     (a face shared by all classes plus ClassRadius times the class's own
//     deviation), and a frame is that matrix times a lighting vector (an
//     ambient 1, then a per-set mean plus per-frame variation), clipped at
//     0 (attached shadows), plus pixel noise. The lighting changes each
//     class in its own way, so the sets of a class lie near one subspace
//     of their own (the "illumination cone") while their means move with
//     the light: methods on subspaces and covariances do well, methods on
//     set means poorly.
//
// Generation is deterministic for a given Options value (math/rand/v2 PCG
// streams derived from Seed, one per set).
//
// Image sets, for the image path (feature extraction, image bursts), come
// in three kinds: textured frames, one texture per class (ImageOptions,
// images.go); objects turning on a turntable (TurntableOptions,
// turntable.go); and real images under synthetic light (RelightOptions,
// relight.go). They are written as setmatch synth writes them, frame by
// frame as PNG files, into a folder emptied only of a data set written
// before (PrepareOut, write.go), with a README (readme.go); the source
// images of a relit data set are read from a folder (relight_files.go).
package synth

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/internal/finite"
)

// Kind selects the generator.
type Kind int

const (
	// Subspace puts class information in InfoDim directions and stronger
	// noise in the rest.
	Subspace Kind = iota
	// BeyondGauss gives every set mean 0 and covariance I; classes differ
	// only in the shape of the distribution.
	BeyondGauss
	// Lighting puts identity in InfoDim directions and a strong per-set
	// nuisance (lighting) in NuisanceDim others.
	Lighting
	// Cone makes every class a Lambertian face under changing light: a
	// frame is the class's own D×NuisanceDim face matrix times a lighting
	// vector, with attached shadows.
	Cone
)

func (k Kind) String() string {
	switch k {
	case Subspace:
		return "subspace"
	case BeyondGauss:
		return "beyond-gauss"
	case Lighting:
		return "lighting"
	case Cone:
		return "cone"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind parses "subspace", "beyond-gauss" (also "beyondgauss"),
// "lighting" or "cone".
func ParseKind(s string) (Kind, error) {
	switch strings.ToLower(s) {
	case "subspace":
		return Subspace, nil
	case "beyond-gauss", "beyondgauss", "beyond_gauss":
		return BeyondGauss, nil
	case "lighting":
		return Lighting, nil
	case "cone":
		return Cone, nil
	}
	return 0, fmt.Errorf("unknown kind %q: use subspace, beyond-gauss, lighting or cone", s)
}

// Options describe the data set to generate. Zero values of the optional
// fields select the defaults given in their comments.
type Options struct {
	Kind    Kind
	Classes int // number of classes, ≥ 1
	Sets    int // sets per class, ≥ 1
	Frames  int // frames per set, ≥ 2 (BeyondGauss: > Dim, to whiten)
	Dim     int // features per frame D, ≥ 1 (BeyondGauss: ≥ 2)
	Seed    int64

	// InfoDim is the number of informative directions (Subspace, Lighting),
	// 1 ≤ InfoDim ≤ Dim; default min(2, Dim) (Subspace), min(10, Dim−1)
	// (Lighting).
	InfoDim int
	// ClassRadius is the distance of the class centres from the origin in
	// the informative subspace (Subspace, Lighting); default 1. Cone: the
	// size of a class's deviation from the shared face relative to the
	// face (entries of standard deviation ClassRadius/√D); default 1.
	ClassRadius float64
	// SetSpread is the standard deviation of each set's random offset from
	// its class centre, per informative direction (Subspace, Lighting);
	// default 0.1. Cone: the standard deviation of a set's mean lighting
	// per shading direction; default 1.
	SetSpread float64
	// WithinStd is the within-set standard deviation in the informative
	// directions (Subspace: each class stretches it by a random factor in
	// [0.5, 1.5] along random axes; Lighting: isotropic); default 0.25.
	WithinStd float64
	// NoiseStd is the standard deviation of the isotropic noise in the
	// other directions; default 1 (Subspace), which exceeds the total
	// spread of the informative directions so that PCA prefers noise, and
	// 0.05 (Lighting); Cone: of the pixel noise, default 0.05.
	NoiseStd float64

	// NuisanceDim is the number of lighting directions (Lighting),
	// InfoDim + NuisanceDim ≤ Dim; default min(4, Dim − InfoDim). Cone:
	// the columns of a face matrix, ambient and shading, 2 ≤ NuisanceDim ≤
	// Dim; default min(5, Dim).
	NuisanceDim int
	// NuisanceStd is the standard deviation of the lighting of a frame
	// around its set's mean lighting, along each lighting direction
	// (Lighting; the set means vary by half as much); default 1, three
	// times the identity spread per direction (class centres on the unit
	// sphere in InfoDim = 10 directions). Cone: of a frame's lighting
	// around its set's mean, per shading direction; default 0.5.
	NuisanceStd float64

	// ShapeDims is the number of orthogonal directions along which a
	// BeyondGauss class departs from the Gaussian (1 ≤ ShapeDims ≤ Dim;
	// default 1). One direction is hard to detect in high dimensions with
	// few frames; more directions make the classes easier to tell apart.
	ShapeDims int
}

// maxValues bounds the size of a generated data set (2 GiB of float64).
const maxValues = 1 << 28

// MaxDim is the most features per frame Generate makes: its random
// orthonormal bases pass through a D×D matrix (128 MiB at this D).
const MaxDim = 4096

// Validate reports whether Generate would accept o.
func (o Options) Validate() error {
	_, err := o.withDefaults()
	return err
}

func (o Options) withDefaults() (Options, error) {
	if o.Classes < 1 || o.Sets < 1 || o.Frames < 1 || o.Dim < 1 {
		return o, fmt.Errorf("synth: classes, sets, frames and dim must be at least 1 (got %d, %d, %d, %d)", o.Classes, o.Sets, o.Frames, o.Dim)
	}
	if o.Frames < 2 {
		return o, errors.New("synth: a set needs at least 2 frames")
	}
	if o.Dim > MaxDim {
		return o, fmt.Errorf("synth: dim %d is more than the %d features per frame synth makes (its random bases take D×D numbers)", o.Dim, MaxDim)
	}
	if float64(o.Classes)*float64(o.Sets)*float64(o.Frames)*float64(o.Dim) > maxValues {
		return o, fmt.Errorf("synth: %d×%d×%d×%d values are more than the limit of %d (2 GiB)", o.Classes, o.Sets, o.Frames, o.Dim, maxValues)
	}
	switch o.Kind {
	case Subspace:
		if o.InfoDim == 0 {
			o.InfoDim = min(2, o.Dim)
		}
		if o.InfoDim < 1 || o.InfoDim > o.Dim {
			return o, fmt.Errorf("synth: info-dim %d must be between 1 and dim %d", o.InfoDim, o.Dim)
		}
		if err := errors.Join(
			defaultScale(&o.ClassRadius, 1, "class radius"),
			defaultScale(&o.SetSpread, 0.1, "set spread"),
			defaultScale(&o.WithinStd, 0.25, "within-set std"),
			defaultScale(&o.NoiseStd, 1, "noise std (--noise)"),
		); err != nil {
			return o, err
		}
	case BeyondGauss:
		if o.Dim < 2 {
			return o, errors.New("synth: beyond-gauss needs dim ≥ 2")
		}
		if o.ShapeDims == 0 {
			o.ShapeDims = 1
		}
		if o.ShapeDims < 1 || o.ShapeDims > o.Dim {
			return o, fmt.Errorf("synth: shape-dims %d must be between 1 and dim %d", o.ShapeDims, o.Dim)
		}
		if o.Frames <= o.Dim {
			return o, fmt.Errorf("synth: beyond-gauss whitens every set, which needs more frames than dimensions (frames %d ≤ dim %d)", o.Frames, o.Dim)
		}
	case Lighting:
		if o.Dim < 2 {
			return o, errors.New("synth: lighting needs dim ≥ 2")
		}
		if o.InfoDim == 0 {
			o.InfoDim = min(10, o.Dim-1)
		}
		if o.NuisanceDim == 0 {
			o.NuisanceDim = min(4, o.Dim-o.InfoDim)
		}
		if o.InfoDim < 1 || o.NuisanceDim < 1 || o.InfoDim+o.NuisanceDim > o.Dim {
			return o, fmt.Errorf("synth: info-dim %d and nuisance-dim %d must be ≥ 1 and add up to at most dim %d", o.InfoDim, o.NuisanceDim, o.Dim)
		}
		if err := errors.Join(
			defaultScale(&o.ClassRadius, 1, "class radius"),
			defaultScale(&o.SetSpread, 0.1, "set spread"),
			defaultScale(&o.WithinStd, 0.25, "within-set std"),
			defaultScale(&o.NoiseStd, 0.05, "noise std (--noise)"),
			defaultScale(&o.NuisanceStd, 1, "nuisance std (--nuisance-std)"),
		); err != nil {
			return o, err
		}
	case Cone:
		if o.Dim < 2 {
			return o, errors.New("synth: cone needs dim ≥ 2 (an ambient term and at least one shading direction)")
		}
		if o.NuisanceDim == 0 {
			o.NuisanceDim = min(5, o.Dim)
		}
		if o.NuisanceDim < 2 || o.NuisanceDim > o.Dim {
			return o, fmt.Errorf("synth: cone needs nuisance-dim between 2 and dim %d (got %d)", o.Dim, o.NuisanceDim)
		}
		if err := errors.Join(
			defaultScale(&o.ClassRadius, 1, "class radius"),
			defaultScale(&o.SetSpread, 1, "set spread"),
			defaultScale(&o.NoiseStd, 0.05, "noise std (--noise)"),
			defaultScale(&o.NuisanceStd, 0.5, "nuisance std (--nuisance-std)"),
		); err != nil {
			return o, err
		}
	default:
		return o, fmt.Errorf("synth: unknown kind %d", int(o.Kind))
	}
	return o, nil
}

// ClassName and SetName give the names used for class c and set s:
// "c00", "s000", widened when there are more classes or sets.
func ClassName(c, classes int) string { return fmt.Sprintf("c%0*d", width(classes, 2), c) }

// SetName: see ClassName.
func SetName(s, sets int) string { return fmt.Sprintf("s%0*d", width(sets, 3), s) }

func width(n, least int) int { return max(least, len(fmt.Sprint(n-1))) }

// Generate returns a data set of opt.Classes×opt.Sets sets, each
// opt.Frames×opt.Dim. Sets are ordered by class, then set, and have no
// Path.
func Generate(opt Options) (*dataset.Dataset, error) {
	d, _, err := GenerateWithBasis(opt)
	return d, err
}

// GenerateWithBasis is Generate that also returns the true informative
// basis B (D×InfoDim, orthonormal columns) of a Subspace data set, so tests
// can measure how well a learned projection recovers span(B). For
// BeyondGauss it returns the D×D orthonormal basis whose leading columns
// give the class-specific directions (see the package documentation); for
// Lighting the identity basis (D×InfoDim).
func GenerateWithBasis(opt Options) (*dataset.Dataset, *mat.Dense, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	d := &dataset.Dataset{}
	for c := range opt.Classes {
		d.Classes = append(d.Classes, ClassName(c, opt.Classes))
	}
	var (
		basis *mat.Dense
		gen   func(c, s int, rng *rand.Rand) *mat.Dense
	)
	switch opt.Kind {
	case Subspace:
		g := newSubspace(opt)
		basis, gen = g.basis, g.set
	case Lighting:
		g := newLighting(opt)
		basis, gen = g.basis, g.set
	case Cone:
		g := newCone(opt)
		basis, gen = g.mean, g.set
	case BeyondGauss:
		g := newBeyondGauss(opt)
		basis = g.q
		gen = func(c, s int, rng *rand.Rand) *mat.Dense {
			return g.set(c, rng)
		}
	}
	for c := range opt.Classes {
		for s := range opt.Sets {
			x := gen(c, s, setRNG(opt.Seed, c, s))
			if x == nil {
				return nil, nil, fmt.Errorf("synth: could not whiten set %s/%s (singular sample covariance); use more frames", d.Classes[c], SetName(s, opt.Sets))
			}
			d.Sets = append(d.Sets, dataset.Set{Class: d.Classes[c], Name: SetName(s, opt.Sets), Frames: x})
		}
	}
	return d, basis, nil
}

// setRNG returns the PCG stream of set s of class c (class -1 and set -1 for the
// data-set-wide parameters such as the basis).
func setRNG(seed int64, c, s int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15^(uint64(c+1)<<32|uint64(uint32(s+1)))))
}

// randOrthonormal returns a D×k matrix with orthonormal columns, uniformly
// distributed (QR of a Gaussian matrix with the signs of R's diagonal
// fixed).
func randOrthonormal(rng *rand.Rand, dim, k int) *mat.Dense {
	g := mat.NewDense(dim, k, nil)
	for i := range dim {
		for j := range k {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q, r mat.Dense
	qr.QTo(&q)
	qr.RTo(&r)
	out := mat.NewDense(dim, k, nil)
	for j := range k {
		sign := 1.0
		if r.At(j, j) < 0 {
			sign = -1
		}
		for i := range dim {
			out.Set(i, j, sign*q.At(i, j))
		}
	}
	return out
}

// defaultScale sets *v to d when it is 0 and checks that it is a finite
// non-negative number; name is the option's name in the error.
func defaultScale(v *float64, d float64, name string) error {
	if *v == 0 {
		*v = d
	}
	if *v < 0 || !finite.Is(*v) {
		return fmt.Errorf("synth: %s must be a finite number > 0, or 0 for the kind's default; got %v", name, *v)
	}
	return nil
}
