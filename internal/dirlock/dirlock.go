// Package dirlock is the one advisory lock of a folder between processes:
// exclusive, held by an open file, and released when that file is closed
// or the process ends, however it ends (a kill -9 too), so that no crash
// leaves a lock behind. setmatch enroll and forget hold the lock of the
// folder of the model they change; setmatchd holds the lock of its spool's
// cur/ folder while it runs (device/spool), and that of a file beside its
// journal (device/journal): TryLock and Lock take the lock of any open
// file, a folder's as Open opens it or a file's.
//
// On unix the folder itself is locked (flock), and nothing is added to it;
// on Windows, which locks no folder, the file LockName in it is (LockFileEx).
package dirlock
