package spool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"setmatch/internal/testutil"
)

// TestQueueStress drives a Spool, its Watcher and a Queue as the daemon
// does (workers pop a name, claim it, handle it, Done), with a writer that
// floods new/ beyond the queue's length, reuses names of batches waiting
// or in hand, and loses file events now and then (the watch removed and
// added again, then an overflow), and checks that every file written to
// new/ (and every batch left in cur/) is claimed exactly once and nothing
// is left in new/, with no timed rescan: where events are whole, or lost
// and said so, none is needed: the writer waits now and then until all
// it wrote is claimed, and a batch left in new/ fails the test. With one
// worker and no name reused nor event lost, it checks too that the
// batches are claimed in arrival order, floods included (the writer's
// names sort in the order it writes them, so that batches whose change
// times tie, renamed within one clock tick, are listed in that order too).
// Random; the seed is logged. About 1 s.
func TestQueueStress(t *testing.T) {
	for _, m := range []stressMode{
		{workers: 1},
		{workers: 1, reuse: true, lose: true},
		{workers: 3, reuse: true, lose: true},
	} {
		name := fmt.Sprintf("workers=%d,reuse=%v,lose=%v", m.workers, m.reuse, m.lose)
		t.Run(name, func(t *testing.T) { stress(t, m, 400) })
	}
}

type stressMode struct {
	workers     int
	reuse, lose bool
}

func stress(t *testing.T, m stressMode, files int) {
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 1)) // the writer's
	sp, dir := openTemp(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	qmax := 1 + rng.IntN(8)
	t.Logf("seed %d, queue %d", seed, qmax)

	var mu sync.Mutex
	written := map[int]string{} // id → name
	claimed := map[int]int{}    // id → claims
	var order []int             // ids in the order claimed
	nextID := 0
	// put writes a new batch, its id its content, into sub as name, not
	// over a batch there (fs.ErrExist).
	put := func(sub, name string) error {
		mu.Lock()
		id := nextID
		nextID++
		mu.Unlock()
		tmp := filepath.Join(dir, DirTmp, "w"+strconv.Itoa(id)+".tmp")
		if err := os.WriteFile(tmp, []byte(strconv.Itoa(id)), 0o644); err != nil {
			return err
		}
		defer os.Remove(tmp)
		if err := os.Link(tmp, filepath.Join(dir, sub, name)); err != nil {
			return err
		}
		mu.Lock()
		written[id] = name
		mu.Unlock()
		return nil
	}
	// Files every listing of new/ reads and passes over: a listing takes
	// long enough for file events to come during it.
	for i := range 300 {
		if err := os.WriteFile(filepath.Join(dir, DirNew, "pad"+strconv.Itoa(i)+".tmp"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Batches left in cur/, some with a file of the same name in new/.
	for i := range 1 + rng.IntN(2*qmax) {
		name := fmt.Sprintf("b%03d", i) // in the order written
		if err := put(DirCur, name); err != nil {
			t.Fatal(err)
		}
		if m.reuse && rng.IntN(2) == 0 {
			if err := put(DirNew, name); err != nil {
				t.Fatal(err)
			}
		}
	}

	// pending is what new/ holds for the watcher.
	pending := func() []string {
		var out []string
		for _, n := range testutil.Names(t, filepath.Join(dir, DirNew)) {
			if !ignored(n) {
				out = append(out, n)
			}
		}
		return out
	}
	q := NewQueue(qmax)
	w, err := Watch(ctx, sp, q, time.Hour, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}

	// lost writes with its events lost: the watch removed, the files
	// written, the watch added again, and the overflow said.
	var lostMu sync.Mutex
	lost := func(write func()) error {
		lostMu.Lock()
		defer lostMu.Unlock()
		if err := w.fw.Remove(w.newDir); err != nil {
			return err
		}
		write()
		if err := w.fw.Add(w.newDir); err != nil {
			return err
		}
		select {
		case w.fw.Errors <- fsnotify.ErrEventOverflow:
		case <-ctx.Done():
		}
		return nil
	}
	var wg sync.WaitGroup
	for range m.workers {
		wg.Go(func() {
			for {
				it, ok := q.Pop(ctx)
				if !ok {
					return
				}
				var err error
				if it.Claimed {
					_, err = sp.ClaimedAt(it.Name)
				} else {
					_, err = sp.Claim(it.Name)
				}
				if errors.Is(err, ErrGone) && !it.Claimed {
					q.Done(it.Name)
					continue
				}
				if err != nil {
					t.Errorf("claim %+v: %v", it, err)
					q.Done(it.Name)
					continue
				}
				cur := filepath.Join(dir, DirCur, it.Name)
				b, err := os.ReadFile(cur)
				if err != nil {
					t.Errorf("read claimed %+v: %v", it, err)
				}
				id, err := strconv.Atoi(string(b))
				if err != nil {
					t.Errorf("claimed %+v holds %q", it, b)
				}
				mu.Lock()
				claimed[id]++
				order = append(order, id)
				mu.Unlock()
				if m.reuse && rand.IntN(4) == 0 {
					// A file of the name written while it is in hand,
					// its event seen or lost.
					write := func() {
						if err := put(DirNew, it.Name); err != nil && !errors.Is(err, fs.ErrExist) {
							t.Error(err)
						}
					}
					if m.lose && rand.IntN(3) == 0 {
						if err := lost(write); err != nil {
							t.Error(err)
						}
					} else {
						write()
					}
				}
				for range rand.IntN(64) {
					runtime.Gosched()
				}
				if err := os.Remove(cur); err != nil {
					t.Error(err)
				}
				q.Done(it.Name)
			}
		})
	}

	defer func() {
		cancel()
		wg.Wait()
		w.Wait()
	}()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for id, name := range written {
			if claimed[id] != 1 {
				t.Logf("batch %d (%s) claimed %d times", id, name, claimed[id])
			}
		}
		t.Logf("left in new/: %q; cur/: %q", pending(), testutil.Names(t, filepath.Join(dir, DirCur)))
		q.mu.Lock()
		t.Logf("queue: %d waiting, known %v, again %v, dropped %v (%d in all), scan under way %v, rescan asked %d, kick %d",
			len(q.items)-q.head, q.known, q.again, q.dropped, q.drops, q.handled != nil, len(q.rescan), len(w.kick))
		q.mu.Unlock()
	})

	// quiet waits, the writer idle, for every batch written to be claimed,
	// no worker busy and new/ empty: a batch whose event was seen (or whose loss
	// was said) must not wait for a timed rescan, and none comes.
	quiet := func(when string) {
		t.Helper()
		c, stop := context.WithTimeout(ctx, 5*time.Second)
		defer stop()
		testutil.WaitForCtx(t, c, "every batch claimed and new/ empty "+when, func() bool {
			q.mu.Lock()
			idle := len(q.known) == 0 // none waiting or in hand
			q.mu.Unlock()
			mu.Lock()
			all := len(claimed) == len(written)
			mu.Unlock()
			return idle && all && len(pending()) == 0
		})
	}
	quiet("at start")

	var recent []string
	count, fresh := 0, 0
	add := func(name string) {
		t.Helper()
		switch err := put(DirNew, name); {
		case err == nil:
			count++
			recent = append(recent, name)
			if len(recent) > 16 {
				recent = recent[1:]
			}
		case !errors.Is(err, fs.ErrExist): // fs.ErrExist: the name waits in new/
			t.Fatal(err)
		}
	}
	newName := func() string {
		fresh++
		return fmt.Sprintf("n%06d", fresh) // in the order written
	}
	for count < files {
		for range 1 + rng.IntN(60) {
			switch r := rng.IntN(100); {
			case r < 5: // a flood
				for range qmax + rng.IntN(4*qmax) {
					add(newName())
				}
			case r < 25:
				if m.reuse && len(recent) > 0 {
					add(recent[rng.IntN(len(recent))])
				} else {
					add(newName())
				}
			case r < 26:
				poke(w.kick) // a rescan as after lost events, none lost
			case r < 28 && m.lose:
				err := lost(func() {
					for range 1 + rng.IntN(qmax) {
						if m.reuse && rng.IntN(2) == 0 && len(recent) > 0 {
							add(recent[rng.IntN(len(recent))])
						} else {
							add(newName())
						}
					}
				})
				if err != nil {
					t.Fatal(err)
				}
			default:
				add(newName())
			}
			for range rng.IntN(32) {
				runtime.Gosched()
			}
		}
		quiet("after " + strconv.Itoa(count) + " written")
	}
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for id, name := range written {
		if claimed[id] != 1 {
			t.Errorf("batch %d (%s) claimed %d times, want once", id, name, claimed[id])
		}
	}
	for id := range claimed {
		if _, ok := written[id]; !ok {
			t.Errorf("batch %d claimed, never written", id)
		}
	}
	if n := testutil.Names(t, filepath.Join(dir, DirCur)); len(n) != 0 {
		t.Errorf("left in cur/: %q", n)
	}
	if m.workers == 1 && !m.reuse && !m.lose {
		// One writer, one worker: each batch claimed after every one
		// written before it.
		for i := 1; i < len(order); i++ {
			if order[i] < order[i-1] {
				t.Errorf("batch %d (%s) claimed after batch %d (%s), which arrived after it",
					order[i], written[order[i]], order[i-1], written[order[i-1]])
			}
		}
	}
}
