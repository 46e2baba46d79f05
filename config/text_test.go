package config

import "testing"

// TestNotTextAtItsPlace: a byte that is not UTF-8, or a control character,
// is told at its own line and column with what to do; the decoder gave
// the start of the line or string (1:2 for the é of "# café" in Latin-1)
// or a column off by one, and said only "invalid UTF-8 byte: 0xe9".
func TestNotTextAtItsPlace(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"# caf\xe9\n[gpio]\npulse = \"1s\"\n", "t.toml:1:6: syntax error: byte 0xe9 is not UTF-8 text; a TOML file is UTF-8: save it as UTF-8 (from Latin-1: iconv -f latin1 -t utf-8)"},
		{"[gpio]\npulse = \"1s\" # caf\xe9\n", "t.toml:2:19: syntax error: byte 0xe9 is not UTF-8"},
		{"[gpio]\r\nchip = \"\xff\"\r\n", "t.toml:2:9: syntax error: byte 0xff is not UTF-8"},
		{"[gpio]\nchip = \"abcdé\x01\"\n", `t.toml:2:14: syntax error: control character U+0001 is not allowed in TOML: remove it, or write it as the escape "\u0001" in a quoted string`},
		{"a\x7f = 1\n", "t.toml:1:2: syntax error: control character U+007F"},
		{"[gpio]\n\x00\n", "t.toml:2:1: syntax error: control character U+0000 is not allowed in TOML: a TOML file is UTF-8 text: save it as UTF-8 (a file saved as UTF-16 holds NUL bytes"},
		{"\xff\xfe[\x00g\x00", "t.toml:1:1: syntax error: byte 0xff is not UTF-8 text; a TOML file is UTF-8: it looks like UTF-16: save it as UTF-8 (iconv -f utf-16 -t utf-8)"},
		// Lines ended by CR alone (classic Mac text): the decoder says
		// "control characters: '0x0d'", and after a comment takes the
		// next line for a key to quote ("# c\rmodel" = "m.smm").
		{"# c\rmodel = \"m.smm\"\r", "t.toml:1:4: syntax error: a carriage return (U+000D) without a line feed after it is not allowed in TOML, whose lines end in LF or CRLF: save the file with LF line ends"},
		{"[gpio]\r\npulse = \"1s\"\r[log]\r\n", "t.toml:2:13: syntax error: a carriage return (U+000D) without a line feed"},
		{"model = \"m.smm\"\r", "t.toml:1:16: syntax error: a carriage return"},
	} {
		_, err := Parse("t.toml", []byte(tc.text))
		checkErr(t, err, ErrSyntax, tc.want)
	}
	// A byte-order mark, CRLF line ends and tabs are text.
	if _, err := Parse("t.toml", []byte("\xef\xbb\xbf[gpio]\r\npulse = \"1s\"\t# a tab\r\n")); err != nil {
		t.Errorf("BOM, CRLF and a tab: %v", err)
	}
}

// TestSetTwiceSaysWhatToDo: a key or a table a file sets twice is told
// at the start of the line that sets it again, with what to do; the
// decoder gave the end of the value ("3:12: Key 'gpio.pulse' has already
// been defined.").
func TestSetTwiceSaysWhatToDo(t *testing.T) {
	const todo = "is set a second time in this file: a file sets a key or a [table] once (a later drop-in may set it again); remove one, or join the two"
	for _, tc := range []struct{ text, want string }{
		{"[gpio]\npulse = \"1s\"\npulse = \"2s\"\n", "t.toml:3:1: syntax error: gpio.pulse " + todo},
		{"[gpio]\npulse = \"1s\"\n[gpio]\nchip = \"x\"\n", "t.toml:3:1: syntax error: gpio " + todo},
		{"[gpio.label_pins]\nalice = \"GPIO5\"\n  alice = \"GPIO6\"\n", "t.toml:3:3: syntax error: gpio.label_pins.alice " + todo},
	} {
		_, err := Parse("t.toml", []byte(tc.text))
		checkErr(t, err, ErrSyntax, tc.want)
	}
}

// TestKeyInTheWrongTable: a key written under another table than its own
// (or under one where it belongs to none, or before the first table
// where it belongs to one) is named with the key it is: it was only
// "daemon.pulse: unknown key".
func TestKeyInTheWrongTable(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[daemon]\npulse = \"1s\"\n", "t.toml:2:1: daemon.pulse: unknown key (did you mean gpio.pulse? pulse is a key of [gpio])"},
		{"pulse = \"1s\"\n", "t.toml:1:1: pulse: unknown key (did you mean gpio.pulse? pulse is a key of [gpio])"},
		{"[spool]\nmodel = \"m.smm\"\n", "t.toml:2:1: spool.model: unknown key (did you mean model? model is a key of no table: it goes before the first [table] of a file)"},
		{"[mqtt]\nlisten = \":9469\"\n", "mqtt.listen: unknown key (did you mean metrics.listen? listen is a key of [metrics])"},
		// A misspelling in its own table is still suggested as before.
		{"[decision]\nthreshhold = 0.5\n", "decision.threshhold: unknown key (did you mean decision.threshold?)"},
	} {
		_, err := Parse("t.toml", []byte(tc.text))
		checkErr(t, err, ErrUnknownKey, tc.want)
	}
}
