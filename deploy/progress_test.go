package deploy

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"setmatch/method"
)

func TestProgressLines(t *testing.T) {
	var b bytes.Buffer
	p := ProgressLines(&b)
	p(method.AutoProgress{Done: 1, Total: 4, Elapsed: 3 * time.Second, ETA: 9 * time.Second})
	p(method.AutoProgress{Done: 2, Total: 4, Elapsed: 4 * time.Second, ETA: 5 * time.Second, Untimed: []string{"kfda", "dr"}})
	lines := strings.Split(b.String(), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], "3s elapsed, about 9s left") ||
		!strings.HasPrefix(lines[1], "train: cross-validation 2/4 (") ||
		!strings.HasSuffix(lines[1], "4s elapsed, at least 5s left (kfda, dr not timed yet)") {
		t.Errorf("lines:\n%s", b.String())
	}
}

// TestProgressLinesSayWhyTotalChanges: once runs once counted are not
// made, the line says so and why, beside a total that has
// changed; runs of candidates cut short and left out in the words the
// summary counts those candidates in.
func TestProgressLinesSayWhyTotalChanges(t *testing.T) {
	var b bytes.Buffer
	p := ProgressLines(&b)
	p(method.AutoProgress{Done: 5, Total: 12})
	p(method.AutoProgress{Done: 6, Total: 6, LeftOut: 6})
	p(method.AutoProgress{Done: 7, Total: 30, LeftOut: 1, Failed: 5})
	p(method.AutoProgress{Done: 33, Total: 41, CutShort: 7})
	p(method.AutoProgress{Done: 33, Total: 38, CutShort: 7, LeftOut: 3})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		"about 0s left",
		"about 0s left; 6 runs not made, of candidates left out, as they cannot change the choice",
		"about 0s left; 1 run not made, of candidates left out, as they cannot change the choice; 5 runs of failed candidates not made",
		"about 0s left; 7 runs not made, of candidates cut short, as they cannot change the choice",
		"about 0s left; 10 runs not made, of candidates cut short (7) and left out (3), as they cannot change the choice",
	}
	if len(lines) != len(want) {
		t.Fatalf("lines:\n%s", b.String())
	}
	for i, l := range lines {
		if !strings.HasSuffix(l, want[i]) {
			t.Errorf("line %d: %q, want it to end %q", i+1, l, want[i])
		}
	}
}

func TestPrefixWriter(t *testing.T) {
	var b bytes.Buffer
	w := prefixWriter{&b, "train: "}
	w.Write([]byte("one\ntwo\n"))
	w.Write([]byte("three\n"))
	if want := "train: one\ntrain: two\ntrain: three\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
