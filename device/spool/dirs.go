package spool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
)

// A batch in the spool is either a file (a .npy or CSV matrix) or a
// directory (an image burst: the frames of one set, written under tmp/NAME/
// and renamed into new/NAME in one rename). Claim, Fail and Finish move
// either whole; removing one (Finish without KeepDone, Prune) removes a
// directory with everything in it.

// ClaimedPath returns the name of cur/name relative to Root, for readers
// that take a root and a name (features.BurstOf, which names the frames
// of the burst OpenClaimed opened by it).
func ClaimedPath(name string) string { return path.Join(DirCur, name) }

// Root returns the spool's root: every name under it is resolved inside
// the spool directory. It stays valid until Close.
func (s *Spool) Root() *os.Root { return s.root }

// removeBatch removes sub/name, a file or a directory with its contents. A
// name already gone is no error.
func (s *Spool) removeBatch(sub, name string) error {
	p := path.Join(sub, name)
	err := s.root.Remove(p)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	// A directory (image burst) that is not empty: remove its contents too.
	// RemoveAll stays inside the root and does not follow links.
	if fi, lerr := s.root.Lstat(p); lerr == nil && fi.IsDir() {
		err = s.root.RemoveAll(p)
	}
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%w: a folder in it is not writable by setmatchd (its writer made it without group write); remove it as root: sudo rm -rf %s", err, s.Path(sub, name))
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
