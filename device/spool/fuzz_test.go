package spool

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzBatchName: whatever name a writer gives a batch in new/ (any bytes
// a file name may hold), the spool lists it unless it is a writer's file
// (hidden, or ending in .tmp), claims it, counts its attempts, reads it
// back whole and moves it to done/ or to failed/ with its reason, leaving
// nothing in cur/; a name no file can have is refused by every call, and
// nothing is made outside the spool.
func FuzzBatchName(f *testing.F) {
	for _, s := range []string{
		"a.npy", "burst-1.csv", ".hidden", "part.tmp", "x.retry", ".x.retry", ".retry-0",
		"..", ".", "", "a/b", "../escape", "caf\xe9.npy", "line\nbreak.csv",
		strings.Repeat("n", 248), strings.Repeat("n", 249), strings.Repeat("n", 255), strings.Repeat("n", 256),
	} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, name string, fail bool) {
		top := t.TempDir()
		dir := filepath.Join(top, "spool")
		sp, err := Open(Options{Dir: dir, KeepDone: true})
		if err != nil {
			t.Fatal(err)
		}
		defer sp.Close()
		content := []byte("1,2\n" + name)
		valid := name != "" && name != "." && name != ".." && len(name) <= 255 && !strings.ContainsAny(name, "/\x00")
		if !valid {
			if _, err := sp.Claim(name); err == nil {
				t.Fatalf("claimed %q", name)
			}
			if _, err := readClaimed(sp, name, 0); err == nil {
				t.Fatalf("read %q", name)
			}
			sp.Fail(name, "no batch")
			sp.Finish(name)
			if es, _ := os.ReadDir(top); len(es) != 1 {
				t.Fatalf("a call with %q made files beside the spool: %v", name, es)
			}
			return
		}
		if err := os.WriteFile(filepath.Join(dir, DirNew, name), content, 0o640); err != nil {
			t.Fatalf("write %q: %v", name, err)
		}
		pending, err := sp.Pending()
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(pending, name) == ignored(name) {
			t.Fatalf("%q pending %v, ignored %v", name, pending, ignored(name))
		}
		if ignored(name) {
			if _, err := sp.Claim(name); err == nil {
				t.Fatalf("claimed the writer's file %q", name)
			}
			return
		}
		if _, err := sp.Claim(name); err != nil {
			t.Fatalf("claim %q: %v", name, err)
		}
		if got, err := sp.Interrupted(); err != nil || !slices.Equal(got, []string{name}) {
			t.Fatalf("interrupted %q, %v; want [%q]", got, err, name)
		}
		for want := 1; want <= 2; want++ {
			if err := sp.BeginMatch(name); err != nil {
				t.Fatalf("begin %q: %v", name, err)
			}
			if n, err := sp.MatchAttempts(name); err != nil || n != want {
				t.Fatalf("%q: %d attempts, %v; want %d", name, n, err, want)
			}
		}
		if got, err := sp.Interrupted(); err != nil || !slices.Equal(got, []string{name}) {
			t.Fatalf("with its marker, interrupted %q, %v; want [%q]", got, err, name)
		}
		if b, err := readClaimed(sp, name, int64(len(content))); err != nil || !bytes.Equal(b, content) {
			t.Fatalf("read %q: %q, %v", name, b, err)
		}
		sp.EndMatch(name)
		sub := DirDone
		if fail {
			sub = DirFailed
			reason := "bad batch " + strings.ToValidUTF8(name, "\uFFFD")
			if err := sp.Fail(name, reason); err != nil {
				t.Fatalf("fail %q: %v", name, err)
			}
			if b, err := os.ReadFile(sp.ReasonPath(name)); err != nil || !utf8.Valid(b) || !strings.HasPrefix(string(b), reason) {
				t.Fatalf("reason of %q: %q, %v", name, b, err)
			}
		} else if err := sp.Finish(name); err != nil {
			t.Fatalf("finish %q: %v", name, err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, sub, name)); err != nil || !bytes.Equal(b, content) {
			t.Fatalf("%s/%q: %q, %v", sub, name, b, err)
		}
		if es, err := os.ReadDir(filepath.Join(dir, DirCur)); err != nil || len(es) != 0 {
			t.Fatalf("cur/ holds %v after %q was moved, %v", es, name, err)
		}
		if _, err := sp.Prune(time.Now()); err != nil {
			t.Fatalf("prune with %q: %v", name, err)
		}
	})
}
