// Package spool is the appliance's maildir-style spool directory and the feed
// of batch names out of it.
//
// Writers create a batch in tmp/ and rename it into new/; a worker claims it
// into cur/, and moves it to done/ (or deletes it) once it is recorded, or to
// failed/ with the reason. Spool (spool.go) does those moves, confined to the
// directory by an os.Root. Watcher (watch.go) finds the batches in new/ (and
// those an interrupted run left in cur/) from fsnotify events and rescans, and
// hands their names to the workers through a bounded, de-duplicating Queue
// (queue.go).
package spool

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
)

// Spool sub-directories (maildir style). Writers create a batch in tmp/ and
// rename it into new/ when it is complete; the daemon claims it by renaming
// it into cur/, and moves it to done/ (or deletes it) once its journal line is
// on disk, or to failed/ with a <name>.err file beside it.
const (
	DirTmp    = "tmp"
	DirNew    = "new"
	DirCur    = "cur"
	DirDone   = "done"
	DirFailed = "failed"
)

// ErrGone is returned by Claim when the file is no longer in new/: another
// worker (or another daemon on the same spool) claimed it first.
var ErrGone = errors.New("spool: file no longer in new/")

// Options says where the spool is and how much of the handled batches to
// keep.
type Options struct {
	Dir string
	// KeepDone moves handled batches to done/; false deletes them once their
	// journal line is on disk.
	KeepDone bool
	// Caps on done/ and failed/: beyond MaxFiles files or older than MaxAge
	// (since they were moved there), the oldest are removed. Zero: no cap.
	DoneMaxFiles   int
	DoneMaxAge     time.Duration
	FailedMaxFiles int
	FailedMaxAge   time.Duration
}

// Spool is a maildir-style spool directory. All file operations go through an
// os.Root, so no name read from the directory or from an event can reach
// outside it. A Spool is safe for concurrent use.
type Spool struct {
	opt     Options
	root    *os.Root
	pruneMu sync.Mutex
}

// Open opens the spool at opt.Dir, creating the directory and any missing
// sub-directory: tmp/ and new/ group-writable (0770) for the writers,
// cur/, done/ and failed/ 0750.
func Open(opt Options) (*Spool, error) {
	if opt.Dir == "" {
		return nil, errors.New("spool: no directory given (set spool.dir)")
	}
	if err := os.MkdirAll(opt.Dir, 0o770); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	root, err := os.OpenRoot(opt.Dir)
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	for _, d := range []struct {
		name string
		perm fs.FileMode
	}{{DirTmp, 0o770}, {DirNew, 0o770}, {DirCur, 0o750}, {DirDone, 0o750}, {DirFailed, 0o750}} {
		if err := root.Mkdir(d.name, d.perm); err != nil && !errors.Is(err, fs.ErrExist) {
			root.Close()
			return nil, fmt.Errorf("spool: create %s/: %w", path.Join(opt.Dir, d.name), err)
		}
		fi, err := root.Stat(d.name)
		if err != nil {
			root.Close()
			return nil, fmt.Errorf("spool: %w", err)
		}
		if !fi.IsDir() {
			root.Close()
			return nil, fmt.Errorf("spool: %s is not a directory: remove it and restart", path.Join(opt.Dir, d.name))
		}
	}
	return &Spool{opt: opt, root: root}, nil
}

// Dir returns the spool directory.
func (s *Spool) Dir() string { return s.opt.Dir }

// Path returns the path of name in sub-directory sub.
func (s *Spool) Path(sub, name string) string { return path.Join(s.opt.Dir, sub, name) }

// Close releases the spool directory.
func (s *Spool) Close() error { return s.root.Close() }

// ignored reports whether a name in new/ is not a batch: hidden files and
// names ending in ".tmp" are writers' files still being written.
func ignored(name string) bool {
	return name == "" || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".tmp") ||
		strings.ContainsRune(name, '/')
}

// entry is a directory entry with the time it arrived in its directory.
type entry struct {
	name    string
	arrived time.Time
	regular bool
}

// list returns the entries of sub oldest first (by arrival: the inode change
// time, which rename() sets), then by name.
func (s *Spool) list(sub string) ([]entry, error) {
	f, err := s.root.Open(sub)
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	defer f.Close()
	des, err := f.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("spool: read %s: %w", s.Path(sub, ""), err)
	}
	out := make([]entry, 0, len(des))
	for _, de := range des {
		fi, err := de.Info()
		if err != nil {
			continue // gone meanwhile
		}
		out = append(out, entry{name: de.Name(), arrived: changeTime(fi), regular: fi.Mode().IsRegular()})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].arrived.Equal(out[j].arrived) {
			return out[i].arrived.Before(out[j].arrived)
		}
		return out[i].name < out[j].name
	})
	return out, nil
}

// Pending returns the batch names waiting in new/, oldest first.
func (s *Spool) Pending() ([]string, error) {
	es, err := s.list(DirNew)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(es))
	for _, e := range es {
		if !ignored(e.name) {
			names = append(names, e.name)
		}
	}
	return names, nil
}

// Interrupted returns the names left in cur/ by a run that stopped before it
// finished them, oldest first.
func (s *Spool) Interrupted() ([]string, error) {
	es, err := s.list(DirCur)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(es))
	present := map[string]bool{}
	for _, e := range es {
		if !strings.HasPrefix(e.name, ".") { // retry markers
			names = append(names, e.name)
			present[e.name] = true
		}
	}
	// A marker whose batch is gone was left by a stop between finishing the
	// batch and removing the marker: it must not count against a later
	// batch of the same name.
	for _, e := range es {
		if b, ok := strings.CutPrefix(e.name, "."); ok {
			if b, ok := strings.CutSuffix(b, ".retry"); ok && !present[b] {
				s.root.Remove(path.Join(DirCur, e.name))
			}
		}
	}
	return names, nil
}

func retryMarker(name string) string { return path.Join(DirCur, "."+name+".retry") }

// BeginRetry records that cur/name, left by an interrupted run, is being
// handled again. It returns false if an earlier retry of it began and never
// ended: the daemon died twice on this batch (a crash it causes, an OOM
// kill), and retrying it for ever would keep the daemon in a restart loop.
func (s *Spool) BeginRetry(name string) (bool, error) {
	f, err := s.root.OpenFile(retryMarker(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o640)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("spool: %w", err)
	}
	err = f.Sync()
	return true, errors.Join(err, f.Close())
}

// EndRetry removes the marker of BeginRetry.
func (s *Spool) EndRetry(name string) {
	s.root.Remove(retryMarker(name))
}

// Claim moves new/name to cur/name and returns the time the file arrived in
// new/ (its inode change time, set by the writer's rename; the modification
// time if that is unavailable). It returns ErrGone if the file is no longer in
// new/.
func (s *Spool) Claim(name string) (time.Time, error) {
	if ignored(name) {
		return time.Time{}, fmt.Errorf("spool: %q is not a batch name", name)
	}
	src := path.Join(DirNew, name)
	fi, err := s.root.Lstat(src)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return time.Time{}, ErrGone
		}
		return time.Time{}, fmt.Errorf("spool: %w", err)
	}
	arrived := changeTime(fi)
	if err := s.root.Rename(src, path.Join(DirCur, name)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return time.Time{}, ErrGone
		}
		return time.Time{}, fmt.Errorf("spool: claim %s: %w", s.Path(DirNew, name), err)
	}
	return arrived, nil
}

// ClaimedAt returns the time cur/name was claimed (for batches found in cur/
// at start-up).
func (s *Spool) ClaimedAt(name string) (time.Time, error) {
	fi, err := s.root.Lstat(path.Join(DirCur, name))
	if err != nil {
		return time.Time{}, fmt.Errorf("spool: %w", err)
	}
	return changeTime(fi), nil
}

// TooLargeError says a batch file is larger than the configured limit.
type TooLargeError struct {
	Name      string
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("batch %s holds %d bytes, more than the limit of %d (raise the batch size limit in the config or send smaller batches)", e.Name, e.Size, e.Max)
}

// ReadClaimed reads cur/name whole; it refuses regular files larger than max
// bytes (max ≤ 0: no limit) and anything that is not a regular file.
func (s *Spool) ReadClaimed(name string, max int64) ([]byte, error) {
	f, err := s.root.OpenFile(path.Join(DirCur, name), os.O_RDONLY|oNoFollow|oNonBlock, 0)
	if err != nil {
		return nil, fmt.Errorf("open batch: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat batch: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("batch %s is not a regular file (%v): writers must rename complete files into new/", name, fi.Mode().Type())
	}
	if max > 0 && fi.Size() > max {
		return nil, &TooLargeError{Name: name, Size: fi.Size(), Max: max}
	}
	// Read into a buffer of the file's size (plus one byte, to notice a
	// file that grew): no doubling growth, so a batch costs its size once.
	size := fi.Size()
	if max > 0 {
		size = min(size, max)
	}
	b := make([]byte, 0, size+1)
	r := io.Reader(f)
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read batch: %w", err)
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew: make room and go on
		}
	}
	if max > 0 && int64(len(b)) > max {
		return nil, &TooLargeError{Name: name, Size: int64(len(b)), Max: max}
	}
	return b, nil
}

// Finish moves cur/name to done/name, or deletes it when done batches are not
// kept. Call it only once the batch's journal line is on disk.
func (s *Spool) Finish(name string) error {
	src := path.Join(DirCur, name)
	if !s.opt.KeepDone {
		if err := s.removeBatch(DirCur, name); err != nil {
			return fmt.Errorf("spool: %w", err)
		}
		return nil
	}
	if err := s.root.Rename(src, path.Join(DirDone, name)); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// Fail moves cur/name to failed/name and writes the reason to
// failed/name.err. The reason file is written first, so a crash in between
// leaves the batch in cur/, to be handled again.
func (s *Spool) Fail(name, reason string) error {
	// The reason is written under a hidden name and renamed into place after
	// the batch: whoever sees failed/X.err sees it whole, with failed/X
	// beside it.
	tmp := path.Join(DirFailed, "."+name+".err.tmp")
	werr := s.writeReason(tmp, reason)
	if err := s.root.Rename(path.Join(DirCur, name), path.Join(DirFailed, name)); err != nil {
		s.root.Remove(tmp)
		return errors.Join(fmt.Errorf("spool: %w", err), werr)
	}
	if werr == nil {
		if err := s.root.Rename(tmp, path.Join(DirFailed, name+".err")); err != nil {
			werr = fmt.Errorf("spool: write reason: %w", err)
		}
	}
	return werr
}

func (s *Spool) writeReason(name, reason string) error {
	f, err := s.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|oNoFollow, 0o640)
	if err != nil {
		return fmt.Errorf("spool: write reason: %w", err)
	}
	if !strings.HasSuffix(reason, "\n") {
		reason += "\n"
	}
	_, err = io.WriteString(f, reason)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("spool: write reason: %w", err)
	}
	return nil
}

// Unclaim moves cur/name back to new/name (a batch not handled because the
// daemon is stopping).
func (s *Spool) Unclaim(name string) error {
	if err := s.root.Rename(path.Join(DirCur, name), path.Join(DirNew, name)); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// Prune applies the caps on done/ and failed/ at time now, removing the
// oldest files first. It returns how many batches it removed.
func (s *Spool) Prune(now time.Time) (int, error) {
	s.pruneMu.Lock()
	defer s.pruneMu.Unlock()
	n1, err1 := s.prune(DirDone, s.opt.DoneMaxFiles, s.opt.DoneMaxAge, now)
	n2, err2 := s.prune(DirFailed, s.opt.FailedMaxFiles, s.opt.FailedMaxAge, now)
	return n1 + n2, errors.Join(err1, err2)
}

func (s *Spool) prune(sub string, maxFiles int, maxAge time.Duration, now time.Time) (int, error) {
	if maxFiles <= 0 && maxAge <= 0 {
		return 0, nil
	}
	es, err := s.list(sub)
	if err != nil {
		return 0, err
	}
	// In failed/, X.err goes with X; count batches only.
	var batches []entry
	errs := make(map[string]entry)
	for _, e := range es {
		if sub == DirFailed && strings.HasSuffix(e.name, ".err") {
			errs[e.name] = e
			continue
		}
		batches = append(batches, e)
	}
	removed := 0
	var firstErr error
	remove := func(name string) {
		if err := s.removeBatch(sub, name); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("spool: prune: %w", err)
		}
	}
	for i, e := range batches {
		over := maxFiles > 0 && len(batches)-i > maxFiles
		old := maxAge > 0 && now.Sub(e.arrived) > maxAge
		if !over && !old {
			break // sorted oldest first
		}
		remove(e.name)
		removed++
		if sub == DirFailed {
			remove(e.name + ".err")
			delete(errs, e.name+".err")
		}
	}
	// Reasons whose batch is gone (removed by hand) age out on their own.
	for name, e := range errs {
		if _, err := s.root.Lstat(path.Join(sub, strings.TrimSuffix(name, ".err"))); errors.Is(err, fs.ErrNotExist) &&
			maxAge > 0 && now.Sub(e.arrived) > maxAge {
			remove(name)
		}
	}
	return removed, firstErr
}
