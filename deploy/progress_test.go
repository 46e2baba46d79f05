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

func TestPrefixWriter(t *testing.T) {
	var b bytes.Buffer
	w := prefixWriter{&b, "train: "}
	w.Write([]byte("one\ntwo\n"))
	w.Write([]byte("three\n"))
	if want := "train: one\ntrain: two\ntrain: three\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
