package dirlock

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// LockName is the file in a folder whose lock is the folder's on Windows,
// which locks no folder; it stays there.
const LockName = ".setmatch-lock"

// Open opens what the lock of the folder dir is taken on: the file
// LockName in it, made if missing.
func Open(dir string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, LockName), os.O_RDWR|os.O_CREATE, 0o644)
}

// TryLock takes the lock of f (LockFileEx, exclusive, of its first byte)
// if no one holds it, and says whether another open file does: one of
// another process, or another Open of the folder in this one.
func TryLock(f *os.File) (busy bool, err error) {
	err = lockFile(f, windows.LOCKFILE_FAIL_IMMEDIATELY)
	if err == windows.ERROR_LOCK_VIOLATION {
		return true, nil
	}
	return false, err
}

// Lock takes the lock of f, waiting while another open file holds it.
func Lock(f *os.File) error { return lockFile(f, 0) }

// lockFile locks the first byte of f exclusively, with the flags given
// beside LOCKFILE_EXCLUSIVE_LOCK. Closing f (or the process's end)
// releases it.
func lockFile(f *os.File, flags uint32) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|flags, 0, 1, 0, new(windows.Overlapped))
}
