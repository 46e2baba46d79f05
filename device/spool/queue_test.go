package spool

import (
	"context"
	"strconv"
	"testing"
)

func TestQueueDedupAndBound(t *testing.T) {
	q := NewQueue(3)
	if !q.add(Item{Name: "a"}) || q.add(Item{Name: "a"}) {
		t.Fatal("a name waiting was queued twice")
	}
	q.add(Item{Name: "b"})
	q.add(Item{Name: "c"})
	if q.add(Item{Name: "d"}) {
		t.Fatal("a full queue took another name")
	}
	if n := q.Len(); n != 3 {
		t.Fatalf("Len %d with three names waiting", n)
	}
	ctx := context.Background()
	it, _ := q.Pop(ctx)
	if it.Name != "a" {
		t.Fatalf("popped %q, want a (FIFO)", it.Name)
	}
	if n := q.Len(); n != 2 {
		t.Fatalf("Len %d after a pop, want 2 (the one in flight is not waiting)", n)
	}
	if q.add(Item{Name: "a"}) {
		t.Fatal("a name in flight was queued again")
	}
	q.Done("a")
	if !q.add(Item{Name: "a"}) {
		t.Fatal("a finished name could not be queued again")
	}
	for range 3 {
		it, _ := q.Pop(ctx)
		q.Done(it.Name)
	}
	// The drop of "d" asks for a rescan once the queue has drained.
	select {
	case <-q.rescan:
	default:
		t.Fatal("no rescan requested after names were dropped")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, ok := q.Pop(cctx); ok {
		t.Fatal("pop on an empty queue returned after cancel")
	}
}

// A name seen again while in flight (a writer reused it) asks for a rescan as
// soon as the first one is done, not at the next periodic rescan.
func TestQueueReusedNameAsksRescan(t *testing.T) {
	q := NewQueue(4)
	q.add(Item{Name: "a"})
	it, _ := q.Pop(context.Background())
	q.add(Item{Name: "a"}) // the new file, seen while the old one is in hand
	select {
	case <-q.rescan:
		t.Fatal("rescan requested while the first a is still in flight")
	default:
	}
	q.Done(it.Name)
	select {
	case <-q.rescan:
	default:
		t.Fatal("no rescan requested for the reused name")
	}
	q.Done("b") // a name never seen again: no rescan
	select {
	case <-q.rescan:
		t.Fatal("rescan requested for a name that was not seen again")
	default:
	}
}

// Batches left in cur/ beyond the queue's length are not forgotten: they are
// offered again at every scan until the queue takes them.
func TestLeftoversBeyondQueueLength(t *testing.T) {
	q := NewQueue(2)
	for _, n := range []string{"a", "b"} {
		if !q.offer(Item{Name: n, Claimed: true}) {
			t.Fatalf("offer %s to an empty queue failed", n)
		}
	}
	if q.offer(Item{Name: "c", Claimed: true}) {
		t.Fatal("a full queue took c")
	}
	if !q.offer(Item{Name: "a", Claimed: true}) {
		t.Error("offer of a name already waiting reported a loss")
	}
	it, _ := q.Pop(context.Background())
	q.Done(it.Name)
	it, _ = q.Pop(context.Background())
	q.Done(it.Name)
	select {
	case <-q.rescan: // the refused offer asked for a rescan once drained
	default:
		t.Fatal("no rescan requested after the queue refused an offer")
	}
	if !q.offer(Item{Name: "c", Claimed: true}) {
		t.Error("the drained queue refused c")
	}
}

// TestQueueDropAsksRescan: names a full queue dropped are asked for again
// by a rescan once the queue has drained, with no name seen twice.
func TestQueueDropAsksRescan(t *testing.T) {
	q := NewQueue(1)
	q.add(Item{Name: "a"})
	if q.add(Item{Name: "b"}) {
		t.Fatal("a full queue took b")
	}
	it, _ := q.Pop(context.Background())
	select {
	case <-q.rescan:
	default:
		t.Fatal("no rescan requested once the queue that dropped b drained")
	}
	q.Done(it.Name)
}

// TestQueueMemoryBounded: a queue that never drains (a name arrives for
// every one taken) does not keep the names already taken: its backing
// array stays bounded.
func TestQueueMemoryBounded(t *testing.T) {
	q := NewQueue(4)
	q.add(Item{Name: "first"})
	for i := range 10000 {
		q.add(Item{Name: strconv.Itoa(i)})
		it, _ := q.Pop(context.Background())
		q.Done(it.Name)
	}
	if n := q.Len(); n != 1 {
		t.Fatalf("Len %d, want 1", n)
	}
	if n := len(q.items); n > 4096 {
		t.Errorf("the queue holds %d slots for 1 name waiting after 10000 pops", n)
	}
}

// TestQueueAtLeastOne: a queue asked for no room holds one name, not none.
func TestQueueAtLeastOne(t *testing.T) {
	for _, size := range []int{0, -1} {
		q := NewQueue(size)
		if !q.add(Item{Name: "a"}) || q.add(Item{Name: "b"}) {
			t.Errorf("NewQueue(%d) does not hold exactly one name", size)
		}
	}
}

// TestPopWakesAnotherWorker: a Pop that leaves names waiting wakes another
// worker. Two names queued while two workers wait poke ready once (it holds
// one wake-up); the worker that takes it pops the first name, and the
// second worker must be woken for the second name then, not at the next
// name queued (a second batch waiting for no reason: latency). Here the
// test takes the first wake-up as that worker does.
func TestPopWakesAnotherWorker(t *testing.T) {
	q := NewQueue(4)
	q.add(Item{Name: "a"})
	q.add(Item{Name: "b"})
	<-q.ready // the one wake-up of both adds, taken by the first worker
	if it, ok := q.Pop(context.Background()); !ok || it.Name != "a" {
		t.Fatalf("popped %+v, %v; want a", it, ok)
	}
	select {
	case <-q.ready:
	default:
		t.Fatal("b is waiting and no other worker was woken for it")
	}
	if it, ok := q.Pop(context.Background()); !ok || it.Name != "b" {
		t.Fatalf("popped %+v, %v; want b", it, ok)
	}
}
