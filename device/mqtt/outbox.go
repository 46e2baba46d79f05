package mqtt

import "sync"

// outbox is a bounded FIFO of payloads waiting for the broker. When it is
// full, add drops the oldest payload and counts it; drop drops and counts
// the oldest on request. Every payload carries a sequence number, so that
// the sender removes (or drops) the payload it sent and not one that took
// its place after an overflow.
type outbox struct {
	mu      sync.Mutex
	buf     []entry // ring of capacity cap(buf)
	head, n int
	seq     uint64
	dropped uint64
}

type entry struct {
	seq     uint64
	payload []byte
}

func newOutbox(capacity int) *outbox {
	return &outbox{buf: make([]entry, max(capacity, 1))}
}

// add appends a copy of p; it reports whether the oldest entry was dropped
// to make room.
func (o *outbox) add(p []byte) (dropped bool) {
	c := append([]byte(nil), p...)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.n == len(o.buf) {
		o.removeLocked(o.buf[o.head].seq)
		o.dropped++
		dropped = true
	}
	o.seq++
	o.buf[(o.head+o.n)%len(o.buf)] = entry{seq: o.seq, payload: c}
	o.n++
	return dropped
}

// peek returns the oldest entry.
func (o *outbox) peek() (entry, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.n == 0 {
		return entry{}, false
	}
	return o.buf[o.head], true
}

// remove removes the oldest entry if it is the one with sequence number
// seq, and reports whether the outbox is empty afterwards.
func (o *outbox) remove(seq uint64) (empty bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.removeLocked(seq)
	return o.n == 0
}

// drop removes the oldest entry if it is the one with sequence number seq
// and counts it as dropped, as add counts one dropped for room; it
// reports whether it did (not where add dropped it already).
func (o *outbox) drop(seq uint64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.removeLocked(seq) {
		return false
	}
	o.dropped++
	return true
}

// removeLocked removes the oldest entry if it is the one with sequence
// number seq, and reports whether it did.
func (o *outbox) removeLocked(seq uint64) bool {
	if o.n == 0 || o.buf[o.head].seq != seq {
		return false
	}
	o.buf[o.head] = entry{}
	o.head = (o.head + 1) % len(o.buf)
	o.n--
	return true
}

// len returns the number of entries waiting.
func (o *outbox) len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n
}

// drops returns the number of entries dropped so far.
func (o *outbox) drops() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dropped
}
