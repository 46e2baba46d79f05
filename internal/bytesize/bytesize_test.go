package bytesize

import "testing"

// TestOf: a size takes the largest binary unit it reaches, to
// three significant digits without trailing zeros, and a size of 1000
// or more of a unit below the next one in whole units, never in an
// exponent.
func TestOf(t *testing.T) {
	for _, c := range []struct {
		n    float64
		want string
	}{
		{0, "0 bytes"}, {1, "1 byte"}, {999, "999 bytes"}, {1000, "1000 bytes"}, {1023, "1023 bytes"},
		{1 << 10, "1 KiB"}, {1536, "1.5 KiB"}, {9600, "9.38 KiB"}, {999.5 * (1 << 10), "1000 KiB"},
		{1023 << 10, "1023 KiB"}, {1<<20 - 1, "1024 KiB"},
		{1 << 20, "1 MiB"}, {1<<28 + 512, "256 MiB"}, {3 << 29, "1.5 GiB"}, {1 << 30, "1 GiB"},
		{1 << 40, "1024 GiB"}, {5000 << 30, "5000 GiB"},
	} {
		if got := Of(c.n); got != c.want {
			t.Errorf("Of(%.0f) = %q, want %q", c.n, got, c.want)
		}
	}
}
