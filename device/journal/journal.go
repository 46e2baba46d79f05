// Package journal is the appliance's record of decisions: one JSON line per
// batch, appended and synced to disk before the batch leaves the spool's
// cur/, with size-based rotation; a torn last line, what a power cut left,
// is cut off when the journal is opened (Repaired), and a file that is no
// journal is left alone (Verify). One daemon at a time writes a journal:
// Open holds the lock of a file beside it (LockPath, internal/dirlock) and
// refuses a journal another holds with an InUseError naming its pid (Claim
// takes the lock ahead of Open, OpenLocked keeps it; Holder says who holds
// it, and CheckLock whether its file opens, for setmatchd -check).
package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"setmatch/internal/dirlock"
	"setmatch/internal/jsonname"
	"setmatch/internal/regfile"
	"setmatch/internal/unitpaths"
)

// Record is one journal line: what happened to one batch. Scores are the
// model's divergence (smaller is nearer); an absent runner-up has no label
// and a null score, and a score or threshold that is NaN or infinite is
// null (JSON has neither).
type Record struct {
	Time       time.Time `json:"time"`                 // when the line was written (UTC)
	File       string    `json:"file"`                 // batch name in the spool (invalid UTF-8 shows as U+FFFD)
	FileB64    string    `json:"file_b64,omitempty"`   // the name's bytes in base64, when they are not valid UTF-8
	Burst      bool      `json:"burst,omitempty"`      // the batch is an image burst (a directory of frames)
	SHA256     string    `json:"sha256,omitempty"`     // of the file's bytes (none for a burst)
	Bytes      int64     `json:"bytes"`                // file size (of a burst: its frame files together)
	Frames     int       `json:"frames"`               // rows read
	Decision   string    `json:"decision"`             // label, "unknown", or "failed"
	Known      bool      `json:"known"`                // a gallery label was given
	Reason     string    `json:"reason,omitempty"`     // why unknown without matching, or why failed
	Best       string    `json:"best,omitempty"`       // label of the nearest gallery set
	BestSet    string    `json:"best_set,omitempty"`   // its name in the model
	Score      *float64  `json:"score"`                // its divergence
	RunnerUp   string    `json:"runner_up,omitempty"`  // nearest set with another label
	RunnerSc   *float64  `json:"runner_up_score"`      // its divergence
	Threshold  *float64  `json:"threshold"`            // open-set threshold used, the nearest class's (null: closed set)
	Divergence string    `json:"divergence,omitempty"` // "hellinger" or "jeffrey"
	Bandwidth  float64   `json:"bandwidth,omitempty"`  // query KDE bandwidth after projection
	Arrived    time.Time `json:"arrived"`              // arrival in new/ (inode change time of the rename)
	LatencyMS  float64   `json:"latency_ms"`           // arrival -> pins driven (or decision if no pin)
	ReadMS     float64   `json:"read_ms"`              // time spent reading and parsing the file
	MatchMS    float64   `json:"match_ms"`             // time spent matching against the gallery
	Model      string    `json:"model,omitempty"`      // sha256 of the model file (first 16 hex digits)
	Retry      bool      `json:"retry,omitempty"`      // handled again after an interrupted run
	// Votes, for a model that decides by a vote, is the label every
	// member gives (the nearest set's, known or not), the model's own
	// first; Best, Score, RunnerUp and Threshold are then the deciding
	// member's.
	Votes []string `json:"votes,omitempty"`
}

// Journal appends records as JSON lines and syncs each line before Append
// returns, so that a batch can leave cur/ once its line is durable. When the
// file would grow beyond maxBytes it is renamed to <path>.1 (after <path>.1
// became <path>.2 and so on, the oldest beyond keep removed) and a new file
// is started: at most about (keep+1)×maxBytes on disk.
// A Journal is safe for concurrent use.
type Journal struct {
	mu       sync.Mutex
	path     string
	maxBytes int64
	keep     int
	f        *os.File // nil after a failed write or rotation: reopened by the next Append
	size     int64
	lock     *os.File // the lock file's, held until Close (nil: a character device, no lock; or the lock failed, nolock)
	nolock   error    // why the journal is not locked though it could be (an *UnlockedError), else nil
	closed   bool     // set by Close only
	repaired int64
	// dirPending: the journal's folder may hold a change not yet synced
	// (the file was created, or rotated, here or by a daemon that stopped
	// before its first line there), which the next Append syncs before
	// its line: a line synced into a file whose name a power cut takes
	// back would be lost.
	dirPending bool
}

// syncFile makes what was written to f, a file or a folder, durable. Tests
// replace it to see the order of the syncs and to make one fail.
var syncFile = (*os.File).Sync

// Open opens (or creates, 0640) the journal at path for appending.
// maxBytes ≤ 0 disables rotation; keep is the number of rotated files kept
// (at least 1). An existing file must be a journal (see Verify): Open
// leaves any other file as it is and says so; a symbolic link is refused.
//
// Open takes the journal first: it holds the lock of the file LockPath(path)
// (dirlock) until Close, and fails with an *InUseError while another
// Journal holds it, of another process or of this one. Where the lock
// fails otherwise (a file system that does not lock files), it opens the
// journal without it, and Unlocked says so: setmatchd then runs with a
// warning, as the spool does (device/spool), rather than leave the door
// without its daemon. Only then does it change the journal (repair). Two
// daemons appending to one journal and rotating it would lose or garble
// its lines.
//
// The lock is that of a file of its own beside the journal, made once and
// never renamed, not the journal's: rotation renames the journal to
// <path>.1 and creates a new one, so a lock of the journal would stay
// with <path>.1, and the new file would be open to a second daemon until
// the first had locked it too. Nor is it the journal's folder's: that is
// also the model's (/var/lib/setmatch), whose lock setmatch enroll and
// forget take, and a daemon holding it would keep them waiting. The
// kernel releases the lock when the process ends, however it ends: a
// kill -9 leaves none, and the file left behind holds no lock. A journal
// that is a character device (/dev/null) is written by anyone without
// harm and not locked.
func Open(path string, maxBytes int64, keep int) (*Journal, error) {
	return OpenLocked(path, maxBytes, keep, nil)
}

// OpenLocked is Open with claimed, the file Claim returned for path (nil
// where it returned none): Open keeps it, and the lock it holds, in place
// of taking the lock again, so that no other daemon can take the journal
// between Claim and Open. It closes claimed where it fails.
func OpenLocked(path string, maxBytes int64, keep int, claimed *os.File) (*Journal, error) {
	if path == "" {
		if claimed != nil {
			claimed.Close()
		}
		return nil, errors.New("journal: no path given (set journal.path)")
	}
	lock, unlocked, err := takeLock(path, claimed)
	if err != nil {
		return nil, err
	}
	// The file found may have been created or renamed into place by a
	// daemon that stopped before it synced the folder: synced before the
	// first line.
	j := &Journal{path: path, maxBytes: maxBytes, keep: max(keep, 1), lock: lock, nolock: unlocked, dirPending: true}
	err = j.open()
	if err == nil {
		if err = j.repair(); err != nil {
			j.f.Close()
		}
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		return nil, err
	}
	return j, nil
}

// LockPath returns the path of the file whose lock is the journal's at
// path: the hidden file ".NAME.lock" beside the journal NAME. It stays
// there, empty; no glob of the journal and its rotated files (NAME*)
// takes it.
func LockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// takeLock opens the lock file of the journal at path, made if missing,
// and takes its lock (lockOpen), which the open file returned holds: no
// file where the journal is a character device. claimed, where not nil,
// already holds the lock (Claim) and is returned in place of a new file.
// What is at path that no journal may be is refused first, before a lock
// file is made; claimed is closed where it is not returned.
func takeLock(path string, claimed *os.File) (lock *os.File, unlocked, err error) {
	if fi, err := os.Lstat(path); err == nil {
		err := regular(path, fi)
		if err != nil || fi.Mode()&fs.ModeCharDevice != 0 {
			if claimed != nil {
				claimed.Close()
			}
			return nil, nil, err
		}
	}
	if claimed != nil {
		return claimed, nil, nil
	}
	f, err := openLock(path, os.O_CREATE)
	if err != nil {
		return nil, nil, err
	}
	return lockOpen(path, f)
}

// lockOpen takes the lock of f, the open lock file of the journal at path
// (dirlock.TryLock), and returns f, which holds it. It fails with an
// *InUseError while another holds it. Where the lock fails otherwise, it
// returns no file and why, an *UnlockedError, and no error: the journal is
// opened without its lock. f is closed where it is not returned.
func lockOpen(path string, f *os.File) (lock *os.File, unlocked, err error) {
	busy, err := tryLock(f)
	switch {
	case err != nil:
		f.Close()
		return nil, &UnlockedError{Path: path, Err: err}, nil
	case busy:
		err := &InUseError{Path: path, PID: Holder(path)}
		f.Close()
		return nil, nil, err
	}
	return f, nil, nil
}

// openLock opens the lock file of the journal at path for reading, with
// the flags flag besides (os.O_CREATE: made if missing), and refuses what
// is no lock file (notLock); an open that fails says what to do
// (lockErr). It takes no lock.
func openLock(path string, flag int) (*os.File, error) {
	lp := LockPath(path)
	if checkBeforeOpen {
		if fi, err := os.Lstat(lp); err == nil {
			if err := notLock(path, fi); err != nil {
				return nil, err
			}
		}
	}
	// Never through a link (O_NOFOLLOW); read only: a lock needs no more.
	f, err := os.OpenFile(lp, os.O_RDONLY|flag|oNoFollow|oNonBlock, 0o640)
	if err != nil {
		return nil, lockErr(path, err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = notLock(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// CheckLock returns, for setmatchd -check, the error that Open gives for
// the lock file of the journal at path where it is there (one that is no
// regular file, or that this user may not open: one that setmatchd made
// as root), and nil where it opens; it neither makes the file nor takes
// its lock, so it runs beside the daemon. A missing lock file is an
// error wrapping fs.ErrNotExist: Open makes it, where the folder lets it.
func CheckLock(path string) error {
	f, err := openLock(path, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

// tryLock is the lock's attempt (dirlock.TryLock); tests make it fail as a
// file system without locks does.
var tryLock = dirlock.TryLock

// Claim takes the lock of the journal at path ahead of Open, for setmatchd
// to be refused for a journal in use before it reads its model: it fails
// with an *InUseError while another Journal holds the lock. It makes and
// changes nothing: where the lock file is missing (Open makes it), cannot
// be opened or locked, or what is at path is no journal, it returns no
// file and no error, and Open says what it finds. The file returned holds
// the lock until it is closed or handed to OpenLocked, which keeps it;
// Open, which takes the lock itself, is refused while this file holds it.
func Claim(path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	if fi, err := os.Lstat(path); err == nil && (regular(path, fi) != nil || fi.Mode()&fs.ModeCharDevice != 0) {
		return nil, nil
	}
	f, err := openLock(path, 0)
	if err != nil {
		return nil, nil
	}
	lock, unlocked, err := lockOpen(path, f)
	if unlocked != nil {
		return nil, nil
	}
	return lock, err
}

// notLock refuses what the lock file of the journal at path, whose facts
// are fi, must not be: anything but a regular file (a symbolic link, which
// is never followed; a folder).
func notLock(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("journal: %s, the lock of journal.path %s, is not a regular file (%v): remove it", LockPath(path), path, fi.Mode().Type())
}

// lockErr returns err, the error of opening the lock file of the journal
// at path, with what to do: where the lock file is there but this user
// may not open it, whose it must be (one that setmatchd made as root
// belongs to root); where it is no regular file, the error that says so;
// else (the folder is missing, or this user may not make a file in it) to
// check the folder.
func lockErr(path string, err error) error {
	if rerr := readOnly(path, err); rerr != nil {
		return rerr
	}
	lp := LockPath(path)
	if fi, lerr := os.Lstat(lp); lerr == nil {
		if nerr := notLock(path, fi); nerr != nil {
			return nerr
		}
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("journal: %w (the daemon's user must read the lock of the journal: one that setmatchd made as root belongs to root; sudo chown setmatch %s)", err, lp)
		}
	}
	return fmt.Errorf("journal: %w (setmatchd makes the lock of journal.path %s there: does its folder exist and is it writable by this user?)", err, path)
}

// Holder returns the pid of the process that holds the journal at path
// (the lock of LockPath(path)), or 0 where none does or the system does
// not say (dirlock.Holder): it takes no lock, for setmatchd -check beside
// a running daemon.
func Holder(path string) int { return dirlock.Holder(LockPath(path)) }

// InUseError is Open's error for a journal that another Journal holds:
// another setmatchd writing it. PID is its process, 0 where the system
// does not say (dirlock.Holder).
type InUseError struct {
	Path string
	PID  int
}

func (e *InUseError) Error() string {
	who := "another setmatchd"
	if e.PID > 0 {
		who += fmt.Sprintf(" (pid %d)", e.PID)
	}
	return fmt.Sprintf("journal: %s is in use: %s writes it and holds its lock %s; two daemons writing one journal would lose or garble its lines when they rotate it: give each daemon a journal of its own (journal.path), or stop the other setmatchd (%s)",
		e.Path, who, LockPath(e.Path), dirlock.StopHolder(e.PID, LockPath(e.Path)))
}

// UnlockedError is why a journal was opened without its lock: the lock of
// its lock file failed with Err (not for another's hold), and nothing
// keeps a second setmatchd from writing the journal.
type UnlockedError struct {
	Path string
	Err  error
}

func (e *UnlockedError) Error() string {
	return fmt.Sprintf("journal: cannot lock %s (%v): setmatchd runs without the lock, so nothing keeps a second setmatchd from writing the journal %s (two would lose or garble its lines when they rotate it): give each daemon a journal of its own (journal.path), or move the journal to a file system that locks files (a local one)",
		LockPath(e.Path), e.Err, e.Path)
}

func (e *UnlockedError) Unwrap() error { return e.Err }

// Unlocked returns why the journal was opened without its lock (an
// *UnlockedError), or nil where Open took it or the journal is a
// character device, which is not locked.
func (j *Journal) Unlocked() error { return j.nolock }

// Repaired returns the bytes Open cut off the end of the journal: what a
// power cut or crash in the middle of a write left after its last record.
func (j *Journal) Repaired() int64 { return j.repaired }

// window bounds what Verify and repair read of a journal, at its start and
// at its end: far longer than any record.
const window = 1 << 20

// Verify returns nil if the file at path is missing, empty or a journal: a
// regular file (not a symbolic link) whose first line is a journal record
// (or what a power cut leaves of one) and which holds a complete record
// within its last MiB, after which Open cuts off what follows (never
// reading the whole file). Otherwise the error says what the file is not
// and what to do.
func Verify(path string) error {
	if err := checkPath(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow|oNonBlock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return openErr(path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := regular(path, fi); err != nil {
		return err
	}
	_, err = keepUpTo(f, path, fi.Size())
	return err
}

// checkPath refuses, before the open, a path that is not a journal's
// (regular), where the open cannot refuse a link itself (no O_NOFOLLOW:
// checkBeforeOpen). Elsewhere the open refuses a link and the open file is
// checked: nothing can be swapped in between.
func checkPath(path string) error {
	if !checkBeforeOpen {
		return nil
	}
	if fi, err := os.Lstat(path); err == nil {
		return regular(path, fi)
	}
	return nil
}

// openErr returns err, the error of opening the journal at path, with
// what to do: where this user may not open the journal there, whose it
// must be (a journal that setmatchd made as root belongs to root), else
// (one this user may not create among them) to check its folder; or,
// when what is there is not a journal's (a symbolic link, which
// O_NOFOLLOW refuses; a folder), the error that says so.
func openErr(path string, err error) error {
	if rerr := readOnly(path, err); rerr != nil {
		return rerr
	}
	fi, lerr := os.Lstat(path)
	if lerr == nil {
		if rerr := regular(path, fi); rerr != nil {
			return rerr
		}
	}
	if errors.Is(err, fs.ErrPermission) && lerr == nil {
		return fmt.Errorf("journal: %w (the daemon's user must read and write the journal: one that setmatchd made as root belongs to root; sudo chown setmatch %s)", err, path)
	}
	return fmt.Errorf("journal: %w (does its directory exist and is it writable by this user?)", err)
}

// readOnly returns err, the error of making or opening a file of the
// journal at path, with what to do where its folder is read-only for the
// daemon (EROFS: a folder outside the unit's ReadWritePaths=, which
// systemd shows it read-only, or a file system mounted read-only), and
// nil for any other error.
func readOnly(path string, err error) error {
	if !errors.Is(err, syscall.EROFS) {
		return nil
	}
	return fmt.Errorf("journal: %w: %s", err, unitpaths.ReadOnlyAdvice("the journal's folder", filepath.Dir(path)))
}

// regular refuses what the journal must not be: a symbolic link (the journal
// is rotated by renaming it, and is never written through a link) or
// anything but a regular file or a character device (/dev/null; setmatchd
// -check refuses it still).
func regular(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("journal.path %s is a symbolic link: set journal.path to the journal file itself (setmatchd does not write through links)", path)
	}
	if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeCharDevice == 0 {
		return fmt.Errorf("journal.path %s is not a regular file (%v): set journal.path to a file", path, fi.Mode().Type())
	}
	return nil
}

// keepUpTo checks the journal f of size bytes and returns the length of its
// part up to its last complete record: size, or less by what a power cut
// left after it (a torn line, zeros, a damaged page), which is to be cut
// off. It errs if the file is not a journal.
func keepUpTo(f *os.File, path string, size int64) (int64, error) {
	if size == 0 {
		return 0, nil
	}
	notJournal := func(what string) error {
		return fmt.Errorf("journal.path %s is not a setmatch journal (%s): setmatchd leaves it as it is; set journal.path to a file of its own, such as /var/lib/setmatch/journal.jsonl", path, what)
	}
	read := func(off, n int64) ([]byte, error) {
		b := make([]byte, n)
		if _, err := f.ReadAt(b, off); err != nil {
			return nil, fmt.Errorf("journal: check %s: %w", path, err)
		}
		return b, nil
	}
	// The first line.
	head, err := read(0, min(size, window))
	if err != nil {
		return 0, err
	}
	switch i := bytes.IndexByte(head, '\n'); {
	case i >= 0 && !isRecord(head[:i]) && !damaged(head[:i]):
		return 0, notJournal("its first line is not a journal record")
	case i < 0 && size > window:
		return 0, notJournal(fmt.Sprintf("no line ends in its first %d bytes", window))
	}
	// The end: cut back to the last complete line that is a record. A
	// power cut can leave a torn line, zeros, or a page of anything after
	// it; a file whose first line is a record is a journal, so what
	// follows its last record within the window is that damage.
	start := max(size-window, 0)
	tail, err := read(start, size-start)
	if err != nil {
		return 0, err
	}
	for end := len(tail); ; {
		nl := bytes.LastIndexByte(tail[:end], '\n')
		if nl < 0 {
			break
		}
		from := bytes.LastIndexByte(tail[:nl], '\n') + 1
		if from == 0 && start > 0 {
			break // the line may begin before the window
		}
		if isRecord(tail[from:nl]) {
			return start + int64(nl) + 1, nil
		}
		end = nl
	}
	if start > 0 {
		return 0, notJournal(fmt.Sprintf("no journal record in its last %d bytes", window))
	}
	// No complete record: zeros, or one line a power cut tore or damaged,
	// which is cut only if it begins as a record does.
	rest := bytes.TrimRight(bytes.TrimLeft(tail, "\x00\n"), "\x00\n")
	if len(rest) > 0 && (!tornRecord(rest) || bytes.IndexByte(rest, '\n') >= 0) {
		return 0, notJournal("it holds no complete record and is not one torn or damaged record")
	}
	return 0, nil
}

// isRecord reports whether line is a journal record: a JSON object with the
// fields every record has.
func isRecord(line []byte) bool {
	if len(line) == 0 || line[0] != '{' || !json.Valid(line) {
		return false
	}
	var r map[string]json.RawMessage
	if json.Unmarshal(line, &r) != nil {
		return false
	}
	_, t := r["time"]
	_, d := r["decision"]
	return t && d
}

// recordStart is how every record's line begins (Time is Record's first field).
const recordStart = `{"time":`

// tornRecord reports whether b, without its newline, may be the start of a
// record cut short: it begins as records do (or is a beginning of that).
func tornRecord(b []byte) bool {
	if len(b) >= len(recordStart) {
		return bytes.HasPrefix(b, []byte(recordStart))
	}
	return bytes.HasPrefix([]byte(recordStart), b)
}

// damaged reports whether line (without its newline) is what a power cut
// can leave of a record: it holds zeros (a block the file system had not
// written), and the rest, if any, begins as a record does.
func damaged(line []byte) bool {
	if bytes.IndexByte(line, 0) < 0 {
		return false
	}
	rest := bytes.TrimLeft(line, "\x00")
	return len(rest) == 0 || tornRecord(rest)
}

// repair cuts off the end of the file after its last complete record: a
// line torn by a power cut (no newline yet), blocks of zeros a file system
// may leave after one, a damaged page (keepUpTo). Lines are written before their batch leaves cur/, so
// the batch of a torn line is handled again. A file that is not a journal
// is left as it is, and is an error.
func (j *Journal) repair() error {
	end, err := keepUpTo(j.f, j.path, j.size)
	if err != nil {
		return err
	}
	if end == j.size {
		return nil
	}
	if err := j.f.Truncate(end); err != nil {
		return fmt.Errorf("journal: cut the torn last line off %s: %w", j.path, err)
	}
	if err := syncFile(j.f); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j.repaired, j.size = j.size-end, end
	return nil
}

func (j *Journal) open() error {
	if err := checkPath(j.path); err != nil {
		return err
	}
	// Created here (O_EXCL, which never follows a link), or opened as it
	// is, never through a link (O_NOFOLLOW).
	f, err := os.OpenFile(j.path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL|oNoFollow|oNonBlock, 0o640)
	created := err == nil
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(j.path, os.O_RDWR|os.O_APPEND|oNoFollow|oNonBlock, 0)
	}
	if err != nil {
		return openErr(j.path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("journal: %w", err)
	}
	if err := regular(j.path, fi); err != nil {
		f.Close()
		return err
	}
	j.f, j.size = f, fi.Size()
	j.dirPending = j.dirPending || created
	return nil
}

// syncDir syncs the journal's folder: a file created or renamed there
// keeps its name after a power cut. A folder that cannot be synced is left
// as durable as its filesystem makes the name (regfile.SyncDir).
func (j *Journal) syncDir() error {
	if err := regfile.SyncDir(os.Open, filepath.Dir(j.path), syncFile); err != nil {
		return fmt.Errorf("journal: sync the folder of %s: %w", j.path, err)
	}
	return nil
}

// Path returns the journal's path.
func (j *Journal) Path() string { return j.path }

// Append writes r as one line and syncs it to disk (and first the
// journal's folder, after the journal was opened, created or rotated). A
// file name that is not valid UTF-8 (JSON would replace its bad bytes
// with U+FFFD) is also written exactly, in base64, as file_b64: the
// convention of every JSON output (jsonname.B64).
func (j *Journal) Append(r *Record) error {
	r.FileB64 = jsonname.B64(r.File)
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return errors.New("journal: closed")
	}
	if j.f == nil {
		// An earlier write or rotation failed: start again from the file.
		if err := j.open(); err != nil {
			return err
		}
	}
	if j.maxBytes > 0 && j.size > 0 && j.size+int64(len(b)) > j.maxBytes {
		if err := j.rotate(); err != nil {
			return err
		}
	}
	if j.dirPending {
		if err := j.syncDir(); err != nil {
			return err
		}
		j.dirPending = false
	}
	off := j.size
	_, err = j.f.Write(b)
	if err == nil {
		err = syncFile(j.f)
	}
	if err != nil {
		// Cut off a partial line, so that the next line does not join it,
		// and drop the handle: after a failed fsync its state is unknown.
		_ = j.f.Truncate(off)
		j.f.Close()
		j.f = nil
		return fmt.Errorf("journal: write %s: %w", j.path, err)
	}
	j.size = off + int64(len(b))
	return nil
}

// rotate shifts the rotated files up by one, renames the journal to <path>.1
// and starts a new one. The rename and the new file are made durable
// (the folder synced, by Append) before a line goes to the new file.
func (j *Journal) rotate() error {
	if err := j.f.Close(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j.f = nil
	// Shift only the rotated files there are (.1, .2, … up to the first
	// missing one): the work is theirs, not keep's.
	n := 0
	for n < j.keep {
		if _, err := os.Lstat(fmt.Sprintf("%s.%d", j.path, n+1)); err != nil {
			break
		}
		n++
	}
	if n == j.keep {
		// Files beyond keep, left by a larger keep before a restart, go
		// first (up to the first missing one): the bound holds after keep
		// is lowered.
		for k := j.keep + 1; os.Remove(fmt.Sprintf("%s.%d", j.path, k)) == nil; k++ {
		}
		os.Remove(fmt.Sprintf("%s.%d", j.path, j.keep))
		n--
	}
	for k := n; k >= 1; k-- {
		os.Rename(fmt.Sprintf("%s.%d", j.path, k), fmt.Sprintf("%s.%d", j.path, k+1))
	}
	if err := os.Rename(j.path, j.path+".1"); err != nil {
		if oerr := j.open(); oerr != nil {
			return errors.Join(fmt.Errorf("journal: rotate: %w", err), oerr)
		}
		return fmt.Errorf("journal: rotate: %w", err)
	}
	return j.open() // a file created: its folder is synced before its first line
}

// Close closes the journal file and releases its lock.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = true
	var err error
	if j.f != nil {
		err = j.f.Close()
		j.f = nil
	}
	if j.lock != nil {
		j.lock.Close()
		j.lock = nil
	}
	return err
}
