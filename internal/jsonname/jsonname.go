// Package jsonname holds the one convention of setmatch's JSON output
// for a name (of a file, a folder, a class or a set) whose bytes are not
// valid UTF-8. JSON strings hold text, not bytes: encoding/json writes
// each byte that is not part of a UTF-8 character as U+FFFD, so the text
// field holds the name as it reads (Text), and beside it `<field>_b64`
// holds the name's exact bytes in standard base64 (B64), present exactly
// when the name is not valid UTF-8. A script identifies a name by its
// _b64 where there is one, else by its text.
//
// setmatchd's journal writes its `file` and `file_b64` by the same
// convention (B64); its lines are an on-disk contract, which its tests
// check: file_b64 is the name's bytes in standard base64.
package jsonname

import (
	"encoding/base64"
	"unicode/utf8"
)

// B64 returns name's bytes in standard base64 where name is not valid
// UTF-8, and "" where it is: the `_b64` field beside the name's text,
// left out when empty (omitempty).
func B64(name string) string {
	if utf8.ValidString(name) {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(name))
}

// Text returns name as encoding/json writes it as text: each byte that
// is not part of a UTF-8 character replaced by U+FFFD, the rest as it is.
// A key of a JSON object made from a name takes it, as encoding/json
// writes a string value.
func Text(name string) string {
	if utf8.ValidString(name) {
		return name
	}
	return string([]rune(name)) // a range over name reads each bad byte as U+FFFD
}
