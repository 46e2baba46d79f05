package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"setmatch/dataset"
	"setmatch/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ (and testdata/idxsets, with scripts/idxsets.py: that needs python3)")

// The golden files hold the output of commands, normalised (normalise):
// go test -run Golden -update rewrites them, and git diff then shows what
// a change did to the output.

// goldenModel is a model file of format 7 that decides by a vote, with a
// feature pipeline, the candidates of its selection and a threshold for
// each class: a copy of model/testdata/format-v7.smm, so that inspect
// shows most of what it can.
const goldenModel = "testdata/vote.smm"

// goldenVarying are the fields whose values change from run to run
// (timings); normalise replaces their values with "…".
var goldenVarying = []string{"ms_per_set"}

var (
	goldenNumber = regexp.MustCompile(`-?\b[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?\b`)
	goldenField  = regexp.MustCompile(`("(` + strings.Join(goldenVarying, "|") + `)": )[^,\n}]+`)
)

// normalise makes out comparable across runs and machines: every tmp
// becomes $TMP; the values of the fields of goldenVarying become "…"; a
// decimal number with more than 6 significant digits is rounded to 6, and
// one below 1e-12 in magnitude (rounding noise, as an orthonormality error
// of 4.4e-16) becomes 0, so that the last bits of a float, which differ
// between amd64 and arm64 (fused multiply-add) and between runs with other
// worker counts, do not count.
func normalise(out string, tmp ...string) string {
	for _, d := range tmp {
		out = strings.ReplaceAll(out, d, "$TMP")
	}
	out = goldenField.ReplaceAllString(out, `${1}"…"`)
	return goldenNumber.ReplaceAllStringFunc(out, func(s string) string {
		if !strings.ContainsAny(s, ".eE") {
			return s // a whole number
		}
		v, err := strconv.ParseFloat(s, 64)
		switch {
		case err != nil:
			return s
		case v != 0 && math.Abs(v) < 1e-12:
			return "0"
		case significant(s) > 6:
			return strconv.FormatFloat(v, 'g', 6, 64)
		}
		return s
	})
}

// significant counts the significant digits of a decimal number.
func significant(s string) int {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimLeft(strings.ReplaceAll(strings.TrimPrefix(s, "-"), ".", ""), "0")
	return len(s)
}

// checkGolden compares got with testdata/name, or writes it there with
// -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run Golden -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -run Golden -update rewrites it; git diff shows the change):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines of want and got that differ, by line number.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// goldenRun runs setmatch with args and returns its standard output,
// failing t on another exit status than 0.
func goldenRun(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := dispatch(args, &stdout, &stderr); code != 0 {
		t.Fatalf("setmatch %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

func TestGoldenInspect(t *testing.T) {
	checkGolden(t, "inspect.txt", normalise(goldenRun(t, "inspect", goldenModel)))
}

func TestGoldenInspectJSON(t *testing.T) {
	checkGolden(t, "inspect.json", normalise(goldenRun(t, "inspect", "--json", goldenModel)))
}

// TestGoldenTestJSON trains nn-h with a fixed threshold on sets drawn with
// a fixed seed (3 classes, 2 sets each) and checks setmatch test --json on
// the other sets of those classes and on the 3 sets of a fourth class,
// unknown to the model. The threshold, 0.09, keeps out two of the three
// strangers (scores 0.095 and 0.116) and lets in the third (0.083) and
// every known set (below 0.001).
func TestGoldenTestJSON(t *testing.T) {
	spec := testutil.Sets{Classes: 4, PerClass: 3, Frames: 15, Dim: 3, Sep: 3, Spread: 0.5, Noise: 1}
	sets, labels := spec.Make(rand.New(rand.NewPCG(7, 8)))
	classes := []string{"a", "b", "c", "d"}
	train := &dataset.Dataset{Classes: classes[:3]}
	probe := &dataset.Dataset{Classes: classes}
	for i, x := range sets {
		s := dataset.Set{Class: classes[labels[i]], Name: fmt.Sprintf("s%d", i%spec.PerClass), Frames: x}
		if labels[i] < 3 && i%spec.PerClass < 2 {
			train.Sets = append(train.Sets, s)
		} else {
			probe.Sets = append(probe.Sets, s)
		}
	}
	trainDir, probeDir := writeSplit(t, train, probe)
	tmp := filepath.Dir(trainDir)
	m := filepath.Join(tmp, "m.smm")
	goldenRun(t, "train", "--data", trainDir, "--method", "nn-h", "--threshold", "0.09", "--out", m)
	checkGolden(t, "test.json", normalise(goldenRun(t, "test", "--json", "--model", m, "--data", probeDir), tmp))
}
