package spool

import (
	"io/fs"
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
