package device

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestModelPoints: the paths a model watch watches are the links on the
// way to the file and the file, each in a directory reached without links.
func TestModelPoints(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(d, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(d, name)); err != nil {
			t.Fatal(err)
		}
	}
	mk("releases/v1")
	mk("lib")
	for _, p := range []string{"releases/v1/model.smm", "plain.smm"} {
		if err := os.WriteFile(filepath.Join(d, p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln("releases/v1", "current")
	ln("current/model.smm", "model.smm")
	ln(filepath.Join(d, "current"), "abs")
	ln("../releases/v1/model.smm", "lib/up.smm")
	ln("loop1", "loop2")
	ln("loop2", "loop1")
	ln("gone.smm", "dangling.smm")
	for _, c := range []struct {
		path string
		want []string
	}{
		{"plain.smm", []string{"plain.smm"}},
		{"missing/model.smm", []string{"missing"}},
		{"model.smm", []string{"current", "model.smm", "releases/v1/model.smm"}},
		{"current/model.smm", []string{"current", "releases/v1/model.smm"}},
		{"abs/model.smm", []string{"abs", "current", "releases/v1/model.smm"}},
		{"lib/up.smm", []string{"lib/up.smm", "releases/v1/model.smm"}},
		{"dangling.smm", []string{"dangling.smm", "gone.smm"}},
		{"loop1", []string{"loop1", "loop2"}},
	} {
		var got []string
		for p := range modelPoints(filepath.Join(d, c.path)) {
			r, err := filepath.Rel(d, p)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: points %q, want %q", c.path, got, c.want)
		}
	}
}
