//go:build !linux

package dirlock

// Holder returns the pid of the process that holds the lock of the folder
// (or file) at path, or 0 where none does or the system does not say: only Linux
// says it (/proc/locks), so here it is always 0.
func Holder(path string) int { return 0 }
