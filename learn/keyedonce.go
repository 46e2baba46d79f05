package learn

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"weak"

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
	ids  []weak.Pointer[mat.Dense] // the matrices the key names
	v    T
	err  error
}

// names reports whether e was made for the matrices ids, the very ones:
// a key names matrices by their addresses (setsKey), and a matrix
// allocated where a collected one was has the same address; a weak
// pointer to the collected one no longer gives it.
func (e *onceEntry[T]) names(ids []*mat.Dense) bool {
	if len(e.ids) != len(ids) {
		return false
	}
	for i, w := range e.ids {
		if w.Value() != ids[i] {
			return false
		}
	}
	return true
}

// do returns compute's result for key, computing it only if no earlier
// call with key (still kept) for the same matrices ids did: key names
// them (setsKey), and an entry whose matrices were collected since, so
// that other matrices now have their addresses, is made again.
func (c *keyedOnce[T]) do(key string, ids []*mat.Dense, compute func() (T, error)) (T, error) {
	c.mu.Lock()
	if c.byKey == nil {
		c.byKey = map[string]*onceEntry[T]{}
	}
	e, ok := c.byKey[key]
	if ok && !e.names(ids) {
		c.order = slices.DeleteFunc(c.order, func(k string) bool { return k == key })
		ok = false
	}
	if !ok {
		e = &onceEntry[T]{ids: make([]weak.Pointer[mat.Dense], len(ids))}
		for i, x := range ids {
			e.ids[i] = weak.Make(x)
		}
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

// setsKey names a collection of sets by the addresses of their matrices
// (and their labels, where given) for a keyedOnce, which also checks that
// they are the same matrices.
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
