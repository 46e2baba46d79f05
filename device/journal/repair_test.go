package journal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/internal/jsonname"
	"setmatch/internal/testutil"
)

// TestTornLastLineRepaired: a power cut in the middle of a write leaves a
// line without its end (or zeros); at the next Open it is cut off, and the
// next record starts a line of its own.
func TestTornLastLineRepaired(t *testing.T) {
	for name, tail := range map[string]string{
		"torn":  `{"time":"2025-01-01T00:00:00Z","file":"b.np`,
		"zeros": "\x00\x00\x00\x00\x00\x00\x00\x00\n",
		"none":  "",
		// A page lost in the cut: zeros inside a line, a line of zeros
		// then a torn one, a torn line after zeros, or anything after
		// the last record.
		"zeros inside a line":    `{"time":"2025-01-01T00:00:00Z","fi` + "\x00\x00\x00\x00" + `le":"b"}` + "\n",
		"zeros then torn":        "\x00\x00\x00\x00\n" + `{"time":"2025-01-01T00:00:00Z","file":"b.np`,
		"torn starting in zeros": "\x00\x00" + `{"time":"2025-01-01T00:00:00Z","file":"b.np`,
		"text after the record":  "precious\n",
		"text without newline":   "precious",
	} {
		t.Run(name, func(t *testing.T) {
			j, p := openTemp(t)
			j.Append(&Record{File: "a.npy", Decision: "alice"})
			j.Close()
			f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString(tail)
			f.Close()
			j, err := Open(p, 0, 1)
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
// file_b64, so that two of them never share an entry: file and file_b64
// are what internal/jsonname's Text and B64, the convention of every JSON
// output, give.
func TestNonUTF8Names(t *testing.T) {
	j, p := openTemp(t)
	names := []string{"a\xff.npy", "a\xfe.npy", "plain.npy", "a\ufffd.npy", `a\xff.npy`}
	for _, n := range names {
		if err := j.Append(&Record{File: n}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	recs := readJournal(t, p)
	for i, r := range recs {
		if r.File != jsonname.Text(names[i]) || r.FileB64 != jsonname.B64(names[i]) {
			t.Errorf("record %d: file %q, file_b64 %q; jsonname writes %q as %q, %q", i, r.File, r.FileB64, names[i], jsonname.Text(names[i]), jsonname.B64(names[i]))
		}
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
	for _, r := range recs[2:] {
		if r.FileB64 != "" {
			t.Errorf("the UTF-8 name %q got file_b64 %q", r.File, r.FileB64)
		}
	}
}

// TestAppendResetsFileB64: a record appended again under a UTF-8 name
// carries no file_b64 left from the name it had before.
func TestAppendResetsFileB64(t *testing.T) {
	j, p := openTemp(t)
	r := &Record{File: "a\xff.npy", Decision: "alice"}
	if err := j.Append(r); err != nil {
		t.Fatal(err)
	}
	r.File = "b.npy"
	if err := j.Append(r); err != nil {
		t.Fatal(err)
	}
	j.Close()
	recs := readJournal(t, p)
	if len(recs) != 2 || recs[0].FileB64 == "" || recs[1].File != "b.npy" || recs[1].FileB64 != "" {
		t.Errorf("journal holds %+v, want a\\xff.npy with file_b64, then b.npy without", recs)
	}
}

// TestNotAJournalIsLeftAlone: a journal.path that names another file (the
// model, a README, one without a final newline) is refused and left as it
// is; Open cut off every line that was not JSON, down to nothing. A
// symbolic link is refused, and the file it points to left as it is.
func TestNotAJournalIsLeftAlone(t *testing.T) {
	rec := `{"time":"2025-01-01T00:00:00Z","file":"a.npy","decision":"alice"}` + "\n"
	for name, text := range map[string]string{
		"binary":           "SMM\x00\x01\x02\x03\n\x00\xff\xfe",
		"readme":           "# Notes\n\nprecious\n",
		"no newline":       "precious",
		"text then record": "precious\n" + rec,
		// An empty first line is not what a power cut leaves (it leaves
		// zeros): such a file is not a journal, whatever follows.
		"empty first line, record start":  "\n{\"time\": my notes\nprecious\nmore precious\n",
		"empty first line, record inside": "\n# notes\n" + rec + "precious\n",
		"json not a record":               `{"a":1}` + "\n",
		"record without decision":         `{"time":"2025-01-01T00:00:00Z","file":"a.npy"}` + "\n",
		// A first line of zeros may be a power cut's, but what follows
		// is more than one torn record.
		"zeros, then lines": "\x00\x00\n{\"time\": my notes\nprecious\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "j.jsonl")
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			j, err := Open(p, 0, 1)
			if err == nil {
				j.Close()
			}
			if err == nil || !strings.Contains(err.Error(), "is not a setmatch journal") || !strings.Contains(err.Error(), "set journal.path to a file of its own") {
				t.Errorf("Open = %v, want is not a setmatch journal", err)
			}
			if err := Verify(p); err == nil {
				t.Error("Verify passes it")
			}
			if b, _ := os.ReadFile(p); string(b) != text {
				t.Errorf("the file now holds %q", b)
			}
		})
	}
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	os.WriteFile(victim, []byte("precious"), 0o644)
	link := filepath.Join(dir, "j.jsonl")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{victim, filepath.Join(dir, "none.jsonl")} {
		os.Remove(link)
		os.Symlink(target, link)
		if j, err := Open(link, 0, 1); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
			if j != nil {
				j.Close()
			}
			t.Errorf("Open(link to %s) = %v, want is a symbolic link", target, err)
		}
		if err := Verify(link); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
			t.Errorf("Verify(link) = %v", err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the link's target now holds %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.jsonl")); err == nil {
		t.Error("Open created the file a dangling link points to")
	}
}

// TestDamagedOnlyLine: a journal whose one line a power cut damaged (zeros
// inside it) is cut to nothing, as a torn one is.
func TestDamagedOnlyLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	line := `{"time":"2025-01-01T00:00:00Z","fi` + "\x00\x00\x00\x00" + `le":"b"}` + "\n"
	os.WriteFile(p, []byte(line), 0o644)
	j, err := Open(p, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.Repaired() != int64(len(line)) {
		t.Errorf("Repaired() = %d, want %d", j.Repaired(), len(line))
	}
}

// TestTornOnlyLine: a journal whose one line was torn before its newline
// is cut to nothing.
func TestTornOnlyLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	torn := `{"time":"2025-01-01T00:00:00Z","fi`
	os.WriteFile(p, []byte(torn+"\x00\x00"), 0o644)
	j, err := Open(p, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.Repaired() != int64(len(torn)+2) {
		t.Errorf("Repaired() = %d", j.Repaired())
	}
}

// TestLongJournalReopens: a journal longer than the window Open reads at
// each end (days of decisions under the default rotation of 64 MiB) is
// opened again, and a torn line at its end is cut off as in a short one;
// a file of more than the window without a newline in it is refused and
// left as it is.
func TestLongJournalReopens(t *testing.T) {
	line, err := json.Marshal(&Record{File: "a.npy", Decision: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	line = append(line, '\n')
	n := 5*window/(2*len(line)) + 1 // two and a half windows of records
	body := bytes.Repeat(line, n)
	torn := `{"time":"2025-01-01T00:00:00Z","file":"b.np`
	p := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(p, append(body, torn...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Verify(p); err != nil {
		t.Fatalf("Verify of a journal of %d bytes: %v", len(body)+len(torn), err)
	}
	j, err := Open(p, 0, 1)
	if err != nil {
		t.Fatalf("Open of a journal of %d bytes: %v", len(body)+len(torn), err)
	}
	if got := j.Repaired(); got != int64(len(torn)) {
		t.Errorf("Repaired() = %d, want %d", got, len(torn))
	}
	if err := j.Append(&Record{File: "c.npy", Decision: "bob"}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	recs := readJournal(t, p)
	if len(recs) != n+1 || recs[n-1].File != "a.npy" || recs[n].File != "c.npy" {
		t.Errorf("journal holds %d records, the last %+v; want %d, the last c.npy", len(recs), recs[len(recs)-1], n+1)
	}

	long := bytes.Repeat([]byte("x"), window+1)
	q := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(q, long, 0o644); err != nil {
		t.Fatal(err)
	}
	if j, err := Open(q, 0, 1); err == nil || !strings.Contains(err.Error(), "no line ends in its first") {
		if j != nil {
			j.Close()
		}
		t.Errorf("Open of %d bytes without a newline = %v, want no line ends in its first …", len(long), err)
	}
	if b, _ := os.ReadFile(q); !bytes.Equal(b, long) {
		t.Error("Open changed the file it refused")
	}
}

// TestNotARegularFile: a FIFO or a folder at the journal's path is refused
// by Open and Verify, saying so, without waiting for a writer: the check
// is of the open file, so nothing put in place between a check of the
// path and the open gets through.
func TestNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := testutil.FIFO(t, dir, "fifo.jsonl")
	folder := filepath.Join(dir, "folder.jsonl")
	if err := os.Mkdir(folder, 0o750); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, folder} {
		testutil.Within(t, 10*time.Second, "Open and Verify of "+p, func() {
			if j, err := Open(p, 0, 1); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
				if j != nil {
					j.Close()
				}
				t.Errorf("Open(%s) = %v, want is not a regular file", p, err)
			}
			if err := Verify(p); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
				t.Errorf("Verify(%s) = %v, want is not a regular file", p, err)
			}
		})
	}
}
