package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"setmatch/model"
	"setmatch/setfile"
)

// enrollSynopsis is the usage line and description of setmatch enroll.
const enrollSynopsis = `--model MODEL --label LABEL [--name NAME] [--out OUT] SET...

Adds sets (feature files) to a nearest-neighbour model's gallery, under
an existing or a new label, without retraining: projected with the
model's W, each with its own bandwidth by the model's rule. A model that
decides by kFDA cannot take new sets this way (its discriminant is
fitted to the gallery): enroll says so, and the model must be trained
again with the new sets.`

func runEnroll(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("enroll", enrollSynopsis, stderr)
	modelPath := fs.String("model", "", "model file to add the sets to (required)")
	label := fs.String("label", "", "class of the new sets, existing or new (required)")
	name := fs.String("name", "", "set name (one SET only; default: the file name without extension)")
	out := fs.String("out", "", "write the new model here (default: replace MODEL atomically; a running setmatchd reloads it)")
	maxBytes := fs.Int64("max-bytes", setfile.DefaultLimits().MaxBytes, "refuse set files larger than this many bytes")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *modelPath == "":
		return usagef("--model is required")
	case *label == "":
		return usagef("--label is required")
	case fs.NArg() == 0:
		return usagef("give at least one set file (.npy or .csv, one frame per row)")
	case *name != "" && fs.NArg() > 1:
		return usagef("--name names one set, but %d files were given", fs.NArg())
	}
	if *out == "" {
		*out = *modelPath
	}
	m, _, err := model.ReadFile(*modelPath)
	if err != nil {
		return err
	}
	if err := m.CanEnroll(); err != nil {
		return fmt.Errorf("%s: %w", *modelPath, err)
	}
	lim := setfile.DefaultLimits()
	lim.MaxBytes = *maxBytes
	// All sets are added, or none: the model is written once, at the end.
	for _, path := range fs.Args() {
		x, err := setfile.ReadFile(path, lim)
		if err != nil {
			return err
		}
		setName := *name
		if setName == "" {
			setName = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		}
		if err := m.Enroll(*label, setName, x); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		s := m.Sets[len(m.Sets)-1]
		fmt.Fprintf(stderr, "enrolled %s/%s: %d frames, bandwidth %.6g\n", s.Label, s.Name, s.Samples.RawMatrix().Rows, s.Bandwidth)
	}
	if err := model.WriteFile(*out, m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d gallery sets, %d classes\n", *out, len(m.Sets), len(m.Classes()))
	return nil
}
