//go:build unix

package features

import "golang.org/x/sys/unix"

// oNonBlock keeps the open of an image file from blocking: opening a FIFO
// put in its place would otherwise wait for a writer forever. It has no
// effect on regular files; anything else is refused after the open.
const oNonBlock = unix.O_NONBLOCK
