package journal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestOpenHeld: a journal is held by one Journal at a time, in this
// process as in another. A second Open of its path is refused with an
// *InUseError that says what to do, before it changes the journal (a torn
// last line stays), and rotations do not release the lock nor move it:
// it is the lock of a file beside the journal, which rotation neither
// renames nor replaces. Once the first is closed, the second Open takes
// the journal (and repairs it).
func TestOpenHeld(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	a, err := Open(p, 1, 3) // every line after the first rotates
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	lock, err := os.Stat(LockPath(p))
	if err != nil {
		t.Fatalf("no lock file beside the journal: %v", err)
	}
	for i := 0; i < 3; i++ {
		if err := a.Append(&Record{File: "a", Decision: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(p + ".2"); err != nil {
		t.Fatalf("the journal did not rotate twice: %v", err)
	}
	if after, err := os.Stat(LockPath(p)); err != nil || !os.SameFile(lock, after) {
		t.Fatalf("rotation replaced the lock file: %v", err)
	}
	torn := []byte(`{"time":"2026`)
	if f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0); err != nil {
		t.Fatal(err)
	} else if _, err := f.Write(torn); err != nil || f.Close() != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}

	b, err := Open(p, 1, 3)
	var inUse *InUseError
	if !errors.As(err, &inUse) {
		if b != nil {
			b.Close()
		}
		t.Fatalf("second Open of a held journal: %v, want an *InUseError", err)
	}
	if inUse.Path != p {
		t.Errorf("InUseError.Path %q, want %q", inUse.Path, p)
	}
	if runtime.GOOS == "linux" && inUse.PID != os.Getpid() {
		t.Errorf("InUseError.PID %d, want this process, %d (/proc/locks)", inUse.PID, os.Getpid())
	}
	if got := Holder(p); runtime.GOOS == "linux" && got != os.Getpid() {
		t.Errorf("Holder %d, want this process, %d", got, os.Getpid())
	}
	for _, s := range []string{p, "another setmatchd", "journal of its own (journal.path)"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the error does not say %q: %v", s, err)
		}
	}
	if got, err := os.ReadFile(p); err != nil || string(got) != string(want) {
		t.Errorf("the refused Open changed the journal: %q, want %q (%v)", got, want, err)
	}

	a.Close()
	b, err = Open(p, 1, 3)
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	defer b.Close()
	if b.Repaired() != int64(len(torn)) {
		t.Errorf("the Open after Close cut off %d bytes, want the torn line's %d", b.Repaired(), len(torn))
	}
	if got := Holder(p); runtime.GOOS == "linux" && got != os.Getpid() {
		t.Errorf("Holder after the second Open %d, want this process, %d", got, os.Getpid())
	}
}

// What is at the lock file's path that is no regular file (a folder) is
// refused before the journal is made, and left as it is.
func TestLockNotAFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.Mkdir(LockPath(p), 0o755); err != nil {
		t.Fatal(err)
	}
	j, err := Open(p, 0, 1)
	if err == nil {
		j.Close()
		t.Fatal("Open with a folder at the lock file's path succeeded")
	}
	if want := LockPath(p) + ", the lock of journal.path " + p + ", is not a regular file"; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("error %v, want it to say %q and to remove it", err, want)
	}
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the journal was made: %v", err)
	}
	if fi, err := os.Lstat(LockPath(p)); err != nil || !fi.IsDir() {
		t.Errorf("the folder at the lock's path was changed: %v", err)
	}
}

// Opening the lock file fails with what to do: where it is there, whose
// it must be; else, to check the folder (a chown of a file not there
// fails). (Tests run as root, whom a file's mode does not stop: the errors
// are given.)
func TestLockErrorSaysWhatToDo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	missing := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.WriteFile(LockPath(path), nil, 0o640); err != nil {
		t.Fatal(err)
	}
	lp, lm := LockPath(path), LockPath(missing)
	for _, c := range []struct {
		path string
		err  error
		want string
	}{
		{path, fs.ErrPermission, "journal: open " + lp + ": permission denied (the daemon's user must read the lock of the journal: one that setmatchd made as root belongs to root; sudo chown setmatch " + lp + ")"},
		{missing, fs.ErrPermission, "journal: open " + lm + ": permission denied (setmatchd makes the lock of journal.path " + missing + " there: does its folder exist and is it writable by this user?)"},
		{missing, fs.ErrNotExist, "journal: open " + lm + ": file does not exist (setmatchd makes the lock of journal.path " + missing + " there: does its folder exist and is it writable by this user?)"},
		{missing, syscall.EROFS, "journal: open " + lm + ": read-only file system: under the packaged unit setmatchd may write only /var/lib/setmatch and /var/spool/setmatch; allow the journal's folder with a drop-in (sudo systemctl edit setmatchd, then [Service] ReadWritePaths=" + filepath.Dir(missing) + "), or, where the file system itself is mounted read-only (an SD card is remounted so after write errors: see dmesg), repair it"},
	} {
		err := &fs.PathError{Op: "open", Path: LockPath(c.path), Err: c.err}
		if got := lockErr(c.path, err); !errors.Is(got, c.err) || got.Error() != c.want {
			t.Errorf("%s: %v: got %v, want %q", c.path, c.err, got, c.want)
		}
	}
}

// TestOpenWithoutLocks: where the file system of the lock file refuses
// the lock (no locks available, not supported: a network file system
// without locks), Open opens the journal all the same, as the spool opens
// without its lock, and a second Open does too: nothing holds the
// journal. Its lines are written as in a journal locked. Unlocked says
// why and what it means (the daemon's warning); a journal locked has
// none.
func TestOpenWithoutLocks(t *testing.T) {
	locked, err := Open(filepath.Join(t.TempDir(), "j.jsonl"), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := locked.Unlocked(); err != nil {
		t.Errorf("Unlocked of a journal locked: %v", err)
	}
	locked.Close()
	for _, errno := range []syscall.Errno{syscall.ENOLCK, syscall.EOPNOTSUPP, syscall.EBADF} {
		t.Run(errno.Error(), func(t *testing.T) {
			old := tryLock
			tryLock = func(*os.File) (bool, error) { return false, errno }
			t.Cleanup(func() { tryLock = old })
			p := filepath.Join(t.TempDir(), "j.jsonl")
			j, err := Open(p, 0, 1)
			if err != nil {
				t.Fatalf("Open of a journal whose lock file cannot be locked: %v", err)
			}
			defer j.Close()
			var ue *UnlockedError
			if err := j.Unlocked(); !errors.As(err, &ue) || !errors.Is(err, errno) || ue.Path != p {
				t.Fatalf("Unlocked: %v, want an *UnlockedError of %s with %v", err, p, errno)
			}
			for _, s := range []string{"cannot lock " + LockPath(p) + " (" + errno.Error() + ")", "runs without the lock", "second setmatchd", p, "journal of its own (journal.path)"} {
				if !strings.Contains(j.Unlocked().Error(), s) {
					t.Errorf("Unlocked does not say %q: %v", s, j.Unlocked())
				}
			}
			if err := j.Append(&Record{File: "a", Decision: "x"}); err != nil {
				t.Fatalf("Append: %v", err)
			}
			j2, err := Open(p, 0, 1)
			if err != nil {
				t.Fatalf("second Open: %v", err)
			}
			if err := j2.Close(); err != nil {
				t.Errorf("Close of the second: %v", err)
			}
		})
	}
}

// TestInUseErrorSaysWhatToDo: the error of a held journal says how to
// stop the holder, as a held spool's does. Where its pid is not known (a
// daemon the unit starts, whose /proc hides /proc/locks, refused by one
// started by hand), "stop the other setmatchd" alone does not say which:
// it says where lslocks names the pid (the FLOCK of the lock file), and
// that systemctl stops it only where it is the service.
func TestInUseErrorSaysWhatToDo(t *testing.T) {
	const p = "/var/lib/setmatch/journal.jsonl"
	for _, c := range []struct {
		pid  int
		want []string
	}{
		{812, []string{"another setmatchd (pid 812)", "systemctl stop setmatchd", "kill 812", "journal.path"}},
		{0, []string{"another setmatchd writes", "lslocks", "FLOCK of " + LockPath(p), "systemctl stop setmatchd where it is the service", "journal.path"}},
	} {
		msg := (&InUseError{Path: p, PID: c.pid}).Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("pid %d: the error does not say %q: %s", c.pid, w, msg)
			}
		}
	}
}
