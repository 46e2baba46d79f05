package main

import (
	"fmt"
	"io"
	"strings"

	"setmatch/dataset"
	"setmatch/synth"
)

// synthSynopsis is the usage line and description of setmatch synth.
const synthSynopsis = `--out DIR [--classes C] [--sets S] [--frames F] [--dim D] [--seed N] [--kind subspace|beyond-gauss|lighting|cone] [--info-dim K] [--noise SIGMA] [--shape-dims M] [--nuisance-dim L] [--nuisance-std S] [--images WxH | --turntable WxH | --relight SRC] [--force]

Writes a labelled data set with known answers, in the layout train, test
and eval read: feature vectors of one of four kinds (--kind), textured
image frames (--images), frames of objects turning on a turntable
(--turntable), or the images of a folder under strong synthetic
lighting (--relight). The same seed gives the same data.`

func runSynth(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("synth", synthSynopsis, stderr)
	out := fl.String("out", "", "write the data set to folder `DIR` as DIR/<class>/<set>.npy (required)")
	classes := fl.Int("classes", 10, "number of classes `C`")
	sets := fl.Int("sets", 5, "sets per class `S`")
	frames := fl.Int("frames", 50, "frames per set `F`")
	dim := fl.Int("dim", 20, "features per frame `D`")
	seed := fl.Int64("seed", 1, "random seed `N`; the same seed gives the same data")
	kindName := fl.String("kind", "subspace", "subspace: class information in a few directions, stronger noise elsewhere;\nbeyond-gauss: every set has mean 0 and covariance I, classes differ in shape;\nlighting: face-like, identity in a few directions, a strong per-set lighting in others;\ncone: Lambertian faces, each class its own face matrix lit by a per-set light, with shadows")
	infoDim := fl.Int("info-dim", 0, "informative directions `K` for --kind subspace (default min(2, D)) or lighting (default min(10, D−1))")
	noise := fl.Float64("noise", 0, "noise standard deviation outside the informative directions (subspace: default 1; lighting: 0.05), or of the pixel noise (cone: 0.05)")
	nuisDim := fl.Int("nuisance-dim", 0, "lighting directions `L` for --kind lighting (default min(4, D−K)) or cone (ambient and shading, default min(5, D))")
	nuisStd := fl.Float64("nuisance-std", 0, "standard deviation `S` of a frame's lighting around its set's, per direction, for --kind lighting (default 1) or cone (default 0.5)")
	shapeDims := fl.Int("shape-dims", 0, "directions `M` along which each beyond-gauss class departs from the Gaussian (default 1)")
	force := fl.Bool("force", false, "replace a data set previously written to DIR")
	images := fl.String("images", "", "write image frames of `WxH` pixels instead of feature vectors: DIR/<class>/<set>/f000.png…, a texture per class (--classes, --sets, --frames and --seed apply)")
	relight := fl.String("relight", "", "write the images of folder `SRC` (<class>/<image>, or <class>/<set>/<image>) under strong synthetic lighting instead: DIR/<class>/<set>/f000.png…, the same lights for every class, each set from its own images (--sets, --frames and --seed apply)")
	turntable := fl.String("turntable", "", "write image frames of `WxH` pixels of objects turning on a turntable instead of feature vectors: DIR/<class>/<set>/f000.png…, an object per class, each set one arc of a turn (--sets arcs: 4 gives quarter turns; --classes, --frames and --seed apply)")
	if err := parseFlags(fl, args); err != nil {
		return err
	}
	if fl.NArg() != 0 {
		fl.Usage()
		return usagef("unexpected argument %q: all settings are flags", fl.Arg(0))
	}
	if *out == "" {
		fl.Usage()
		return usagef("--out DIR is required")
	}
	if given := givenFlags(fl, "images", "turntable", "relight"); len(given) > 1 {
		return usagef("%s exclude each other", strings.Join(given, " and "))
	}
	if *relight != "" {
		return synthRelight(fl, *relight, *out, *sets, *frames, *seed, *force, args, stdout)
	}
	if *turntable != "" {
		return synthTurntable(fl, *turntable, *out, *classes, *sets, *frames, *seed, *force, args, stdout)
	}
	if *images != "" {
		return synthImages(fl, *images, *out, *classes, *sets, *frames, *seed, *force, args, stdout)
	}
	kind, err := synth.ParseKind(*kindName)
	if err != nil {
		return usagef("--kind: %v", err)
	}
	if kind != synth.Subspace && kind != synth.Lighting && *infoDim != 0 {
		return usagef("--info-dim applies to --kind subspace and lighting only")
	}
	if kind == synth.BeyondGauss && *noise != 0 {
		return usagef("--noise applies to --kind subspace, lighting and cone only")
	}
	if kind != synth.Lighting && kind != synth.Cone && (*nuisDim != 0 || *nuisStd != 0) {
		return usagef("--nuisance-dim and --nuisance-std apply to --kind lighting and cone only")
	}
	if kind != synth.BeyondGauss && *shapeDims != 0 {
		return usagef("--shape-dims applies to --kind beyond-gauss only")
	}
	opt := synth.Options{
		Kind: kind, Classes: *classes, Sets: *sets, Frames: *frames, Dim: *dim,
		Seed: *seed, InfoDim: *infoDim, NoiseStd: *noise, ShapeDims: *shapeDims,
		NuisanceDim: *nuisDim, NuisanceStd: *nuisStd,
	}
	if err := opt.Validate(); err != nil {
		return usagef("%s", strings.TrimPrefix(err.Error(), "synth: "))
	}
	readme := opt.Readme(strings.Join(args, " "))
	if err := synth.PrepareOut(*out, *force, readme); err != nil {
		return err
	}
	d, err := synth.Generate(opt)
	if err != nil {
		return err
	}
	if err := dataset.Write(*out, d); err != nil {
		return err
	}
	if err := synth.WriteReadme(*out, readme); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d classes × %d sets × %d frames × %d features (%s, seed %d) to %s\n",
		*classes, *sets, *frames, *dim, opt.Description(), *seed, *out)
	return nil
}
