package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzOpen: whatever a file at journal.path holds, Verify and Open agree
// on whether it is a journal; one that is not is left byte for byte as it
// was; one that is keeps its records, loses at most what follows the last
// of them, and takes a new record after which it is still a journal.
func FuzzOpen(f *testing.F) {
	rec := `{"time":"2026-01-02T03:04:05Z","file":"a.npy","bytes":1,"frames":1,"decision":"alice","known":true,"score":0.1,"runner_up_score":null,"threshold":null,"arrived":"2026-01-02T03:04:05Z","latency_ms":1,"read_ms":0,"match_ms":0}` + "\n"
	for _, s := range []string{
		"", rec, rec + rec, rec + `{"time":"2026-01`, rec + "\x00\x00\x00\x00", "\x00\x00\n", `{"time":`,
		"[server]\nport = 1\n", rec + "not json\n", "{}\n", `{"time":1,"decision":2}` + "\n" + "\x00{\"ti\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "journal.jsonl")
		if err := os.WriteFile(p, data, 0o640); err != nil {
			t.Fatal(err)
		}
		verr := Verify(p)
		j, err := Open(p, 0, 1)
		if (err == nil) != (verr == nil) {
			t.Fatalf("Verify says %v but Open says %v", verr, err)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "journal") {
				t.Fatalf("error does not say it is the journal: %v", err)
			}
			if b, _ := os.ReadFile(p); !bytes.Equal(b, data) {
				t.Fatalf("a file that is not a journal was changed: %q became %q", data, b)
			}
			return
		}
		kept := int64(len(data)) - j.Repaired()
		if err := j.Append(&Record{Time: time.Unix(0, 0).UTC(), File: "x", Decision: "unknown"}); err != nil {
			t.Fatal(err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if kept < 0 || !bytes.Equal(b[:kept], data[:kept]) {
			t.Fatalf("the journal's records changed: kept %d of %q, now %q", kept, data, b)
		}
		if err := Verify(p); err != nil {
			t.Fatalf("after a record was appended the file is no journal: %v\n%q", err, b)
		}
	})
}
