//go:build !unix

package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"syscall"
)

const oNonBlock = 0

// openIn is OpenIn where there is no openat that refuses a link: name is
// opened under root, then compared with what it is after the open. The
// file is named label (named), and every error carries label.
func openIn(root *os.Root, dir string, _ *os.File, name string, want Kind, label string) (*os.File, error) {
	p := path.Join(dir, name)
	f, err := root.OpenFile(p, os.O_RDONLY, 0)
	if err != nil {
		return nil, labelled(err, label)
	}
	fi, err := f.Stat()
	if err == nil {
		var li fs.FileInfo
		li, err = root.Lstat(p)
		switch {
		case err != nil:
		case li.Mode()&fs.ModeSymlink != 0 || !os.SameFile(li, fi):
			err = syscall.ELOOP
		case want == Dir && !fi.IsDir():
			err = syscall.ENOTDIR
		}
	}
	if err == nil {
		var nf *os.File
		if nf, err = named(f, label); err == nil {
			return nf, nil
		}
	}
	f.Close()
	return nil, labelled(err, label)
}

// labelled returns err as the error of the open of label: a path error's
// path, whatever path os.Root put in it, is label.
func labelled(err error, label string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &os.PathError{Op: "open", Path: label, Err: err}
}
