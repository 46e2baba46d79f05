package spool

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

// claimNew puts a batch named name (holding its name) in new/ and claims
// it.
func claimNew(t *testing.T, sp *Spool, dir, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, DirNew, name), []byte(name), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Claim(name); err != nil {
		t.Fatal(err)
	}
}

// TestReasonsDoNotCollide: a batch named like another's reason keeps both
// reasons, a 250-byte name keeps its reason, and the failed/ cap counts
// batches, whatever their names.
func TestReasonsDoNotCollide(t *testing.T) {
	sp, dir := openTemp(t, Options{FailedMaxFiles: 3})
	long := strings.Repeat("x", 246) + ".npy"
	for _, n := range []string{"q.npy", "q.npy.err", long} {
		claimNew(t, sp, dir, n)
		if err := sp.Fail(n, "reason of "+n); err != nil {
			t.Fatalf("%.20s…: %v", n, err)
		}
	}
	for _, n := range []string{"q.npy", "q.npy.err", long} {
		b, err := os.ReadFile(sp.ReasonPath(n))
		if string(b) != "reason of "+n+"\n" {
			t.Errorf("reason of %.20s… holds %q (%v)", n, b, err)
		}
		if _, err := os.Stat(filepath.Join(dir, DirFailed, n)); err != nil {
			t.Errorf("batch %.20s… not in failed/: %v", n, err)
		}
	}
	for _, n := range []string{"a.err", "b.err"} {
		claimNew(t, sp, dir, n)
		sp.Fail(n, "x")
	}
	if _, err := sp.Prune(time.Now()); err != nil {
		t.Fatal(err)
	}
	var batches []string
	for _, n := range testutil.Names(t, filepath.Join(dir, DirFailed)) {
		if !strings.HasPrefix(n, ".") {
			batches = append(batches, n)
		}
	}
	if len(batches) != 3 {
		t.Errorf("failed/ holds %d batches after a prune to 3: %v", len(batches), batches)
	}
	if got := len(testutil.Names(t, filepath.Join(dir, DirFailed, DirReasons))); got != 3 {
		t.Errorf("failed/.reasons/ holds %d reasons, want 3", got)
	}
}

// TestFailKeepsBatchWithoutReason: when the reason cannot be written the
// batch stays in cur/ and no temporary file is left.
func TestFailKeepsBatchWithoutReason(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	claimNew(t, sp, dir, "a.npy")
	reasons := filepath.Join(dir, DirFailed, DirReasons)
	// As a full disk would (for root too): no new file in failed/.reasons/.
	os.Remove(reasons)
	os.WriteFile(reasons, nil, 0o640)
	if err := sp.Fail("a.npy", "bad"); err == nil {
		t.Fatal("Fail succeeded without writing the reason")
	}
	if _, err := os.Stat(filepath.Join(dir, DirCur, "a.npy")); err != nil {
		t.Errorf("batch left cur/ without its reason: %v", err)
	}
	os.Remove(reasons)
	os.Mkdir(reasons, 0o750)
	if got := testutil.Names(t, reasons); len(got) != 0 {
		t.Errorf("left in failed/.reasons/: %v", got)
	}
	// A temporary file from a crash is removed at the next Open.
	os.WriteFile(filepath.Join(reasons, reasonTmpPrefix+"0123"), nil, 0o640)
	sp.Close()
	sp2, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	sp2.Close()
	if got := testutil.Names(t, reasons); len(got) != 0 {
		t.Errorf("after Open, failed/.reasons/ holds %v", got)
	}
}

// TestModesWhateverUmask: the folders Open creates get their modes, setgid
// on the shared ones, under the unit's UMask=0027.
func TestModesWhateverUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "spool")
	sp, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	sp.Close()
	for d, want := range map[string]fs.FileMode{"": ModeKept, DirTmp: ModeShared, DirNew: ModeShared, DirCur: ModeCur, DirDone: ModeKept, DirFailed: ModeKept} {
		fi, err := os.Stat(filepath.Join(dir, d))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode() &^ fs.ModeDir; got != want {
			t.Errorf("%s/ has mode %v, want %v", d, got, want)
		}
	}
}

// TestMatchAttempts: only attempts that reached the matcher count, a marker
// of a batch that is gone does not count against a new one of the same
// name, and a 250-byte name gets a marker too.
func TestMatchAttempts(t *testing.T) {
	sp, dir := openTemp(t, Options{})
	long := strings.Repeat("y", 250)
	// 249 bytes: the longest name whose marker .NAME.retry (256 bytes) is
	// too long for a file name, so it gets the hashed one too.
	for _, n := range []string{"a.npy", long, strings.Repeat("z", 249)} {
		claimNew(t, sp, dir, n)
		for want := range 3 {
			if got, err := sp.MatchAttempts(n); err != nil || got != want {
				t.Fatalf("%.10s: attempts %d (%v), want %d", n, got, err, want)
			}
			if err := sp.BeginMatch(n); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got, _ := sp.Interrupted(); len(got) != 3 {
		t.Errorf("interrupted: %v", got)
	}
	// The start-up scan keeps the markers of the batches still in cur/.
	for _, n := range []string{"a.npy", long} {
		if got, _ := sp.MatchAttempts(n); got != 3 {
			t.Errorf("%.10s: %d attempts after the start-up scan, want 3", n, got)
		}
	}
	sp.EndMatch("a.npy")
	if got, _ := sp.MatchAttempts("a.npy"); got != 0 {
		t.Errorf("after EndMatch: %d attempts", got)
	}
	// The long batch leaves cur/ by hand: its marker goes at the next scan.
	os.Remove(filepath.Join(dir, DirCur, long))
	sp.Interrupted()
	claimNew(t, sp, dir, long)
	if got, _ := sp.MatchAttempts(long); got != 0 {
		t.Errorf("a new batch of an old name starts with %d attempts", got)
	}
}

// TestCleanReasonsKeepsClaimedBatchs: a prune keeps the reason of a batch
// still in cur/ (its reason is written before it moves to failed/),
// however old the reason, and removes one whose batch is in neither
// failed/ nor cur/ once it is older than a minute.
func TestCleanReasonsKeepsClaimedBatchs(t *testing.T) {
	sp, dir := openTemp(t, Options{FailedMaxFiles: 10})
	claimNew(t, sp, dir, "a.npy")
	for _, n := range []string{"a.npy", "gone.npy"} {
		if err := sp.WriteReason(n, "bad"); err != nil {
			t.Fatal(err)
		}
	}
	// Younger than a minute, a reason is kept whatever its batch.
	if _, err := sp.Prune(time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sp.ReasonPath("gone.npy")); err != nil {
		t.Errorf("a reason younger than a minute was removed: %v", err)
	}
	if _, err := sp.Prune(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sp.ReasonPath("a.npy")); err != nil {
		t.Errorf("the reason of a batch in cur/ was removed: %v", err)
	}
	if _, err := os.Stat(sp.ReasonPath("gone.npy")); err == nil {
		t.Error("the reason of a batch in neither failed/ nor cur/ was kept")
	}
}
