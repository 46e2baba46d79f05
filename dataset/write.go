package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"setmatch/setfile"
)

// Write writes every set of d to <dir>/<class>/<set>.npy, creating the
// folders: the feature-file layout that Load reads back. Existing files of
// the same names are replaced atomically. Class and set names must be
// usable as single path elements.
func Write(dir string, d *Dataset) error {
	for _, s := range d.Sets {
		if s.Class == "" || s.Name == "" || strings.ContainsAny(s.Class+s.Name, `/\`) || s.Class == ".." || s.Name == ".." {
			return fmt.Errorf("dataset: set %q of class %q has an unusable name", s.Name, s.Class)
		}
		cdir := filepath.Join(dir, s.Class)
		if err := os.MkdirAll(cdir, 0o755); err != nil {
			return err
		}
		if err := setfile.WriteFile(filepath.Join(cdir, s.Name+".npy"), s.Frames); err != nil {
			return err
		}
	}
	return nil
}
