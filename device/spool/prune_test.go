package spool

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

// TestPruneBytes: beyond a byte cap, the oldest batches of done/ and
// failed/ go first, a burst counting its frame files; the newest stay
// while they fit.
func TestPruneBytes(t *testing.T) {
	sp, dir := openTemp(t, Options{KeepDone: true, DoneMaxBytes: 500, FailedMaxFiles: 10, FailedMaxBytes: 250})
	arr := arrivals{t: t}
	// done/: a (100 bytes), burst b (2 × 150), c (200), d (100), oldest first.
	for _, b := range []struct {
		name  string
		sizes []int
		burst bool
	}{{"a", []int{100}, false}, {"b", []int{150, 150}, true}, {"c", []int{200}, false}, {"d", []int{100}, false}} {
		p := filepath.Join(dir, DirNew, b.name)
		if b.burst {
			os.Mkdir(p, 0o755)
			for i, n := range b.sizes {
				os.WriteFile(filepath.Join(p, strings.Repeat("f", i+1)+".pgm"), make([]byte, n), 0o644)
			}
		} else {
			os.WriteFile(p, make([]byte, b.sizes[0]), 0o644)
		}
		if _, err := sp.Claim(b.name); err != nil {
			t.Fatal(err)
		}
		if err := sp.Finish(b.name); err != nil {
			t.Fatal(err)
		}
		arr.next(filepath.Join(dir, DirDone, b.name))
	}
	// failed/: e (200) then f (100): 300 bytes over 250.
	for _, n := range []struct {
		name string
		size int
	}{{"e", 200}, {"f", 100}} {
		settle(t, sp, dir, &arr, DirFailed, n.name, n.size)
	}
	// done/ holds 700 bytes: a and the burst b go, and c,d stay (the
	// newest 300 bytes of a 500-byte cap; the 300-byte burst before them
	// would pass it); failed/ e goes, and the newest, f, stays with its
	// reason.
	pruneKeeps(t, sp, dir, 3, "c,d", ".reasons,f", "f")
	// The sizes remembered for the next prune are the kept batches' only.
	want := map[string]int64{"done/c": 200, "done/d": 100, "failed/f": 100}
	if len(sp.sizes) != len(want) {
		t.Errorf("sizes remembered after the prune: %v, want %v", sp.sizes, want)
	}
	for p, n := range want {
		if sp.sizes[p].bytes != n {
			t.Errorf("remembered size of %s: %v, want %d", p, sp.sizes[p], n)
		}
	}
}

// TestPruneDue: a prune is due once a tenth of the tightest cap has come
// in since the last one, counted in batches or in bytes, and not before.
func TestPruneDue(t *testing.T) {
	sp, dir := openTemp(t, Options{KeepDone: true, DoneMaxFiles: 100, DoneMaxBytes: 10000, FailedMaxFiles: 30})
	finish := func(name string, size int) {
		t.Helper()
		os.WriteFile(filepath.Join(dir, DirNew, name), make([]byte, size), 0o644)
		if _, err := sp.Claim(name); err != nil {
			t.Fatal(err)
		}
		if err := sp.Finish(name); err != nil {
			t.Fatal(err)
		}
	}
	if sp.PruneDue() {
		t.Fatal("due before any batch")
	}
	finish("a", 10)
	finish("b", 10)
	if sp.PruneDue() {
		t.Fatal("due after 2 batches of 20 bytes, where the caps' tenths are 3 batches and 1000 bytes")
	}
	finish("c", 10)
	if !sp.PruneDue() {
		t.Fatal("not due after 3 batches, a tenth of failed/'s 30")
	}
	sp.Prune(time.Now())
	if sp.PruneDue() {
		t.Fatal("still due after a prune")
	}
	finish("big", 1000)
	if !sp.PruneDue() {
		t.Fatal("not due after 1000 bytes, a tenth of done/'s 10000")
	}

	// Without caps nothing is ever due.
	sp2, _ := Open(Options{Dir: filepath.Join(t.TempDir(), "spool")})
	defer sp2.Close()
	sp2.moved(DirDone)
	if sp2.PruneDue() {
		t.Error("due without caps")
	}
}

// TestMovedMeasuresCappedFolderOnly: a batch is measured when it moves
// into a folder with a byte cap, and only then: with a byte cap on
// failed/ alone, what moves into done/ costs no walk and counts no bytes.
func TestMovedMeasuresCappedFolderOnly(t *testing.T) {
	sp, dir := openTemp(t, Options{KeepDone: true, DoneMaxFiles: 100, FailedMaxFiles: 100, FailedMaxBytes: 1000})
	settle(t, sp, dir, nil, DirDone, "ok", 300)
	settle(t, sp, dir, nil, DirFailed, "bad", 300)
	if got := sp.movedBytes.Load(); got != 300 {
		t.Errorf("bytes counted for PruneDue: %d, want 300 (failed/'s batch; done/ has no byte cap)", got)
	}
	if _, ok := sp.sizes["done/ok"]; ok || len(sp.sizes) != 1 {
		t.Errorf("sizes remembered: %v, want failed/bad's alone", sp.sizes)
	}
}

// TestPruneTmp: what stayed in tmp/ unchanged longer than TmpMaxAge (a
// file or a burst's directory) is removed; newer writes, and everything
// when TmpMaxAge is 0, stay.
func TestPruneTmp(t *testing.T) {
	for _, maxAge := range []time.Duration{0, 36 * time.Hour} {
		dir := filepath.Join(t.TempDir(), "spool")
		sp, err := Open(Options{Dir: dir, TmpMaxAge: maxAge})
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, DirTmp, "half.csv"), []byte("1,2\n"), 0o644)
		os.Mkdir(filepath.Join(dir, DirTmp, "burst"), 0o755)
		os.WriteFile(filepath.Join(dir, DirTmp, "burst", "000.pgm"), []byte("P5"), 0o644)
		if _, err := sp.Prune(time.Now()); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(testutil.Names(t, filepath.Join(dir, DirTmp)), ","); got != "burst,half.csv" {
			t.Errorf("max age %v: tmp/ after a prune now: %s, want both writes", maxAge, got)
		}
		if _, err := sp.Prune(time.Now().Add(35 * time.Hour)); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(testutil.Names(t, filepath.Join(dir, DirTmp)), ","); got != "burst,half.csv" {
			t.Errorf("max age %v: tmp/ 35 h later: %s, want both writes (within the max age)", maxAge, got)
		}
		if _, err := sp.Prune(time.Now().Add(37 * time.Hour)); err != nil {
			t.Fatal(err)
		}
		want := ""
		if maxAge == 0 {
			want = "burst,half.csv"
		}
		if got := strings.Join(testutil.Names(t, filepath.Join(dir, DirTmp)), ","); got != want {
			t.Errorf("max age %v: tmp/ 37 h later: %q, want %q", maxAge, got, want)
		}
		sp.Close()
	}
}

// TestOpenSpoolDirIsAFile: a spool.dir that names a file is refused with
// the key to change.
func TestOpenSpoolDirIsAFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "model.smm")
	os.WriteFile(f, nil, 0o644)
	_, err := Open(Options{Dir: f})
	if err == nil || !strings.Contains(err.Error(), "is not a directory") || !strings.Contains(err.Error(), "spool.dir") {
		t.Fatalf("spool.dir a file: %v, want an error that names spool.dir", err)
	}
}

// TestDeepBurstMeasureIsBounded: a burst holding a chain of nested folders
// d/d/d/… moves into failed/ (with a byte cap, so it is measured) with a
// bounded walk: its frames and the files near its top count, a file at the
// bottom of the chain does not. The walk of the whole chain took minutes
// at a depth of a few thousands and held up the batch and the stop.
func TestDeepBurstMeasureIsBounded(t *testing.T) {
	sp, dir := openTemp(t, Options{FailedMaxFiles: 100, FailedMaxBytes: 1 << 30})
	burst := filepath.Join(dir, DirNew, "deep")
	os.Mkdir(burst, 0o755)
	os.WriteFile(filepath.Join(burst, "000.pgm"), make([]byte, 100), 0o644)
	os.Mkdir(filepath.Join(burst, "d"), 0o755)
	os.WriteFile(filepath.Join(burst, "d", "near"), make([]byte, 10), 0o644)
	// The chain, made one level at a time (its path is longer than
	// PATH_MAX), with a file at its bottom.
	r, err := os.OpenRoot(filepath.Join(burst, "d"))
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		if err := r.Mkdir("d", 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := r.OpenRoot("d")
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		r = next
	}
	if err := r.WriteFile("bottom", make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if _, err := sp.Claim("deep"); err != nil {
		t.Fatal(err)
	}
	if err := sp.Fail("deep", "holds a sub-folder"); err != nil {
		t.Fatal(err)
	}
	b, ok := sp.measure(path.Join(DirFailed, "deep"))
	if !ok || b.bytes != 110 {
		t.Errorf("failed/deep measures %d bytes (ok %v), want 110: its frame and the file one folder down, not the file 1000 folders down", b.bytes, ok)
	}
	if got := sp.movedBytes.Load(); got != 110 {
		t.Errorf("moving it counted %d bytes, want 110", got)
	}
}

// TestPruneBytesAtCap: done/ holding exactly its byte cap keeps every
// batch: only bytes beyond the cap are pruned.
func TestPruneBytesAtCap(t *testing.T) {
	sp, dir := openTemp(t, Options{KeepDone: true, DoneMaxBytes: 300})
	for _, n := range []string{"a", "b", "c"} {
		os.WriteFile(filepath.Join(dir, DirNew, n), make([]byte, 100), 0o644)
		if _, err := sp.Claim(n); err != nil {
			t.Fatal(err)
		}
		if err := sp.Finish(n); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := sp.Prune(time.Now()); n != 0 || err != nil {
		t.Errorf("Prune of 300 bytes under a cap of 300 removed %d (%v), want none", n, err)
	}
}

// TestPruneMeasuresReplacedBatch: a batch replaced in done/ under the same
// name (here by hand) is measured again, not counted at the size of the
// one it replaced.
func TestPruneMeasuresReplacedBatch(t *testing.T) {
	sp, dir := openTemp(t, Options{KeepDone: true, DoneMaxBytes: 500})
	os.WriteFile(filepath.Join(dir, DirNew, "a"), make([]byte, 100), 0o644)
	if _, err := sp.Claim("a"); err != nil {
		t.Fatal(err)
	}
	if err := sp.Finish("a"); err != nil {
		t.Fatal(err)
	}
	if n, err := sp.Prune(time.Now()); n != 0 || err != nil {
		t.Fatalf("Prune of 100 bytes under a cap of 500 removed %d (%v)", n, err)
	}
	done := filepath.Join(dir, DirDone, "a")
	fi, err := os.Lstat(done)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, DirTmp, "a")
	os.WriteFile(tmp, make([]byte, 600), 0o644)
	if err := os.Rename(tmp, done); err != nil {
		t.Fatal(err)
	}
	arr := arrivals{t: t, last: changeTime(fi)}
	arr.next(done) // an arrival after the first batch's
	if n, err := sp.Prune(time.Now()); n != 1 || err != nil {
		t.Errorf("Prune of a 600-byte batch under a cap of 500 removed %d (%v), want it", n, err)
	}
}

// TestPruneTooLargeBatchAlone: a batch larger than the byte cap on its
// own is removed, with its reason, and the older batches under the cap
// stay: none of them is removed to make room for one that cannot fit.
func TestPruneTooLargeBatchAlone(t *testing.T) {
	sp, dir := openTemp(t, Options{KeepDone: true, DoneMaxBytes: 2000, FailedMaxBytes: 2000})
	arr := arrivals{t: t}
	// Oldest first: a and b of one byte, c of 5000, d of one byte.
	for _, b := range []struct {
		name string
		size int
	}{{"a", 1}, {"b", 1}, {"c", 5000}, {"d", 1}} {
		for _, sub := range []string{DirDone, DirFailed} {
			settle(t, sp, dir, &arr, sub, sub+"-"+b.name, b.size)
		}
	}
	// c goes from each folder, with its reason.
	pruneKeeps(t, sp, dir, 2, "done-a,done-b,done-d", ".reasons,failed-a,failed-b,failed-d", "failed-a,failed-b,failed-d")
}

// settle puts a batch of size zero bytes named name in new/, claims it
// and moves it to sub: done/ by Finish, or failed/ by Fail with the
// reason "bad". It arrives there after the batches before it in arr, if
// arr is not nil.
func settle(t *testing.T, sp *Spool, dir string, arr *arrivals, sub, name string, size int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, DirNew, name), make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Claim(name); err != nil {
		t.Fatal(err)
	}
	var err error
	if sub == DirDone {
		err = sp.Finish(name)
	} else {
		err = sp.Fail(name, "bad")
	}
	if err != nil {
		t.Fatal(err)
	}
	if arr != nil {
		arr.next(filepath.Join(dir, sub, name))
	}
}

// pruneKeeps prunes sp and checks that it removed n batches and that
// done/, failed/ and failed/.reasons/ then hold the entries named in
// done, failed and reasons (sorted, joined by commas).
func pruneKeeps(t *testing.T, sp *Spool, dir string, n int, done, failed, reasons string) {
	t.Helper()
	got, err := sp.Prune(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Errorf("prune removed %d batches, want %d", got, n)
	}
	for _, c := range []struct{ sub, want string }{
		{DirDone, done},
		{DirFailed, failed},
		{filepath.Join(DirFailed, DirReasons), reasons},
	} {
		if got := strings.Join(testutil.Names(t, filepath.Join(dir, c.sub)), ","); got != c.want {
			t.Errorf("%s/ after prune: %s, want %s", c.sub, got, c.want)
		}
	}
}
