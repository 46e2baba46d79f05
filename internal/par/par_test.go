package par

import (
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

func TestWorkers(t *testing.T) {
	if Workers(3) != 3 {
		t.Fatal("Workers(3) != 3")
	}
	if Workers(0) < 1 || Workers(-2) < 1 {
		t.Fatal("Workers of a non-positive count must be at least 1")
	}
}
