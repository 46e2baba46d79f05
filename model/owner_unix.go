//go:build unix

package model

import (
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of the file at path, if there is
// one. It is best effort: an unprivileged writer may only choose among its
// own groups, and a failure leaves the writer's defaults.
func keepOwner(f *os.File, path string) {
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if f.Chown(int(st.Uid), int(st.Gid)) != nil {
			_ = f.Chown(-1, int(st.Gid))
		}
	}
}
