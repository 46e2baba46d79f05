package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/deploy"
	"setmatch/features"
	"setmatch/model"
	"setmatch/setfile"
)

// enrollSynopsis is the usage line and description of setmatch enroll.
const enrollSynopsis = `--model MODEL --label LABEL [--name NAME] [--out OUT] SET...

Adds sets to a model's gallery, under an existing or a new label, without
training again. A SET is a feature file (.npy or .csv, one frame per row)
or a folder of frame images: an image burst as the camera writes it (e.g.
a burst the daemon kept in the spool's done/ folder) or a set folder of
a data set, turned into features by the model's recorded pipeline exactly
as setmatchd does (a model trained on feature files takes feature files
only). Every member of the model takes the sets (each member of a vote):
projected with its W, each with its own bandwidth by its rule; a member
that decides by kFDA is fitted again on the new gallery with its kernels,
regulariser and latent dimension; a learned W is kept as training
learned it (enroll says how well the new sets are told apart in its
space). The open-set threshold is then set again by the rule the model
was trained with (e.g. auto:balanced, on stand-in strangers). The model
file is replaced atomically: a running setmatchd reloads it.`

func runEnroll(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("enroll", enrollSynopsis, stderr)
	modelPath := fs.String("model", "", "model file to add the sets to (required)")
	label := fs.String("label", "", "class of the new sets, existing or new (required)")
	name := fs.String("name", "", "set name (one SET only; default: the file name without extension, or the folder's name)")
	out := fs.String("out", "", "write the new model here (default: replace MODEL atomically; a running setmatchd reloads it)")
	maxBytes := fs.Int64("max-bytes", setfile.DefaultLimits().MaxBytes, "refuse set files larger than this many bytes")
	workers := fs.Int("workers", 0, "goroutines `N` (0: one per CPU)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *modelPath == "":
		return usagef("--model is required")
	case *label == "":
		return usagef("--label is required")
	case fs.NArg() == 0:
		return usagef("give at least one set: a feature file (.npy or .csv) or a folder of frame images (a burst)")
	case *name != "" && fs.NArg() > 1:
		return usagef("--name names one set, but %d were given", fs.NArg())
	}
	if *out == "" {
		*out = *modelPath
	}
	m, _, err := model.ReadFile(*modelPath)
	if err != nil {
		return err
	}
	lim := setfile.DefaultLimits()
	lim.MaxBytes = *maxBytes
	// All sets are added, or none: the model is written once, at the end.
	var sets []model.NewSet
	for _, path := range fs.Args() {
		x, how, err := enrollRead(path, *modelPath, m, lim)
		if err != nil {
			return err
		}
		setName := *name
		if setName == "" {
			setName = strings.TrimSuffix(filepath.Base(filepath.Clean(path)), filepath.Ext(path))
			if how != "" { // a folder: its whole name
				setName = filepath.Base(filepath.Clean(path))
			}
		}
		n, _ := x.Dims()
		fmt.Fprintf(stderr, "enroll: %s/%s: %d frames%s\n", *label, setName, n, how)
		sets = append(sets, model.NewSet{Label: *label, Name: setName, Frames: x})
	}
	c, err := deploy.Enroll(m, sets, *workers, time.Now())
	if err != nil {
		return fmt.Errorf("%s: %w", *modelPath, err)
	}
	printChange(stderr, "enroll", m, c)
	if err := model.WriteFile(*out, m); err != nil {
		return err
	}
	newClass := ""
	if c.NewClasses > 0 {
		newClass = fmt.Sprintf(" (%d new)", c.NewClasses)
	}
	fmt.Fprintf(stdout, "%s: %d gallery sets, %d classes%s\n", *out, c.GallerySets, c.Classes, newClass)
	return nil
}

// enrollRead reads one SET argument: a feature file, or a folder of frame
// images through the model's pipeline (features.Fitted.ApplyBurst, as the
// daemon reads a burst). how says, for a folder, how its features were
// made ("" for a file).
func enrollRead(path, modelPath string, m *model.Model, lim setfile.Limits) (*mat.Dense, string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", err
	}
	if !st.IsDir() {
		switch strings.ToLower(filepath.Ext(path)) {
		case ".png", ".jpg", ".jpeg", ".pgm":
			return nil, "", fmt.Errorf("%s is one image, not a set: give the folder that holds the burst's frames", path)
		}
		x, err := setfile.ReadFile(path, lim)
		return x, "", err
	}
	if m.Features == nil {
		return nil, "", fmt.Errorf("%s is a folder (a burst of frame images), but model %s records no feature pipeline (it was trained on feature files): give the set as a feature file of %d features per frame, made as the training features were, or train the model on images with --features SPEC", path, modelPath, m.InputDim())
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, "", err
	}
	defer root.Close()
	x, err := m.Features.ApplyBurst(root, ".", features.FolderLimits())
	if err != nil {
		return nil, "", err
	}
	return x, fmt.Sprintf(" (images, features by the model's pipeline %s, as setmatchd computes them)", m.Features.Name()), nil
}

// printChange writes what deploy.Enroll or deploy.Forget did, member by
// member, and how the threshold was set.
func printChange(w io.Writer, cmd string, m *model.Model, c *deploy.Change) {
	vote := len(c.Members) > 1
	for i, mc := range c.Members {
		who := mc.Method
		if vote {
			who = fmt.Sprintf("vote member %d, %s", i+1, mc.Method)
		}
		if mc.Refitted {
			fmt.Fprintf(w, "%s: %s: kFDA fitted again on the new gallery (%s)\n", cmd, who, mc.Discriminant)
		}
		if mc.Recentred {
			fmt.Fprintf(w, "%s: %s: the mean it centres frames by is now that of the frames its gallery keeps\n", cmd, who)
		}
		if mc.Bandwidth {
			mem := m.Members()[i]
			unused := ""
			if mem.KFDA != nil && !mem.KFDA.UsesDivergences() {
				unused = ", recorded but not used by its kernels"
			}
			fmt.Fprintf(w, "%s: %s: its global bandwidth (one for every gallery set and batch%s) is now computed from the sets it keeps: %.4g\n", cmd, who, unused, mem.QueryBandwidth.Fixed)
		}
		if mc.Projection != "" {
			fmt.Fprintf(w, "%s: %s: projection %s kept as training made it, from the training sets: it was not fitted again\n", cmd, who, mc.Projection)
		}
		if len(mc.Margins) > 0 {
			div := m.Members()[i].Divergence
			fmt.Fprintf(w, "%s: %s: how far each new set is from its class and from the others (nearest-neighbour %s divergence in its space; margin = other − own, above 0 the set is nearer its own class)\n", cmd, who, div)
			for _, g := range mc.Margins {
				own := "none (no other set of its class)"
				if !math.IsNaN(g.Own) {
					own = fmt.Sprintf("%.4g (%s)", g.Own, g.OwnName)
				}
				margin := ""
				if !math.IsNaN(g.Own) {
					margin = fmt.Sprintf(", margin %.4g", g.Other-g.Own)
					if g.Other <= g.Own {
						margin += ": nearer another class than its own; a model trained again with these sets may tell them apart better"
					}
				}
				fmt.Fprintf(w, "%s:   %s/%s: own class %s, other class %.4g (%s)%s\n", cmd, g.Label, g.Name, own, g.Other, g.OtherLabel, margin)
			}
		}
	}
	rule := c.Rule + " (the rule the model was trained with)"
	if c.RuleDefault {
		rule = c.Rule + " (the model records no rule, being older than that record: train's default)"
	}
	fmt.Fprintf(w, "%s: threshold by %s: %s\n", cmd, rule, c.Threshold)
}
