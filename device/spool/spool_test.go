package device

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"periph.io/x/conn/v3/gpio"
)

func TestQueueDedupAndBound(t *testing.T) {
	q := newQueue(3)
	if !q.add(item{name: "a"}) || q.add(item{name: "a"}) {
		t.Fatal("a name waiting was queued twice")
	}
	q.add(item{name: "b"})
	q.add(item{name: "c"})
	if q.add(item{name: "d"}) {
		t.Fatal("a full queue took another name")
	}
	ctx := context.Background()
	it, _ := q.pop(ctx)
	if it.name != "a" {
		t.Fatalf("popped %q, want a (FIFO)", it.name)
	}
	if q.add(item{name: "a"}) {
		t.Fatal("a name in flight was queued again")
	}
	q.done("a")
	if !q.add(item{name: "a"}) {
		t.Fatal("a finished name could not be queued again")
	}
	for range 3 {
		it, _ := q.pop(ctx)
		q.done(it.name)
	}
	// The drop of "d" asks for a rescan once the queue has drained.
	select {
	case <-q.rescan:
	default:
		t.Fatal("no rescan requested after names were dropped")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, ok := q.pop(cctx); ok {
		t.Fatal("pop on an empty queue returned after cancel")
	}
}

func TestSpoolClaimFailPrune(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	sp, err := OpenSpool(SpoolOptions{Dir: dir, KeepDone: true, DoneMaxFiles: 2, FailedMaxFiles: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
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
		time.Sleep(5 * time.Millisecond) // distinct change times
	}
	got, err := sp.Pending()
	if err != nil || strings.Join(got, ",") != "a.npy,b.npy" {
		t.Fatalf("pending %v, %v; want a.npy,b.npy (oldest first, writers' temp files ignored)", got, err)
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
	if b, _ := os.ReadFile(filepath.Join(dir, DirFailed, "a.npy.err")); string(b) != "bad header\n" {
		t.Fatalf("reason file holds %q", b)
	}
	if _, err := sp.ReadClaimed("b.npy", 0); err == nil {
		t.Fatal("read a batch that was not claimed")
	}
	sp.Claim("b.npy")
	if _, err := sp.ReadClaimed("b.npy", 0); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, DirCur, "b.npy"), []byte("too long"), 0o644)
	var tl *TooLargeError
	if _, err := sp.ReadClaimed("b.npy", 4); !errors.As(err, &tl) {
		t.Fatalf("oversized batch: %v", err)
	}
	if err := sp.Unclaim("b.npy"); err != nil {
		t.Fatal(err)
	}
	if got, _ := sp.Pending(); len(got) != 1 {
		t.Fatalf("after unclaim, pending %v", got)
	}

	for _, n := range []string{"c", "d", "e", "f"} {
		put(n)
		sp.Claim(n)
		if n == "f" {
			sp.Fail(n, "second failure")
		} else if err := sp.Finish(n); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n, err := sp.Prune(time.Now()); err != nil || n != 2 {
		t.Fatalf("prune removed %d (%v), want 2", n, err)
	}
	if got := strings.Join(names(t, filepath.Join(dir, DirDone)), ","); got != "d,e" {
		t.Errorf("done/ after prune: %s, want the newest two", got)
	}
	if got := strings.Join(names(t, filepath.Join(dir, DirFailed)), ","); got != "f,f.err" {
		t.Errorf("failed/ after prune: %s, want the newest with its reason", got)
	}

	// Deleting instead of keeping.
	sp2, _ := OpenSpool(SpoolOptions{Dir: dir})
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

func TestSpoolNotADirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, DirNew), nil, 0o644)
	if _, err := OpenSpool(SpoolOptions{Dir: dir}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("got %v", err)
	}
}

func TestJournalRotate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := OpenJournal(p, 600, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := j.Append(&Record{File: itoa(i), Decision: "alice", Score: finite(0.1)}); err != nil {
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
	j, _ = OpenJournal(p, 0, 1)
	if err := j.Append(&Record{File: "inf", RunnerSc: finite(math.Inf(1))}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	recs := readJournal(t, p)
	if r := recs[len(recs)-1]; r.File != "inf" || r.RunnerSc != nil {
		t.Errorf("got %+v", r)
	}
}

func TestSignallerSerialisesPulses(t *testing.T) {
	rec := NewRecorder()
	s, err := NewSignaller(rec, SignalOptions{Pins: Pins{Match: "GPIO17", Unknown: "GPIO27"}, Pulse: 20 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := s.Pulse("GPIO17"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Pulse("GPIO4"); err == nil {
		t.Error("pulsed a line that is not configured")
	}
	waitFor(t, 5*time.Second, "three pulses", func() bool { return len(pulses(rec.Transitions(), "GPIO17", gpio.High)) == 3 })
	// Pulses on one line never overlap and are separated by idle time.
	var last time.Time // end of the previous pulse
	high := false
	for _, x := range rec.Transitions() {
		if x.Pin != "GPIO17" {
			continue
		}
		if x.Level == gpio.High {
			if high {
				t.Error("line driven active twice without going idle")
			}
			if !last.IsZero() && x.Time.Sub(last) < 20*time.Millisecond {
				t.Errorf("pulse started %v after the previous ended", x.Time.Sub(last))
			}
			high = true
		} else if high {
			last, high = x.Time, false
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Pulse("GPIO17"); err == nil {
		t.Error("pulse accepted after Close")
	}
	for _, p := range []string{"GPIO17", "GPIO27"} {
		if l, ok := rec.Level(p); !ok || l != gpio.Low {
			t.Errorf("%s: %v", p, l)
		}
	}
	if !rec.Closed() {
		t.Error("driver not closed")
	}
}

func TestPeriphMissingLine(t *testing.T) {
	d, err := OpenDriver("periph", "", nil)
	if err != nil {
		t.Fatalf("periph init: %v", err)
	}
	defer d.Close()
	_, err = d.Open("SETMATCH_NO_SUCH_LINE")
	var mp *MissingPinError
	if !errors.As(err, &mp) {
		t.Fatalf("got %v, want *MissingPinError", err)
	}
	if !strings.Contains(err.Error(), "SETMATCH_NO_SUCH_LINE") || !strings.Contains(err.Error(), "gpioinfo") {
		t.Errorf("error does not name the pin and how to list lines: %v", err)
	}
	if _, err := os.Stat("/dev/gpiochip0"); os.IsNotExist(err) && len(mp.Available) != 0 {
		t.Errorf("no chip, yet lines listed: %v", mp.Available)
	}
	if _, err := OpenDriver("periph", "gpiochip-nope", nil); err == nil {
		t.Error("a missing chip was accepted")
	}
	if _, err := OpenDriver("serial", "", nil); err == nil {
		t.Error("an unknown backend was accepted")
	}
}

// TestWatcherOverflowRescan checks that an inotify overflow makes the
// watcher rescan new/ (the events lost are not sent again), and that a
// watch that ended is added again.
func TestWatcherOverflowRescan(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	sp, err := OpenSpool(SpoolOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	q := newQueue(100)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// No timed rescan within the test: only the overflow can find the file.
	w, err := startWatcher(ctx, sp, q, time.Hour, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	popName := func() string {
		t.Helper()
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		it, ok := q.pop(c)
		if !ok {
			t.Fatal("nothing queued")
		}
		q.done(it.name)
		return it.name
	}
	// Stop the events, as if they were lost, and drop a file.
	if err := w.fw.Remove(w.newDir); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, DirNew, "lost.npy"), nil, 0o644)
	w.fw.Errors <- fsnotify.ErrEventOverflow
	if got := popName(); got != "lost.npy" {
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
	if got := popName(); got != "ev.npy" {
		t.Fatalf("queued %q", got)
	}
	cancel()
	w.wait()
}

// A name seen again while in flight (a writer reused it) asks for a rescan as
// soon as the first one is done, not at the next periodic rescan.
func TestQueueReusedNameAsksRescan(t *testing.T) {
	q := newQueue(4)
	q.add(item{name: "a"})
	it, _ := q.pop(context.Background())
	q.add(item{name: "a"}) // the new file, seen while the old one is in hand
	select {
	case <-q.rescan:
		t.Fatal("rescan requested while the first a is still in flight")
	default:
	}
	q.done(it.name)
	select {
	case <-q.rescan:
	default:
		t.Fatal("no rescan requested for the reused name")
	}
	q.done("b") // a name never seen again: no rescan
	select {
	case <-q.rescan:
		t.Fatal("rescan requested for a name that was not seen again")
	default:
	}
}

// Batches left in cur/ beyond the queue's length are not forgotten: they are
// offered again at every scan until the queue takes them.
func TestLeftoversBeyondQueueLength(t *testing.T) {
	q := newQueue(2)
	for _, n := range []string{"a", "b"} {
		if !q.offer(item{name: n, claimed: true}) {
			t.Fatalf("offer %s to an empty queue failed", n)
		}
	}
	if q.offer(item{name: "c", claimed: true}) {
		t.Fatal("a full queue took c")
	}
	if !q.offer(item{name: "a", claimed: true}) {
		t.Error("offer of a name already waiting reported a loss")
	}
	it, _ := q.pop(context.Background())
	q.done(it.name)
	it, _ = q.pop(context.Background())
	q.done(it.name)
	select {
	case <-q.rescan: // the refused offer asked for a rescan once drained
	default:
		t.Fatal("no rescan requested after the queue refused an offer")
	}
	if !q.offer(item{name: "c", claimed: true}) {
		t.Error("the drained queue refused c")
	}
}
