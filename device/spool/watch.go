package spool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watcher feeds a Queue with the names of batches in new/: from fsnotify
// events, from a scan at start-up and on a slow timer, and from a scan after
// the kernel's event queue overflowed (those events are lost for good) or
// after the bounded queue had to drop names.
//
// fsnotify's channels are unbuffered, so the event loop does nothing but
// queue names; claiming and reading happen in the workers.
type Watcher struct {
	sp     *Spool
	q      *Queue
	fw     *fsnotify.Watcher
	every  time.Duration
	log    *slog.Logger
	newDir string

	kick  chan struct{} // 1-buffered: rescan now
	wg    sync.WaitGroup
	prune func() // called after each timed rescan; may be nil

	// leftover holds batches found in cur/ at start that the bounded queue
	// could not take yet; every scan offers them again, before new/.
	// Touched by Watch and then only by the rescans goroutine.
	leftover []string
}

// Watch queues the batches left in cur/ by an interrupted run (as claimed
// items), adds the fsnotify watch on new/ and only then scans new/, so that no
// file renamed in during start-up is missed. It then rescans new/ every
// every (30 s if every ≤ 0), calling prune (if not nil) after each timed
// rescan, and runs until ctx ends. A scan whose listing of new/ fails is
// tried again once, retryAfter later; a scan for events that may have been
// lost leaves that to every scan after it until one lists new/.
func Watch(ctx context.Context, sp *Spool, q *Queue, every time.Duration, log *slog.Logger, prune func()) (*Watcher, error) {
	w := &Watcher{sp: sp, q: q, every: every, log: log, newDir: filepath.Join(sp.Dir(), DirNew),
		kick: make(chan struct{}, 1), prune: prune}
	cur, err := sp.Interrupted()
	if err != nil {
		return nil, err
	}
	for _, name := range cur {
		log.Info("handling batch left in cur/ by an interrupted run", "file", name)
	}
	w.leftover = cur
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("spool: inotify: %w (raise fs.inotify.max_user_instances?)", err)
	}
	if err := fw.Add(w.newDir); err != nil {
		fw.Close()
		return nil, fmt.Errorf("spool: watch %s: %w", w.newDir, err)
	}
	w.fw = fw
	listed := w.scan(false) // nothing handled or in flight yet
	w.wg.Add(2)
	go w.events(ctx)
	go w.rescans(ctx, listed)
	return w, nil
}

// Wait waits for the watcher's goroutines to end (after ctx ended).
func (w *Watcher) Wait() { w.wg.Wait() }

func (w *Watcher) events(ctx context.Context) {
	defer w.wg.Done()
	defer w.fw.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			// A rename into new/ (IN_MOVED_TO) shows up as Create.
			if ev.Has(fsnotify.Create) {
				if name := filepath.Base(ev.Name); !ignored(name) {
					w.q.add(Item{Name: name})
				}
			}
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.log.Warn("inotify queue overflowed: rescanning new/", "dir", w.newDir)
			} else {
				w.log.Error("inotify", "err", err)
			}
			poke(w.kick)
		}
	}
}

// retryAfter is how long after a scan whose listing of new/ failed it is
// tried again, once; after that, the timed rescans try.
const retryAfter = time.Second

// rescans runs the scans after the first, which listed new/ unless its
// listing failed.
func (w *Watcher) rescans(ctx context.Context, listed bool) {
	defer w.wg.Done()
	every := w.every
	if every <= 0 {
		every = 30 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	// A scan whose listing failed is tried again once, soon: until a
	// listing, names a full queue dropped wait in new/ and file events
	// are refused, and files whose events were lost wait too. That events
	// may have been lost holds until a scan lists new/, past a failed
	// retry too: the next scan, timed or asked for, is then the one that
	// finds their files.
	var retry <-chan time.Time
	unlisted := false // events may have been lost since the last listing
	scan := func(lost, again bool) {
		lost = lost || unlisted
		if w.scan(lost) {
			unlisted = false
			return
		}
		unlisted = lost
		if !again {
			retry = time.After(retryAfter)
		}
	}
	if !listed {
		retry = time.After(retryAfter)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.kick:
			scan(true, false)
		case <-w.q.rescan:
			scan(false, false)
		case <-retry:
			retry = nil
			scan(false, true)
		case <-t.C:
			scan(w.rewatch(), false)
			if w.prune != nil {
				w.prune()
			}
		}
	}
}

// scan queues the batches left in cur/ that are still waiting for room, then
// every batch in new/; lost says that file events may have been lost
// (Queue.beginScan). It reports whether it listed new/.
func (w *Watcher) scan(lost bool) bool {
	drops := w.q.beginScan(lost)
	names, err := w.sp.Pending()
	if err != nil {
		w.log.Error("rescan failed", "err", err) // the leftovers are offered all the same
	}
	took, n := w.q.scanned(drops, w.leftover, names, err == nil)
	w.leftover = w.leftover[took:]
	if n > 0 {
		w.log.Debug("rescan queued batches", "count", n)
	}
	return err == nil
}

// rewatch adds the watch again if new/ was removed and re-created: inotify
// ends a watch silently when its directory goes away. It reports whether
// the watch had ended (the events meanwhile are lost).
func (w *Watcher) rewatch() bool {
	if slices.Contains(w.fw.WatchList(), w.newDir) {
		return false
	}
	w.log.Warn("watch on new/ ended (directory removed?): adding it again", "dir", w.newDir)
	if err := w.fw.Add(w.newDir); err != nil {
		w.log.Error("cannot watch new/: relying on rescans", "dir", w.newDir, "err", err)
	}
	return true
}
