package spool

import (
	"context"
	"sync"
)

// Item is one batch name waiting for a worker. Claimed is true for a batch
// found in cur/ at start-up: it was claimed by an earlier run that did not
// finish it, and is handled again from cur/.
type Item struct {
	Name    string
	Claimed bool
}

// Queue is a bounded FIFO of batch names with de-duplication, fed by a
// Watcher and emptied by the workers: a name that is waiting or being
// handled is not added again, so a file seen both by an fsnotify event and
// by a rescan is handled once. When the queue is full, names are dropped (the
// files stay in new/) and the next rescan, which the queue requests once it
// has drained, picks them up again: memory stays bounded whatever arrives.
// Until that rescan, names from file events are dropped too, room or not:
// the batches dropped arrived before them, and the rescan queues them all
// in arrival order, so that no batch overtakes one that arrived earlier.
// A name handled while a scan lists new/ is not queued by that scan: the
// listing may hold its file from before the claim, and the queue holds only
// names whose files wait in new/ (or cur/, for a claimed item), so that its
// length is the number of batches waiting. (Where file events may have been
// lost, a scan queues such a name all the same.)
// A Queue is safe for concurrent use.
type Queue struct {
	mu      sync.Mutex
	items   []Item
	head    int
	max     int
	known   map[string]state    // waiting or in flight
	again   map[string]struct{} // seen again while in flight: a new file of the same name
	handled map[string]struct{} // done since the scan under way began its listing; nil: no scan
	lost    bool                // the scan under way may find files whose events were lost
	dropped bool                // names were dropped since the last rescan
	drops   uint64              // names dropped in all: a rescan's listing holds those before it
	ready   chan struct{}       // 1-buffered: "something to pop"
	rescan  chan struct{}       // 1-buffered: "names were dropped; rescan now"
	closed  bool
}

// NewQueue returns a Queue that holds at most max waiting names (at least 1).
func NewQueue(max int) *Queue {
	if max < 1 {
		max = 1
	}
	return &Queue{
		max:    max,
		known:  make(map[string]state),
		again:  make(map[string]struct{}),
		ready:  make(chan struct{}, 1),
		rescan: make(chan struct{}, 1),
	}
}

// state is what a name known to the queue stands for.
type state uint8

const (
	waitingInNew   state = iota // a batch of new/ waiting for its claim, which takes the file there, whichever it is
	claimedFromNew              // popped, claimed or about to be: a file of its name in new/ is another batch
	ofCur                       // a batch of cur/ (Item.Claimed), waiting or in flight: one in new/ is another
)

// add enqueues it, a name from a file event, unless its name is already
// waiting or in flight, and reports whether it did. A full queue, or one
// whose dropped names wait for their rescan, drops the name (it stays in
// new/ for that rescan).
func (q *Queue) add(it Item) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	queued, _ := q.enqueue(it, q.dropped)
	return queued
}

// beginScan is called by a scan before it lists new/: it returns how many
// names the queue has dropped so far, for scanned, and notes from then on
// the names handled (Done). lost says that file events may have been lost
// (an inotify overflow or error, a watch that ended): the scan is then
// all there is to find a file of a name handled or in flight.
func (q *Queue) beginScan(lost bool) uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.handled = make(map[string]struct{})
	q.lost = lost
	return q.drops
}

// scanned queues the names of a scan, in one step: first the batches left
// in cur/ (leftover, as claimed items), then the names in new/, both in
// arrival order. Unless events were lost (beginScan), it leaves out the
// names handled since the scan began and those of new/ waiting or in
// flight: the listing may hold their files from before their claims, and
// a file of the same name that came since was seen by its event (which
// queued it, or dropped it and asked for a rescan, or asks for one when
// the name is done). Where events were lost it queues the names handled,
// and notes those in flight to ask for a rescan when done. A name of a
// batch of cur/ is noted in either case. It returns how many of leftover it took
// (those not taken, the queue being full, are offered again at the next
// scan: they must not be lost) and how many names of new/ it queued. Where
// listed (names is the listing of new/, not a listing that failed) and no
// name was dropped since beginScan (before its listing, which
// then holds every name dropped), it is the rescan a drop asked for, and
// lets names from events in again, unless it drops names in turn. A name
// dropped during the listing asks for another rescan: at once where the
// queue is empty, else once it has drained.
func (q *Queue) scanned(drops uint64, leftover, names []string, listed bool) (took, queued int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if listed && q.drops == drops {
		q.dropped = false
	}
	for _, name := range leftover {
		ok, known := q.enqueue(Item{Name: name, Claimed: true}, false)
		if !ok && !known {
			break
		}
		took++
	}
	for _, name := range names {
		if !q.lost {
			_, handled := q.handled[name]
			if st, known := q.known[name]; handled || known && st != ofCur {
				continue
			}
		}
		if ok, _ := q.enqueue(Item{Name: name}, false); ok {
			queued++
		}
	}
	q.handled, q.lost = nil, false
	if listed && q.dropped && q.head == len(q.items) {
		poke(q.rescan) // no drain to come would ask for it
	}
	return took, queued
}

// enqueue is add and scanned, with q.mu held: queued tells whether it was
// added, known whether its name was already waiting or in flight. A name
// in flight, or one of a batch of cur/, is noted, so that Done asks for a
// rescan: a writer may have reused the name. A name waiting for its claim
// from new/ is not: the claim takes the file there, whichever it is. With
// refuse a name not known is dropped as a full queue drops it.
func (q *Queue) enqueue(it Item, refuse bool) (queued, known bool) {
	if q.closed {
		return false, false
	}
	if st, ok := q.known[it.Name]; ok {
		if st != waitingInNew {
			q.again[it.Name] = struct{}{}
		}
		return false, true
	}
	if refuse || len(q.items)-q.head >= q.max {
		q.dropped = true
		q.drops++
		return false, false
	}
	q.known[it.Name] = waitingInNew
	if it.Claimed {
		q.known[it.Name] = ofCur
	}
	q.items = append(q.items, it)
	poke(q.ready)
	return true, false
}

// Pop waits for a name or for ctx to end. The name stays "known" until Done
// is called with it, so that it is not queued twice while in flight.
func (q *Queue) Pop(ctx context.Context) (Item, bool) {
	for {
		q.mu.Lock()
		if q.head < len(q.items) {
			it := q.items[q.head]
			q.items[q.head] = Item{}
			q.head++
			if !it.Claimed {
				q.known[it.Name] = claimedFromNew
			}
			if q.head == len(q.items) {
				q.items, q.head = q.items[:0], 0
				if q.dropped {
					poke(q.rescan) // which clears dropped (scanned)
				}
			} else if q.head > 1024 && q.head*2 > len(q.items) {
				q.items = append(q.items[:0], q.items[q.head:]...)
				q.head = 0
			}
			if q.head < len(q.items) {
				poke(q.ready) // wake another worker
			}
			q.mu.Unlock()
			return it, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return Item{}, false
		case <-q.ready:
		}
	}
}

// Done forgets a name handed out by Pop. If the name was seen again while
// it was in flight (a writer reused it), a rescan is requested at once
// rather than at the next periodic one.
func (q *Queue) Done(name string) {
	q.mu.Lock()
	delete(q.known, name)
	if q.handled != nil {
		q.handled[name] = struct{}{}
	}
	if _, ok := q.again[name]; ok {
		delete(q.again, name)
		poke(q.rescan)
	}
	q.mu.Unlock()
}

// Len returns the number of names waiting for a worker (not those in
// flight).
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) - q.head
}

// Close stops accepting names.
func (q *Queue) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
}

// poke does a non-blocking send on a 1-buffered channel.
func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
