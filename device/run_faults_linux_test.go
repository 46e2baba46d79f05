package device

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"setmatch/device/devicetest"
	"setmatch/device/gpio/gpiotest"
	"setmatch/device/journal"
	"setmatch/device/spool"
	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
)

// A journal that cannot be written must not cost a batch: it stays in cur/
// (retried), nothing else is claimed, and it is still there after a stop.
func TestJournalUnwritableHoldsBatch(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	f.Journal = "/dev/full" // every write fails with ENOSPC
	f.WriteConfig(t, "")
	cfg := fixtureConfig(t, f)
	retries := &msgCounter{prefix: "journal cannot be written"}
	r, err := New(Options{Config: cfg, Log: slog.New(retries), Driver: gpiotest.NewRecorder(), JournalRetry: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(61, 62))
	f.Drop(t, "a.npy", devicetest.Batch(rng, "alice"))
	cur := filepath.Join(f.Spool, spool.DirCur)
	testutil.WaitFor(t, 10*time.Second, "the batch claimed into cur/", func() bool {
		return strings.Contains(strings.Join(testutil.Names(t, cur), " "), "a.npy")
	})
	f.Drop(t, "b.npy", devicetest.Batch(rng, "bob"))
	// Retries (the wait doubles each time) with b.npy waiting.
	from := retries.n.Load()
	testutil.WaitFor(t, 10*time.Second, "three more journal retries", func() bool { return retries.n.Load() >= from+3 })
	if r.busy.Load() != nil {
		t.Error("the batch waiting for the journal counts as in hand: the watchdog would restart the daemon for a full disk")
	}
	if got := devicetest.Batches(t, filepath.Join(f.Spool, spool.DirFailed)); len(got) != 0 {
		t.Errorf("failed/ holds %v: a batch was given up because of the journal", got)
	}
	if got := testutil.Names(t, filepath.Join(f.Spool, spool.DirDone)); len(got) != 0 {
		t.Errorf("done/ holds %v without a journal line", got)
	}
	if got := testutil.Names(t, filepath.Join(f.Spool, spool.DirNew)); len(got) != 1 || got[0] != "b.npy" {
		t.Errorf("new/ holds %v, want b.npy waiting", got)
	}
	r.Stop()
	r.Wait()
	r.Close()
	if got := testutil.Names(t, cur); !strings.Contains(strings.Join(got, " "), "a.npy") {
		t.Errorf("after stopping, cur/ holds %v, want a.npy kept for the next start", got)
	}
}

// TestJournalUnwritableHoldsFailedBatch: a batch that fails leaves cur/
// for failed/ only once its journal line is written: stopped while the
// journal cannot be written, it stays in cur/ for the next start.
func TestJournalUnwritableHoldsFailedBatch(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	f.Journal = "/dev/full" // every write fails with ENOSPC
	f.WriteConfig(t, "")
	retries := &msgCounter{prefix: "journal cannot be written"}
	r, _ := newRunner(t, f, retries)
	tmp := filepath.Join(f.Spool, spool.DirTmp, "bad.npy")
	if err := os.WriteFile(tmp, []byte("\x93NUMPY garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(f.Spool, spool.DirNew, "bad.npy")); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "a journal retry", func() bool { return retries.n.Load() >= 1 })
	r.Stop()
	r.Wait()
	r.Close()
	if got := devicetest.Batches(t, filepath.Join(f.Spool, spool.DirFailed)); len(got) != 0 {
		t.Errorf("failed/ holds %v without a journal line", got)
	}
	if got := testutil.Names(t, filepath.Join(f.Spool, spool.DirCur)); !slices.Contains(got, "bad.npy") {
		t.Errorf("after stopping, cur/ holds %v, want bad.npy kept for the next start", got)
	}
}

// A FIFO in new/ must not block the daemon: it goes to failed/ and the next
// batch is handled.
func TestFIFOInSpoolDoesNotBlock(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	rec := gpiotest.NewRecorder()
	_, ch := startRunner(t, f, rec)
	os.MkdirAll(filepath.Join(f.Spool, "tmp"), 0o755)
	tmp := testutil.FIFO(t, filepath.Join(f.Spool, "tmp"), "fifo.npy")
	if err := os.Rename(tmp, filepath.Join(f.Spool, spool.DirNew, "fifo.npy")); err != nil {
		t.Fatal(err)
	}
	first := next(t, ch)
	if first.File != "fifo.npy" || first.Decision != "failed" {
		t.Errorf("FIFO batch: %+v, want a failed record", first)
	}
	rng := rand.New(rand.NewPCG(63, 64))
	f.Drop(t, "a.npy", devicetest.Batch(rng, "alice"))
	if got := next(t, ch); got.File != "a.npy" || got.Decision != "alice" {
		t.Errorf("batch after the FIFO: %+v", got)
	}
}

// A retry marker whose batch is gone (a stop between finishing the batch and
// removing the marker) is removed at start and does not fail a later batch
// of the same name.
func TestStaleRetryMarkerRemoved(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	cur := filepath.Join(f.Spool, spool.DirCur)
	os.MkdirAll(cur, 0o750)
	if err := os.WriteFile(filepath.Join(cur, ".a.npy.retry"), nil, 0o640); err != nil {
		t.Fatal(err)
	}
	_, ch := startRunner(t, f, gpiotest.NewRecorder())
	testutil.WaitFor(t, 5*time.Second, "the stale marker removed", func() bool {
		_, err := os.Stat(filepath.Join(cur, ".a.npy.retry"))
		return os.IsNotExist(err)
	})
	rng := rand.New(rand.NewPCG(65, 66))
	f.Drop(t, "a.npy", devicetest.Batch(rng, "alice"))
	if got := next(t, ch); got.Decision != "alice" {
		t.Errorf("batch a.npy after a stale marker: %+v", got)
	}
}

// More batches left in cur/ than the queue holds are all handled in this
// run, none waits for a restart.
func TestManyInterruptedBatchesBeyondQueue(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	rng := rand.New(rand.NewPCG(67, 68))
	cur := filepath.Join(f.Spool, spool.DirCur)
	if err := os.MkdirAll(cur, 0o750); err != nil {
		t.Fatal(err)
	}
	for i := range 7 {
		name := "int" + strconv.Itoa(i) + ".npy"
		f.Drop(t, name, devicetest.Batch(rng, "alice"))
		if err := os.Rename(filepath.Join(f.Spool, spool.DirNew, name), filepath.Join(cur, name)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := fixtureConfig(t, f)
	ch := make(chan *journal.Record, 100)
	r, err := New(Options{Config: cfg, Driver: gpiotest.NewRecorder(), QueueLen: 2, Observe: func(rec *journal.Record) { c := *rec; ch <- &c }})
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

// TestUnreadableBurstFails: a burst in cur/ whose folder the daemon's
// user may write in but not read (mode 0300) fails with a line that says
// burst and a reason that says it is an image burst the daemon's user
// cannot read and what the camera must do, also where its name ends in
// .tar or .png (not the archive's or the one image's reason). Root reads
// every folder, so as root the test runs itself again as another user.
func TestUnreadableBurstFails(t *testing.T) {
	if os.Geteuid() == 0 {
		testexec.RunTestAs(t, testexec.OtherUser, testexec.OtherUser, nil) // root reads every folder
		return
	}
	f := devicetest.NewFixture(t, "")
	names := []string{"door", "door.tar", "door.png"}
	for _, name := range names {
		p := filepath.Join(f.Spool, spool.DirCur, name)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "frame-0001.png"), []byte("png"), 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o300); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(p, 0o700); os.Chmod(filepath.Join(f.Spool, spool.DirFailed, name), 0o700) }) // for TempDir's removal
	}
	_, ch := startRunner(t, f, gpiotest.NewRecorder())
	for range names {
		r := next(t, ch)
		if r.Decision != "failed" || !r.Burst || !strings.Contains(r.Reason, "image burst "+r.File+" (mode 0300) cannot be read by the daemon's user") || !strings.Contains(r.Reason, "mode 2770") {
			t.Errorf("a burst the daemon's user cannot read: %+v", r)
		}
	}
}
