package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"setmatch/features"
	"setmatch/model"
	"setmatch/setfile"
)

func runFeatures(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("features", "(--model MODEL | --features SPEC) --out DIR [--max-frames N] [--max-pixels N] [--max-file-bytes N] IN...", stderr)
	modelPath := fl.String("model", "", "use the feature pipeline recorded in model file `MODEL`")
	spec := fl.String("features", "", "feature pipeline `SPEC`, e.g. lbp:4x4@64x64 or intensity:20x20 (a +pca:N stage needs --model)")
	out := fl.String("out", "", "write one IN-name.npy per input set into folder `DIR` (created if missing; files of the same name are replaced)")
	def := features.DefaultBurstLimits()
	maxFrames := fl.Int("max-frames", def.MaxFrames, "refuse sets of more than `N` frames")
	maxPixels := fl.Int64("max-pixels", def.MaxPixels, "refuse frames whose header declares more than `N` pixels")
	maxFileBytes := fl.Int64("max-file-bytes", def.MaxFileBytes, "refuse frame files larger than `N` bytes")
	fl.Usage = func() {
		fmt.Fprintf(stderr, `usage: setmatch features (--model MODEL | --features SPEC) --out DIR IN...

Each IN is one image set: a folder of frame images (PNG, JPEG, PGM), such as
an image burst or a set folder of a data set. Its frames are read in byte
order of their names, with the checks and limits of an image burst, and
their features are written as DIR/<IN's name>.npy (frames × features,
float64): the numbers training computes for these images.

flags:
`)
		fl.PrintDefaults()
	}
	ins, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	switch {
	case (*modelPath == "") == (*spec == ""):
		fl.Usage()
		return usagef("give exactly one of --model MODEL and --features SPEC")
	case *out == "":
		fl.Usage()
		return usagef("--out DIR is required")
	case len(ins) == 0:
		fl.Usage()
		return usagef("give at least one input set folder IN")
	}
	lim := features.ImageLimits{MaxFrames: *maxFrames, MaxPixels: *maxPixels, MaxFileBytes: *maxFileBytes}
	if err := lim.Check(); err != nil {
		return usagef("--max-frames, --max-pixels and --max-file-bytes must be positive")
	}
	var fit features.Fitted
	if *modelPath != "" {
		if fit, err = pipelineFromModel(*modelPath); err != nil {
			return err
		}
	} else {
		p, err := features.Parse(*spec)
		if err != nil {
			return specError(err)
		}
		if p.PCADim() > 0 {
			return usagef("--features %s: a pca stage is fitted on training frames, so only a model can supply it: give --model MODEL, or drop +pca:%d", *spec, p.PCADim())
		}
		fit = features.Fitted{Pipeline: p}
	}

	// Output names, checked before any work.
	names := make([]string, len(ins))
	seen := map[string]string{}
	for i, in := range ins {
		abs, err := filepath.Abs(in)
		if err != nil {
			return err
		}
		name := filepath.Base(abs)
		if name == string(filepath.Separator) || name == "." {
			return usagef("input %s has no name to give its output: name a folder", in)
		}
		if prev, ok := seen[name]; ok {
			return usagef("inputs %s and %s would both be written as %s.npy: give sets distinct folder names", prev, in, name)
		}
		seen[name] = in
		names[i] = name
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	for i, in := range ins {
		if sets := setsInside(in); sets != nil {
			return fmt.Errorf("%s holds folders (%s), not frame images: each IN is one set, a folder of frames: give the set folders themselves (for a data set <class>/<set>/<frames>, one class at a time: --out DIR/CLASS CLASS/*)", in, listSome(sets))
		}
		x, err := fit.ApplyDir(in, lim)
		if de := (*features.DirError)(nil); errors.As(err, &de) {
			return fmt.Errorf("input set: %w", de.Err)
		} else if err != nil {
			return err
		}
		dst := filepath.Join(*out, names[i]+".npy")
		if err := setfile.WriteFile(dst, x); err != nil {
			return err
		}
		n, d := x.Dims()
		fmt.Fprintf(stdout, "%s: %d frames × %d features (%s) -> %s\n", in, n, d, fit.Name(), dst)
	}
	return nil
}

// setsInside returns the names of the entries of folder path when every
// one (hidden names aside) is a folder, and there is one at least: path
// is then a folder of sets (a person's bursts, a class, a data set), not
// a set of frames. It returns nil otherwise, also when path cannot be
// listed (reading the set then says why).
func setsInside(path string) []string {
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil
	}
	return setsOf(ents)
}

// setsOf is setsInside on the entries ents of a folder already listed.
func setsOf(ents []os.DirEntry) []string {
	var dirs []string
	for _, e := range ents {
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case !e.IsDir():
			return nil
		default:
			dirs = append(dirs, e.Name())
		}
	}
	return dirs
}

// listSome lists the first two of names for a message, and "…" for more.
func listSome(names []string) string {
	if len(names) > 2 {
		return strings.Join(names[:2], ", ") + ", …"
	}
	return strings.Join(names, ", ")
}

// pipelineFromModel returns the feature pipeline recorded in the model file
// at path. For a model that records none (format 1, or trained on feature
// files) it says so, with the spec the model was trained with when its
// parameters name one.
func pipelineFromModel(path string) (features.Fitted, error) {
	m, _, err := model.ReadFile(path)
	if err != nil {
		return features.Fitted{}, err
	}
	if m.Features != nil {
		return *m.Features, nil
	}
	hint := ""
	if s := strings.TrimSpace(m.Meta.Params["features"]); s != "" {
		hint = fmt.Sprintf(" (it was trained with --features %s)", s)
	}
	return features.Fitted{}, fmt.Errorf("%s: this model records no feature pipeline; give --features SPEC%s", path, hint)
}

// parseInterspersed parses flags that may come before, between or after
// the positional arguments (flag.FlagSet stops at the first positional
// one), and returns the positional arguments. "--" ends the flags.
func parseInterspersed(fl *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseOnly(fl, args); err != nil {
			return nil, err
		}
		rest := fl.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fl.Parse consumed a "--" if args[len(args)-len(rest)-1] is one.
		if k := len(args) - len(rest); k > 0 && args[k-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
