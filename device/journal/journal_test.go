package journal

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"setmatch/internal/finite"
	"setmatch/internal/testutil"
)

func TestJournalRotate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := Open(p, 600, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := j.Append(&Record{File: strconv.Itoa(i), Decision: "alice", Score: finite.Ptr(0.1)}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	total := 0
	for _, suffix := range []string{"", ".1", ".2"} {
		fi, err := os.Stat(p + suffix)
		if err != nil {
			t.Fatalf("%s: %v", suffix, err)
		}
		if fi.Size() > 600 {
			t.Errorf("%s is %d bytes, over the 600 limit", p+suffix, fi.Size())
		}
		total += len(readJournal(t, p+suffix))
	}
	if _, err := os.Stat(p + ".3"); !os.IsNotExist(err) {
		t.Error("more rotated files kept than asked")
	}
	last := readJournal(t, p)
	if last[len(last)-1].File != "19" {
		t.Errorf("last line is %+v", last[len(last)-1])
	}
	if total >= 20 {
		t.Errorf("nothing was dropped: %d lines in 3 files", total)
	}
	// Infinite scores are written as null (JSON has no infinity).
	j, _ = Open(p, 0, 1)
	if err := j.Append(&Record{File: "inf", RunnerSc: finite.Ptr(math.Inf(1))}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	recs := readJournal(t, p)
	if r := recs[len(recs)-1]; r.File != "inf" || r.RunnerSc != nil {
		t.Errorf("got %+v", r)
	}
}

// TestJournalFillsToMaxBytes: a line that brings the journal to exactly
// maxBytes still goes into it; only one that would take it beyond starts a
// new file.
func TestJournalFillsToMaxBytes(t *testing.T) {
	r := &Record{File: "a.npy", Decision: "alice"}
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(line) + 1)
	p := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := Open(p, 2*n, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for range 3 {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := len(readJournal(t, p+".1")), 2; got != want {
		t.Errorf("the rotated file holds %d lines, want %d (two lines fill maxBytes = %d exactly)", got, want, 2*n)
	}
	if got, want := len(readJournal(t, p)), 1; got != want {
		t.Errorf("the journal holds %d lines, want %d", got, want)
	}
}

// A failed write leaves no partial line behind, and the journal recovers.
func TestJournalRecoversAfterFailedWrite(t *testing.T) {
	j, p := openTemp(t)
	if err := j.Append(&Record{File: "one"}); err != nil {
		t.Fatal(err)
	}
	j.f.Close() // the handle goes bad behind the journal's back
	if err := j.Append(&Record{File: "lost"}); err == nil {
		t.Fatal("append on a bad handle reported success")
	}
	if err := j.Append(&Record{File: "two"}); err != nil {
		t.Fatalf("journal did not recover: %v", err)
	}
	recs := readJournal(t, p)
	if len(recs) != 2 || recs[0].File != "one" || recs[1].File != "two" {
		t.Errorf("journal holds %+v, want the lines one and two", recs)
	}
	j.Close()
	if err := j.Append(&Record{File: "late"}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("append after Close: %v, want a closed-journal error", err)
	}
}

// openTemp opens a journal at j.jsonl in a fresh folder, closed when the
// test ends (a test may close it before), and returns it and its path.
func openTemp(t *testing.T) (*Journal, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := Open(p, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j, p
}

// readJournal returns the records of the journal at path, failing the test
// on a line that is not a JSON record.
func readJournal(t *testing.T, path string) []Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("journal line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRotateShiftsOnlyFilesThere: a rotation renames the rotated files
// there are, not every number up to keep: with keep = 1<<40 each rotation
// tried a trillion renames and the daemon stalled. The rotated files keep
// their order (.1 the newest).
func TestRotateShiftsOnlyFilesThere(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := Open(p, 200, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	testutil.Within(t, time.Minute, "six rotations with keep = 1<<40", func() {
		for i := range 7 {
			if err := j.Append(&Record{File: strconv.Itoa(i), Decision: "alice"}); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for k, want := range []string{"6", "5", "4", "3", "2", "1", "0"} {
		name := p
		if k > 0 {
			name = p + "." + strconv.Itoa(k)
		}
		if recs := readJournal(t, name); len(recs) != 1 || recs[0].File != want {
			t.Errorf("%s holds %+v, want the record of %s", name, recs, want)
		}
	}
}

// TestKeepLowered: a journal opened again with a lower keep (the
// configuration changed, then a restart) removes at its next rotation the
// rotated files beyond keep that the larger one left, so that at most keep
// remain; the newest stay.
func TestKeepLowered(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := Open(p, 200, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if err := j.Append(&Record{File: strconv.Itoa(i), Decision: "alice"}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	if _, err := os.Stat(p + ".5"); err != nil {
		t.Fatalf("keep = 5 left no .5: %v", err)
	}
	if j, err = Open(p, 200, 2); err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Append(&Record{File: "6", Decision: "alice"}); err != nil {
		t.Fatal(err)
	}
	for k := 3; k <= 5; k++ {
		if _, err := os.Stat(p + "." + strconv.Itoa(k)); err == nil {
			t.Errorf("%s.%d still there after a rotation with keep = 2", p, k)
		}
	}
	for k, want := range []string{"6", "5", "4"} {
		name := p
		if k > 0 {
			name += "." + strconv.Itoa(k)
		}
		if recs := readJournal(t, name); len(recs) != 1 || recs[0].File != want {
			t.Errorf("%s holds %+v, want record %s", name, recs, want)
		}
	}
}

// TestOpenErrorSaysWhatToDo: a journal there that the daemon's user may
// not open (one that setmatchd made as root) says whose it must be; any
// other open error, a journal this user may not create in its folder
// among them, asks about the folder (a chown of a file not there fails),
// for the start and for -check alike; a read-only folder says how to
// allow it in the unit. (Tests run as root, whom a file's mode does not
// stop: the errors are given.)
func TestOpenErrorSaysWhatToDo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	missing := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.WriteFile(path, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		err  error
		want string
	}{
		{path, fs.ErrPermission, "journal: open " + path + ": permission denied (the daemon's user must read and write the journal: one that setmatchd made as root belongs to root; sudo chown setmatch " + path + ")"},
		{missing, fs.ErrPermission, "journal: open " + missing + ": permission denied (does its directory exist and is it writable by this user?)"},
		{missing, fs.ErrNotExist, "journal: open " + missing + ": file does not exist (does its directory exist and is it writable by this user?)"},
		// A folder outside the unit's ReadWritePaths=, which systemd
		// shows the daemon read-only.
		{missing, syscall.EROFS, "journal: open " + missing + ": read-only file system: under the packaged unit setmatchd may write only /var/lib/setmatch and /var/spool/setmatch; allow the journal's folder with a drop-in (sudo systemctl edit setmatchd, then [Service] ReadWritePaths=" + filepath.Dir(missing) + "), or, where the file system itself is mounted read-only (an SD card is remounted so after write errors: see dmesg), repair it"},
	} {
		err := &fs.PathError{Op: "open", Path: c.path, Err: c.err}
		if got := openErr(c.path, err); !errors.Is(got, c.err) || got.Error() != c.want {
			t.Errorf("%s: %v: got %v, want %q", c.path, c.err, got, c.want)
		}
	}
}
