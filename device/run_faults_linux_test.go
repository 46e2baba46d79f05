package device

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"setmatch/config"
)

// A journal that cannot be written must not cost a batch: it stays in cur/
// (retried), nothing else is claimed, and it is still there after a stop.
func TestJournalUnwritableHoldsBatch(t *testing.T) {
	f := newFixture(t, "")
	f.journal = "/dev/full" // every write fails with ENOSPC
	f.writeConfig(t, "")
	cfg, err := config.Load(f.config)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Config: cfg, Driver: NewRecorder(), JournalRetry: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(61, 62))
	f.drop(t, "a.npy", batch(rng, "alice"))
	cur := filepath.Join(f.spool, DirCur)
	waitFor(t, 10*time.Second, "the batch claimed into cur/", func() bool {
		return contains(strings.Join(names(t, cur), " "), "a.npy")
	})
	f.drop(t, "b.npy", batch(rng, "bob"))
	time.Sleep(200 * time.Millisecond) // many retries
	if got := names(t, filepath.Join(f.spool, DirFailed)); len(got) != 0 {
		t.Errorf("failed/ holds %v: a batch was given up because of the journal", got)
	}
	if got := names(t, filepath.Join(f.spool, DirDone)); len(got) != 0 {
		t.Errorf("done/ holds %v without a journal line", got)
	}
	if got := names(t, filepath.Join(f.spool, DirNew)); len(got) != 1 || got[0] != "b.npy" {
		t.Errorf("new/ holds %v, want b.npy waiting", got)
	}
	r.Stop()
	r.Wait()
	r.Close()
	if got := names(t, cur); !contains(strings.Join(got, " "), "a.npy") {
		t.Errorf("after stopping, cur/ holds %v, want a.npy kept for the next start", got)
	}
}

// A failed write leaves no partial line behind, and the journal recovers.
func TestJournalRecoversAfterFailedWrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := OpenJournal(p, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
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

// A FIFO in new/ must not block the daemon: it goes to failed/ and the next
// batch is handled.
func TestFIFOInSpoolDoesNotBlock(t *testing.T) {
	f := newFixture(t, "")
	rec := NewRecorder()
	_, ch := startRunner(t, f, rec)
	tmp := filepath.Join(f.spool, "tmp", "fifo.npy")
	os.MkdirAll(filepath.Dir(tmp), 0o755)
	if err := syscall.Mkfifo(tmp, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Rename(tmp, filepath.Join(f.spool, DirNew, "fifo.npy")); err != nil {
		t.Fatal(err)
	}
	first := next(t, ch)
	if first.File != "fifo.npy" || first.Decision != "failed" {
		t.Errorf("FIFO batch: %+v, want a failed record", first)
	}
	rng := rand.New(rand.NewPCG(63, 64))
	f.drop(t, "a.npy", batch(rng, "alice"))
	if got := next(t, ch); got.File != "a.npy" || got.Decision != "alice" {
		t.Errorf("batch after the FIFO: %+v", got)
	}
}

// A retry marker whose batch is gone (a stop between finishing the batch and
// removing the marker) is removed at start and does not fail a later batch
// of the same name.
func TestStaleRetryMarkerRemoved(t *testing.T) {
	f := newFixture(t, "")
	cur := filepath.Join(f.spool, DirCur)
	os.MkdirAll(cur, 0o750)
	if err := os.WriteFile(filepath.Join(cur, ".a.npy.retry"), nil, 0o640); err != nil {
		t.Fatal(err)
	}
	_, ch := startRunner(t, f, NewRecorder())
	waitFor(t, 5*time.Second, "the stale marker removed", func() bool {
		_, err := os.Stat(filepath.Join(cur, ".a.npy.retry"))
		return os.IsNotExist(err)
	})
	rng := rand.New(rand.NewPCG(65, 66))
	f.drop(t, "a.npy", batch(rng, "alice"))
	if got := next(t, ch); got.Decision != "alice" {
		t.Errorf("batch a.npy after a stale marker: %+v", got)
	}
}

// More batches left in cur/ than the queue holds are all handled in this
// run, none waits for a restart.
func TestManyInterruptedBatchesBeyondQueue(t *testing.T) {
	f := newFixture(t, "")
	rng := rand.New(rand.NewPCG(67, 68))
	cur := filepath.Join(f.spool, DirCur)
	if err := os.MkdirAll(cur, 0o750); err != nil {
		t.Fatal(err)
	}
	for i := range 7 {
		name := "int" + itoa(i) + ".npy"
		f.drop(t, name, batch(rng, "alice"))
		if err := os.Rename(filepath.Join(f.spool, DirNew, name), filepath.Join(cur, name)); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(f.config)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan *Record, 100)
	r, err := New(Options{Config: cfg, Driver: NewRecorder(), QueueLen: 2, Observe: func(rec *Record) { c := *rec; ch <- &c }})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	seen := map[string]bool{}
	for range 7 {
		rec := next(t, ch)
		if seen[rec.File] {
			t.Errorf("%s handled twice", rec.File)
		}
		seen[rec.File] = true
	}
}
