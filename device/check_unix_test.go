//go:build unix

package device

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"setmatch/device/devicetest"
	"setmatch/device/journal"
	"setmatch/internal/testexec"
)

// setmatchd -check refuses a journal's lock file that the daemon's user
// may not open (one that setmatchd made as root belongs to root), as the
// daemon's start does, with the same advice, rather than say ok for a
// daemon that then refuses to start. Root opens every file, so as root
// the test runs itself again as another user.
func TestCheckJournalLockNotOpenable(t *testing.T) {
	if os.Geteuid() == 0 {
		testexec.RunTestAs(t, testexec.OtherUser, testexec.OtherUser, nil) // root opens every file
		return
	}
	f := devicetest.NewFixture(t, "")
	j, err := journal.Open(f.Journal, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	lp := journal.LockPath(f.Journal)
	if err := os.Chmod(lp, 0); err != nil {
		t.Fatal(err)
	}
	_, startErr := journal.Open(f.Journal, 0, 1)
	if startErr == nil || !strings.Contains(startErr.Error(), "sudo chown setmatch "+lp) {
		t.Fatalf("start with a lock file this user may not open: %v", startErr)
	}
	var out strings.Builder
	if err := Check(f.Config, &out); err == nil || err.Error() != startErr.Error() {
		t.Errorf("check with a lock file this user may not open: %v, want the start's error %q\n%s", err, startErr, out.String())
	}
}

// setmatchd -check refuses a journal whose folder the daemon's user may
// not make a file in where the journal is rotated (journal.max_bytes > 0:
// the rotation makes a new journal there), also where the journal and its
// lock file are there already, rather than say ok for a daemon that stops
// at its first rotation; with no rotation the folder need not be
// writable. Root writes in every folder, so as root the test runs itself
// again as another user.
func TestCheckJournalFolderForRotation(t *testing.T) {
	if os.Geteuid() == 0 {
		testexec.RunTestAs(t, testexec.OtherUser, testexec.OtherUser, nil) // root writes in every folder
		return
	}
	f, dir := journalFolderFixture(t)
	j, err := journal.Open(f.Journal, 0, 1) // the journal and its lock file made
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) }) // for TempDir's removal
	for _, c := range []struct {
		maxBytes string // "": the default, 64MiB
		want     string // in the error; "" for ok
	}{
		{"", "a file cannot be created in " + dir},
		{`"64KiB"`, "a file cannot be created in " + dir},
		{"0", ""},
	} {
		text := f.ConfigText("")
		if c.maxBytes != "" {
			text = strings.Replace(text, "[journal]\n", "[journal]\nmax_bytes = "+c.maxBytes+"\n", 1)
		}
		if err := os.WriteFile(f.Config, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		err := Check(f.Config, &out)
		switch {
		case c.want == "" && (err != nil || !strings.Contains(out.String(), f.Journal+": writable")):
			t.Errorf("max_bytes %q: %v, want ok\n%s", c.maxBytes, err, out.String())
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("max_bytes %q: %v, want an error with %q\n%s", c.maxBytes, err, c.want, out.String())
		}
	}
}

// journalFolderFixture returns a fixture whose journal is in a folder of
// its own, returned too (made writable), for a test to change its mode.
func journalFolderFixture(t *testing.T) (*devicetest.Fixture, string) {
	t.Helper()
	f := devicetest.NewFixture(t, "")
	dir := filepath.Join(f.Dir, "j")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f.Journal = filepath.Join(dir, "journal.jsonl")
	return f, dir
}
