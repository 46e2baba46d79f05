package model

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"setmatch/internal/testexec"
)

// TestWriteFileSyncsDirectory: WriteFile syncs the model's directory once
// the new model is renamed into place (the path holds it whole, and no
// temporary file is left), and a failed sync is its error: the caller must
// not take a model a power cut can take back for written.
func TestWriteFileSyncsDirectory(t *testing.T) {
	errSync := errors.New("injected sync failure")
	for _, fail := range []bool{false, true} {
		dir, p, m := writtenModel(t)
		m.Threshold = 0.5
		var syncs int
		old := syncDir
		syncDir = func(d *os.File) error {
			syncs++
			if d.Name() != dir {
				t.Errorf("synced %s, want the model's directory %s", d.Name(), dir)
			}
			if got, _, err := ReadFile(p); err != nil || got.Threshold != 0.5 {
				t.Errorf("at the directory's sync the path does not hold the new model (%v)", err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("at the directory's sync it holds %d entries, want only the model", len(ents))
			}
			if fail {
				return errSync
			}
			return old(d)
		}
		err := WriteFile(p, m)
		syncDir = old
		if syncs != 1 {
			t.Errorf("fail %v: the directory synced %d times, want once", fail, syncs)
		}
		if fail != errors.Is(err, errSync) {
			t.Errorf("fail %v: WriteFile returned %v", fail, err)
		}
	}
}

// TestWriteFileNoFolderSync: on a filesystem that has no sync of a folder
// (its fsync refuses one with EINVAL) WriteFile writes the model and
// returns no error: the model is in place, as durable as that filesystem
// makes it.
func TestWriteFileNoFolderSync(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.smm")
	old := syncDir
	t.Cleanup(func() { syncDir = old })
	syncDir = func(d *os.File) error {
		return &os.PathError{Op: "sync", Path: d.Name(), Err: syscall.EINVAL}
	}
	if err := WriteFile(p, mfModel(24, 7, 3, []int{4, 6})); err != nil {
		t.Errorf("WriteFile with no folder sync: %v", err)
	}
	if _, _, err := ReadFile(p); err != nil {
		t.Error(err)
	}
}

// TestWriteFileFolderNotReadable: a folder this user may write in but
// not read (0300, a drop box) cannot be opened to sync it: WriteFile
// writes the model there and returns no error, rather than report a
// failure for a model that is in place. Root reads every folder, so as
// root the test runs itself again as another user.
func TestWriteFileFolderNotReadable(t *testing.T) {
	if os.Geteuid() == 0 {
		testexec.RunTestAs(t, testexec.OtherUser, testexec.OtherUser, nil) // root reads every folder
		return
	}
	dir := filepath.Join(t.TempDir(), "drop")
	if err := os.Mkdir(dir, 0o300); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	p := filepath.Join(dir, "m.smm")
	if err := WriteFile(p, mfModel(24, 7, 3, []int{4, 6})); err != nil {
		t.Errorf("WriteFile into a folder that cannot be read: %v", err)
	}
	if _, _, err := ReadFile(p); err != nil {
		t.Error(err)
	}
}
