// Package atomicfile writes a file whole or not at all: a reader of its
// path sees the old file or the new one, never a part of the new one (the
// set files, model files, split files, data sets' READMEs and synth's
// frames the workstation tool writes, and the daemon's record of its
// reloads).
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteFile writes the file at path by write, atomically: write fills a
// temporary file in path's folder, which is then synced, closed and
// renamed over path. On any failure the temporary file is removed, path
// is left as it was, and the error is returned as its step gave it (write's
// unchanged). A new file has the permission bits perm (less the umask on
// unix); with keepMode a regular file replaced keeps its own. The rename
// is not synced to the folder: sync the folder after it where that
// matters (regfile.SyncDir). A device, a named pipe or a socket at path
// is refused, not replaced (a symbolic link is replaced: Target gives
// where one leads).
//
// On unix the steps are renameio's (file_unix.go); elsewhere, Windows
// among them, they are replace's (file_other.go), whose rename is
// os.Rename: on Windows MoveFileEx with MOVEFILE_REPLACE_EXISTING, which
// replaces the file in one step on NTFS.
func WriteFile(path string, perm fs.FileMode, keepMode bool, write func(*os.File) error) error {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
		// The rename would put a file in the place of a device (such as
		// /dev/null), a named pipe or a socket: nothing is written.
		return fmt.Errorf("%s is %s, not a file: a file is written whole and renamed into place, which would replace it; give the path of a file", path, Kind(fi.Mode()))
	}
	return writeFile(path, perm, keepMode, write)
}

// Kind names what a file of mode m is, for an error: "a folder", "a
// device", "a named pipe", "a socket", "a symbolic link", "a file" or
// "a special file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// Pending reports whether name is that of the temporary file of a
// WriteFile stopped before its rename (a process killed while it wrote),
// and of which file: "." and the file's name and decimal digits, as
// renameio (on unix) and replace name it.
func Pending(name string) (file string, ok bool) {
	base, dot := strings.CutPrefix(name, ".")
	file = strings.TrimRight(base, "0123456789")
	return file, dot && file != "" && len(file) < len(base)
}

// replace is WriteFile by the standard library alone, the steps renameio
// takes: the temporary file created in path's folder (mode perm, or with
// keepMode that of the regular file at path), filled by write, synced,
// closed, renamed over path. It is built on every platform, so that its
// tests run where renameio does the work.
func replace(path string, perm fs.FileMode, keepMode bool, write func(*os.File) error) (err error) {
	keep := false
	if keepMode {
		fi, err := os.Lstat(path)
		switch {
		case err == nil && fi.Mode().IsRegular():
			perm, keep = fi.Mode().Perm(), true
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	f, err := createTemp(filepath.Dir(path), "."+filepath.Base(path), perm)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	// The umask may have taken bits of a kept mode at the create.
	if keep {
		if err := f.Chmod(perm); err != nil {
			return err
		}
	}
	if err := write(f); err != nil {
		return err
	}
	// Without the sync the rename could reach the disk before the data,
	// and a power cut leave an empty file at path.
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// createTemp creates a new file in dir, named prefix and a random number,
// with mode perm (less the umask), open for writing. It is os.CreateTemp
// with the mode given.
func createTemp(dir, prefix string, perm fs.FileMode) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if err == nil || !errors.Is(err, fs.ErrExist) || try == 1000 {
			return f, err
		}
	}
}
