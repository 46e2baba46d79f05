//go:build unix

package model

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteFileKeepsModeAndOwner(t *testing.T) {
	m := mfModel(7, 5, 2, []int{4, 6})
	p := filepath.Join(t.TempDir(), "m.smm")
	if err := WriteFile(p, m); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("new model file mode %v, want 0644", fi.Mode().Perm())
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	root := os.Geteuid() == 0
	if root {
		if err := os.Chown(p, 12345, 23456); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteFile(p, m); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("replaced model file mode %v, want the old 0640", fi.Mode().Perm())
	}
	if st := fi.Sys().(*syscall.Stat_t); root && (st.Uid != 12345 || st.Gid != 23456) {
		t.Errorf("replaced model file owner %d:%d, want the old 12345:23456", st.Uid, st.Gid)
	}
}

// TestWriteFileThroughLinks: a model path that leads through symbolic
// links (model.smm -> current/model.smm, current -> releases/v2) is
// written where they lead: both links stay, and the release's file holds
// the new model. The rename went over the link model.smm itself, which
// became a plain file (train --out, enroll and forget alike).
func TestWriteFileThroughLinks(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Join(dir, "releases", "v2")
	if err := os.MkdirAll(rel, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(rel, "model.smm"), mfModel(7, 5, 2, []int{4, 6})); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("releases", "v2"), filepath.Join(dir, "current")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "model.smm")
	if err := os.Symlink(filepath.Join("current", "model.smm"), link); err != nil {
		t.Fatal(err)
	}
	m := mfModel(8, 5, 3, []int{4, 6, 5})
	if err := WriteFile(link, m); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, filepath.Join(dir, "current")} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link (%v)", l, err)
		}
	}
	got, _, err := ReadFile(filepath.Join(rel, "model.smm"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Sets) != len(m.Sets) {
		t.Errorf("the release's file holds %d sets, want the new model's %d", len(got.Sets), len(m.Sets))
	}
}
