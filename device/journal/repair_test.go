package journal

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
)

// TestTornLastLineRepaired: a power cut in the middle of a write leaves a
// line without its end (or zeros); at the next Open it is cut off, and the
// next record starts a line of its own.
func TestTornLastLineRepaired(t *testing.T) {
	for name, tail := range map[string]string{
		"torn":  `{"time":"2025-01-01T00:00:00Z","file":"b.np`,
		"zeros": "\x00\x00\x00\x00\x00\x00\x00\x00\n",
		"none":  "",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "j.jsonl")
			j, err := Open(p, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			j.Append(&Record{File: "a.npy", Decision: "alice"})
			j.Close()
			f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString(tail)
			f.Close()
			j, err = Open(p, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := j.Repaired(); got != int64(len(tail)) {
				t.Errorf("Repaired() = %d, want %d", got, len(tail))
			}
			if err := j.Append(&Record{File: "c.npy", Decision: "bob"}); err != nil {
				t.Fatal(err)
			}
			j.Close()
			recs := readJournal(t, p)
			if len(recs) != 2 || recs[0].File != "a.npy" || recs[1].File != "c.npy" {
				t.Errorf("journal holds %+v", recs)
			}
		})
	}
}

// TestNonUTF8Names: names that are not UTF-8 are written exactly in
// file_b64, so that two of them never share an entry.
func TestNonUTF8Names(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := Open(p, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"a\xff.npy", "a\xfe.npy", "plain.npy"}
	for _, n := range names {
		if err := j.Append(&Record{File: n}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	recs := readJournal(t, p)
	for i, r := range recs {
		got := r.File
		if r.FileB64 != "" {
			b, err := base64.StdEncoding.DecodeString(r.FileB64)
			if err != nil {
				t.Fatal(err)
			}
			got = string(b)
		}
		if got != names[i] {
			t.Errorf("record %d names %q, want %q", i, got, names[i])
		}
	}
	if recs[2].FileB64 != "" {
		t.Errorf("a UTF-8 name got file_b64 %q", recs[2].FileB64)
	}
}
