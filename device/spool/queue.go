package device

import (
	"context"
	"sync"
)

// item is one batch name waiting for a worker. claimed is true for a batch
// found in cur/ at start-up: it was claimed by an earlier run that did not
// finish it, and is handled again from cur/.
type item struct {
	name    string
	claimed bool
}

// queue is a bounded FIFO of batch names with de-duplication: a name that is
// waiting or being handled is not added again, so a file seen both by an
// fsnotify event and by a rescan is handled once. When the queue is full,
// names are dropped (the files stay in new/) and the next rescan, which the
// queue requests once it has drained, picks them up again: memory stays
// bounded whatever arrives.
type queue struct {
	mu      sync.Mutex
	items   []item
	head    int
	max     int
	known   map[string]struct{} // waiting or in flight
	again   map[string]struct{} // seen again while in flight: a new file of the same name
	dropped bool
	ready   chan struct{} // 1-buffered: "something to pop"
	rescan  chan struct{} // 1-buffered: "names were dropped; rescan now"
	closed  bool
}

func newQueue(max int) *queue {
	if max < 1 {
		max = 1
	}
	return &queue{
		max:    max,
		known:  make(map[string]struct{}),
		again:  make(map[string]struct{}),
		ready:  make(chan struct{}, 1),
		rescan: make(chan struct{}, 1),
	}
}

// add enqueues it unless its name is already waiting or in flight, and
// reports whether it did. A full queue drops the name and remembers to ask for
// a rescan.
func (q *queue) add(it item) bool {
	queued, _ := q.enqueue(it)
	return queued
}

// offer is add for a name that must not be lost: it reports false only when
// the queue is full or closed (the caller keeps the name and offers it again
// after the rescan that the drop requests), and true when the name was
// queued or is already waiting or in flight.
func (q *queue) offer(it item) bool {
	queued, known := q.enqueue(it)
	return queued || known
}

// enqueue is add and offer: queued tells whether it was added, known whether
// its name was already waiting or in flight (noted, so that done asks for a
// rescan: a writer reused the name).
func (q *queue) enqueue(it item) (queued, known bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false, false
	}
	if _, ok := q.known[it.name]; ok {
		q.again[it.name] = struct{}{}
		return false, true
	}
	if len(q.items)-q.head >= q.max {
		q.dropped = true
		return false, false
	}
	q.known[it.name] = struct{}{}
	q.items = append(q.items, it)
	poke(q.ready)
	return true, false
}

// pop waits for a name or for ctx to end. The name stays "known" until done
// is called with it, so that it is not queued twice while in flight.
func (q *queue) pop(ctx context.Context) (item, bool) {
	for {
		q.mu.Lock()
		if q.head < len(q.items) {
			it := q.items[q.head]
			q.items[q.head] = item{}
			q.head++
			if q.head == len(q.items) {
				q.items, q.head = q.items[:0], 0
				if q.dropped {
					q.dropped = false
					poke(q.rescan)
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
			return item{}, false
		case <-q.ready:
		}
	}
}

// done forgets a name handed out by pop. If the name was seen again while
// it was waiting or in flight (a writer reused it), a rescan is requested at
// once rather than at the next periodic one.
func (q *queue) done(name string) {
	q.mu.Lock()
	delete(q.known, name)
	if _, ok := q.again[name]; ok {
		delete(q.again, name)
		poke(q.rescan)
	}
	q.mu.Unlock()
}

// len reports how many names are waiting (not counting those in flight).
func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) - q.head
}

// close stops accepting names.
func (q *queue) close() {
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
