package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"setmatch/features"
	"setmatch/synth"
)

// synthImages is setmatch synth --images WxH: an image data set of PNG
// frames, DIR/<class>/<set>/f000.png, a texture per class (synth.ImageOptions).
func synthImages(fl *flag.FlagSet, size, out string, classes, sets, frames int, seed int64, force bool, args []string, stdout io.Writer) error {
	w, h, err := imageFlags(fl, "images", size)
	if err != nil {
		return err
	}
	if sets < 1 || sets > 10000 {
		return usagef("--sets must be 1 to 10000, got %d", sets)
	}
	opt := synth.ImageOptions{Classes: classes, Frames: frames, W: w, H: h, Seed: seed}
	if err := opt.CheckSets(sets); err != nil {
		return usagef("%s", strings.TrimPrefix(err.Error(), "synth: "))
	}
	readme := opt.Readme(strings.Join(args, " "), sets)
	if err := synth.PrepareOut(out, force, readme); err != nil {
		return err
	}
	if err := synth.WriteImageSets(out, opt, sets); err != nil {
		return err
	}
	if err := synth.WriteReadme(out, readme); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d classes × %d sets × %d frames of %dx%d pixels (PNG, seed %d) to %s\n",
		classes, sets, frames, w, h, seed, out)
	return nil
}

// synthTurntable is setmatch synth --turntable WxH: an image data set of
// PNG frames, DIR/<class>/<set>/f000.png, an object per class turning on
// a turntable, a set per arc of the turn (synth.TurntableOptions).
func synthTurntable(fl *flag.FlagSet, size, out string, classes, sets, frames int, seed int64, force bool, args []string, stdout io.Writer) error {
	w, h, err := imageFlags(fl, "turntable", size)
	if err != nil {
		return err
	}
	opt := synth.TurntableOptions{Classes: classes, Sets: sets, Frames: frames, W: w, H: h, Seed: seed}
	if err := opt.Check(); err != nil {
		return usagef("%s", strings.TrimPrefix(err.Error(), "synth: "))
	}
	readme := opt.Readme(strings.Join(args, " "))
	if err := synth.PrepareOut(out, force, readme); err != nil {
		return err
	}
	if err := synth.WriteTurntableSets(out, opt); err != nil {
		return err
	}
	if err := synth.WriteReadme(out, readme); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d objects × %d arcs of a turn × %d frames of %dx%d pixels (PNG, seed %d) to %s\n",
		classes, sets, frames, w, h, seed, out)
	return nil
}

// imageFlags checks the flags of an image data set, written by synth
// --name size: none of feature-vector data is given, and size is a frame
// size WxH.
func imageFlags(fl *flag.FlagSet, name, size string) (w, h int, err error) {
	if err := vectorOnly(givenFlags(fl, vectorFlags...), name); err != nil {
		return 0, 0, err
	}
	// The bounds are synth's, checked with the other options.
	w, h, err = features.ParseWxH(strings.ToLower(strings.TrimSpace(size)), 0, math.MaxInt)
	if err != nil {
		return 0, 0, usagef("--%s: want a frame size WxH such as 128x96, got %q", name, size)
	}
	return w, h, nil
}

// vectorOnly refuses the flags bad (of vectorFlags, as "--name") given
// to synth --name, which writes images: they shape feature-vector data
// only. Where --kind is one, it says which flag writes images under
// synthetic light, as --kind lighting and cone make feature vectors.
func vectorOnly(bad []string, name string) error {
	switch len(bad) {
	case 0:
		return nil
	case 1:
		hint := ""
		if bad[0] == "--kind" && name != "relight" {
			hint = " (images under synthetic light: --relight SRC, a folder of images such as faces)"
		}
		return usagef("%s shapes feature-vector data only, not --%s image sets: leave it out%s", bad[0], name, hint)
	}
	return usagef("%s shape feature-vector data only, not --%s image sets: leave them out", strings.Join(bad, ", "), name)
}

// vectorFlags are the flags of synth that shape feature-vector data only.
var vectorFlags = []string{"dim", "kind", "info-dim", "noise", "nuisance-dim", "nuisance-std", "shape-dims"}

// givenFlags returns, as "--name", those of names that were set on the
// command line.
func givenFlags(fl *flag.FlagSet, names ...string) []string {
	var out []string
	fl.Visit(func(f *flag.Flag) {
		if slices.Contains(names, f.Name) {
			out = append(out, "--"+f.Name)
		}
	})
	return out
}
