package learn

import (
	"fmt"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// keyedOnce computes a value at most once per key, for the caches of the
// starts of training (PCACache, FisherCache), keeping the last
// keyedOnceEntries keys only. The zero value is ready to use; it is safe
// for concurrent use, and callers of one key wait for its one
// computation.
type keyedOnce[T any] struct {
	mu    sync.Mutex
	order []string
	byKey map[string]*onceEntry[T]
}

// keyedOnceEntries bounds a cache: an entry of a start holds a D×k basis.
const keyedOnceEntries = 8

type onceEntry[T any] struct {
	once sync.Once
	v    T
	err  error
}

// do returns compute's result for key, computing it only if no earlier
// call with key (still kept) did.
func (c *keyedOnce[T]) do(key string, compute func() (T, error)) (T, error) {
	c.mu.Lock()
	if c.byKey == nil {
		c.byKey = map[string]*onceEntry[T]{}
	}
	e, ok := c.byKey[key]
	if !ok {
		e = &onceEntry[T]{}
		c.byKey[key] = e
		c.order = append(c.order, key)
		if len(c.order) > keyedOnceEntries {
			delete(c.byKey, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v, e.err = compute() })
	return e.v, e.err
}

// setsKey names a collection of sets by the identity of their matrices
// (and their labels, where given) for a keyedOnce.
func setsKey(sets []*mat.Dense, labels []int) *strings.Builder {
	var b strings.Builder
	for i, s := range sets {
		fmt.Fprintf(&b, "%p", s)
		if i < len(labels) {
			fmt.Fprintf(&b, ":%d", labels[i])
		}
		b.WriteByte(',')
	}
	return &b
}
