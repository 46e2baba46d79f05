package learn

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// len returns the number of keys c keeps, for the caches' tests.
func (c *keyedOnce[T]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byKey)
}

// TestKeyedOnceSameMatrices checks that an entry serves only the very
// matrices it was made for: a key names matrices by their addresses, and
// once they are collected another matrix can be allocated at one of them
// (here: the same key given with other matrices stands for that), whose
// start must be computed again, not taken from the entry of other frames.
func TestKeyedOnceSameMatrices(t *testing.T) {
	var c keyedOnce[int]
	a, b := mat.NewDense(2, 2, []float64{1, 2, 3, 4}), mat.NewDense(2, 2, []float64{5, 6, 7, 8})
	calls := 0
	get := func(ids ...*mat.Dense) int {
		v, err := c.do("key", ids, func() (int, error) { calls++; return calls, nil })
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := get(a); v != 1 {
		t.Fatalf("first call: %d", v)
	}
	if v := get(a); v != 1 || calls != 1 {
		t.Errorf("the same matrix again: value %d after %d computations, want 1 after 1", v, calls)
	}
	if v := get(b); v != 2 {
		t.Errorf("another matrix under the same key: value %d, want a new computation (2)", v)
	}
	if v := get(a, b); v != 3 {
		t.Errorf("more matrices under the same key: value %d, want a new computation (3)", v)
	}
	if c.len() != 1 || len(c.order) != 1 {
		t.Errorf("%d entries, %d in order, for one key", c.len(), len(c.order))
	}
}
