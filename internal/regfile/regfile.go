// Package regfile opens files that must be regular files (models,
// configuration, set files, passwords) without ever blocking on a FIFO or
// a device put in their place (Open), and a path that may be anything,
// a pipe among them, without blocking either (OpenAny: a frame the caller
// checks, a split file or a sweep's outcomes read as they come), and one
// name inside an open folder without following a symbolic link at it
// (OpenIn: a spool's batch, a burst and its frames), a name being one
// entry of the folder (OneName); it reads an open file whole within a
// limit (ReadSized: a batch, a frame), and a regular file at a path
// (ReadFile: a password, the daemon's record of its reloads); and it
// syncs a folder where the folder can be synced (SyncDir).
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"syscall"
)

// ErrNotRegular is wrapped by the error Open returns for a path that is not
// a regular file (a FIFO, a device, a socket or a directory).
var ErrNotRegular = errors.New("is not a regular file")

// Open opens path for reading and returns it with its facts, or an error
// wrapping ErrNotRegular if it is not a regular file. The open does not
// block: a FIFO would otherwise wait for a writer forever (and a read of a
// device never end). The error names path and its type.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := OpenAny(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: NotRegular(fi)}
	}
	return f, fi, nil
}

// OpenAny opens path for reading, whatever it is (a regular file, a FIFO,
// a pipe such as /dev/stdin, a device), without blocking: a FIFO no one
// writes to reads as empty rather than waiting for a writer forever, and
// a pipe is read as its writer writes. The caller checks the open file
// (Open refuses all but a regular file), or reads what comes (a split
// file, a sweep's outcomes, which may come through a pipe). Symbolic
// links are followed.
func OpenAny(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|oNonBlock, 0)
}

// NotRegular returns the error for fi, which is not a regular file: it
// wraps ErrNotRegular and says what fi is.
func NotRegular(fi fs.FileInfo) error {
	var t string
	switch m := fi.Mode().Type(); {
	case m&fs.ModeDir != 0:
		t = "a directory"
	case m&fs.ModeNamedPipe != 0:
		t = "a FIFO"
	case m&fs.ModeSocket != 0:
		t = "a socket"
	case m&fs.ModeDevice != 0:
		t = "a device"
	case m&fs.ModeSymlink != 0:
		t = "a symbolic link"
	default:
		t = fmt.Sprintf("of type %v", m)
	}
	return fmt.Errorf("%w (it is %s): give the path of a file", ErrNotRegular, t)
}

// ReadFile reads the regular file at path, at most max bytes (max ≤ 0: no
// limit); a longer file is an error that says the limit.
func ReadFile(path string, max int64) ([]byte, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if max > 0 && fi.Size() > max {
		return nil, fmt.Errorf("%s: the file is %d bytes, more than the limit of %d: is it the file meant?", path, fi.Size(), max)
	}
	b, err := ReadSized(f, fi.Size(), max)
	if err != nil {
		return nil, err
	}
	if max > 0 && int64(len(b)) > max {
		return nil, fmt.Errorf("%s: the file is more than the limit of %d bytes: is it the file meant?", path, max)
	}
	return b, nil
}

// ReadSized reads r to its end, r being an open file of size bytes by
// its facts, but no more than limit+1 bytes (limit ≤ 0: no limit), so
// that more than limit bytes returned tell the caller that r holds more
// than limit, also where the file grew past it while it was read;
// checking that, and size against limit before the read, is the
// caller's. The buffer is of size bytes (at most limit) and one more,
// which tells a file that grew: a file costs its size once, with no
// doubling growth, and one that grows is read on to its end or past the
// limit. A read error is returned as the reader gives it.
func ReadSized(r io.Reader, size, limit int64) ([]byte, error) {
	size = max(size, 0)
	if limit > 0 {
		size = min(size, limit)
		if limit < math.MaxInt64 { // limit+1 must not overflow
			r = io.LimitReader(r, limit+1)
		}
	}
	b := make([]byte, 0, size+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew: make room and go on
		}
	}
}

// SyncDir syncs the folder dir, opened by open (os.Open, or the Open of
// an os.Root the folder is under), by sync (os.File.Sync, or a test's
// hook that records or fails it), so that a create or a rename in it is
// durable; it closes the folder. A folder that cannot be synced
// (noDirSync) is no error: the writer goes on. Any other error of the
// open or the sync is returned as they give it.
func SyncDir(open func(string) (*os.File, error), dir string, sync func(*os.File) error) error {
	d, err := open(dir)
	if err != nil {
		if noDirSync(err) {
			return nil
		}
		return err
	}
	defer d.Close()
	if err := sync(d); err != nil && !noDirSync(err) {
		return err
	}
	return nil
}

// noDirSync reports whether err, the error of opening a folder to sync
// it or of the sync (os.File.Sync), says that the folder cannot be
// synced: this user may write in it but not read it (EACCES or EPERM:
// only a folder open for reading syncs), or the filesystem has no sync of
// a folder (EINVAL, as fsync(2) gives for what does not support
// synchronization); on Windows, which has no sync of a folder, the flush
// of a folder open for reading is refused (ERROR_ACCESS_DENIED, which is
// fs.ErrPermission). A create or a rename in that folder is then as
// durable as the filesystem makes it, and nothing more can be done: the
// writer goes on as if the sync had succeeded, where a failure would
// report a write that was made, or stop a daemon for good.
func noDirSync(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, fs.ErrPermission)
}

// Kind says what OpenIn may open.
type Kind int

const (
	// Any opens whatever is at the name but a symbolic link: a regular
	// file, a FIFO, a device, a directory. The caller checks the open file.
	Any Kind = iota
	// Dir opens a directory only; anything else is refused.
	Dir
)

// OpenIn opens name, one name in the folder d (which is dir under root),
// for reading, and returns it named label, the path its errors carry too.
// It never follows a symbolic link at name, also not one to a file of the
// same folder, which an os.Root follows whatever the flags; it never
// blocks (a FIFO); and with want Dir it refuses what is not a directory.
// So what the caller checks on the open file (its type, its size) is what
// it reads, with nothing swapped in between. name "." is d itself; "",
// ".." and a name with a slash are refused (EINVAL) before any open.
//
// On unix the open is openat from d's own descriptor with O_NOFOLLOW
// (and O_DIRECTORY for Dir). Elsewhere name is opened under root and then
// refused (ELOOP) unless it is, by Lstat after the open, no link and the
// very file opened; the file is named label by a duplicate of its handle,
// except on js and wasip1, which cannot duplicate one: there it keeps the
// name os.Root gives it (root's name and the path under it).
func OpenIn(root *os.Root, dir string, d *os.File, name string, want Kind, label string) (*os.File, error) {
	if name != "." && !OneName(name) {
		return nil, &os.PathError{Op: "open", Path: label, Err: syscall.EINVAL}
	}
	return openIn(root, dir, d, name, want, label)
}

// OneName reports whether name is one name inside a folder, not a path
// and not the folder itself or its parent: not empty, not "." or "..",
// and without a slash. OpenIn takes such a name, or "." for the folder.
func OneName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsRune(name, '/')
}
