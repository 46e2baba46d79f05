package device

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"setmatch/device/devicetest"
	"setmatch/device/spool"
)

// TestClaimSyncedBeforeJournal: a batch's claim into cur/ is synced
// (spool.SyncClaims) before its journal line is written, for a decided
// batch and for a failed one, so that a power cut cannot put a journaled
// batch back in new/. While that sync fails, the batch stays in cur/,
// with no journal line, neither counted nor published, and the sync is
// tried again; once it succeeds the batch is journaled once and leaves
// cur/.
func TestClaimSyncedBeforeJournal(t *testing.T) {
	for _, c := range []struct {
		name, file, out string
	}{
		{"decided", "a.npy", spool.DirDone},
		{"failed", "bad.csv", spool.DirFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := devicetest.NewFixture(t, "")
			const failures = 2
			var calls atomic.Int64
			var runner atomic.Pointer[Runner]
			old := syncClaims
			// Called on the worker's goroutine: errors only, no Fatal.
			syncClaims = func(s *spool.Spool) error {
				n := calls.Add(1)
				if _, err := os.Stat(filepath.Join(f.Spool, spool.DirCur, c.file)); err != nil {
					t.Errorf("sync %d of the claims: the batch is not in cur/: %v", n, err)
				}
				if b, _ := os.ReadFile(f.Journal); bytes.Count(b, []byte("\n")) != 0 {
					t.Errorf("sync %d of the claims: the journal already holds %q", n, b)
				}
				if r := runner.Load(); r != nil {
					if d, _ := r.Stats(); d != 0 {
						t.Errorf("sync %d of the claims: %d batches counted as decided", n, d)
					}
				}
				if n <= failures {
					return errors.New("injected sync failure")
				}
				return old(s)
			}
			retries := &msgCounter{prefix: "journal cannot be written"}
			r, ch := newRunner(t, f, retries)
			runner.Store(r)
			defer func() { r.Stop(); r.Wait(); r.Close(); syncClaims = old }()
			tmp := filepath.Join(f.Spool, spool.DirTmp, c.file)
			if c.name == "failed" {
				if err := os.WriteFile(tmp, []byte("1,x\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				f.RenameIn(t, tmp)
			} else {
				f.Drop(t, c.file, devicetest.Batch(rand.New(rand.NewPCG(71, 72)), "alice"))
			}
			rec := next(t, ch)
			if rec.File != c.file {
				t.Fatalf("record of %q, want %q", rec.File, c.file)
			}
			if n := calls.Load(); n != failures+1 {
				t.Errorf("claims synced %d times, want %d (%d failures, then the one that took)", n, failures+1, failures)
			}
			if n := retries.n.Load(); n != failures {
				t.Errorf("%d retries logged, want %d", n, failures)
			}
			if recs := devicetest.ReadJournal(t, f.Journal); len(recs) != 1 {
				t.Errorf("journal holds %d lines, want 1", len(recs))
			}
			if got := devicetest.Batches(t, filepath.Join(f.Spool, c.out)); len(got) != 1 || got[0] != c.file {
				t.Errorf("%s/ holds %v, want %s", c.out, got, c.file)
			}
			select {
			case rec := <-ch:
				t.Errorf("a second record, of %s", rec.File)
			default:
			}
		})
	}
}
