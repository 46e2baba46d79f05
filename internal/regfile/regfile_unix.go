//go:build unix

package regfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// oNonBlock keeps the open of a FIFO from waiting for a writer; it has no
// effect on regular files.
const oNonBlock = unix.O_NONBLOCK

// openIn is OpenIn by openat from d's descriptor: the kernel refuses a
// link at name (O_NOFOLLOW) and, for Dir, what is not a directory
// (O_DIRECTORY). An open interrupted by a signal is tried again.
func openIn(_ *os.Root, _ string, d *os.File, name string, want Kind, label string) (*os.File, error) {
	flag := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	if want == Dir {
		flag |= unix.O_DIRECTORY
	}
	c, err := d.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	if cerr := c.Control(func(dfd uintptr) {
		for {
			fd, err = unix.Openat(int(dfd), name, flag, 0)
			if err != unix.EINTR {
				return
			}
		}
	}); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: label, Err: err}
	}
	return os.NewFile(uintptr(fd), label), nil
}
