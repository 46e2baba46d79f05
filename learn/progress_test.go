package learn

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

type failWriter struct{ n int }

func (f *failWriter) Write(b []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestProgressLines(t *testing.T) {
	var lines, log bytes.Buffer
	progress, logErr := ProgressLines(&lines, &log, 4)
	progress(IterStats{Iteration: 0, Cost: 2, Seconds: 0})
	progress(IterStats{Iteration: 1, Cost: 1.5, GradNorm: 0.25, Step: 0.5, Evals: 3, Seconds: 2, Restart: true})
	want := "iter    0/4  cost 2              grad 0           step 0           evals  0    0.00s\n" +
		"iter    1/4  cost 1.5            grad 0.25        step 0.5         evals  3    2.00s  at most 6s left\n"
	if lines.String() != want {
		t.Errorf("lines:\n%q\nwant\n%q", lines.String(), want)
	}
	js := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(js) != 2 || js[1] != `{"iteration":1,"cost":1.5,"grad_norm":0.25,"step":0.5,"seconds":2,"evals":3,"restart":true}` {
		t.Errorf("log:\n%s", log.String())
	}
	if err := logErr(); err != nil {
		t.Error(err)
	}

	fw := new(failWriter)
	progress, logErr = ProgressLines(new(bytes.Buffer), fw, 4)
	progress(IterStats{})
	progress(IterStats{Iteration: 1})
	if err := logErr(); err == nil || fw.n != 1 {
		t.Errorf("a failing log: error %v after %d writes, want the first error and no more writes", err, fw.n)
	}
	progress, logErr = ProgressLines(new(bytes.Buffer), nil, 4)
	progress(IterStats{})
	if err := logErr(); err != nil {
		t.Error(err)
	}
}
