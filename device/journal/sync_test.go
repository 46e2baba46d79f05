package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"setmatch/internal/testexec"
)

var errSync = errors.New("injected sync failure")

// recordSyncs replaces syncFile for the test with one that records each
// sync, as describeSync says it, and fails it when fail (if not nil)
// says so.
func recordSyncs(t *testing.T, fail func(event string) bool) *[]string {
	t.Helper()
	var events []string
	old := syncFile
	t.Cleanup(func() { syncFile = old })
	syncFile = func(f *os.File) error {
		e := describeSync(t, f)
		events = append(events, e)
		if fail != nil && fail(e) {
			return errSync
		}
		return old(f)
	}
	return &events
}

// describeSync says what a sync of f makes durable: "file NAME:LINES" for a
// file (its complete lines at that moment, "+" after them if bytes follow
// the last newline), "dir" and each of its files so for a folder, but
// for the journal's lock file: empty, and made again if a power cut takes
// it, it is none of what the syncs must make durable.
func describeSync(t *testing.T, f *os.File) string {
	t.Helper()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() {
		return "file " + lines(t, f.Name())
	}
	des, err := os.ReadDir(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	s := []string{"dir"}
	for _, de := range des {
		if strings.HasSuffix(de.Name(), ".lock") {
			continue
		}
		s = append(s, lines(t, filepath.Join(f.Name(), de.Name())))
	}
	return strings.Join(s, " ")
}

func lines(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := filepath.Base(path) + ":" + strconv.Itoa(bytes.Count(b, []byte("\n")))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		s += "+"
	}
	return s
}

// oneLine is the length of one journal line of a record of a one-letter
// file (with its newline).
func oneLine(t *testing.T) int64 {
	j, _ := openTemp(t)
	if err := j.Append(&Record{File: "a", Decision: "x"}); err != nil {
		t.Fatal(err)
	}
	return j.size
}

// TestSyncOrder: every line is synced before Append returns, after it is
// written; a journal file opened, created or rotated has its folder
// synced (with the file, and the rotated one, in it) before its first
// line is written;
// a repair syncs the file once it is cut back. A failed sync is an error,
// leaves no line of the record behind, and the next Append writes the
// record once, after the sync that failed: the runner keeps the batch in
// cur/ and appends its record again, so no line is lost or written twice.
func TestSyncOrder(t *testing.T) {
	n := oneLine(t)
	rec := func(i int) *Record { return &Record{File: string(rune('a' + i)), Decision: "x"} }
	for _, c := range []struct {
		name    string
		before  int   // lines appended before the syncs are recorded
		max     int64 // maxBytes, in lines
		appends int
		fail    string // the sync event that fails once ("" none)
		want    []string
	}{
		{name: "new journal", appends: 2,
			want: []string{"dir j.jsonl:0", "file j.jsonl:1", "file j.jsonl:2"}},
		{name: "journal there", before: 1, appends: 1,
			want: []string{"dir j.jsonl:1", "file j.jsonl:2"}},
		{name: "rotation", before: 2, max: 2, appends: 2,
			want: []string{"dir j.jsonl:0 j.jsonl.1:2", "file j.jsonl:1", "file j.jsonl:2"}},
		{name: "line's sync fails", before: 1, appends: 1, fail: "file j.jsonl:2",
			want: []string{"dir j.jsonl:1", "file j.jsonl:2", "file j.jsonl:2"}},
		{name: "new journal's folder sync fails", appends: 1, fail: "dir j.jsonl:0",
			want: []string{"dir j.jsonl:0", "dir j.jsonl:0", "file j.jsonl:1"}},
		{name: "rotation's folder sync fails", before: 2, max: 2, appends: 1, fail: "dir j.jsonl:0 j.jsonl.1:2",
			want: []string{"dir j.jsonl:0 j.jsonl.1:2", "dir j.jsonl:0 j.jsonl.1:2", "file j.jsonl:1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "j.jsonl")
			j, err := Open(p, c.max*n, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			for i := range c.before {
				if err := j.Append(rec(i)); err != nil {
					t.Fatal(err)
				}
			}
			if c.before > 0 { // a journal that was there: opened again
				j.Close()
				if j, err = Open(p, c.max*n, 1); err != nil {
					t.Fatal(err)
				}
			}
			failed := false
			events := recordSyncs(t, func(e string) bool {
				if e == c.fail && !failed {
					failed = true
					return true
				}
				return false
			})
			// The records of the journal and of its rotated file.
			all := func() []Record {
				if _, err := os.Stat(p + ".1"); err != nil {
					return readJournal(t, p)
				}
				return append(readJournal(t, p+".1"), readJournal(t, p)...)
			}
			want := all()
			for i := c.before; i < c.before+c.appends; i++ {
				wasFailed := failed
				err := j.Append(rec(i))
				if failed != wasFailed && !errors.Is(err, errSync) {
					t.Fatalf("Append of %s with the sync %q failing: %v, want the sync's error", rec(i).File, c.fail, err)
				}
				if err != nil {
					// Nothing of the record was left, and the runner
					// appends it again.
					if got := all(); len(got) != len(want) || lines(t, p) != "j.jsonl:"+strconv.Itoa(len(readJournal(t, p))) {
						t.Errorf("after the failed Append the journal holds %d records (%s), want only its %d before", len(got), lines(t, p), len(want))
					}
					if err := j.Append(rec(i)); err != nil {
						t.Fatal(err)
					}
				}
				want = append(want, *rec(i))
			}
			if !slices.Equal(*events, c.want) {
				t.Errorf("syncs\n%q\nwant\n%q", *events, c.want)
			}
			if c.fail != "" && !failed {
				t.Errorf("no sync %q happened to fail", c.fail)
			}
			got := all()
			want = want[max(len(want)-len(got), 0):] // what rotation kept
			if len(got) != len(want) {
				t.Fatalf("journal holds %d records, want %d", len(got), len(want))
			}
			for i := range got {
				if got[i].File != want[i].File {
					t.Errorf("record %d is of %q, want %q", i, got[i].File, want[i].File)
				}
			}
		})
	}
}

// TestRepairSync: the cut of a torn last line is synced once made, and a
// failed sync fails Open.
func TestRepairSync(t *testing.T) {
	for _, fail := range []bool{false, true} {
		j, p := openTemp(t)
		j.Append(&Record{File: "a", Decision: "x"})
		j.Close()
		f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		f.WriteString(`{"time":"2025-01-01T00:00:00Z","fi`)
		f.Close()
		events := recordSyncs(t, func(string) bool { return fail })
		j, err := Open(p, 0, 1)
		if want := []string{"file j.jsonl:1"}; !slices.Equal(*events, want) {
			t.Errorf("fail %v: syncs %q, want %q", fail, *events, want)
		}
		if fail {
			if !errors.Is(err, errSync) {
				t.Errorf("Open with the repair's sync failing: %v, want its error", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		j.Close()
	}
}

// TestNoFolderSync: on a filesystem that has no sync of a folder (its
// fsync refuses one with EINVAL) a new or rotated journal takes its lines
// all the same, each synced, where a failed folder sync would stop the
// daemon from journaling any batch.
func TestNoFolderSync(t *testing.T) {
	n := oneLine(t)
	p := filepath.Join(t.TempDir(), "j.jsonl")
	old := syncFile
	t.Cleanup(func() { syncFile = old })
	var files int
	syncFile = func(f *os.File) error {
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return &os.PathError{Op: "sync", Path: f.Name(), Err: syscall.EINVAL}
		}
		files++
		return old(f)
	}
	j, err := Open(p, 2*n, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for i := range 3 { // the third rotates
		if err := j.Append(&Record{File: string(rune('a' + i)), Decision: "x"}); err != nil {
			t.Fatalf("Append %d with no folder sync: %v", i, err)
		}
	}
	if files != 3 {
		t.Errorf("%d lines synced, want 3", files)
	}
	if got := len(readJournal(t, p+".1")) + len(readJournal(t, p)); got != 3 {
		t.Errorf("the journal and its rotated file hold %d records, want 3", got)
	}
}

// TestFolderNotReadable: a journal folder this user may write in but not
// read (0300) cannot be opened to sync it: the journal takes its lines
// all the same. Root reads every folder, so as root
// the test runs itself again as another user.
func TestFolderNotReadable(t *testing.T) {
	if os.Geteuid() == 0 {
		testexec.RunTestAs(t, testexec.OtherUser, testexec.OtherUser, nil) // root reads every folder
		return
	}
	dir := filepath.Join(t.TempDir(), "log")
	if err := os.Mkdir(dir, 0o300); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	j, err := Open(filepath.Join(dir, "j.jsonl"), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Append(&Record{File: "a", Decision: "x"}); err != nil {
		t.Errorf("Append in a folder that cannot be read: %v", err)
	}
}

// TestReopenedFolderSynced: a journal created (or rotated) by a daemon
// that stopped before its first line there (killed, or its folder's sync
// failed) has its folder synced by the next daemon before that line: the
// file it opens may hold a name a power cut can still take back.
func TestReopenedFolderSynced(t *testing.T) {
	j, p := openTemp(t)
	j.Close() // no line: the folder never synced
	events := recordSyncs(t, nil)
	j, err := Open(p, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Append(&Record{File: "a", Decision: "x"}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"dir j.jsonl:0", "file j.jsonl:1"}; !slices.Equal(*events, want) {
		t.Errorf("syncs %q, want %q", *events, want)
	}
}
