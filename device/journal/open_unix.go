//go:build unix

package journal

import "syscall"

// oNoFollow refuses a journal path that is a symbolic link; oNonBlock keeps
// the open of a FIFO put there from waiting (it is refused after the open).
const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonBlock = syscall.O_NONBLOCK
)

// checkBeforeOpen: the path is checked before it is opened (checkPath),
// where the open cannot refuse a link itself.
const checkBeforeOpen = false
