package learn

// len returns the number of keys c keeps, for the caches' tests.
func (c *keyedOnce[T]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byKey)
}
