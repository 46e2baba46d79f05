package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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

	// The inputs and outputs, checked before any work.
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
	if err := checkFeaturesOut(*out, ins); err != nil {
		return err
	}
	for _, in := range ins {
		if err := checkSetFolder(in, "for a data set <class>/<set>/<frames>, one class at a time: --out DIR/CLASS CLASS/*"); err != nil {
			return err
		}
	}
	for _, name := range names {
		dst := filepath.Join(*out, name+".npy")
		if fi, err := os.Lstat(dst); err == nil && fi.IsDir() {
			return fmt.Errorf("%s is a folder, in the way of the features of %s, which would be written under that name: move it, or give another --out", dst, seen[name])
		}
	}

	// --out is made where it is missing only once there is a set to
	// write: a run that reads no set leaves nothing behind.
	for i, in := range ins {
		x, err := fit.ApplyDir(in, lim)
		if de := (*features.DirError)(nil); errors.As(err, &de) {
			return fmt.Errorf("input set: %w", de.Err)
		} else if err != nil {
			return limitFlags(err, lim)
		}
		if i == 0 {
			if err := os.MkdirAll(*out, 0o755); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
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

// checkFeaturesOut refuses the output folder out where it is an input set folder
// of ins or inside one (the .npy files, or out itself, would be written
// among the set's frames, where a set holds nothing else), and where it
// is something other than a folder.
func checkFeaturesOut(out string, ins []string) error {
	if fi, err := os.Stat(out); err == nil && !fi.IsDir() {
		return fmt.Errorf("--out %s is not a folder: give a folder, or a name to create one", out)
	}
	o, err := resolvePath(out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	for _, in := range ins {
		where, err := within(o, in)
		if err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		if where != "" {
			return usagef("--out %s %s the input set %s: its features would be written among the set's frames, where a set folder holds frame images only: give an --out outside the input folders", out, where, in)
		}
	}
	return nil
}

// within says where the folder o, resolved (resolvePath), lies against
// the folder in: "is" (the same folder), "is inside" (below it), or ""
// (elsewhere), with the links of the part of in that exists followed, so
// that no spelling of a path (a link, "." or "..") hides it.
func within(o, in string) (string, error) {
	r, err := resolvePath(in)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(r, o)
	switch {
	case err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)):
		return "", nil
	case rel == ".":
		return "is", nil
	}
	return "is inside", nil
}

// resolvePath returns the absolute path p with the links of the part of
// it that exists resolved: the part that does not yet exist is appended as
// given.
func resolvePath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			return filepath.Join(r, rest), nil
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return filepath.Join(abs, rest), nil
		}
		rest = filepath.Join(filepath.Base(abs), rest)
		abs = parent
	}
}

// checkSetFolder refuses path, given as one set, where it is plainly no
// set of frames: an empty folder, a folder of feature files (a set
// folder of a data set in that layout: a set of features is one file), or
// a folder that holds folders (a person's bursts, a class, a data set:
// setsOf), which give says what to give instead of. The burst reader would name an entry of it (a data
// set's README.md is "not a frame image"), or give the advice of a burst
// in the daemon's spool. Whatever else is wrong, the burst reader says.
func checkSetFolder(path, give string) error {
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil // reading the set says why
	}
	if len(ents) == 0 {
		return fmt.Errorf("%s is an empty folder: a set is a folder of its frame images (.png, .jpg, .jpeg or .pgm), at least 2 of them", path)
	}
	if slices.ContainsFunc(ents, func(e os.DirEntry) bool { return setfile.Format(e.Name()) != "" }) {
		return fmt.Errorf("%s is a folder of feature files, not of frame images: a set of features is one file; join the folder's files into one .npy or .csv of the set's frames (as train stacks them, in file-name order)", path)
	}
	if sets := setsOf(ents); sets != nil {
		return fmt.Errorf("%s holds folders (%s), not frame images: a set is one folder of frames: give the set folders themselves (%s)", path, listSome(sets), give)
	}
	return nil
}

// limitFlags adds to the error of a set over one of the limits of
// features.ImageLimits (features.ErrTooLarge) the flags that set them,
// with their values: the burst reader's own words, the daemon's too, say
// to raise "the limit" without naming a flag.
func limitFlags(err error, lim features.ImageLimits) error {
	if !errors.Is(err, features.ErrTooLarge) {
		return err
	}
	return fmt.Errorf("%w (the limits: --max-frames %d, --max-pixels %d, --max-file-bytes %d)", err, lim.MaxFrames, lim.MaxPixels, lim.MaxFileBytes)
}

// setsOf returns the names of the folders among the entries ents of a
// folder (hidden names aside) when there is one at least and no entry is
// a frame image: the folder is then a folder of sets (a person's bursts,
// a class, a data set, which may hold notes such as a README.md beside
// its folders), not a set of frames. It returns nil otherwise.
func setsOf(ents []os.DirEntry) []string {
	var dirs []string
	for _, e := range ents {
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case e.IsDir():
			dirs = append(dirs, e.Name())
		case features.IsBurstFrame(e.Name()):
			return nil
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
