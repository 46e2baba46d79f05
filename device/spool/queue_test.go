package spool

import (
	"context"
	"strconv"
	"testing"
)

// rescanAsked reports whether q has asked for a rescan since the last
// call, taking the request (it does not wait for one).
func rescanAsked(q *Queue) bool {
	select {
	case <-q.rescan:
		return true
	default:
		return false
	}
}

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
	for range 2 {
		it, _ := q.Pop(ctx)
		q.Done(it.Name)
	}
	// The drop of "d" asks for a rescan once the queue has drained.
	if !rescanAsked(q) {
		t.Fatal("no rescan requested after names were dropped")
	}
	if _, n := q.scanned(q.beginScan(false), nil, []string{"a", "d"}, true); n != 2 {
		t.Fatalf("the rescan queued %d of a finished name and the dropped one, want 2", n)
	}
	for _, want := range []string{"a", "d"} {
		if it, _ := q.Pop(ctx); it.Name != want {
			t.Fatalf("popped %q, want %q", it.Name, want)
		}
		q.Done(want)
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
	if rescanAsked(q) {
		t.Fatal("rescan requested while the first a is still in flight")
	}
	q.Done(it.Name)
	if !rescanAsked(q) {
		t.Fatal("no rescan requested for the reused name")
	}
	q.Done("b") // a name never seen again: no rescan
	if rescanAsked(q) {
		t.Fatal("rescan requested for a name that was not seen again")
	}
}

// Batches left in cur/ beyond the queue's length are not forgotten: they are
// offered again at every scan until the queue takes them, before new/.
func TestLeftoversBeyondQueueLength(t *testing.T) {
	q := NewQueue(2)
	if took, _ := q.scanned(q.beginScan(false), []string{"a", "b", "c"}, []string{"x"}, true); took != 2 {
		t.Fatalf("an empty queue of two took %d leftovers, want 2", took)
	}
	if took, _ := q.scanned(q.beginScan(false), []string{"a"}, nil, false); took != 1 {
		t.Error("a leftover already waiting was not taken: it would be offered again")
	}
	it, _ := q.Pop(context.Background())
	q.Done(it.Name)
	it, _ = q.Pop(context.Background())
	q.Done(it.Name)
	if !rescanAsked(q) { // the refused leftover asked for a rescan once drained
		t.Fatal("no rescan requested after the queue refused a leftover")
	}
	if took, n := q.scanned(q.beginScan(false), []string{"c"}, []string{"x"}, true); took != 1 || n != 1 {
		t.Errorf("the drained queue took %d of the leftover c and queued %d of new/'s x, want 1 and 1", took, n)
	}
	if it, _ := q.Pop(context.Background()); it.Name != "c" || !it.Claimed {
		t.Errorf("popped %+v, want the leftover c first, claimed", it)
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
	if !rescanAsked(q) {
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

// TestQueueEventWaitsBehindDropped: once a full queue has dropped a name,
// a name from a file event is refused too, room or not, until the rescan:
// the dropped batches arrived first, and the rescan queues them in arrival
// order with the later ones.
func TestQueueEventWaitsBehindDropped(t *testing.T) {
	q := NewQueue(2)
	q.add(Item{Name: "a"})
	q.add(Item{Name: "b"})
	if q.add(Item{Name: "c"}) {
		t.Fatal("a full queue took c")
	}
	it, _ := q.Pop(context.Background())
	q.Done(it.Name)
	if q.add(Item{Name: "d"}) {
		t.Fatal("d, which arrived after the dropped c, was queued ahead of it")
	}
}

// TestQueueDropDuringScan: a name dropped while a rescan lists new/ (it may
// have come after the listing) is not left to the next timed rescan: the
// queue asks for another rescan once it has drained, or at once where
// nothing waits.
func TestQueueDropDuringScan(t *testing.T) {
	ctx := context.Background()
	q := NewQueue(2)
	q.add(Item{Name: "a"})
	q.add(Item{Name: "b"})
	q.add(Item{Name: "c"}) // dropped: full
	for range 2 {
		it, _ := q.Pop(ctx)
		q.Done(it.Name)
	}
	<-q.rescan // asked for by the drain
	drops := q.beginScan(false)
	if q.add(Item{Name: "d"}) { // during the listing, which missed it
		t.Fatal("d, which arrived after the dropped c, was queued ahead of it")
	}
	if _, n := q.scanned(drops, nil, []string{"c"}, true); n != 1 {
		t.Fatalf("the rescan queued %d names, want c", n)
	}
	it, _ := q.Pop(ctx)
	q.Done(it.Name)
	if !rescanAsked(q) {
		t.Fatal("d, dropped during the listing, waits for the timed rescan: no rescan asked for once the queue drained")
	}
	// The same with nothing queued by the rescan: asked for at once.
	drops = q.beginScan(false)
	q.add(Item{Name: "e"})
	q.scanned(drops, nil, nil, true)
	if !rescanAsked(q) {
		t.Fatal("e, dropped during a listing that queued nothing, waits for the timed rescan")
	}
	if _, n := q.scanned(q.beginScan(false), nil, []string{"d", "e"}, true); n != 2 {
		t.Fatalf("the rescan after the drops queued %d names, want d and e", n)
	}
	for range 2 {
		it, _ := q.Pop(ctx)
		q.Done(it.Name)
	}
	if !q.add(Item{Name: "f"}) {
		t.Error("a rescan after the drops did not let names from events in again")
	}
}

// TestQueueScanSkipsNamesHandledMeanwhile: a name handled while a scan
// lists new/ (the listing may hold it from before its claim) is not queued
// by the scan: its file is gone, and the queue's length would count it as
// a batch waiting until a worker popped it and found nothing to claim.
func TestQueueScanSkipsNamesHandledMeanwhile(t *testing.T) {
	q := NewQueue(8)
	q.add(Item{Name: "a"})
	q.add(Item{Name: "b"})
	drops := q.beginScan(false)
	it, _ := q.Pop(context.Background()) // a, claimed and handled during the listing
	q.Done(it.Name)
	if _, n := q.scanned(drops, nil, []string{"a", "b", "c"}, true); n != 1 {
		t.Errorf("the scan queued %d names, want only c (a was handled during its listing, b waits)", n)
	}
	if n := q.Len(); n != 2 {
		t.Errorf("Len %d, want 2: b and c wait, a was handled", n)
	}
	// A scan whose listing began after a was handled queues it: a file
	// of that name there came since.
	if _, n := q.scanned(q.beginScan(false), nil, []string{"a"}, true); n != 1 {
		t.Errorf("a later scan queued %d of a new a, want 1", n)
	}
}

// TestQueueListedWaitingNameAsksNoRescan: a scan that lists a name waiting
// in the queue (its file is in new/ until a worker claims it) does not
// take it for a reused name: its Done asks for no rescan. Every scan during
// a flood lists the names waiting, and each of their Dones asked for
// another rescan: rescans ran back to back, listing new/ each time.
func TestQueueListedWaitingNameAsksNoRescan(t *testing.T) {
	q := NewQueue(8)
	q.add(Item{Name: "a"})
	q.scanned(q.beginScan(false), nil, []string{"a"}, true)
	it, _ := q.Pop(context.Background())
	q.Done(it.Name)
	if rescanAsked(q) {
		t.Error("a name listed while it waited asked for a rescan when done")
	}
	// A batch of cur/ waiting is not claimed from new/: a file of its
	// name there, seen by its event or listed by a scan, asks for a
	// rescan when it is done.
	for _, event := range []bool{true, false} {
		if event {
			q.scanned(q.beginScan(false), []string{"x"}, nil, true)
			q.add(Item{Name: "x"})
		} else {
			q.scanned(q.beginScan(false), []string{"x"}, []string{"x"}, true)
		}
		it, _ = q.Pop(context.Background())
		q.Done(it.Name)
		if !rescanAsked(q) {
			t.Errorf("a file in new/ of the name of a batch of cur/ waiting asked for no rescan (seen by its event: %v)", event)
		}
	}
}

// TestQueueScanAfterLostEvents: a scan takes the names it lists for batches
// of their own where file events may have been lost (an inotify overflow or
// error, a watch added again), and only there: b, handled during the
// listing, is queued (a file of its name may have come with its event
// lost), and a, in flight, asks for a rescan when done. Elsewhere the
// events are whole: a file of either name that came since the claim was or
// will be seen by its event, and a scan does neither (rescans ran back to
// back during a flood, each asked for by a name in flight that its listing
// saw before the claim).
func TestQueueScanAfterLostEvents(t *testing.T) {
	for _, lost := range []bool{false, true} {
		q := NewQueue(8)
		q.add(Item{Name: "a"})
		q.add(Item{Name: "b"})
		a, _ := q.Pop(context.Background())
		b, _ := q.Pop(context.Background())
		drops := q.beginScan(lost)
		q.Done(b.Name)
		want := 0
		if lost {
			want = 1
		}
		if _, n := q.scanned(drops, nil, []string{"a", "b"}, true); n != want {
			t.Errorf("events lost %v: the scan queued %d names, want %d", lost, n, want)
		}
		q.Done(a.Name)
		switch asked := rescanAsked(q); {
		case asked && !lost:
			t.Error("a name in flight that the scan listed asked for a rescan, its events whole")
		case !asked && lost:
			t.Error("a name in flight that the scan listed asked for no rescan, its events lost")
		}
	}
}

// TestQueueReusedNameInFlightWhileDropped: a file of a name in flight (a
// writer reused it) whose event comes while the queue refuses events, its
// dropped names waiting for their rescan, is noted all the same: the
// rescan the drop asked for leaves the name out (it is in flight), and its
// Done asks for another, which queues it.
func TestQueueReusedNameInFlightWhileDropped(t *testing.T) {
	ctx := context.Background()
	q, a := dropWithAInFlight(ctx)
	if q.add(Item{Name: "a"}) {
		t.Fatal("a, in flight, was queued again")
	}
	b, _ := q.Pop(ctx)
	q.Done(b.Name)
	<-q.rescan // asked for by the drain
	if _, n := q.scanned(q.beginScan(false), nil, []string{"c", "a"}, true); n != 1 {
		t.Fatalf("the rescan queued %d names, want c (a is in flight)", n)
	}
	q.Done(a.Name)
	if !rescanAsked(q) {
		t.Fatal("the new file of a, seen while the queue refused events, asked for no rescan when a was done: it waits for the timed rescan")
	}
	c, _ := q.Pop(ctx)
	q.Done(c.Name)
	if _, n := q.scanned(q.beginScan(false), nil, []string{"a"}, true); n != 1 {
		t.Errorf("the rescan after a was done queued %d names, want its new file", n)
	}
}

// TestQueueHandledDuringListingEventRefused: a name handled while a rescan
// lists new/, whose new file's event comes after its Done and is refused
// (names dropped wait for the rescan), is left out by that rescan (the
// listing may hold the old file) but not lost: the refusal came during the
// listing, so the rescan lets no events in and asks for another at once,
// which queues it.
func TestQueueHandledDuringListingEventRefused(t *testing.T) {
	ctx := context.Background()
	q, a := dropWithAInFlight(ctx)
	b, _ := q.Pop(ctx)
	q.Done(b.Name)
	<-q.rescan // asked for by the drain
	drops := q.beginScan(false)
	q.Done(a.Name)
	if q.add(Item{Name: "a"}) { // the new file of a, after its Done
		t.Fatal("an event was let in while dropped names wait")
	}
	if _, n := q.scanned(drops, nil, []string{"a", "c"}, true); n != 1 {
		t.Fatalf("the rescan queued %d names, want c (a was handled during its listing)", n)
	}
	c, _ := q.Pop(ctx)
	q.Done(c.Name)
	if !rescanAsked(q) {
		t.Fatal("a, refused during the listing, waits for the timed rescan")
	}
	if _, n := q.scanned(q.beginScan(false), nil, []string{"a"}, true); n != 1 {
		t.Errorf("the next rescan queued %d names, want the new a", n)
	}
}

// dropWithAInFlight returns a queue of one whose item a, returned too, is
// in flight (popped, not done), with b queued and c dropped (the queue
// full), so that events are refused until the rescan c waits for.
func dropWithAInFlight(ctx context.Context) (*Queue, Item) {
	q := NewQueue(1)
	q.add(Item{Name: "a"})
	a, _ := q.Pop(ctx)
	q.add(Item{Name: "b"})
	q.add(Item{Name: "c"}) // dropped: full
	return q, a
}
