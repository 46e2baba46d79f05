package spool

import (
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// changeTime returns the inode change time of fi: rename() sets it, so for a
// file in new/ it is the moment the writer renamed it in.
func changeTime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	}
	return fi.ModTime()
}

// readNames returns the names in the folder d ("." and ".." left out),
// read in one getdents call where they fit in 64 MiB (a million names of
// 40 characters): the kernel holds the folder's lock through a call, and a rename
// into or out of the folder takes it, so one call lists the folder as it
// was at one instant. Read in several calls, a listing can miss a name
// renamed in while it is read and hold one renamed in after that one (an
// ext4 folder is read in the order of its names' hashes, and a new name
// goes where its hash falls, before or after the point the read has
// reached). The buffer starts at 64 KiB and grows fourfold until a first
// call leaves room for another entry: it then stopped at the folder's end.
// The folder is read on to its end all the same, so that no name is lost
// on a file system that returns a folder in parts.
func readNames(d *os.Root) ([]string, error) {
	for size := 64 << 10; ; size *= 4 {
		f, err := d.Open(".")
		if err != nil {
			return nil, err
		}
		names, whole, err := getdents(f, size)
		f.Close()
		if whole || err != nil || size >= 64<<20 {
			return names, err
		}
	}
}

// maxDirent is the size of the largest entry getdents64 returns: 19 bytes,
// a name of up to 255 and its NUL, padded to 8 bytes.
const maxDirent = 280

// getdents reads the names in the folder f with a buffer of size bytes, to
// the folder's end; whole says that the first call left room for another
// entry, or found the end.
func getdents(f *os.File, size int) (names []string, whole bool, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, false, err
	}
	buf := make([]byte, size)
	for first := true; ; first = false {
		var n int
		var gerr error
		if err := rc.Read(func(fd uintptr) bool {
			for {
				n, gerr = syscall.Getdents(int(fd), buf)
				if gerr != syscall.EINTR {
					return true
				}
			}
		}); err != nil {
			return nil, false, err
		}
		if gerr != nil {
			return nil, false, os.NewSyscallError("getdents64", gerr)
		}
		if n <= 0 {
			// The end: where the first call found it (a folder a file
			// system lists without . and ..), the listing is whole too.
			return names, whole || first, nil
		}
		if first {
			whole = n <= size-maxDirent
		}
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
	}
}

// canWrite returns nil where this process may make, rename and remove
// entries in the folder p (access(2), W_OK and X_OK): else EROFS for a
// folder on a file system mounted read-only, or shown read-only to it
// (systemd's ProtectSystem=), and EACCES for one its user may not write.
func canWrite(p string) error { return unix.Access(p, unix.W_OK|unix.X_OK) }
