package spool

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
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
