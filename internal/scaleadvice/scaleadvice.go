// Package scaleadvice holds the one advice given where features' values
// are too large or too small for a method's float64 arithmetic: to scale
// them down or up by a power of ten, and which one.
//
// The power of ten is chosen from the largest magnitude v of the values
// the check found wrong, by one rounding: the exponent of v in scientific
// notation, as strconv writes v in the fewest digits that read back as v
// (1.5e+155: 155; 3e-160: -160). Dividing (or multiplying) by that power
// brings v to between 1 and 10, where every method works best, and far
// inside every bound the checks that give this advice compare with: a
// KDE's bandwidth from 1e-150 to 1e150, the largest float64 for the sums
// and sums of squares of the values, the smallest normal float64 for
// their variances.
package scaleadvice

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxExp is the largest k whose 10^k a float64 holds (1e308).
const maxExp = 308

// Down returns the advice for features whose largest magnitude, v, is too
// large: "scale the features down, e.g. divide them by 1e+155" (v from
// 1e155 to 9.99e155), the factor divisor's.
func Down(v float64) string {
	return fmt.Sprintf("scale the features down, e.g. divide them by %.0e", divisor(v))
}

// Up returns the advice for features whose largest magnitude, v, is too
// small: "scale the features up, e.g. multiply them by 1e+160" (v from
// 1e-160 to 9.99e-160), the factor multiplier's.
func Up(v float64) string {
	return fmt.Sprintf("scale the features up, e.g. multiply them by %.0e", multiplier(v))
}

// divisor returns the power of ten f = 10^k to divide values up to v by,
// k v's exponent (exponent) from 0 to 308. For v from 1 to the largest
// float64, v/f is from 1 to 10, to within a float64's rounding (a few
// units in the last place). Below 1 (nothing to scale down) and where v
// is no number above 0, f is 1; for +Inf it is 1e308.
func divisor(v float64) float64 {
	return pow10(exponent(v))
}

// multiplier returns the power of ten f = 10^k to multiply values up to v
// by, k minus v's exponent (exponent) from 0 to 308. For v from the
// smallest normal float64 (2.2e-308) to 1, v·f is from 1 to 10, to within
// a float64's rounding. Below 1e-308, where that power passes the largest
// float64, f is 1e308, the largest power of ten a float64 holds, which
// brings v to at least 4.9e-16 (the smallest float64 above 0, 5e-324,
// times 1e308), far above the smallest bound a check compares with
// (1e-150). Above 1 (nothing to scale up) and where v is no number above
// 0, f is 1.
func multiplier(v float64) float64 {
	return pow10(-exponent(v))
}

// exponent returns the exponent of v > 0 in scientific notation, as
// strconv writes v in the fewest digits that read back as v: the k with
// 1 ≤ d/10^k < 10 for that decimal d. It is 0 where v is no number above
// 0, and 309 for +Inf.
func exponent(v float64) int {
	switch {
	case !(v > 0):
		return 0
	case math.IsInf(v, 1):
		return maxExp + 1
	}
	s := strconv.FormatFloat(v, 'e', -1, 64)
	k, err := strconv.Atoi(s[strings.IndexByte(s, 'e')+1:])
	if err != nil {
		panic("scaleadvice: strconv wrote " + s)
	}
	return k
}

// pow10 returns the float64 nearest 10^k for k clamped to 0 … 308.
func pow10(k int) float64 {
	f, err := strconv.ParseFloat("1e"+strconv.Itoa(min(max(k, 0), maxExp)), 64)
	if err != nil {
		panic(err)
	}
	return f
}
