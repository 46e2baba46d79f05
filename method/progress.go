package method

// Counter is told how far the loops of a fit are (Task.Progress): a
// progress display of the harness. Its methods must be safe for
// concurrent use.
type Counter interface {
	// Count says that total units of unit (plural: "matrices",
	// "kernels", …) are to be done next, of which done already are.
	Count(unit string, done, total int)
	// Inc marks one more unit done.
	Inc()
}

// progress is a Counter that may be nil: then it counts nothing.
type progress struct{ c Counter }

// count says that total units of unit are to be done next.
func (p progress) count(unit string, total int) { p.countFrom(unit, 0, total) }

// countFrom says that total units of unit are to be done, of which done
// already are (a count resumed after other work).
func (p progress) countFrom(unit string, done, total int) {
	if p.c != nil {
		p.c.Count(unit, done, total)
	}
}

// inc marks one more unit done.
func (p progress) inc() {
	if p.c != nil {
		p.c.Inc()
	}
}

// progress returns t's Counter, which may be nil.
func (t *Task) progress() progress { return progress{t.Progress} }
