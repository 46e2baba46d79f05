package device

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
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

// TestModelWatchFollows: the model watch fires when the file is replaced,
// when a link on the way is swapped, and when a directory on the way is
// renamed away or removed and another takes its place, and then for a
// change of the file in the new directory.
func TestModelWatchFollows(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(p string) {
		t.Helper()
		p = filepath.Join(d, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p+".tmp", []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".tmp", p); err != nil {
			t.Fatal(err)
		}
	}
	mw := newModelWatch(slog.New(slog.DiscardHandler))
	defer mw.close()
	if mw.fw == nil {
		t.Skip("no inotify")
	}
	// A change that must fire is waited for long (it fires modelReloadDelay
	// after the event, later under qemu-user or the race detector); one
	// that must not is given three times that delay to.
	fired := func(what string, want bool) {
		t.Helper()
		wait := 3 * modelReloadDelay
		if want {
			wait = 30 * time.Second
		}
		select {
		case <-mw.fire:
			if !want {
				t.Errorf("fired after %s", what)
			}
		case <-time.After(wait):
			if want {
				t.Errorf("did not fire after %s", what)
			}
		}
	}
	write("releases/v1/model.smm")
	if err := os.Symlink("releases/v1", filepath.Join(d, "current")); err != nil {
		t.Fatal(err)
	}
	mw.watch(filepath.Join(d, "current/model.smm"))
	fired("nothing", false)

	write("releases/v1/model.smm")
	fired("the file replaced", true)

	write("releases/v2/model.smm")
	if err := os.Symlink("releases/v2", filepath.Join(d, "current.new")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(d, "current.new"), filepath.Join(d, "current")); err != nil {
		t.Fatal(err)
	}
	fired("the link swapped", true)
	write("releases/v1/model.smm")
	fired("a file no longer on the way replaced", false)

	// A plain path whose directory is renamed away, then another made.
	mw.watch(filepath.Join(d, "dir/model.smm"))
	write("dir/model.smm")
	fired("the file written", true)
	if err := os.Rename(filepath.Join(d, "dir"), filepath.Join(d, "dir.old")); err != nil {
		t.Fatal(err)
	}
	fired("the directory renamed away", true)
	write("dir.old/model.smm")
	fired("the file in the directory renamed away replaced", false)
	write("dir/model.smm")
	fired("a new directory with the file", true)
	write("dir/model.smm")
	fired("the file in the new directory replaced", true)

	// The directory removed, and made again.
	if err := os.RemoveAll(filepath.Join(d, "dir")); err != nil {
		t.Fatal(err)
	}
	fired("the directory removed", true)
	write("dir/model.smm")
	fired("the directory made again with the file", true)
	write("dir/model.smm")
	fired("the file in the directory made again replaced", true)
}
