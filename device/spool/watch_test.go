package spool

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"setmatch/internal/testutil"
)

// TestWatcherOverflowRescan checks that an inotify overflow makes the
// watcher rescan new/ (the events lost are not sent again), and that a
// watch that ended is added again.
func TestWatcherOverflowRescan(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	q := NewQueue(100)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// No timed rescan within the test: only the overflow can find the file.
	w, err := Watch(ctx, sp, q, time.Hour, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Stop the events, as if they were lost, and drop a file.
	if err := w.fw.Remove(w.newDir); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, DirNew, "lost.npy"), nil, 0o644)
	w.fw.Errors <- fsnotify.ErrEventOverflow
	if got := popName(ctx, t, q); got != "lost.npy" {
		t.Fatalf("queued %q", got)
	}
	os.Remove(filepath.Join(dir, DirNew, "lost.npy"))
	// The timed rescan adds the watch again (called here directly); then
	// events work.
	w.rewatch()
	if got := w.fw.WatchList(); len(got) != 1 {
		t.Fatalf("watching %v", got)
	}
	os.WriteFile(filepath.Join(dir, DirTmp, "ev.npy"), nil, 0o644)
	os.Rename(filepath.Join(dir, DirTmp, "ev.npy"), filepath.Join(dir, DirNew, "ev.npy"))
	if got := popName(ctx, t, q); got != "ev.npy" {
		t.Fatalf("queued %q", got)
	}
	cancel()
	w.Wait()
}

// openTemp opens a spool with opt in a fresh directory (opt.Dir), closed
// when the test ends, and returns it and its directory.
func openTemp(t *testing.T, opt Options) (*Spool, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "spool")
	opt.Dir = dir
	sp, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sp.Close() })
	return sp, dir
}

// arrive delivers the file name, holding its name, as a writer does: into
// tmp/ of the spool at dir, then renamed into new/.
func arrive(t *testing.T, dir, name string) {
	t.Helper()
	tmp := filepath.Join(dir, DirTmp, name)
	if err := os.WriteFile(tmp, []byte(name), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, DirNew, name)); err != nil {
		t.Fatal(err)
	}
}

// popName waits up to 10 s for the next name queued on q, marks it done
// and returns it.
func popName(ctx context.Context, t *testing.T, q *Queue) string {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	it, ok := q.Pop(c)
	if !ok {
		t.Fatal("nothing queued")
	}
	q.Done(it.Name)
	return it.Name
}

// TestWatcherKeepsArrivalOrderPastAFullQueue: a batch that arrives while
// names a full queue dropped wait in new/ for their rescan is not queued
// ahead of them: the rescan queues them all in arrival order. (A flood
// beyond the queue's length in the daemon: later batches overtook earlier
// ones.) TestQueueEventWaitsBehindDropped checks the queue's part without
// the file events' timing.
func TestWatcherKeepsArrivalOrderPastAFullQueue(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	q := NewQueue(2)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, err := Watch(ctx, sp, q, time.Hour, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	// take pops a name and removes its file, as the daemon claims it; a
	// name whose file is gone (a rescan listed it before the claim) is
	// passed over, as the daemon's claim passes it over (ErrGone).
	take := func() string {
		t.Helper()
		for {
			it, ok := q.Pop(ctx)
			if !ok {
				t.Fatal("nothing queued")
			}
			err := os.Remove(filepath.Join(dir, DirNew, it.Name))
			q.Done(it.Name)
			if err == nil {
				return it.Name
			}
		}
	}
	for _, n := range []string{"a", "b", "c"} {
		arrive(t, dir, n)
	}
	testutil.WaitFor(t, 10*time.Second, "c dropped by the full queue", func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.dropped
	})
	if got := take(); got != "a" {
		t.Fatalf("popped %q, want a", got)
	}
	arrive(t, dir, "d") // room in the queue; c waits in new/
	var got []string
	for range 3 {
		got = append(got, take())
	}
	if want := []string{"b", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("popped %q after a, want %q: each batch after those that arrived before it", got, want)
	}
	cancel()
	w.Wait()
}

// TestWatcherRetriesAFailedListing: a rescan whose listing of new/ fails
// (new/ moved away for a moment here; an I/O error in the field) is tried
// again soon after, not left to the timed rescan: until a listing, the
// names a full queue dropped wait in new/ and file events are refused.
// About 1 s, the retry's delay.
func TestWatcherRetriesAFailedListing(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	q := NewQueue(1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var logged testutil.LockedBuffer
	// No timed rescan within the test: only the retry can find b.
	w, err := Watch(ctx, sp, q, time.Hour, slog.New(slog.NewTextHandler(&logged, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	arrive(t, dir, "a")
	arrive(t, dir, "b")
	testutil.WaitFor(t, 10*time.Second, "b dropped by the full queue", func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.dropped
	})
	newDir, away := filepath.Join(dir, DirNew), filepath.Join(dir, "away")
	if err := os.Rename(newDir, away); err != nil {
		t.Fatal(err)
	}
	// a handled: the queue drained asks for the rescan, whose listing fails.
	if got := popName(ctx, t, q); got != "a" {
		t.Fatalf("popped %q, want a", got)
	}
	if err := os.Remove(filepath.Join(away, "a")); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "the rescan's listing failed", func() bool {
		return strings.Contains(logged.String(), "rescan failed")
	})
	if err := os.Rename(away, newDir); err != nil {
		t.Fatal(err)
	}
	if got := popName(ctx, t, q); got != "b" {
		t.Fatalf("popped %q, want b", got)
	}
	cancel()
	w.Wait()
}

// TestWatcherKeepsLostPastFailedRetry: a scan for events that may have
// been lost (an inotify overflow) whose listing of new/ fails, and whose
// retry fails too, leaves the loss to the next scan that lists new/: a
// rescan after it acts as a scan for lost events, which notes a name in
// flight that it lists (a writer may have reused the name, its event
// lost) so that its Done asks for a rescan (TestQueueScanAfterLostEvents).
// About 1 s, the retry's delay.
func TestWatcherKeepsLostPastFailedRetry(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	q := NewQueue(8)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var logged testutil.LockedBuffer
	// No timed rescan within the test.
	w, err := Watch(ctx, sp, q, time.Hour, slog.New(slog.NewTextHandler(&logged, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	newDir, away := filepath.Join(dir, DirNew), filepath.Join(dir, "away")
	arrive(t, dir, "a")
	pc, pcancel := context.WithTimeout(ctx, 10*time.Second)
	a, ok := q.Pop(pc) // in flight from here on
	pcancel()
	if !ok || a.Name != "a" {
		t.Fatalf("popped %q, %v; want a", a.Name, ok)
	}
	// Events lost from here on: a new file of the name in flight, and c.
	if err := w.fw.Remove(newDir); err != nil {
		t.Fatal(err)
	}
	arrive(t, dir, "a")
	arrive(t, dir, "c")
	// The overflow's scan and its retry fail to list new/.
	if err := os.Rename(newDir, away); err != nil {
		t.Fatal(err)
	}
	w.fw.Errors <- fsnotify.ErrEventOverflow
	testutil.WaitFor(t, 10*time.Second, "the overflow's scan and its retry to fail", func() bool {
		return strings.Count(logged.String(), "rescan failed") >= 2
	})
	if err := os.Rename(away, newDir); err != nil {
		t.Fatal(err)
	}
	poke(q.rescan) // a rescan, as a drained queue asks for
	if got := popName(ctx, t, q); got != "c" {
		t.Fatalf("popped %q, want c", got)
	}
	q.mu.Lock()
	_, noted := q.again["a"]
	q.mu.Unlock()
	if !noted {
		t.Fatal("the rescan after the failed listings left out a, in flight, as if no event had been lost: its new file waits for the timed rescan")
	}
	q.Done(a.Name)
	if got := popName(ctx, t, q); got != "a" {
		t.Fatalf("popped %q, want a's new file", got)
	}
	cancel()
	w.Wait()
}
