// Package regfile opens files that must be regular files (models,
// configuration, set files, passwords) without ever blocking on a FIFO or
// a device put in their place.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
)

// ErrNotRegular is wrapped by the error Open returns for a path that is not
// a regular file (a FIFO, a device, a socket or a directory).
var ErrNotRegular = errors.New("is not a regular file")

// Open opens path for reading and returns it with its facts, or an error
// wrapping ErrNotRegular if it is not a regular file. The open does not
// block: a FIFO would otherwise wait for a writer forever (and a read of a
// device never end). The error names path and its type.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonBlock, 0)
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
	r := io.Reader(f)
	if max > 0 && max < math.MaxInt64 {
		r = io.LimitReader(f, max+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if max > 0 && int64(len(b)) > max {
		return nil, fmt.Errorf("%s: the file is more than the limit of %d bytes: is it the file meant?", path, max)
	}
	return b, nil
}
