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
