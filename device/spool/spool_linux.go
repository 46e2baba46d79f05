package spool

import (
	"io/fs"
	"os"
	"syscall"
	"time"
)

// oNoFollow keeps batch opens from following a symbolic link placed in the
// spool.
const oNoFollow = syscall.O_NOFOLLOW

// oNonBlock keeps a batch open from blocking: opening a FIFO placed in the
// spool would otherwise wait for a writer forever. It has no effect on
// regular files; anything else is refused after the open.
const oNonBlock = syscall.O_NONBLOCK

// changeTime returns the inode change time of fi: rename() sets it, so for a
// file in new/ it is the moment the writer renamed it in.
func changeTime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	}
	return fi.ModTime()
}

// openNoFollow opens the batch sub/name for reading, refusing a symbolic
// link at name by the kernel's O_NOFOLLOW, from sub's own descriptor: an
// os.Root follows a link that stays inside the spool whatever the flags,
// and a check of the path before or after the open would leave a moment to
// swap the link in. The open never blocks (a FIFO). name is one name in
// sub, never a path.
func (s *Spool) openNoFollow(sub, name string) (*os.File, error) {
	if !oneName(name) {
		return nil, &os.PathError{Op: "open", Path: s.Path(sub, name), Err: syscall.EINVAL}
	}
	d, err := s.root.Open(sub)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	c, err := d.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	if cerr := c.Control(func(dfd uintptr) {
		for {
			fd, err = syscall.Openat(int(dfd), name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
			if err != syscall.EINTR {
				return
			}
		}
	}); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: s.Path(sub, name), Err: err}
	}
	return os.NewFile(uintptr(fd), s.Path(sub, name)), nil
}
