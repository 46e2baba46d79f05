package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"

	"setmatch/deploy"
	"setmatch/internal/dirlock"
	"setmatch/model"
	"setmatch/setfile"
)

// changeFlags are the flags enroll and forget share: the model file they
// change, the class, where to write the new model and the goroutines.
type changeFlags struct {
	cmd                             string // enroll or forget
	model, label, out, strangersDir string
	workers                         int
	lock                            *os.File      // the lock of --out's folder (dirlock.Open), held from read to write
	fs                              *flag.FlagSet // the command's flags, for check
}

// register defines the shared flags on fs, with the usage of --model and
// --label of the command.
func (cf *changeFlags) register(fs *flag.FlagSet, modelUsage, labelUsage string) {
	cf.cmd, cf.fs = strings.TrimPrefix(fs.Name(), "setmatch "), fs
	fs.StringVar(&cf.model, "model", "", modelUsage)
	fs.StringVar(&cf.label, "label", "", labelUsage)
	fs.StringVar(&cf.out, "out", "", "write the new model to `OUT` (default: replace MODEL atomically; a running setmatchd reloads it)")
	workersVar(fs, &cf.workers, "goroutines `N` (at most one per CPU; 0: one per CPU)")
	fs.StringVar(&cf.strangersDir, "strangers", "", "folder `DIR` of sets of people or objects the model must not know, as train --strangers reads them (through the model's feature pipeline): the threshold is set again on them too, beside the stand-in strangers. The model keeps no strangers' sets: a model calibrated with some needs them again at every change, or none (a folder named none: ./none) to calibrate on the stand-ins alone; a model whose projection W its training classes shaped (nn-h-dr, nn-j-dr, nn-h-lda) keeps train's calibration, strangers included, so it needs none, and those given are read but not used (the change says so)")
}

// strangers reads the sets of --strangers, if given, through model m's
// feature pipeline (readStrangers): none may be of a class in classes,
// those the changed model will hold, nor of adding, a class enroll adds
// ("" for none). Without --strangers, a model whose
// threshold was calibrated with strangers' sets (deploy.RecordedStrangers)
// is refused where the change would set a threshold again on strangers'
// sets (deploy.NeedsStrangers), so that a change does not loosen the
// threshold unasked; --strangers none calibrates it on the stand-ins
// alone. Where it would not (every member keeps train's calibration),
// --strangers DIR is still read and checked, and the change says that
// they are not used: a script that gives them for every model runs alike.
func (cf *changeFlags) strangers(m *model.Model, classes []string, adding string, lim setfile.Limits) ([]*mat.Dense, error) {
	switch cf.strangersDir {
	case "none":
		return nil, nil
	case "":
		if n := deploy.RecordedStrangers(m); n > 0 && deploy.NeedsStrangers(m) {
			return nil, usagef("model %s was calibrated with %d strangers' sets (--strangers), which it does not keep: give them again with --strangers DIR, or --strangers none to set the threshold on the stand-in strangers alone (it may then let more strangers in)", cf.model, n)
		}
		return nil, nil
	}
	src := strangersSource{dim: m.InputDim(), classes: classes, adding: adding, whose: "the model " + cf.model,
		noImages: fmt.Sprintf("model %s records no feature pipeline (it was trained on feature files): give the strangers' sets as feature files of %d features per frame", cf.model, m.InputDim())}
	if m.Features != nil {
		src.read = m.Features.ImageSetReader()
	}
	return readStrangers(cf.strangersDir, lim, cf.workers, src)
}

// check refuses a command line without --model or --label, or with
// --out, --strangers or one of the command's own flags named given empty
// (emptyGiven).
func (cf *changeFlags) check(named ...string) error {
	switch {
	case cf.model == "":
		return usagef("--model is required")
	case cf.label == "":
		return usagef("--label is required")
	}
	return emptyGiven(cf.fs, append([]string{"out", "strangers"}, named...)...)
}

// read reads the model to change; --out defaults to it. It first locks
// the folder of --out (waiting, and saying so on stderr, while another
// enroll or forget holds it), so that two changes of one model file are
// made one after the other, each on the model the other wrote, not both
// on the same model with one of them lost. The lock goes with the
// process (or with write).
func (cf *changeFlags) read(stderr io.Writer) (*model.Model, error) {
	if cf.out == "" {
		cf.out = cf.model
	}
	// A model file reached through symbolic links (model.smm ->
	// current/model.smm) is replaced where they lead: renaming the new file
	// over a link would put a plain file in its place, and swapping the
	// link would then no longer swap the model. The folder locked is the
	// file's own, whichever link led to it. A folder, a device or a pipe
	// is refused before anything is read.
	real, err := model.OutPath(cf.out)
	if err != nil {
		flag := "--out"
		if cf.out == cf.model {
			flag = "--model"
		}
		return nil, usagef("%s %v", flag, err)
	}
	if cf.out == cf.model {
		cf.model = real
	}
	cf.out = real
	dir := filepath.Dir(cf.out)
	// The folder as messages name it: a model given without a folder
	// is in ".", which says little to a reader.
	shown := dir
	if abs, err := filepath.Abs(dir); err == nil {
		shown = abs
	}
	if err := canWrite(dir); err != nil {
		return nil, cf.folderError(shown, err)
	}
	d, err := dirlock.Open(dir)
	if err != nil {
		return nil, cf.folderError(shown, err)
	}
	busy, err := dirlock.TryLock(d)
	if err == nil && busy {
		fmt.Fprintf(stderr, "waiting for another enroll or forget writing in %s\n", shown)
		err = dirlock.Lock(d)
	}
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("locking %s against another enroll or forget: %w (enroll and forget need to read and write the folder of the model they change)", shown, err)
	}
	cf.lock = d
	m, _, err := model.ReadFile(cf.model)
	return m, err
}

// folderError is the error of a folder of --out (by default the model's
// own) that this user cannot lock or write a file in, err the failure of
// that step: it names the folder and its fault, without the name of the
// file the step tried. Where the fault is a permission, it says what to
// do: for the model's own folder, run as a user who may write there (on
// the appliance, the daemon's user) or write the changed model elsewhere;
// where the folder of another --out does not exist, create it (as train
// says of its --out).
func (cf *changeFlags) folderError(dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	denied := errors.Is(err, fs.ErrPermission)
	switch {
	case cf.out == cf.model && denied:
		return fmt.Errorf("model %s: this user may not read and write its folder %s (%w): run setmatch %s as a user who may (the appliance's model: sudo -u setmatch setmatch %s …), or write the changed model elsewhere with --out FILE", cf.model, dir, err, cf.cmd, cf.cmd)
	case denied:
		return fmt.Errorf("--out %s: this user may not read and write its folder %s (%w): give a folder you can write to", cf.out, dir, err)
	case cf.out == cf.model:
		return fmt.Errorf("model %s: its folder %s: %w", cf.model, dir, err)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--out %s: the folder %s does not exist: create it first", cf.out, dir)
	}
	return fmt.Errorf("--out %s: its folder %s: %w", cf.out, dir, err)
}

// write writes the changed model to --out and says on stdout what its
// gallery holds now, followed by note; then it lets the next change in.
func (cf *changeFlags) write(stdout io.Writer, m *model.Model, c *deploy.Change, note string) error {
	err := model.WriteFile(cf.out, m)
	cf.unlock()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d gallery sets, %d classes%s\n", cf.out, c.GallerySets, c.Classes, note)
	return nil
}

// unlock releases the lock read took, if it holds one; enroll and forget
// defer it, so that a change that fails does not keep the next one out.
func (cf *changeFlags) unlock() {
	if cf.lock != nil {
		cf.lock.Close() // closing it releases the lock
		cf.lock = nil
	}
}
