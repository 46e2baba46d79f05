// Package finite holds the one test of a float64 for being a number
// (neither NaN nor ±Inf), and the pointer to one that JSON output takes,
// null where the value is not a number, as JSON has no NaN or infinities.
package finite

import "math"

// Is reports whether v is neither NaN nor ±Inf.
func Is(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Ptr returns a pointer to v, or nil where v is NaN or ±Inf: a *float64
// field or value that encoding/json writes as v, or as null.
func Ptr(v float64) *float64 {
	if !Is(v) {
		return nil
	}
	return &v
}
