package gpio

import (
	"testing"
	"time"
)

// SetClock makes the log of dropped pulses read now for the time until the
// test ends.
func SetClock(t testing.TB, now func() time.Time) {
	old := clock
	clock = now
	t.Cleanup(func() { clock = old })
}
