// Package par runs the loops of setmatch on several goroutines: one small
// parallel-for used wherever work splits into independent items.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers returns the goroutines a worker count n means throughout
// setmatch: one per CPU (runtime.GOMAXPROCS(0)) when n ≤ 0, else n, but
// never more than one per CPU: the work is computation, which more
// goroutines than CPUs do no faster, while each holds its own buffers
// (a batch's frames, a set's decoded images).
func Workers(n int) int {
	cpus := runtime.GOMAXPROCS(0)
	if n > 0 {
		return min(n, cpus)
	}
	return cpus
}

// For calls fn(worker, i) for every i in [0, n) on at most Workers(workers)
// goroutines and returns when all calls have returned. worker is in
// [0, workers) and no two calls with the same worker run at once, so fn may
// use per-worker scratch indexed by it. Items are handed out in increasing
// order; results must go to per-i slots for the outcome not to depend on the
// schedule. With one worker (or n ≤ 1) everything runs on the caller's
// goroutine.
func For(n, workers int, fn func(worker, i int)) {
	w := min(Workers(workers), n)
	if w <= 1 {
		for i := range n {
			fn(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for k := range w {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(k, i)
			}
		})
	}
	wg.Wait()
}
