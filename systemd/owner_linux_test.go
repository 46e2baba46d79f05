package systemd_test

import (
	"io/fs"
	"syscall"
)

func ownerOf(fi fs.FileInfo) (uid, gid int) {
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}
