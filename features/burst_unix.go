//go:build unix

package features

import "syscall"

// oNoFollow asks opens not to follow a symbolic link. os.Root follows links
// that stay inside the root regardless, so ListBurst and ApplyBurst also
// compare every open file with its Lstat.
const oNoFollow = syscall.O_NOFOLLOW

// oNonBlock keeps a frame open from blocking: opening a FIFO put in a burst
// would otherwise wait for a writer forever. It has no effect on regular
// files; anything else is refused after the open.
const oNonBlock = syscall.O_NONBLOCK
