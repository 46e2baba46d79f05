package spool

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"setmatch/internal/testutil"
)

var errSync = errors.New("injected sync failure")

// recordSyncs replaces syncFile for the test with one that records each
// sync of a file or folder of the spool at dir, as describeSync says it,
// and fails it when fail (if not nil) says so.
func recordSyncs(t *testing.T, dir string, fail func(event string) bool) *[]string {
	t.Helper()
	var events []string
	old := syncFile
	t.Cleanup(func() { syncFile = old })
	syncFile = func(f *os.File) error {
		e := describeSync(t, dir, f)
		events = append(events, e)
		if fail != nil && fail(e) {
			return errSync
		}
		return old(f)
	}
	return &events
}

// describeSync says what a sync of f makes durable: "file" and its bytes
// for a file, "dir PATH:" and the names in it for a folder (PATH relative
// to the spool at dir; a temporary reason's name as ".tmp-*").
func describeSync(t *testing.T, dir string, f *os.File) string {
	t.Helper()
	rel := func(p string) string {
		r, err := filepath.Rel(dir, p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() {
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return "file " + tmpName(rel(f.Name())) + " " + strings.TrimSpace(string(b))
	}
	des, err := os.ReadDir(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	s := []string{"dir " + rel(f.Name()) + ":"}
	for _, de := range des {
		s = append(s, tmpName(de.Name()))
	}
	return strings.Join(s, " ")
}

// tmpName shows the random part of a temporary reason's name as "*".
func tmpName(p string) string {
	d, b := filepath.Split(p)
	if strings.HasPrefix(b, reasonTmpPrefix) {
		b = reasonTmpPrefix + "*"
	}
	return d + b
}

// TestFailSyncOrder: Fail writes the reason to a temporary file and syncs
// it, renames it into failed/.reasons/ and syncs that folder, and only
// then moves the batch to failed/. A failed sync is Fail's error and
// leaves the batch in cur/ (no temporary file behind), where Fail, tried
// again, takes it to failed/ with its reason.
func TestFailSyncOrder(t *testing.T) {
	want := []string{
		"file failed/.reasons/.tmp-* bad",
		"dir failed/.reasons: a.npy",
	}
	for _, fail := range []string{"", want[0], want[1]} {
		t.Run("fail "+fail, func(t *testing.T) {
			sp, dir := openTemp(t, Options{})
			claimNew(t, sp, dir, "a.npy")
			failed := false // once
			events := recordSyncs(t, dir, func(e string) bool {
				if e == fail && !failed {
					failed = true
					return true
				}
				return false
			})
			err := sp.Fail("a.npy", "bad")
			if fail == "" && err != nil {
				t.Fatal(err)
			}
			// The syncs, up to the one that fails.
			n := slices.Index(want, fail) + 1
			if n == 0 {
				n = len(want)
			}
			if !slices.Equal(*events, want[:n]) {
				t.Errorf("syncs\n%q\nwant\n%q", *events, want[:n])
			}
			if fail == "" {
				return
			}
			if !errors.Is(err, errSync) {
				t.Fatalf("Fail with the sync %q failing: %v, want its error", fail, err)
			}
			if _, err := os.Stat(filepath.Join(dir, DirCur, "a.npy")); err != nil {
				t.Errorf("the batch left cur/ though its reason's sync failed: %v", err)
			}
			for _, n := range testutil.Names(t, filepath.Join(dir, DirFailed, DirReasons)) {
				if strings.HasPrefix(n, reasonTmpPrefix) {
					t.Errorf("temporary reason %s left behind", n)
				}
			}
			if err := sp.Fail("a.npy", "bad"); err != nil {
				t.Fatalf("Fail again: %v", err)
			}
			if b, err := os.ReadFile(sp.ReasonPath("a.npy")); string(b) != "bad\n" {
				t.Errorf("reason %q (%v), want %q", b, err, "bad\n")
			}
			if _, err := os.Stat(filepath.Join(dir, DirFailed, "a.npy")); err != nil {
				t.Errorf("the batch is not in failed/ after Fail: %v", err)
			}
		})
	}
}

// TestSyncClaims: SyncClaims syncs cur/ with the claimed batch in it, and
// says when that fails.
func TestSyncClaims(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	claimNew(t, sp, dir, "a.npy")
	fail := false
	events := recordSyncs(t, dir, func(string) bool { return fail })
	if err := sp.SyncClaims(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"dir cur: a.npy"}; !slices.Equal(*events, want) {
		t.Errorf("syncs %q, want %q", *events, want)
	}
	fail = true
	if err := sp.SyncClaims(); !errors.Is(err, errSync) {
		t.Errorf("SyncClaims with the sync failing: %v, want its error", err)
	}
	// The error of a folder's fsync names the folder (os.File.Sync's
	// *PathError): the spool's error says it once.
	syncFile = func(f *os.File) error { return &os.PathError{Op: "sync", Path: f.Name(), Err: errSync} }
	err := sp.SyncClaims()
	if cur := filepath.Join(dir, DirCur); err == nil || strings.Count(err.Error(), cur) != 1 {
		t.Errorf("SyncClaims with the folder's fsync failing: %v, want it to name %s once", err, cur)
	}
}

// TestNoFolderSync: on a filesystem that has no sync of a folder (its
// fsync refuses one with EINVAL) a claim and a failed batch's reason are
// kept all the same, where a failed folder sync would keep every batch in
// cur/, retried, and none journaled.
func TestNoFolderSync(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	claimNew(t, sp, dir, "a.npy")
	old := syncFile
	t.Cleanup(func() { syncFile = old })
	syncFile = func(f *os.File) error {
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return &os.PathError{Op: "sync", Path: f.Name(), Err: syscall.EINVAL}
		}
		return old(f)
	}
	if err := sp.SyncClaims(); err != nil {
		t.Errorf("SyncClaims with no folder sync: %v", err)
	}
	if err := sp.WriteReason("a.npy", "bad"); err != nil {
		t.Errorf("WriteReason with no folder sync: %v", err)
	}
	if b, err := os.ReadFile(sp.ReasonPath("a.npy")); string(b) != "bad\n" {
		t.Errorf("reason %q (%v), want %q", b, err, "bad\n")
	}
}
