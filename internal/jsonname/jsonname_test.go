package jsonname

import (
	"encoding/base64"
	"encoding/json"
	"testing"
)

// TestTextAndB64: Text reads as encoding/json writes a string, and B64
// gives back the exact bytes of exactly the names that are not valid
// UTF-8.
func TestTextAndB64(t *testing.T) {
	for _, name := range []string{
		"", "a.npy", `x\xff`, "x\ufffd", "é", "x\xff", "x\xfe", "\xff\xfe", "a\xe2\x82", "a\xe2\x82b", "\xed\xa0\x80", "\xc0\xaf",
	} {
		b, err := json.Marshal(name)
		if err != nil {
			t.Fatal(err)
		}
		var read string
		if err := json.Unmarshal(b, &read); err != nil {
			t.Fatal(err)
		}
		if got := Text(name); got != read {
			t.Errorf("Text(%q) = %q, JSON reads %q", name, got, read)
		}
		got := B64(name)
		if (got == "") != (read == name) {
			t.Errorf("B64(%q) = %q, and JSON reads the name as %q", name, got, read)
		}
		if got != "" {
			if d, err := base64.StdEncoding.DecodeString(got); err != nil || string(d) != name {
				t.Errorf("B64(%q) = %q, which decodes to %q (%v)", name, got, d, err)
			}
		}
	}
}
