//go:build !windows

package main

import (
	"os"
	"syscall"
)

// openLock opens what enroll and forget lock while they change a model in
// the folder dir: the folder itself.
func openLock(dir string) (*os.File, error) { return os.Open(dir) }

// tryLock takes the lock of f (flock, exclusive) if no one holds it, and
// says whether another process does.
func tryLock(f *os.File) (busy bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		return true, nil
	}
	return false, err
}

// lock takes the lock of f, waiting while another process holds it.
func lock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
