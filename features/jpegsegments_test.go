package features

import (
	"bytes"
	"fmt"
	"testing"
)

// TestJPEGSegments: fill bytes are passed over, markers without a length
// yield nil, the bytes of a scan run to the next marker past its stuffed
// bytes and RSTn, EOI ends the walk, and so does a length that runs past
// the data or counts less than its own two bytes.
func TestJPEGSegments(t *testing.T) {
	walk := func(data []byte) string {
		var b bytes.Buffer
		for m, seg := range jpegSegments(data) {
			fmt.Fprintf(&b, "%02X:% x;", m, seg)
		}
		return b.String()
	}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{[]byte{0xFF, 0xD8, 0xFF, 0xFF, 0xE0, 0, 3, 7, 0xFF, 0xD0, 0xFF, 0xDA, 0, 2, 1, 0xFF, 0, 2, 0xFF, 0xD1, 3, 0xFF, 0xFF, 0xFE, 0, 2, 0xFF, 0xD9, 0xFF, 0xE0, 0, 2},
			"E0:07;D0:;DA:;00:01 ff 00 02 ff d1 03 ff;FE:;D9:;"},
		{[]byte{0xFF, 0xD8, 0xFF, 0x00, 5, 0xFF, 0x01, 0xFF, 0xE1, 0, 5, 1}, "00:ff 00 05;01:;"},
		{[]byte{0xFF, 0xD8, 0xFF, 0xE1, 0, 1, 0, 0}, ""},
		{[]byte{0xFF, 0xD8, 9, 9, 9, 9}, "00:09 09 09 09;"},
		{[]byte{0xFF, 0xD8, 0xFF}, ""},
	} {
		if got := walk(c.data); got != c.want {
			t.Errorf("jpegSegments(% x) = %s, want %s", c.data, got, c.want)
		}
	}
}
