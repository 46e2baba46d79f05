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

	"setmatch/internal/testutil"
)

// writeBurst makes tmp/name/ with n frame files and renames it into new/.
func writeBurst(t *testing.T, dir, name string, n int) {
	t.Helper()
	tmp := filepath.Join(dir, DirTmp, name)
	if err := os.Mkdir(tmp, 0o770); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(tmp, "f"+string(rune('0'+i))+".png"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(tmp, filepath.Join(dir, DirNew, name)); err != nil {
		t.Fatal(err)
	}
}

// TestSpoolBurstDirs checks that a burst directory moves through the spool
// whole: pending, claimed, failed with its reason, done, and removed with its
// frames by Finish (done = delete) and by the caps of done/ and failed/,
// which count it as one batch.
func TestSpoolBurstDirs(t *testing.T) {
	sp, dir := openTemp(t, Options{KeepDone: true, DoneMaxFiles: 1, FailedMaxFiles: 1})
	// Bursts of 1 to 4 frames arrive in the order w, k, c, a: not the
	// order of their names.
	arr := arrivals{t: t}
	arrival := []string{"w", "k", "c", "a"}
	for i, name := range arrival {
		writeBurst(t, dir, name, i+1)
		arr.next(filepath.Join(dir, DirNew, name))
	}
	got, err := sp.Pending()
	if err != nil || !slices.Equal(got, arrival) {
		t.Fatalf("pending %v, %v; want %v, by arrival", got, err, arrival)
	}
	for _, name := range got {
		if _, err := sp.Claim(name); err != nil {
			t.Fatal(err)
		}
		f, fi, err := sp.OpenClaimed(name)
		if err != nil {
			t.Fatalf("OpenClaimed(%s): %v", name, err)
		}
		f.Close()
		if !fi.IsDir() {
			t.Fatalf("OpenClaimed(%s): mode %v, want a directory", name, fi.Mode())
		}
	}
	if _, err := readClaimed(sp, "w", 0); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory read as a batch file: %v, want not a regular file", err)
	}
	// Two failed (w, then c), two done (k, then a): the caps of 1 remove
	// the older of each, frames and reason included.
	for _, name := range []string{"w", "c"} {
		if err := sp.Fail(name, "bad frame"); err != nil {
			t.Fatal(err)
		}
		arr.next(filepath.Join(dir, DirFailed, name))
	}
	for _, name := range []string{"k", "a"} {
		if err := sp.Finish(name); err != nil {
			t.Fatal(err)
		}
		arr.next(filepath.Join(dir, DirDone, name))
	}
	if fi, err := os.Stat(filepath.Join(dir, DirFailed, "c", "f2.png")); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("failed/c not kept whole: %v", err)
	}
	if n, err := sp.Prune(time.Now()); err != nil || n != 2 {
		t.Fatalf("prune removed %d, %v; want 2", n, err)
	}
	if got := testutil.Names(t, filepath.Join(dir, DirFailed)); !slices.Equal(got, []string{".reasons", "c"}) {
		t.Errorf("failed/ holds %v, want c, the newer, and .reasons", got)
	}
	if got := testutil.Names(t, filepath.Join(dir, DirFailed, DirReasons)); !slices.Equal(got, []string{"c"}) {
		t.Errorf("failed/.reasons holds %v, want the reason of c only", got)
	}
	if got := testutil.Names(t, filepath.Join(dir, DirDone)); !slices.Equal(got, []string{"a"}) {
		t.Errorf("done/ holds %v, want a, the newer", got)
	}

	// done = "delete" removes a burst with its frames (one Spool holds a
	// spool at a time).
	sp.Close()
	del, err := Open(Options{Dir: dir, KeepDone: false})
	if err != nil {
		t.Fatal(err)
	}
	defer del.Close()
	writeBurst(t, dir, "b5", 3)
	if _, err := del.Claim("b5"); err != nil {
		t.Fatal(err)
	}
	if err := del.Finish("b5"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, DirCur, "b5")); !os.IsNotExist(err) {
		t.Errorf("cur/b5 still there after Finish without KeepDone: %v", err)
	}
}

// TestWatcherSeesBurstDirs checks that a directory renamed into new/ is
// queued from its event, and one waiting at start from the start-up scan.
func TestWatcherSeesBurstDirs(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	writeBurst(t, dir, "early", 2)
	q := NewQueue(10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// No timed rescan within the test: only the start-up scan and events.
	w, err := Watch(ctx, sp, q, time.Hour, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := popName(ctx, t, q); got != "early" {
		t.Fatalf("start-up scan queued %q, want early", got)
	}
	writeBurst(t, dir, "live", 2)
	if got := popName(ctx, t, q); got != "live" {
		t.Fatalf("event queued %q, want live", got)
	}
	cancel()
	w.Wait()
}

// TestReusedNameReplaces: a batch whose name is already in done/ or
// failed/ replaces the one there, whatever the kinds (a burst over a
// burst, a file over a burst, a burst over a file), instead of staying
// in cur/ to be decided again at every start.
func TestReusedNameReplaces(t *testing.T) {
	sp, dir := openTemp(t, Options{KeepDone: true})
	file := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, DirNew, name), []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	burst := func(n int) func(string) { return func(name string) { writeBurst(t, dir, name, n) } }
	for _, sub := range []string{DirDone, DirFailed} {
		for _, c := range []struct {
			name       string
			old, again func(string)
			frames     int // of the batch kept; 0 for a file
		}{
			{"burst-over-burst", burst(3), burst(1), 1},
			{"file-over-burst", burst(2), file, 0},
			{"burst-over-file", file, burst(2), 2},
		} {
			for i, put := range []func(string){c.old, c.again} {
				put(c.name)
				if _, err := sp.Claim(c.name); err != nil {
					t.Fatal(err)
				}
				var err error
				if sub == DirDone {
					err = sp.Finish(c.name)
				} else {
					err = sp.Fail(c.name, "reason")
				}
				if err != nil {
					t.Fatalf("%s %s, batch %d: %v", sub, c.name, i+1, err)
				}
			}
			if _, err := os.Lstat(filepath.Join(dir, DirCur, c.name)); !os.IsNotExist(err) {
				t.Errorf("%s %s: still in cur/ (%v)", sub, c.name, err)
			}
			kept := filepath.Join(dir, sub, c.name)
			if c.frames == 0 {
				if b, err := os.ReadFile(kept); err != nil || string(b) != "new" {
					t.Errorf("%s %s: %q, %v; want the new file", sub, c.name, b, err)
				}
			} else if es, err := os.ReadDir(kept); err != nil || len(es) != c.frames {
				t.Errorf("%s %s: %d frames, %v; want the new burst's %d", sub, c.name, len(es), err, c.frames)
			}
		}
	}
}
