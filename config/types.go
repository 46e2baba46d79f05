package config

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration written in TOML as a string that
// time.ParseDuration accepts: "500ms", "10s", "1h30m".
type Duration struct{ time.Duration }

// UnmarshalTOML reads a duration string, or the number 0 (no time in
// any unit, as "0" reads). Another number, or a string of a number
// alone, is refused with that number and a unit as the example, and the
// value as the file writes it (in quotes where it has them).
func (d *Duration) UnmarshalTOML(v any) error {
	var n string
	switch v := v.(type) {
	case string:
		return d.parse(v)
	case int64:
		if v == 0 {
			d.Duration = 0
			return nil
		}
		n = strconv.FormatInt(v, 10)
	case float64:
		if v == 0 {
			d.Duration = 0
			return nil
		}
		n = strconv.FormatFloat(v, 'g', -1, 64)
	default:
		return fmt.Errorf("want a duration in quotes such as \"500ms\", got %v", v) // other types are refused before
	}
	return fmt.Errorf("want a duration with a unit, in quotes, such as \"%sms\" or \"%ss\", got %s", n, n, n)
}

// parse reads the duration string s.
func (d *Duration) parse(s string) error {
	t := strings.TrimSpace(s)
	v, err := time.ParseDuration(t)
	switch {
	case err != nil && numberRE.MatchString(t):
		return fmt.Errorf("want a duration with a unit, such as \"%sms\" or \"%ss\", got %q", t, t, s)
	case err != nil && durationRE.MatchString(t):
		return fmt.Errorf("%q is longer than the longest duration there is (about 2562047h, 292 years): give a shorter one", s)
	case err != nil:
		return fmt.Errorf("want a duration such as \"500ms\", \"10s\" or \"2h\" (units ns, us, ms, s, m, h), got %q", s)
	}
	d.Duration = v
	return nil
}

// numberRE matches a decimal number without a unit, which
// time.ParseDuration refuses (but for 0).
var numberRE = regexp.MustCompile(`^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)

// durationRE matches what time.ParseDuration reads, whatever the size of
// the numbers: a string it matches that ParseDuration refuses is out of
// range.
var durationRE = regexp.MustCompile(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)

// MarshalText writes the duration as time.Duration.String does.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.Duration.String()), nil }

// Size is a number of bytes, written in TOML as an integer (65536) or a
// string with a unit ("64MiB", "512KiB", "1GB"; KiB/MiB/GiB are powers of
// 1024, kB/MB/GB of 1000, and so are a bare k, M and G; any case).
type Size int64

// UnmarshalTOML reads an integer or a size string.
func (s *Size) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case int64:
		*s = Size(v)
		return nil
	case string:
		n, err := ParseSize(v)
		if err != nil {
			return err
		}
		*s = n
		return nil
	}
	if f, ok := v.(float64); ok {
		return fmt.Errorf("want a whole number of bytes such as 65536, or a size with a unit in quotes such as \"64MiB\", got %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	return fmt.Errorf("want a size in bytes such as 65536 or \"64MiB\", got %v", v) // other types are refused before
}

// MarshalText writes the size with the largest binary unit that divides it.
func (s Size) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// String writes the size with the largest binary unit that divides it
// ("64MiB", "1000B").
func (s Size) String() string {
	for _, u := range []struct {
		name string
		n    int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if s != 0 && int64(s)%u.n == 0 {
			return strconv.FormatInt(int64(s)/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(int64(s), 10) + "B"
}

var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1000, "kb": 1000, "m": 1000 * 1000, "mb": 1000 * 1000, "g": 1000 * 1000 * 1000, "gb": 1000 * 1000 * 1000,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// ParseSize reads "65536", "64MiB", "512 KiB", "1.5GB".
func ParseSize(str string) (Size, error) {
	t := strings.TrimSpace(str)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.' || t[i] == '-' || t[i] == '+') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := sizeUnits[unit]
	bad := fmt.Errorf("want a size in bytes such as 65536 or \"64MiB\" (units B, KiB, MiB, GiB, TiB, kB, MB, GB), got %q", str)
	if !ok || num == "" {
		return 0, bad
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, bad
	}
	v := f * float64(mult)
	if math.Abs(v) >= 1<<62 {
		return 0, fmt.Errorf("%q is more bytes than any size here may be (far more than 4 EiB): give a smaller one", str)
	}
	if v != math.Trunc(v) {
		return 0, fmt.Errorf("%q is %g bytes, not a whole number of them: give a whole number of bytes, or of a smaller unit", str, v)
	}
	return Size(v), nil
}
