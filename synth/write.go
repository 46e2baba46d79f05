package synth

import (
	"errors"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"setmatch/setfile"
)

// PrepareOut makes sure dir is a new or empty folder. With force, a
// folder holding a data set written before by this package (class
// folders of .npy files or of set folders of .png files, and a
// README.md) is emptied first; anything else is left alone and refused,
// so a mistyped folder cannot delete unrelated files.
func PrepareOut(dir string, force bool) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	if len(ents) == 0 {
		return nil
	}
	if !force {
		return fmt.Errorf("%s is not empty: choose a new folder, or add --force to replace a data set written there before", dir)
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			if e.Name() == "README.md" {
				continue
			}
			return fmt.Errorf("%s holds %s, which synth did not write: refusing to replace it; choose a new folder", dir, e.Name())
		}
		sub, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		for _, f := range sub {
			if f.IsDir() && imageSetFolder(filepath.Join(p, f.Name())) {
				continue
			}
			if f.IsDir() || setfile.Format(f.Name()) != "npy" {
				return fmt.Errorf("%s holds %s, which synth did not write: refusing to replace it; choose a new folder", dir, filepath.Join(e.Name(), f.Name()))
			}
		}
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// imageSetFolder reports whether dir holds only .png files, as a set
// folder written by WriteImageSets or WriteRelit does.
func imageSetFolder(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.IsDir() || !strings.EqualFold(filepath.Ext(e.Name()), ".png") {
			return false
		}
	}
	return true
}

// WriteImageSets writes sets image sets of every class of opt
// (ImageOptions.ImageSet) as dir/<class>/<set>/f000.png….
func WriteImageSets(dir string, opt ImageOptions, sets int) error {
	return writeImageSets(dir, opt.Classes, sets, opt.ImageSet)
}

// WriteTurntableSets writes the sets of every object of opt
// (TurntableOptions.TurntableSet) as dir/<class>/<set>/f000.png….
func WriteTurntableSets(dir string, opt TurntableOptions) error {
	return writeImageSets(dir, opt.Classes, opt.Sets, opt.TurntableSet)
}

// writeImageSets writes sets image sets of each of classes, set s of
// class c given by set, as dir/<class>/<set>/f000.png….
func writeImageSets(dir string, classes, sets int, set func(c, s int) ([]*image.Gray, error)) error {
	for c := range classes {
		for s := range sets {
			imgs, err := set(c, s)
			if err != nil {
				return err
			}
			if err := writeSet(filepath.Join(dir, ClassName(c, classes), SetName(s, sets)), imgs); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeSet writes the frames of one image set as dir/f000.png….
func writeSet(dir string, frames []*image.Gray) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	digits := max(3, len(strconv.Itoa(len(frames)-1)))
	for i, img := range frames {
		if err := WritePNG(filepath.Join(dir, fmt.Sprintf("f%0*d.png", digits, i)), img); err != nil {
			return err
		}
	}
	return nil
}

// WritePNG writes img to path as a PNG file.
func WritePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = png.Encode(f, img)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteReadme writes text, a data set's README (Options.Readme and the
// like), as dir/README.md, which PrepareOut recognises.
func WriteReadme(dir, text string) error {
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(text), 0o644)
}
