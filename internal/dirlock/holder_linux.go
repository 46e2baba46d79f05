package dirlock

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Holder returns the pid of the process that holds the lock of the folder
// (or file) whose facts are fi (os.Stat of it, or Stat of the file Open
// returned), or 0 where none does or the system does not say. Linux says
// it in /proc/locks; where a folder's file system gives stat a device
// number of its own (a btrfs subvolume), that is not the one /proc/locks
// names, and Holder finds none.
func Holder(fi fs.FileInfo) int {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	dev := uint64(st.Dev)
	return holderIn(locks, unix.Major(dev), unix.Minor(dev), uint64(st.Ino))
}
