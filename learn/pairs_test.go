package learn

// Pairs returns the pairs of the cost.
func (c *Cost) Pairs() []PairWeight { return c.pairs }
