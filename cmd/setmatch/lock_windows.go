package main

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// lockName is the file in a model's folder that enroll and forget lock on
// Windows, which locks no folder; it stays there.
const lockName = ".setmatch-lock"

// openLock opens what enroll and forget lock while they change a model in
// the folder dir: the file lockName in it, made if missing.
func openLock(dir string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
}

// tryLock takes the lock of f (LockFileEx, exclusive, of its first byte)
// if no one holds it, and says whether another process does.
func tryLock(f *os.File) (busy bool, err error) {
	err = lockFile(f, windows.LOCKFILE_FAIL_IMMEDIATELY)
	if err == windows.ERROR_LOCK_VIOLATION {
		return true, nil
	}
	return false, err
}

// lock takes the lock of f, waiting while another process holds it.
func lock(f *os.File) error { return lockFile(f, 0) }

// lockFile locks the first byte of f exclusively, with the flags given
// beside LOCKFILE_EXCLUSIVE_LOCK. Closing f (or the process's end)
// releases it.
func lockFile(f *os.File, flags uint32) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|flags, 0, 1, 0, new(windows.Overlapped))
}
