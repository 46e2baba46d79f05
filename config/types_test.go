package config

import (
	"strings"
	"testing"
)

// TestTypeErrorsInTOMLTerms: a value of a TOML type its key does not take
// is a wrong type named in TOML terms, at its place, whatever the type:
// not Go's ("got []any", "got true (bool)"), not the value passed as text
// to a duration ("got \"true\""), and a table where a value goes is not
// an unknown key under it ("gpio.pulse.a: unknown key (did you mean
// gpio.pulse?)").
func TestTypeErrorsInTOMLTerms(t *testing.T) {
	duration := `want a duration in quotes such as "500ms", got `
	size := `want a size such as 65536 or "64MiB", got `
	for _, tc := range []struct{ text, want string }{
		{"[gpio]\npulse = [\"1s\"]\n", "t.toml:2:1: gpio.pulse: wrong type: " + duration + "an array"},
		{"[gpio]\npulse = true\n", "t.toml:2:1: gpio.pulse: wrong type: " + duration + "a boolean"},
		{"[gpio]\npulse = 2026-01-01\n", "t.toml:2:1: gpio.pulse: wrong type: " + duration + "a date-time"},
		{"[gpio]\npulse = { a = 1 }\n", "t.toml:2:1: gpio.pulse: wrong type: " + duration + "a table"},
		{"[gpio]\npulse.a = 1\n", "t.toml:2:1: gpio.pulse: wrong type: " + duration + "a table"},
		{"[gpio.pulse]\na = 1\n", "t.toml:1:1: gpio.pulse: wrong type: " + duration + "a table"},
		{"[gpio]\nchip = [\"gpiochip0\"]\n", "t.toml:2:1: gpio.chip: wrong type: want a string, got an array"},
		{"[gpio]\nactive_low = [true]\n", "t.toml:2:1: gpio.active_low: wrong type: want true or false, got an array"},
		{"[spool]\nmax_frames = [1]\n", "t.toml:2:1: spool.max_frames: wrong type: want an integer, got an array"},
		{"[spool]\nmax_batch_bytes = [1]\n", "t.toml:2:1: spool.max_batch_bytes: wrong type: " + size + "an array"},
		{"[spool]\nmax_batch_bytes = true\n", "t.toml:2:1: spool.max_batch_bytes: wrong type: " + size + "a boolean"},
		{"[spool]\nmax_batch_bytes = 1979-05-27\n", "t.toml:2:1: spool.max_batch_bytes: wrong type: " + size + "a date-time"},
		{"[spool]\nmax_batch_bytes = { a = 1 }\n", "t.toml:2:1: spool.max_batch_bytes: wrong type: " + size + "a table"},
		{"[gpio]\npulse = 1.5\n", `t.toml:2:1: gpio.pulse: invalid value: want a duration with a unit, in quotes, such as "1.5ms" or "1.5s", got 1.5`},
		{"[spool]\nmax_batch_bytes = 1.5\n", `t.toml:2:1: spool.max_batch_bytes: invalid value: want a whole number of bytes such as 65536, or a size with a unit in quotes such as "64MiB", got 1.5`},
		{"[decision]\nthreshold = [1]\n", "t.toml:2:1: decision.threshold: wrong type: want a number (or inf, without quotes), got an array"},
		{"[decision]\nthreshold = \"inf\"\n", "t.toml:2:1: decision.threshold: wrong type: want a number (or inf, without quotes), got a string"},
		{"[gpio.label_pins]\nalice = [\"GPIO5\"]\n", "t.toml:2:1: gpio.label_pins.alice: wrong type: want a string, got an array"},
		{"[gpio]\nlabel_pins.alice.x = \"GPIO5\"\n", "t.toml:2:1: gpio.label_pins.alice: wrong type: want a string, got a table"},
	} {
		_, err := Parse("t.toml", []byte(tc.text))
		kind := ErrType
		if strings.Contains(tc.want, "invalid value") {
			kind = ErrInvalid // a number where a duration or size goes: its reader gives the example
		}
		checkErr(t, err, kind, tc.want)
		if err != nil && strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%q: more than one error: %v", tc.text, err)
		}
	}
}

// TestOutOfRangeSaysSo: a duration or a size written right but too large
// for its type is called too large, not malformed.
func TestOutOfRangeSaysSo(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[spool]\nrescan_interval = \"10000000h\"\n", `t.toml:2:1: spool.rescan_interval: invalid value: "10000000h" is longer than the longest duration there is (about 2562047h, 292 years)`},
		{"[spool]\ntmp_max_age = \"9999999999999999999s\"\n", `spool.tmp_max_age: invalid value: "9999999999999999999s" is longer than the longest duration`},
		{"[spool]\nmax_batch_bytes = \"9223372036854775807\"\n", `t.toml:2:1: spool.max_batch_bytes: invalid value: "9223372036854775807" is more bytes than any size here may be`},
		{"[spool]\ndone_max_bytes = \"99999999999TiB\"\n", `spool.done_max_bytes: invalid value: "99999999999TiB" is more bytes than any size here may be`},
		// Malformed ones are still called malformed.
		{"[spool]\nrescan_interval = \"10 hours\"\n", `want a duration such as "500ms", "10s" or "2h" (units ns, us, ms, s, m, h), got "10 hours"`},
		{"[spool]\nmax_batch_bytes = \"64 parsecs\"\n", `want a size in bytes such as 65536 or "64MiB"`},
	} {
		_, err := Parse("t.toml", []byte(tc.text))
		checkErr(t, err, ErrInvalid, tc.want)
	}
}

// TestDurationWithoutUnit: a duration written as a bare number, in
// quotes or not, is refused with the value as the file writes it and the
// same number with a unit as the example: "500" in quotes was shown as
// 500, as if the quotes were the mistake.
func TestDurationWithoutUnit(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[gpio]\npulse = \"500\"\n", `t.toml:2:1: gpio.pulse: invalid value: want a duration with a unit, such as "500ms" or "500s", got "500"`},
		{"[gpio]\npulse = \"1.5\"\n", `t.toml:2:1: gpio.pulse: invalid value: want a duration with a unit, such as "1.5ms" or "1.5s", got "1.5"`},
		{"[daemon]\nstop_grace = \" 20 \"\n", `t.toml:2:1: daemon.stop_grace: invalid value: want a duration with a unit, such as "20ms" or "20s", got " 20 "`},
		{"[gpio]\npulse = 500\n", `t.toml:2:1: gpio.pulse: invalid value: want a duration with a unit, in quotes, such as "500ms" or "500s", got 500`},
		{"[gpio]\npulse = 1.5\n", `t.toml:2:1: gpio.pulse: invalid value: want a duration with a unit, in quotes, such as "1.5ms" or "1.5s", got 1.5`},
	} {
		_, err := Parse("t.toml", []byte(tc.text))
		checkErr(t, err, ErrInvalid, tc.want)
	}
}

// TestDurationZeroWithoutUnit: 0 is no time in any unit, so a bare 0
// (or 0.0) reads as "0" does, where the docs say 0 turns a cap off.
func TestDurationZeroWithoutUnit(t *testing.T) {
	for _, text := range []string{"[spool]\ndone_max_age = 0\n", "[spool]\ndone_max_age = 0.0\n", "[spool]\ndone_max_age = \"0\"\n"} {
		c, err := Parse("t.toml", []byte(text))
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		if c.Spool.DoneMaxAge.Duration != 0 {
			t.Errorf("%q: done_max_age %v, want 0", text, c.Spool.DoneMaxAge.Duration)
		}
	}
	// The check of each key still holds: a pulse of 0 is refused.
	if _, err := Parse("t.toml", []byte("[gpio]\npulse = 0\n")); err == nil {
		t.Error("gpio.pulse = 0 was taken")
	}
}
