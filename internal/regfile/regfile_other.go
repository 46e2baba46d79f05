//go:build !unix

package regfile

import (
	"io/fs"
	"os"
	"path"
	"syscall"
)

const oNonBlock = 0

// openIn is OpenIn where there is no openat that refuses a link: name is
// opened under root, then compared with what it is after the open.
func openIn(root *os.Root, dir string, _ *os.File, name string, want Kind, label string) (*os.File, error) {
	p := path.Join(dir, name)
	f, err := root.OpenFile(p, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		var li fs.FileInfo
		li, err = root.Lstat(p)
		switch {
		case err != nil:
		case li.Mode()&fs.ModeSymlink != 0 || !os.SameFile(li, fi):
			err = &os.PathError{Op: "open", Path: label, Err: syscall.ELOOP}
		case want == Dir && !fi.IsDir():
			err = &os.PathError{Op: "open", Path: label, Err: syscall.ENOTDIR}
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
