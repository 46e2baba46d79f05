package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
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
	var cf changeFlags
	cf.register(fs, "model file `MODEL` to add the sets to (required)", "class `LABEL` of the new sets, existing or new (required)")
	name := fs.String("name", "", "set `NAME` (one SET only; default: the file name without extension, or the folder's name)")
	lim := limitsFlag(fs)
	burst := features.DefaultBurstLimits()
	fs.IntVar(&burst.MaxFrames, "max-frames", burst.MaxFrames, "refuse a folder of more than `N` frame images (the default is setmatchd's spool.max_burst_frames; a longer set folder of a data set needs more)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := cf.check("name"); err != nil {
		return err
	}
	if burst.MaxFrames < 1 {
		return usagef("--max-frames must be at least 1, got %d", burst.MaxFrames)
	}
	if err := model.CheckLabel(cf.label); err != nil { // a new class's name: model.CheckNewLabel, below
		return usagef("--label: %v", err) // before the model or any set is read
	}
	switch {
	case fs.NArg() == 0:
		return usagef("give at least one set: a feature file (.npy or .csv) or a folder of frame images (a burst)")
	case *name != "" && fs.NArg() > 1:
		return usagef("--name names one set, but %d were given", fs.NArg())
	}
	// The names first: a name the model cannot hold is refused before the
	// model or any set is read.
	names := make([]string, fs.NArg())
	if *name != "" { // of one set alone, checked above
		if err := model.CheckSetName(*name); err != nil {
			return usagef("--name %q %v: give the set another name", *name, err)
		}
		names[0] = *name
	}
	for i, path := range fs.Args() {
		if names[i] != "" {
			continue
		}
		st, err := os.Stat(path)
		if err != nil {
			continue // enrollRead says what is wrong with the path
		}
		names[i] = dataset.SetName(path, st.IsDir())
		if err := model.CheckSetName(names[i]); err != nil {
			return enrollNameError(path, names[i], st.IsDir(), fs.NArg() > 1, err)
		}
	}
	m, err := cf.read(stderr)
	defer cf.unlock()
	if err != nil {
		return err
	}
	if err := caseOnlyLabel(m.Classes(), cf.label); err != nil {
		return fmt.Errorf("%s: %w", cf.model, err)
	}
	// The strangers' sets first: a model that needs them is refused
	// before any burst is read.
	adding := cf.label // a new class, or one the model holds
	if slices.Contains(m.Classes(), cf.label) {
		adding = ""
	} else if err := model.CheckNewLabel(adding); err != nil {
		return usagef("--label: %v", err) // before any set is read
	}
	strangers, err := cf.strangers(m, m.Classes(), adding, *lim)
	if err != nil {
		return err
	}
	// All sets are added, or none: the model is written once, at the end.
	var sets []model.NewSet
	for i, path := range fs.Args() {
		x, how, err := enrollRead(path, cf.model, m, *lim, burst)
		if err != nil {
			return err
		}
		setName := names[i]
		n, _ := x.Dims()
		fmt.Fprintf(stderr, "enroll: %s/%s: %d frames%s\n", cf.label, setName, n, how)
		sets = append(sets, model.NewSet{Label: cf.label, Name: setName, Frames: x})
	}
	c, err := deploy.Enroll(m, sets, strangers, cf.workers, time.Now())
	if err != nil {
		return fmt.Errorf("%s: %w", cf.model, err)
	}
	if err := c.Write(stderr, "enroll", m); err != nil {
		return err
	}
	newClass := ""
	if c.NewClasses > 0 {
		newClass = fmt.Sprintf(" (%q is new: a person the model did not know)", cf.label)
	}
	return cf.write(stdout, m, c, newClass)
}

// caseOnlyLabel refuses a new label that differs from a class of the
// model (classes) only by case: labels are told apart by case, so it would
// make a second class beside that one, most likely of the same person
// (whose sets, batches and label pin would then be split between the two).
func caseOnlyLabel(classes []string, label string) error {
	if slices.Contains(classes, label) {
		return nil // an existing class: sets added to it
	}
	for _, c := range classes {
		if strings.EqualFold(c, label) {
			return fmt.Errorf("--label %q: the model has a class %q, which differs from it only by case; labels are told apart by case, so %q would be a new class beside it: to add sets to that class give --label %q, and for another person choose a label that differs by more than case", label, c, label, c)
		}
	}
	return nil
}

// enrollNameError is the error of a SET whose file or folder name gives
// a set name model.CheckSetName refuses (err): it names the SET and says to
// rename it or to give --name (of one SET alone, where several are).
func enrollNameError(path, name string, dir, several bool, err error) error {
	what, from := "file", "the file's name without its extension"
	if dir {
		what, from = "folder", "the folder's name"
	}
	give := "give the set a name with --name NAME"
	if several {
		give = "enroll it alone with --name NAME"
	}
	return fmt.Errorf("%q: its set name %q (%s) %v: rename the %s, or %s", path, name, from, err, what, give)
}

// sizeNote is ": " and the features package's note on frames of another
// size than the training images (features.Pipeline.SizeNote), where the
// number of features of m's pipeline follows the image size; else "".
func sizeNote(m *model.Model) string {
	if m.Features == nil || m.Features.Pipeline.SizeNote() == "" {
		return ""
	}
	return ": " + m.Features.Pipeline.SizeNote()
}

// enrollRead reads one SET argument: a feature file within lim, or a folder
// of frame images within burst through the model's pipeline
// (features.Fitted.ApplyBurst, as the daemon reads a burst). how says, for
// a folder, how its features were made ("" for a file).
func enrollRead(path, modelPath string, m *model.Model, lim setfile.Limits, burst features.ImageLimits) (*mat.Dense, string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", err
	}
	if !st.IsDir() {
		if dataset.IsImage(path) {
			return nil, "", fmt.Errorf("%s is one image, not a set: give the folder that holds the burst's frames", path)
		}
		x, err := setfile.ReadFile(path, lim)
		if err == nil && m.Features != nil {
			if _, D := x.Dims(); D != m.InputDim() {
				return nil, "", fmt.Errorf("%s has %d features per frame, model %s takes %d, made from images by its pipeline %s: give the burst's folder of frame images instead (or features made by setmatch features --model %s)", path, D, modelPath, m.InputDim(), m.Features.Name(), modelPath)
			}
		}
		return x, "", err
	}
	// An empty folder, or one of feature files or of sets: the burst
	// reader's fault speaks to a camera writing into the spool, which is
	// not what enroll was given; the folder is listed once, here.
	if err := checkSetFolder(path, filepath.Join(path, "*")); err != nil {
		return nil, "", err
	}
	if m.Features == nil {
		return nil, "", fmt.Errorf("%s is a folder (a burst of frame images), but model %s records no feature pipeline (it was trained on feature files): give the set as a feature file of %d features per frame, made as the training features were (of images by setmatch features --features SPEC --out DIR %s, with the training features' SPEC), or train the model on images with --features SPEC", path, modelPath, m.InputDim(), path)
	}
	x, err := m.Features.ApplyDir(path, burst) // a *DirError says what os.OpenRoot said
	if errors.Is(err, features.ErrTooLarge) {
		return nil, "", fmt.Errorf("%w (enroll's limits: --max-frames %d, and setmatchd's default pixels and bytes per frame)", err, burst.MaxFrames)
	}
	if err != nil {
		return nil, "", err
	}
	if _, D := x.Dims(); D != m.InputDim() {
		// The pipeline is the model's own: only the frames' size can
		// change the number of its features.
		return nil, "", fmt.Errorf("%s: its frames give %d features each through the model's pipeline %s, model %s takes %d%s", path, D, m.Features.Name(), modelPath, m.InputDim(), sizeNote(m))
	}
	return x, fmt.Sprintf(" (images, features by the model's pipeline %s, as setmatchd computes them)", m.Features.Name()), nil
}
