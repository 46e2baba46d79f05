//go:build unix

package regfile

import "syscall"

// oNonBlock keeps the open of a FIFO from waiting for a writer; it has no
// effect on regular files.
const oNonBlock = syscall.O_NONBLOCK
