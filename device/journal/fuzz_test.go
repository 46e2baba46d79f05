package journal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
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

// FuzzAppend: a record of any batch name, decision, labels and reason
// (what a spool's writers and a model's labels put in it) is appended as
// one line that Verify and Open take as a record, with nothing to cut
// off, and whose name reads back exactly (from file_b64 where it is not
// valid UTF-8).
func FuzzAppend(f *testing.F) {
	for _, s := range [][4]string{
		{"a.npy", "alice", "", "set 1"},
		{"caf\xe9.csv", "failed", "line 1, column 2: \"x\" is not a number", ""},
		{"line\nbreak\x00.npy", "unknown", "\u2028\"}\n{\"time\":", "\xff"},
		{"", "\xe2\xa3", "", ""}, // a cut UTF-8 sequence: U+FFFD for each byte
	} {
		f.Add(s[0], s[1], s[2], s[3], 0.25)
	}
	f.Fuzz(func(t *testing.T, file, decision, reason, best string, score float64) {
		p := filepath.Join(t.TempDir(), "journal.jsonl")
		j, err := Open(p, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		var sc *float64
		if !math.IsNaN(score) && !math.IsInf(score, 0) {
			sc = &score
		}
		r := Record{Time: time.Unix(1, 0).UTC(), File: file, Decision: decision, Reason: reason, Best: best, BestSet: best, RunnerUp: best, Score: sc, Votes: []string{decision, best}}
		for range 2 {
			if err := j.Append(&r); err != nil {
				t.Fatalf("append %+v: %v", r, err)
			}
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		if err := Verify(p); err != nil {
			t.Fatalf("after appending %+v: %v", r, err)
		}
		j, err = Open(p, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		j.Close()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if j.Repaired() != 0 || bytes.Count(b, []byte("\n")) != 2 {
			t.Fatalf("two records appended, %d bytes cut off: %q", j.Repaired(), b)
		}
		var got Record
		if err := json.Unmarshal(b[:bytes.IndexByte(b, '\n')], &got); err != nil {
			t.Fatal(err)
		}
		name := got.File
		if got.FileB64 != "" {
			n, err := base64.StdEncoding.DecodeString(got.FileB64)
			if err != nil {
				t.Fatal(err)
			}
			name = string(n)
		}
		// JSON writes U+FFFD for each byte of decision that is not UTF-8.
		var want string
		if w, err := json.Marshal(decision); err != nil || json.Unmarshal(w, &want) != nil {
			t.Fatal(err)
		}
		if name != file || got.Decision != want {
			t.Fatalf("record of %q, %q reads back as %q, %q", file, decision, name, got.Decision)
		}
	})
}
