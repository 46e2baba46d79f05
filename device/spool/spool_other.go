//go:build !linux

package spool

import (
	"io/fs"
	"os"
	"path"
	"syscall"
	"time"
)

const oNoFollow = 0

const oNonBlock = 0

// changeTime falls back to the modification time where the inode change time
// is not at hand.
func changeTime(fi fs.FileInfo) time.Time { return fi.ModTime() }

// openNoFollow opens the batch sub/name for reading, refusing a symbolic
// link at name: where the kernel's O_NOFOLLOW is not used, by comparing
// the open file with what the name is after the open.
func (s *Spool) openNoFollow(sub, name string) (*os.File, error) {
	if !oneName(name) {
		return nil, &os.PathError{Op: "open", Path: s.Path(sub, name), Err: syscall.EINVAL}
	}
	p := path.Join(sub, name)
	f, err := s.root.OpenFile(p, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		var li fs.FileInfo
		if li, err = s.root.Lstat(p); err == nil && (li.Mode()&fs.ModeSymlink != 0 || !os.SameFile(li, fi)) {
			err = &os.PathError{Op: "open", Path: s.Path(sub, name), Err: syscall.ELOOP}
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
