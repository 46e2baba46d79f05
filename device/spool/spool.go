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
//
// One daemon at a time holds a spool: Open takes the lock of cur/
// (internal/dirlock) and refuses a spool another holds with an InUseError
// naming its pid (Claim takes it ahead of Open, Holder says who holds it).
// A claimed batch is opened once, without following a link at its name
// (OpenClaimed), and read from that open file (ReadBatch) or, a burst,
// listed from that open folder by the caller (features.BurstOf). Prune
// (prune.go) keeps done/ and failed/ within their caps and clears tmp/ of
// abandoned writes; the reason of a failed batch is kept in
// failed/.reasons/ (reasons.go).
package spool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"setmatch/internal/dirlock"
	"setmatch/internal/regfile"
	"setmatch/internal/unitpaths"
)

// Spool sub-directories (maildir style). Writers create a batch in tmp/ and
// rename it into new/ when it is complete; the daemon claims it by renaming
// it into cur/, and moves it to done/ (or deletes it) once its journal line is
// on disk, or to failed/ once its journal line and its reason
// (failed/.reasons/<name>) are.
const (
	DirTmp    = "tmp"
	DirNew    = "new"
	DirCur    = "cur"
	DirDone   = "done"
	DirFailed = "failed"
)

// ErrGone is returned by Claim when the file is no longer in new/: another
// worker claimed it first, or it was removed or renamed away by hand.
var ErrGone = errors.New("spool: file no longer in new/")

// ErrNotWritable is the error of Claim for a burst directory the daemon may
// not move: renaming a directory into another one changes its ".." entry,
// which takes write permission on the directory itself, and a camera that
// made it without group write (mode 2750, from umask 027 or 022) left the
// daemon, another user in the spool's group, without it.
var ErrNotWritable = errors.New("spool: burst directory not writable by the spool's group")

// Options says where the spool is and how much of the handled batches to
// keep.
type Options struct {
	Dir string
	// KeepDone moves handled batches to done/; false deletes them once their
	// journal line is on disk.
	KeepDone bool
	// Caps on done/ and failed/: beyond MaxFiles batches, beyond MaxBytes
	// bytes in all (a burst counts its frame files) or older than MaxAge
	// (since they were moved there), the oldest are removed. Zero: no cap.
	DoneMaxFiles   int
	DoneMaxBytes   int64
	DoneMaxAge     time.Duration
	FailedMaxFiles int
	FailedMaxBytes int64
	FailedMaxAge   time.Duration
	// TmpMaxAge removes what has stayed in tmp/ longer than this since it
	// last changed: a write a crash or a power cut cut short, which no
	// writer will rename into new/. Zero: tmp/ is left alone.
	TmpMaxAge time.Duration
	// Lock is the file Claim returned for Dir, or nil: Open keeps it,
	// and the lock of cur/ it holds, in place of taking the lock again, so
	// that no other daemon can take the spool between Claim and Open. Open
	// closes it where it fails.
	Lock *os.File
}

// Spool is a maildir-style spool directory. All file operations go through an
// os.Root, so no name read from the directory or from an event can reach
// outside it. A Spool is safe for concurrent use.
type Spool struct {
	opt     Options
	root    *os.Root
	lock    *os.File // cur/'s, held until Close (dirlock); nil where the lock failed (nolock)
	nolock  error    // why lock is nil (an *UnlockedError), nil where it is held
	pruneMu sync.Mutex
	// What Finish and MoveFailed moved into done/ and failed/ since the
	// last Prune (PruneDue).
	movedFiles, movedBytes atomic.Int64
	// The sizes of the batches in done/ and failed/ measured so far, by
	// path (prune.go), so that a prune measures each batch once.
	sizesMu sync.Mutex
	sizes   map[string]sized
}

// Folder modes, as the packaged tmpfiles.d snippet makes them. tmp/ and
// new/ are where the writers (in the spool's group) put batches:
// group-writable, setgid so that every batch belongs to the spool's group,
// and sticky so that one writer cannot remove another's files. done/ and
// failed/ are readable by the group (setgid: their files stay in it); cur/
// is the daemon's. The modes are set explicitly on the folders Open creates,
// whatever the umask (systemd's UMask=0027 would otherwise take the group's
// write bit away).
const (
	ModeShared fs.FileMode = 0o770 | fs.ModeSetgid | fs.ModeSticky // tmp/, new/
	ModeCur    fs.FileMode = 0o750                                 // cur/
	ModeKept   fs.FileMode = 0o750 | fs.ModeSetgid                 // the spool itself, done/, failed/, failed/.reasons/
)

// Open opens the spool at opt.Dir, creating the directory and any missing
// sub-directory with the modes above, and takes the spool: it holds the
// lock of cur/ (dirlock) until Close, and fails with an *InUseError while
// another Spool holds it, of another process or of this one. Where the
// lock fails otherwise (a file system that does not lock folders), it
// opens the spool without it, and Unlocked says so: setmatchd then runs
// with a warning rather than leave the door without its daemon. Only
// then does it change what is in the spool: it removes what an
// interrupted write of a failure reason left behind.
//
// cur/ is the folder locked, not the spool folder, because cur/ is the
// daemon's alone: setmatch enroll and forget lock the folder of the model
// they change, which may be the spool folder, and a model in cur/ would be
// taken for a batch. On unix the lock adds nothing to cur/; on Windows it
// is the file dirlock.LockName in it, whose name, starting with a dot, is
// no batch's (Interrupted) nor an attempt marker's.
func Open(opt Options) (s *Spool, err error) {
	if opt.Lock != nil {
		defer func() {
			if err != nil {
				opt.Lock.Close()
			}
		}()
	}
	if opt.Dir == "" {
		return nil, errors.New("spool: no directory given (set spool.dir)")
	}
	if fi, err := os.Stat(opt.Dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("spool: %s is not a directory: set spool.dir to a directory (setmatchd creates it if it is missing)", opt.Dir)
	} else if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(opt.Dir, 0o750); err != nil {
			return nil, fmt.Errorf("spool: %w", err)
		}
		if err := os.Chmod(opt.Dir, ModeKept); err != nil {
			os.Remove(opt.Dir) // not left half made, for the next start to take as it is
			return nil, fmt.Errorf("spool: create %s with mode %04o: %w: %s", opt.Dir, OctalMode(ModeKept), err, createByHand(opt.Dir))
		}
	}
	root, err := os.OpenRoot(opt.Dir)
	if err != nil {
		return nil, AccessError(opt.Dir, err)
	}
	for _, d := range []struct {
		name string
		perm fs.FileMode
	}{{DirTmp, ModeShared}, {DirNew, ModeShared}, {DirCur, ModeCur}, {DirDone, ModeKept}, {DirFailed, ModeKept},
		{path.Join(DirFailed, DirReasons), ModeKept}} {
		err := root.Mkdir(d.name, d.perm.Perm())
		if err == nil {
			// In a setgid spool the folder has the bit and the group
			// already; the mode is set only where it differs, which
			// under systemd's RestrictSUIDSGID= may fail.
			if fi, serr := root.Stat(d.name); serr != nil || fi.Mode()&(fs.ModePerm|fs.ModeSetgid|fs.ModeSticky) != d.perm {
				if err = root.Chmod(d.name, d.perm); err != nil {
					root.Remove(d.name) // not left half made, for the next start to take as it is
					root.Close()
					return nil, fmt.Errorf("spool: create %s/ with mode %04o: %w: %s", path.Join(opt.Dir, d.name), OctalMode(d.perm), err, createByHand(opt.Dir))
				}
			}
		}
		if err != nil && !errors.Is(err, fs.ErrExist) {
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
		// Batches are made, renamed and removed in every folder; one the
		// daemon may not write would fail each batch at its first move.
		// Where access(2) cannot tell (another error), the moves will.
		if err := writable(filepath.Join(opt.Dir, d.name)); errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission) {
			root.Close()
			return nil, writeError(opt.Dir, filepath.Join(opt.Dir, d.name), err)
		}
	}
	lock, unlocked := opt.Lock, error(nil)
	if lock == nil {
		lock, unlocked, err = takeCur(opt.Dir)
	}
	if err != nil {
		root.Close()
		return nil, err
	}
	s = &Spool{opt: opt, root: root, lock: lock, nolock: unlocked}
	s.cleanReasons(time.Time{})
	return s, nil
}

// takeCur opens cur/ of the spool at dir and takes its lock, which the
// open file returned holds. Where the lock fails other than for another's
// hold of it, it returns no file and why, an *UnlockedError, and no
// error: the spool is opened without its lock.
func takeCur(dir string) (lock *os.File, unlocked, err error) {
	cur := filepath.Join(dir, DirCur)
	f, err := dirlock.Open(cur)
	if err != nil {
		return nil, nil, AccessError(dir, err)
	}
	busy, err := tryLock(f)
	switch {
	case err != nil:
		f.Close()
		return nil, &UnlockedError{Dir: dir, Err: err}, nil
	case busy:
		err := &InUseError{Dir: dir, PID: Holder(dir)}
		f.Close()
		return nil, nil, err
	}
	return f, nil, nil
}

// tryLock is the lock's attempt (dirlock.TryLock); tests make it fail as a
// file system without locks does.
var tryLock = dirlock.TryLock

// writable is Open's check that the daemon may write a folder of the
// spool (canWrite); tests make it fail as a read-only file system does.
var writable = canWrite

// Claim takes the lock of the spool at dir ahead of Open, for setmatchd
// to be refused for a spool in use before it reads its model: it fails
// with an *InUseError while another Spool holds the lock. It changes
// nothing in the spool (on Windows it makes the lock's file in cur/ where
// missing, as Open does): where cur/ is missing (no daemon has run on the
// spool), cannot be opened, or cannot be locked, it returns no file and
// no error, and Open says what it finds. The file returned holds the
// lock until it is closed or handed to Open (Options.Lock), which
// keeps it; an Open without it is refused while this file holds it.
func Claim(dir string) (*os.File, error) {
	if dir == "" {
		return nil, nil
	}
	if fi, err := os.Stat(filepath.Join(dir, DirCur)); err != nil || !fi.IsDir() {
		return nil, nil
	}
	f, unlocked, err := takeCur(dir)
	var inUse *InUseError
	if unlocked != nil || (err != nil && !errors.As(err, &inUse)) {
		return nil, nil
	}
	return f, err
}

// Holder returns the pid of the setmatchd that holds the spool at dir (the
// lock of its cur/), or 0 where none does or the system does not say
// (dirlock.Holder): it takes no lock, for setmatchd -check beside a
// running daemon.
func Holder(dir string) int { return dirlock.Holder(filepath.Join(dir, DirCur)) }

// InUseError is Open's error for a spool that another Spool holds: another
// setmatchd running on it. PID is its process, 0 where the system does not
// say (dirlock.Holder).
type InUseError struct {
	Dir string
	PID int
}

func (e *InUseError) Error() string {
	who := "another setmatchd"
	if e.PID > 0 {
		who += fmt.Sprintf(" (pid %d)", e.PID)
	}
	return fmt.Sprintf("spool: %s is in use: %s runs on it and holds the lock of its %s/ folder; two daemons on one spool would decide a batch twice and the batches out of arrival order: stop it (%s) or give each daemon a spool of its own (spool.dir)",
		e.Dir, who, DirCur, dirlock.StopHolder(e.PID, filepath.Join(e.Dir, DirCur)))
}

// UnlockedError is why a spool was opened without its lock: the lock of
// its cur/ failed with Err (not for another's hold), and nothing keeps a
// second setmatchd off the spool.
type UnlockedError struct {
	Dir string
	Err error
}

func (e *UnlockedError) Error() string {
	return fmt.Sprintf("spool: cannot lock %s/ (%v): setmatchd runs without the lock, so nothing keeps a second setmatchd off the spool %s (two would decide a batch twice): run one setmatchd on it, or move the spool to a file system that locks folders (a local one)",
		filepath.Join(e.Dir, DirCur), e.Err, e.Dir)
}

func (e *UnlockedError) Unwrap() error { return e.Err }

// Unlocked returns why the spool was opened without its lock (an
// *UnlockedError), or nil where Open took it.
func (s *Spool) Unlocked() error { return s.nolock }

// AccessError returns err, met on the spool at dir or one of its folders,
// as a spool error; where this user may not enter or read it, it says
// whose the folders must be and the commands that give them to it (a spool
// that setmatchd made as root belongs to root).
func AccessError(dir string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("spool: %w: the spool's folders must be setmatchd's user's (ones that setmatchd made as root belong to root); %s", err, createByHand(dir))
	}
	return fmt.Errorf("spool: %w", err)
}

// writeError returns err, why the folder p of the spool at dir is not
// writable by the daemon (writable), with what to do: on a read-only file
// system, allow the spool in the unit or repair the file system; else
// AccessError's advice.
func writeError(dir, p string, err error) error {
	err = &fs.PathError{Op: "write", Path: p, Err: err}
	if errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("spool: %w: %s", err, unitpaths.ReadOnlyAdvice("this spool", dir))
	}
	return AccessError(dir, err)
}

// createByHand says how to make the spool at dir by hand, as root, where
// setmatchd may not set a folder's set-group-ID bit (systemd's
// RestrictSUIDSGID=) or did not create it. cur/'s mode has five digits:
// GNU install keeps the bit a folder inherits unless told to clear it.
func createByHand(dir string) string {
	in := func(names ...string) string {
		for i, n := range names {
			names[i] = path.Join(dir, n)
		}
		return strings.Join(names, " ")
	}
	const install = "sudo install -d -o setmatch -g setmatch-spool -m "
	return "create the spool's folders as root once (install -d gives folders already there the same owner and mode; the packaged /var/spool/setmatch gets them from systemd-tmpfiles): " +
		install + "2750 " + dir + " && " + install + "3770 " + in(DirTmp, DirNew) + " && " + install + "00750 " + in(DirCur) +
		" && " + install + "2750 " + in(DirDone, DirFailed, path.Join(DirFailed, DirReasons))
}

// Dir returns the spool directory.
func (s *Spool) Dir() string { return s.opt.Dir }

// Path returns the path of name in sub-directory sub.
func (s *Spool) Path(sub, name string) string { return path.Join(s.opt.Dir, sub, name) }

// Close releases the spool directory and its lock.
func (s *Spool) Close() error {
	if s.lock != nil {
		s.lock.Close()
	}
	return s.root.Close()
}

// openNoFollow opens the batch sub/name for reading from sub's open
// folder, refusing a symbolic link at name, also one to a file inside the
// spool, and never blocking (regfile.OpenIn): a check of the path before
// or after the open would leave a moment to swap the link in. name is one
// name in sub (regfile.OneName), never a path nor sub itself.
func (s *Spool) openNoFollow(sub, name string) (*os.File, error) {
	if !regfile.OneName(name) {
		return nil, &os.PathError{Op: "open", Path: s.Path(sub, name), Err: syscall.EINVAL}
	}
	d, err := s.root.Open(sub)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return regfile.OpenIn(s.root, sub, d, name, regfile.Any, s.Path(sub, name))
}

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
// time, which rename() sets), then by name. Its names are read as sub was
// at one instant where the system allows it (readNames).
func (s *Spool) list(sub string) ([]entry, error) {
	d, err := s.root.OpenRoot(sub)
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	defer d.Close()
	names, err := readNames(d)
	if err != nil {
		return nil, fmt.Errorf("spool: read %s: %w", s.Path(sub, ""), err)
	}
	out := make([]entry, 0, len(names))
	for _, name := range names {
		fi, err := d.Lstat(name)
		if err != nil {
			continue // gone meanwhile
		}
		out = append(out, entry{name: name, arrived: changeTime(fi), regular: fi.Mode().IsRegular()})
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
	for _, e := range es {
		if !strings.HasPrefix(e.name, ".") { // attempt markers
			names = append(names, e.name)
		}
	}
	s.removeStaleMarkers(es)
	return names, nil
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
		if fi.IsDir() && errors.Is(err, fs.ErrPermission) {
			return time.Time{}, fmt.Errorf("%w: cannot claim %s (mode %04o): the camera must make each burst directory group-writable, mode 2770 (mkdir -m 2770, as camera-burst.sh does); chmod g+w %[2]s has this one decided", ErrNotWritable, s.Path(DirNew, name), OctalMode(fi.Mode()))
		}
		return time.Time{}, fmt.Errorf("spool: claim %s: %w", s.Path(DirNew, name), err)
	}
	return arrived, nil
}

// SyncClaims makes the claims into cur/ durable (cur/ synced). Call it
// before a claimed batch's journal line is written: a power cut could
// otherwise take back the claim of a batch whose line is on disk, and the
// batch, back in new/, would be handled again as a new one.
func (s *Spool) SyncClaims() error { return s.syncDir(DirCur) }

// OctalMode is m's permission bits as chmod takes them (2750), for
// messages that say a mode.
func OctalMode(m fs.FileMode) uint32 {
	o := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		o |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		o |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		o |= 0o1000
	}
	return o
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
	return fmt.Sprintf("batch %s holds %d bytes, more than the limit of %d (raise spool.max_batch_bytes in the configuration or send smaller batches)", e.Name, e.Size, e.Max)
}

// claimedOpened runs after OpenClaimed has opened cur/name and before it
// takes the facts: the one point where a batch put in the opened one's
// place can be told from it, which the tests use.
var claimedOpened = func(name string) {}

// OpenClaimed opens the claimed batch cur/name for reading, the one open
// of it from the claim to its journal line, and returns it with its facts
// (of the open file): a directory is an image burst, listed from the open
// folder (features.BurstOf); anything else is read by ReadBatch, which
// refuses what is not a regular file. A symbolic link at name is refused,
// also one to a file inside the spool (the open does not follow it), and
// the open never blocks (a FIFO). Where the open fails, the entry is
// looked at (not followed) and fi, unless that failed too, is its facts: a
// directory is a burst that could not be opened (one the daemon's user
// may not read says so, and what the camera must do).
func (s *Spool) OpenClaimed(name string) (*os.File, fs.FileInfo, error) {
	f, err := s.openNoFollow(DirCur, name)
	if err != nil {
		// A link fails the open (O_NOFOLLOW); only then is it looked at.
		fi, lerr := s.root.Lstat(path.Join(DirCur, name))
		switch {
		case lerr != nil:
			return nil, nil, fmt.Errorf("open batch: %w", err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return nil, fi, fmt.Errorf("batch %s is a symbolic link: the daemon reads no links; writers must rename the batch file itself into new/", name)
		case fi.IsDir() && errors.Is(err, fs.ErrPermission):
			return nil, fi, fmt.Errorf("image burst %s (mode %04o) cannot be read by the daemon's user: %w: the camera must make each burst folder group-readable and group-writable, mode 2770 (mkdir -m 2770, as camera-burst.sh does)", name, OctalMode(fi.Mode()), err)
		case fi.IsDir():
			return nil, fi, fmt.Errorf("image burst %s: cannot open it: %w", name, err)
		}
		return nil, fi, fmt.Errorf("open batch: %w", err)
	}
	claimedOpened(name)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat batch: %w", err)
	}
	return f, fi, nil
}

// ReadBatch reads the batch file f, cur/name opened by OpenClaimed with its
// facts fi, whole; it refuses a regular file larger than max bytes (max ≤
// 0: no limit), also one that grows past it while it is read, and anything
// that is not a regular file. The checks are of the open file: nothing can
// be swapped in between.
func ReadBatch(f *os.File, fi fs.FileInfo, name string, max int64) ([]byte, error) {
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("batch %s is not a regular file (%v): writers must rename complete files into new/", name, fi.Mode().Type())
	}
	if max > 0 && fi.Size() > max {
		return nil, &TooLargeError{Name: name, Size: fi.Size(), Max: max}
	}
	b, err := regfile.ReadSized(f, fi.Size(), max)
	if err != nil {
		return nil, fmt.Errorf("read batch: %w", err)
	}
	if max > 0 && int64(len(b)) > max {
		return nil, &TooLargeError{Name: name, Size: int64(len(b)), Max: max}
	}
	return b, nil
}

// Finish moves cur/name to done/name (replacing a batch of that name
// there), or deletes it when done batches are not kept. Call it only once
// the batch's journal line is on disk.
func (s *Spool) Finish(name string) error {
	if !s.opt.KeepDone {
		if err := s.removeBatch(DirCur, name); err != nil {
			return fmt.Errorf("spool: %w", err)
		}
		return nil
	}
	if err := s.moveInto(DirDone, name); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	s.moved(path.Join(DirDone, name))
	return nil
}

// moveInto moves cur/name into sub (done/ or failed/), replacing a batch
// of the same name there. A file's rename replaces a file, but a burst (a
// directory) cannot be renamed over one, nor a batch over one of the
// other kind: the old batch is then removed first. A stop between the two
// leaves the new batch in cur/, handled again at the next start.
func (s *Spool) moveInto(sub, name string) error {
	src, dst := path.Join(DirCur, name), path.Join(sub, name)
	err := s.root.Rename(src, dst)
	if err == nil || !occupied(err) {
		return err
	}
	if _, derr := s.root.Lstat(dst); derr != nil {
		return err // ENOTDIR of a folder on the way, not of the target
	}
	if rerr := s.removeBatch(sub, name); rerr != nil {
		return fmt.Errorf("%w (and the batch of that name already in %s/ could not be removed: %v)", err, sub, rerr)
	}
	return s.root.Rename(src, dst)
}

// occupied reports whether a rename failed because its target was there
// and could not be replaced (a directory, or a batch of the other kind),
// not for another reason (a full disk, an I/O error), which must leave
// the batch there alone.
func occupied(err error) bool {
	return errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTDIR)
}

// Unclaim moves cur/name back to new/name (a batch not handled because the
// daemon is stopping).
func (s *Spool) Unclaim(name string) error {
	if err := s.root.Rename(path.Join(DirCur, name), path.Join(DirNew, name)); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}
