package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"setmatch/internal/atomicfile"
	"setmatch/internal/regfile"
)

// WriteFile writes m to path atomically: to a temporary file in the same
// directory, synced, then renamed over path, and the directory synced
// (where it can be: not one this user cannot read, regfile.SyncDir), so
// that readers see the old or the new model, never a partial one. A path
// that leads through symbolic links is written where they lead, and the
// links stay; a path that is not a file (OutPath) is refused.
func WriteFile(path string, m *Model) error {
	if err := m.Validate(); err != nil {
		return err
	}
	path, err := OutPath(path)
	if err != nil {
		return err
	}
	// A new file is 0644; a replaced one keeps its mode, owner and group (as
	// far as the writer may set them), so that replacing a deployed model, e.g.
	// root:setmatch 0640, leaves it readable by the daemon.
	err = atomicfile.WriteFile(path, 0o644, true, func(f *os.File) error {
		keepOwner(f, path)
		if err := encode(f, m); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The rename is durable only once the directory is synced (where it
	// can be: regfile.SyncDir).
	if err := regfile.SyncDir(os.Open, filepath.Dir(path), syncDir); err != nil {
		return fmt.Errorf("syncing the directory of %s: %w", path, err)
	}
	return nil
}

// OutPath returns the file WriteFile writes for path: path with its
// symbolic links followed to where they lead (model.smm ->
// current/model.smm, current -> releases/v2, as APPLIANCE lays a
// deployment out), so that the links stay and swapping one still swaps
// the model; a link to a file that does not exist yet leads to that file.
// A folder, or anything else there but a regular file (a device such as
// /dev/null, a named pipe, a socket), is an error that says so: the model
// is written whole and renamed over the path, which would put a file in
// its place.
func OutPath(path string) (string, error) {
	p, fi, err := atomicfile.Target(path)
	switch {
	case err != nil:
		return "", err
	case fi == nil || fi.Mode().IsRegular():
		return p, nil
	case fi.IsDir():
		return "", fmt.Errorf("%s is a folder: give the path of the model file", shownAs(path, p))
	}
	return "", fmt.Errorf("%s is %s, not a file: a model file is written whole and renamed into place, which would replace it; give the path of a file", shownAs(path, p), atomicfile.Kind(fi.Mode()))
}

// shownAs names path, and where its links lead to p, p too.
func shownAs(path, p string) string {
	if p == path {
		return path
	}
	return path + " (" + p + ")"
}

// syncDir is the sync regfile.SyncDir makes of the model's directory.
// Tests replace it to see when it is called and to make it fail.
var syncDir = (*os.File).Sync

// FileInfo holds what a model file says beyond the model: where it was read
// from, its size, its checksum and its format version.
type FileInfo struct {
	Path    string
	Size    int64  // bytes
	SHA256  string // hex SHA-256 of the bytes decoded
	Version uint32 // format version
}

// ReadFile reads and validates the model file at path (at most
// MaxFileBytes) and returns the model with the facts of the file; the
// checksum is of the very bytes decoded. Errors name the file.
func ReadFile(path string) (*Model, FileInfo, error) {
	return ReadFileLimit(path, MaxFileBytes)
}

// ReadFileLimit is ReadFile with a size limit in bytes (at most
// MaxFileBytes).
func ReadFileLimit(path string, maxBytes int64) (*Model, FileInfo, error) {
	m, info, err := readFile(path, maxBytes)
	if err != nil {
		return nil, FileInfo{}, err
	}
	if err := m.Validate(); err != nil {
		return nil, FileInfo{}, fmt.Errorf("model %s: %w", path, err)
	}
	return m, info, nil
}

// ReadMatcher reads the model file at path as ReadFile does and builds
// its matcher as NewMatcherWorkers does, with workers goroutines per
// batch; the model is the matcher's (Matcher.Model). It makes every check
// of the two, the model validated once: by NewMatcherWorkers, as nothing
// can change the model between its decoding and its matcher. Errors name
// the file.
func ReadMatcher(path string, workers int) (*Matcher, FileInfo, error) {
	m, info, err := readFile(path, MaxFileBytes)
	if err != nil {
		return nil, FileInfo{}, err
	}
	mt, err := m.NewMatcherWorkers(workers)
	if err != nil {
		return nil, FileInfo{}, fmt.Errorf("model %s: %w", path, err)
	}
	return mt, info, nil
}

// readFile is ReadFileLimit but for Model.Validate, which its callers
// make.
func readFile(path string, maxBytes int64) (*Model, FileInfo, error) {
	maxBytes = min(maxBytes, MaxFileBytes)
	// A FIFO in the model's place must not block the open: the reload
	// would wait for a writer forever.
	f, st, err := regfile.Open(path)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, FileInfo{}, fmt.Errorf("model %s: %w: %w", path, ErrNotModelFile, errors.Unwrap(err))
	}
	if err != nil {
		return nil, FileInfo{}, err
	}
	defer f.Close()
	if st.Size() > maxBytes {
		return nil, FileInfo{}, fmt.Errorf("model %s: %w: %d bytes, the limit is %d", path, ErrTooLarge, st.Size(), maxBytes)
	}
	// Read into a buffer of the file's size, plus room to see a file that
	// grew: io.ReadAll's doubling would briefly hold twice the model.
	b := make([]byte, st.Size()+bytes.MinRead)
	n, err := io.ReadFull(io.LimitReader(f, maxBytes+1), b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, FileInfo{}, fmt.Errorf("model %s: %w", path, err)
	}
	if n == len(b) {
		return nil, FileInfo{}, fmt.Errorf("model %s: the file is growing while being read (write models with `setmatch train`, which replaces them atomically)", path)
	}
	b = b[:n]
	if int64(len(b)) > maxBytes {
		return nil, FileInfo{}, fmt.Errorf("model %s: %w: more than %d bytes", path, ErrTooLarge, maxBytes)
	}
	m, version, err := decodeFile(b)
	if err != nil {
		return nil, FileInfo{}, fmt.Errorf("model %s: %w", path, err)
	}
	sum := sha256.Sum256(b)
	return m, FileInfo{Path: path, Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:]), Version: version}, nil
}
