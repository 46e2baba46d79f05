package spool

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

func TestSpoolClaimFailPrune(t *testing.T) {
	sp, dir := openTemp(t, Options{KeepDone: true, DoneMaxFiles: 2, FailedMaxFiles: 1})
	for _, d := range []string{DirTmp, DirNew, DirCur, DirDone, DirFailed} {
		if fi, err := os.Stat(filepath.Join(dir, d)); err != nil || !fi.IsDir() {
			t.Fatalf("%s/ not created: %v", d, err)
		}
	}
	put := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, DirNew, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"a.npy", ".hidden", "part.tmp", "b.npy"} {
		put(n)
	}
	got, err := sp.Pending()
	if err != nil || strings.Join(got, ",") != "a.npy,b.npy" {
		t.Fatalf("pending %v, %v; want a.npy,b.npy (writers' temp files ignored; the order is TestPendingArrivalOrder's)", got, err)
	}
	before := time.Now()
	arrived, err := sp.Claim("a.npy")
	if err != nil || arrived.After(before) {
		t.Fatalf("claim: %v at %v (after %v)", err, arrived, before)
	}
	if _, err := sp.Claim("a.npy"); !errors.Is(err, ErrGone) {
		t.Fatalf("second claim: %v, want ErrGone", err)
	}
	if _, err := sp.Claim("../escape"); err == nil {
		t.Fatal("claimed a name with a slash")
	}
	if err := sp.Fail("a.npy", "bad header"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, DirFailed, DirReasons, "a.npy")); string(b) != "bad header\n" {
		t.Fatalf("reason file holds %q", b)
	}
	if _, err := readClaimed(sp, "b.npy", 0); err == nil {
		t.Fatal("read a batch that was not claimed")
	}
	sp.Claim("b.npy")
	if _, err := readClaimed(sp, "b.npy", 0); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, DirCur, "b.npy"), []byte("too long"), 0o644)
	var tl *TooLargeError
	if _, err := readClaimed(sp, "b.npy", 4); !errors.As(err, &tl) || !strings.Contains(err.Error(), "raise spool.max_batch_bytes in the configuration") {
		t.Fatalf("oversized batch: %v, want a TooLargeError naming the key that raises the limit", err)
	}
	if err := sp.Unclaim("b.npy"); err != nil {
		t.Fatal(err)
	}
	if got, _ := sp.Pending(); len(got) != 1 {
		t.Fatalf("after unclaim, pending %v", got)
	}

	// Finished in the order x, c, k (not the order of their names), then
	// f failed after a.npy: the caps keep the newest.
	arr := arrivals{t: t}
	arr.next(filepath.Join(dir, DirFailed, "a.npy"))
	for _, n := range []string{"x", "c", "k", "f"} {
		put(n)
		sp.Claim(n)
		if n == "f" {
			sp.Fail(n, "second failure")
			arr.next(filepath.Join(dir, DirFailed, n))
			continue
		}
		if err := sp.Finish(n); err != nil {
			t.Fatal(err)
		}
		arr.next(filepath.Join(dir, DirDone, n))
	}
	// done/ keeps the newest two, c and k (x was finished first); failed/
	// the newest, f, with its reason.
	pruneKeeps(t, sp, dir, 2, "c,k", ".reasons,f", "f")

	// Deleting instead of keeping (one Spool holds a spool at a time).
	sp.Close()
	sp2, _ := Open(Options{Dir: dir})
	defer sp2.Close()
	put("g")
	sp2.Claim("g")
	if err := sp2.Finish("g"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, DirDone, "g")); !os.IsNotExist(err) {
		t.Error("finished batch kept with KeepDone false")
	}
}

// arrivals makes the entries of a spool arrive in a known order without
// sleeping for a guessed time: each entry given to next arrives strictly
// after the one before by the spool's own clock (changeTime). On Linux
// that clock is the inode change time, which no call sets directly: next
// sets the entry's times again until the kernel's coarse clock has moved
// past the last arrival (a tick: a few milliseconds at most), and gives
// the entries modification times that run backwards, so that a spool
// that ordered by them would fail the tests. Elsewhere the modification
// time is the arrival, and next sets it a second after the last.
type arrivals struct {
	t    *testing.T
	last time.Time
	n    int
}

func (a *arrivals) next(p string) {
	a.t.Helper()
	a.n++
	step := time.Duration(a.n) * time.Second
	if runtime.GOOS == "linux" { // spool_linux.go: arrival is the change time
		step = -step
	}
	mtime := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(step)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			a.t.Fatal(err)
		}
		fi, err := os.Lstat(p)
		if err != nil {
			a.t.Fatal(err)
		}
		if at := changeTime(fi); at.After(a.last) {
			a.last = at
			return
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("%s: its arrival %v does not move past %v", p, changeTime(fi), a.last)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPendingArrivalOrder: Pending lists new/ oldest first by arrival (on
// Linux the change time the writer's rename set, not the modification
// time), whatever the names, and batches that arrived at the same time by
// name.
func TestPendingArrivalOrder(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	arr := arrivals{t: t}
	for _, n := range []string{"z.npy", "a.npy", "m.npy", "y.npy"} {
		arrive(t, dir, n)
		arr.next(filepath.Join(dir, DirNew, n))
	}
	// b.npy arrives with y.npy: a second name of the same file (one
	// inode, so the same times).
	if err := os.Link(filepath.Join(dir, DirNew, "y.npy"), filepath.Join(dir, DirNew, "b.npy")); err != nil {
		t.Fatal(err)
	}
	got, err := sp.Pending()
	if want := "z.npy,a.npy,m.npy,b.npy,y.npy"; err != nil || strings.Join(got, ",") != want {
		t.Fatalf("pending %v, %v; want %s (by arrival, then by name)", got, err, want)
	}
}

// TestPendingLargeFolder: a folder whose entries take more than the first
// buffer of its listing (64 KiB: 400 names of 200 characters take 88 KiB)
// is listed whole, each name once.
func TestPendingLargeFolder(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	want := make([]string, 400)
	for i := range want {
		want[i] = fmt.Sprintf("batch-%0194d", i)
		if err := os.WriteFile(filepath.Join(dir, DirNew, want[i]), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := sp.Pending()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("pending lists %d names, want the %d in new/", len(got), len(want))
	}
}

func TestSpoolNotADirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, DirNew), nil, 0o644)
	if _, err := Open(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("got %v", err)
	}
}

// readClaimed reads the claimed batch cur/name whole as the daemon does:
// OpenClaimed, then ReadBatch of that open file within max bytes.
func readClaimed(sp *Spool, name string, max int64) ([]byte, error) {
	f, fi, err := sp.OpenClaimed(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadBatch(f, fi, name, max)
}

// TestReadBatchLimitsDoNotOverflow: a limit of the largest int64 reads
// the batch whole; its read bound limit+1 overflowed, so nothing was read
// and every batch failed as empty.
func TestReadBatchLimitsDoNotOverflow(t *testing.T) {
	sp, dir := openTemp(t, Options{FailedMaxFiles: 10})
	os.WriteFile(filepath.Join(dir, DirNew, "a.csv"), []byte("1,2\n"), 0o644)
	if _, err := sp.Claim("a.csv"); err != nil {
		t.Fatal(err)
	}
	for _, max := range []int64{0, 4, 1 << 40, math.MaxInt64 - 1, math.MaxInt64} {
		if b, err := readClaimed(sp, "a.csv", max); err != nil || string(b) != "1,2\n" {
			t.Errorf("ReadBatch(max %d) = %q, %v", max, b, err)
		}
	}
}

// TestReadBatchRefusesNonRegular: OpenClaimed opens a batch that is not a
// regular file (a FIFO here) without waiting for a writer, and ReadBatch
// refuses it, saying so.
func TestReadBatchRefusesNonRegular(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	testutil.FIFO(t, filepath.Join(dir, DirCur), "pipe.npy")
	testutil.Within(t, 10*time.Second, "reading a FIFO", func() {
		if _, err := readClaimed(sp, "pipe.npy", 1<<20); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("reading a FIFO: %v, want not a regular file", err)
		}
	})
}

// TestOpenClaimedRefusesPath: OpenClaimed opens one name in cur/, never
// a path: an empty name, ".", ".." and a name with a slash (another
// folder's batch among them) are refused as invalid before any open, with
// nothing read.
func TestOpenClaimedRefusesPath(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	if err := os.WriteFile(filepath.Join(dir, DirDone, "other.npy"), []byte("another batch"), 0o644); err != nil {
		t.Fatal(err)
	}
	claimNew(t, sp, dir, "a.npy")
	for _, name := range []string{"", ".", "..", "../done/other.npy", "a.npy/", "./a.npy"} {
		if b, err := readClaimed(sp, name, 1<<20); !errors.Is(err, syscall.EINVAL) || b != nil {
			t.Errorf("reading %q: %q, %v; want refused as invalid (EINVAL)", name, b, err)
		}
	}
}

// TestOpenClaimedRefusesLinkInSpool: a batch that is a symbolic link is
// refused, also one to a file inside the spool (which os.Root would
// follow, O_NOFOLLOW or not): the daemon reads the batch file itself or
// nothing, never another batch through a link.
func TestOpenClaimedRefusesLinkInSpool(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	if err := os.WriteFile(filepath.Join(dir, DirDone, "other.npy"), []byte("another batch"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"in.npy":       "../done/other.npy",
		"dangling.npy": "../done/missing.npy",
		"out.npy":      "/etc/passwd",
	} {
		if err := os.Symlink(target, filepath.Join(dir, DirCur, name)); err != nil {
			t.Fatal(err)
		}
		b, err := readClaimed(sp, name, 1<<20)
		if err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
			t.Errorf("reading a link to %s: %q, %v; want refused as a symbolic link", target, b, err)
		}
	}
}

// TestOpenClaimedReadsWhatItOpened: a batch is read from the file
// OpenClaimed opened, its facts those of that file: a batch put in its
// place in cur/ once it is open (before its facts are taken, as late as a
// path's facts could differ), a burst folder here, is not what is read,
// nor what the facts describe.
func TestOpenClaimedReadsWhatItOpened(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	claimNew(t, sp, dir, "a.npy")
	want, err := os.ReadFile(filepath.Join(dir, DirCur, "a.npy"))
	if err != nil {
		t.Fatal(err)
	}
	cur := filepath.Join(dir, DirCur, "a.npy")
	claimedOpened = func(string) {
		if err := os.Rename(cur, filepath.Join(dir, DirCur, "gone.npy")); err != nil {
			t.Error(err)
		}
		if err := os.Mkdir(cur, 0o750); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { claimedOpened = func(string) {} })
	f, fi, err := sp.OpenClaimed("a.npy")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if st, err := os.Stat(cur); err != nil || !st.IsDir() {
		t.Fatalf("cur/a.npy after OpenClaimed: %v, %v; want the folder put in its place", st, err)
	}
	if fi.IsDir() || fi.Size() != int64(len(want)) {
		t.Errorf("OpenClaimed's facts: a folder %v of %d bytes; want the file opened, %d bytes", fi.IsDir(), fi.Size(), len(want))
	}
	if b, err := ReadBatch(f, fi, "a.npy", 1<<20); err != nil || string(b) != string(want) {
		t.Errorf("ReadBatch of the file opened, a folder in its place since: %q, %v; want %q", b, err, want)
	}
}

// TestOpenHeld: a spool is held by one Spool at a time. Another Open of
// it fails with an *InUseError that names the holder's pid (on Linux) and
// what to do, before it changes anything in the spool; -check's Holder
// names the holder without taking the lock; once the holder closes, the
// spool opens again.
func TestOpenHeld(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	want := 0
	if runtime.GOOS == "linux" {
		want = os.Getpid()
	}
	if pid := Holder(dir); pid != want {
		t.Errorf("Holder of a held spool: %d, want %d", pid, want)
	}
	// What a second Open would remove, were it to go on.
	tmp := filepath.Join(dir, DirFailed, DirReasons, reasonTmpPrefix+"0123")
	os.WriteFile(tmp, nil, 0o640)
	sp2, err := Open(Options{Dir: dir})
	var iu *InUseError
	if !errors.As(err, &iu) {
		if sp2 != nil {
			sp2.Close()
		}
		t.Fatalf("second Open: %v, want an *InUseError", err)
	}
	if iu.Dir != dir || iu.PID != want {
		t.Errorf("InUseError %+v, want the spool %s and pid %d", iu, dir, want)
	}
	for _, s := range []string{dir, "another setmatchd", "stop it", "spool.dir"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the error does not say %q: %v", s, err)
		}
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("the refused Open changed the spool: %v", err)
	}
	if pid := Holder(dir); pid != want {
		t.Errorf("Holder after a refused Open: %d, want %d", pid, want)
	}
	sp.Close()
	if pid := Holder(dir); pid != 0 {
		t.Errorf("Holder of a spool no one holds: %d, want 0", pid)
	}
	sp3, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	sp3.Close()
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("Open left what an interrupted write of a reason left: %v", err)
	}
}

// TestOpenWithoutLocks: where the file system of cur/ refuses the lock
// (no locks available, not supported: a network file system without
// locks), Open opens the spool all the same, as it did before a spool had
// a lock, and a second Open does too: nothing holds the spool. Unlocked
// says why and what it means (the daemon's warning); a spool locked has
// none.
func TestOpenWithoutLocks(t *testing.T) {
	if sp, _ := openTemp(t, Options{}); sp.Unlocked() != nil {
		t.Errorf("Unlocked of a spool locked: %v", sp.Unlocked())
	}
	for _, errno := range []syscall.Errno{syscall.ENOLCK, syscall.EOPNOTSUPP, syscall.EBADF} {
		t.Run(errno.Error(), func(t *testing.T) {
			old := tryLock
			tryLock = func(*os.File) (bool, error) { return false, errno }
			t.Cleanup(func() { tryLock = old })
			dir := filepath.Join(t.TempDir(), "spool")
			sp, err := Open(Options{Dir: dir})
			if err != nil {
				t.Fatalf("Open of a spool whose cur/ cannot be locked: %v", err)
			}
			defer sp.Close()
			var ue *UnlockedError
			if err := sp.Unlocked(); !errors.As(err, &ue) || !errors.Is(err, errno) || ue.Dir != dir {
				t.Fatalf("Unlocked: %v, want an *UnlockedError of %s with %v", err, dir, errno)
			}
			for _, s := range []string{filepath.Join(dir, DirCur) + "/", "(" + errno.Error() + ")", "runs without the lock", "second setmatchd", "run one setmatchd on it"} {
				if !strings.Contains(sp.Unlocked().Error(), s) {
					t.Errorf("Unlocked does not say %q: %v", s, sp.Unlocked())
				}
			}
			sp2, err := Open(Options{Dir: dir})
			if err != nil {
				t.Fatalf("second Open: %v", err)
			}
			sp2.Close()
		})
	}
}

// TestOpenReadOnlySpool: a spool whose folder the daemon may not write
// (a spool outside the unit's ReadWritePaths=, which systemd shows it
// read-only) is refused at Open, before any batch, with what to do; the
// spool is left as it was, and taken once it is writable.
func TestOpenReadOnlySpool(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	sp, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	sp.Close()
	for _, sub := range []string{DirNew, DirDone, filepath.Join(DirFailed, DirReasons)} {
		t.Run(sub, func(t *testing.T) {
			old := writable
			writable = func(p string) error {
				if p == filepath.Join(dir, sub) {
					return syscall.EROFS
				}
				return old(p)
			}
			t.Cleanup(func() { writable = old })
			sp, err := Open(Options{Dir: dir})
			if err == nil {
				sp.Close()
				t.Fatalf("Open of a spool whose %s is read-only: no error", sub)
			}
			if !errors.Is(err, syscall.EROFS) {
				t.Errorf("Open: %v, want EROFS", err)
			}
			for _, want := range []string{filepath.Join(dir, sub) + ": read-only file system", "ReadWritePaths=" + dir + ")", "sudo systemctl edit setmatchd", "mounted read-only"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Open: %v\ndoes not say %q", err, want)
				}
			}
			writable = old
			sp, err = Open(Options{Dir: dir})
			if err != nil {
				t.Fatalf("Open once writable: %v", err)
			}
			sp.Close()
		})
	}
}

// TestOpenWhereAccessCannotTell: where access(2) fails for another reason
// than a read-only or forbidden folder (a file system that does not
// implement it), Open does not refuse the spool: the batches' moves say
// what is wrong, if anything is.
func TestOpenWhereAccessCannotTell(t *testing.T) {
	old := writable
	writable = func(string) error { return syscall.ENOSYS }
	t.Cleanup(func() { writable = old })
	sp, err := Open(Options{Dir: filepath.Join(t.TempDir(), "spool")})
	if err != nil {
		t.Fatalf("Open where access(2) says ENOSYS: %v", err)
	}
	sp.Close()
}

// TestInUseErrorSaysWhatToDo: the error of a held spool says how to stop
// the holder. Where its pid is not known (a daemon the unit starts, whose
// /proc hides /proc/locks, refused by one started by hand), "systemctl
// stop setmatchd" alone would stop no holder: it says where to find the
// pid.
func TestInUseErrorSaysWhatToDo(t *testing.T) {
	for _, c := range []struct {
		pid  int
		want []string
	}{
		{812, []string{"another setmatchd (pid 812)", "systemctl stop setmatchd", "kill 812", "spool.dir"}},
		{0, []string{"another setmatchd runs", "lslocks", "/var/spool/setmatch/cur", "systemctl stop setmatchd", "spool.dir"}},
	} {
		msg := (&InUseError{Dir: "/var/spool/setmatch", PID: c.pid}).Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("pid %d: the error does not say %q: %s", c.pid, w, msg)
			}
		}
	}
}
