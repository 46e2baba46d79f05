package par

import (
	"runtime"
	"sync"
	"testing"
)

func TestForVisitsEachOnce(t *testing.T) {
	for _, workers := range []int{-1, 0, 1, 2, 7, 100} {
		for _, n := range []int{0, 1, 2, 13, 1000} {
			seen := make([]int, n)
			var mu sync.Mutex
			busy := map[int]bool{}
			For(n, workers, func(w, i int) {
				mu.Lock()
				if busy[w] {
					t.Errorf("workers=%d n=%d: worker %d used twice at once", workers, n, w)
				}
				busy[w] = true
				mu.Unlock()
				seen[i]++
				mu.Lock()
				busy[w] = false
				mu.Unlock()
				if w < 0 || w >= Workers(workers) {
					t.Errorf("worker index %d out of range for %d workers", w, Workers(workers))
				}
			})
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("workers=%d n=%d: item %d visited %d times", workers, n, i, c)
				}
			}
		}
	}
}

// TestWorkers: a count is taken up to one goroutine per CPU, and 0 or
// less means one per CPU.
func TestWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	for n, want := range map[int]int{1: 1, 2: 2, 3: 3, 4: 3, 1000: 3, 0: 3, -2: 3} {
		if got := Workers(n); got != want {
			t.Errorf("Workers(%d) = %d with 3 CPUs, want %d", n, got, want)
		}
	}
}
