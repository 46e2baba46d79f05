package spool

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime returns the inode change time of fi: rename() sets it, so for a
// file in new/ it is the moment the writer renamed it in.
func changeTime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	}
	return fi.ModTime()
}
