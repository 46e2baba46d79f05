//go:build unix

package features

import "golang.org/x/sys/unix"

// oNonBlock keeps the open of an image file from blocking: opening a FIFO
// put in its place would otherwise wait for a writer forever. It has no
// effect on regular files; anything else is refused after the open.
const oNonBlock = unix.O_NONBLOCK

// oDirectory makes openIn refuse what is not a directory.
const oDirectory = unix.O_DIRECTORY

// haveOpenat says openat opens without following a link (openIn).
const haveOpenat = true

// openat opens name in the folder of descriptor dfd for reading, with flag
// added, never following a symbolic link at name and never blocking.
func openat(dfd uintptr, name string, flag int) (int, error) {
	for {
		fd, err := unix.Openat(int(dfd), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|flag, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
