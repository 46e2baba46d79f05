package journal

import (
	"os"
	"syscall"
	"testing"
)

// TestPartialWriteCutOff: a line the disk takes only in part (the file
// size limit, RLIMIT_FSIZE, cuts the write short here, as a full disk
// does) is cut off again, so that the next record starts a line of its
// own rather than join the torn one.
func TestPartialWriteCutOff(t *testing.T) {
	j, p := openTemp(t)
	if err := j.Append(&Record{File: "one", Decision: "alice"}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	lim := old
	lim.Cur = uint64(fi.Size()) + 10
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	err = j.Append(&Record{File: "cut", Decision: "bob"})
	// Restored at once: the limit holds for every file the process writes.
	if rerr := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); rerr != nil {
		t.Fatal(rerr)
	}
	if err == nil {
		t.Fatal("an append cut short by the file size limit reported success")
	}
	if err := j.Append(&Record{File: "two", Decision: "carol"}); err != nil {
		t.Fatal(err)
	}
	recs := readJournal(t, p)
	if len(recs) != 2 || recs[0].File != "one" || recs[1].File != "two" {
		t.Errorf("journal holds %+v, want the lines one and two", recs)
	}
}
