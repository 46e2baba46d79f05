//go:build !windows

package dirlock

import (
	"os"
	"syscall"
)

// Open opens what the lock of the folder dir is taken on: the folder
// itself.
func Open(dir string) (*os.File, error) { return os.Open(dir) }

// TryLock takes the lock of f (flock, exclusive) if no one holds it, and
// says whether another open file does: one of another process, or another
// Open of the folder in this one.
func TryLock(f *os.File) (busy bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		return true, nil
	}
	return false, err
}

// Lock takes the lock of f, waiting while another open file holds it.
func Lock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
