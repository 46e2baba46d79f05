// Package bytesize is the one wording of a size in bytes in setmatch's
// messages: in the largest binary unit it reaches, to three significant
// digits, never in an exponent (Of), and a size beside its limit (Over).
package bytesize

import "fmt"

// Of says b bytes in the largest binary unit it reaches, bytes,
// KiB, MiB or GiB, to three significant digits without trailing zeros
// ("256 MiB", "9.38 KiB", "720 bytes", "1 byte"), and in whole units
// from 1000 of one ("1023 KiB"), never in an exponent: the one wording of
// a size, of set-file, data-set, decode and synth limits (Over), of
// setmatch train's memory and of setmatch inspect's gallery.
func Of(b float64) string {
	switch {
	case b == 1:
		return "1 byte"
	case b >= 1<<30:
		return sig3(b/(1<<30)) + " GiB"
	case b >= 1<<20:
		return sig3(b/(1<<20)) + " MiB"
	case b >= 1<<10:
		return sig3(b/(1<<10)) + " KiB"
	}
	return sig3(b) + " bytes"
}

// sig3 writes v ≥ 0 to three significant digits, or in whole numbers
// where those would round to 1000 or more (%.3g would write 1e+03).
func sig3(v float64) string {
	if v >= 999.5 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// Over says a size over a limit and the limit, each in bytes, KiB,
// MiB or GiB to three digits, and in bytes exactly where the two would read
// the same ("256 MiB, over the limit of 256 MiB"): for every message that
// compares a size with its limit.
func Over(size, limit float64) (string, string) {
	a, b := Of(size), Of(limit)
	if a == b {
		return fmt.Sprintf("%.0f bytes", size), fmt.Sprintf("%.0f bytes", limit)
	}
	return a, b
}
