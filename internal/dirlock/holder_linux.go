package dirlock

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Holder returns the pid of the process that holds the lock of the folder
// (or file) at path, or 0 where none does or the system does not say. Linux says it
// in /proc/locks, which names the folder by its inode and its file
// system's device number: the one /proc/self/mountinfo gives the folder's
// mount (statx names the mount), which is stat's but on btrfs, whose stat
// gives each subvolume a device number of its own, the top one too.
func Holder(path string) int {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	major, minor := unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev))
	var stx unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_MNT_ID, &stx) == nil && stx.Mask&unix.STATX_MNT_ID != 0 {
		if mi, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
			if ma, mn, ok := mountDev(mi, stx.Mnt_id); ok {
				major, minor = ma, mn
			}
		}
	}
	return holderIn(locks, major, minor, uint64(st.Ino))
}
