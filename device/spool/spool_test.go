package spool

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSpoolClaimFailPrune(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	sp, err := Open(Options{Dir: dir, KeepDone: true, DoneMaxFiles: 2, FailedMaxFiles: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	for _, d := range []string{DirTmp, DirNew, DirCur, DirDone, DirFailed} {
		if fi, err := os.Stat(filepath.Join(dir, d)); err != nil || !fi.IsDir() {
			t.Fatalf("%s/ not created: %v", d, err)
		}
	}
	put := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, DirNew, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"a.npy", ".hidden", "part.tmp", "b.npy"} {
		put(n)
		time.Sleep(5 * time.Millisecond) // distinct change times
	}
	got, err := sp.Pending()
	if err != nil || strings.Join(got, ",") != "a.npy,b.npy" {
		t.Fatalf("pending %v, %v; want a.npy,b.npy (oldest first, writers' temp files ignored)", got, err)
	}
	before := time.Now()
	arrived, err := sp.Claim("a.npy")
	if err != nil || arrived.After(before) {
		t.Fatalf("claim: %v at %v (after %v)", err, arrived, before)
	}
	if _, err := sp.Claim("a.npy"); !errors.Is(err, ErrGone) {
		t.Fatalf("second claim: %v, want ErrGone", err)
	}
	if _, err := sp.Claim("../escape"); err == nil {
		t.Fatal("claimed a name with a slash")
	}
	if err := sp.Fail("a.npy", "bad header"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, DirFailed, DirReasons, "a.npy")); string(b) != "bad header\n" {
		t.Fatalf("reason file holds %q", b)
	}
	if _, err := sp.ReadClaimed("b.npy", 0); err == nil {
		t.Fatal("read a batch that was not claimed")
	}
	sp.Claim("b.npy")
	if _, err := sp.ReadClaimed("b.npy", 0); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, DirCur, "b.npy"), []byte("too long"), 0o644)
	var tl *TooLargeError
	if _, err := sp.ReadClaimed("b.npy", 4); !errors.As(err, &tl) {
		t.Fatalf("oversized batch: %v", err)
	}
	if err := sp.Unclaim("b.npy"); err != nil {
		t.Fatal(err)
	}
	if got, _ := sp.Pending(); len(got) != 1 {
		t.Fatalf("after unclaim, pending %v", got)
	}

	for _, n := range []string{"c", "d", "e", "f"} {
		put(n)
		sp.Claim(n)
		if n == "f" {
			sp.Fail(n, "second failure")
		} else if err := sp.Finish(n); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n, err := sp.Prune(time.Now()); err != nil || n != 2 {
		t.Fatalf("prune removed %d (%v), want 2", n, err)
	}
	if got := strings.Join(names(t, filepath.Join(dir, DirDone)), ","); got != "d,e" {
		t.Errorf("done/ after prune: %s, want the newest two", got)
	}
	if got := strings.Join(names(t, filepath.Join(dir, DirFailed)), ","); got != ".reasons,f" {
		t.Errorf("failed/ after prune: %s, want the newest", got)
	}
	if got := strings.Join(names(t, filepath.Join(dir, DirFailed, DirReasons)), ","); got != "f" {
		t.Errorf("failed/.reasons/ after prune: %s, want the reason of the newest", got)
	}

	// Deleting instead of keeping.
	sp2, _ := Open(Options{Dir: dir})
	defer sp2.Close()
	put("g")
	sp2.Claim("g")
	if err := sp2.Finish("g"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, DirDone, "g")); !os.IsNotExist(err) {
		t.Error("finished batch kept with KeepDone false")
	}
}

func TestSpoolNotADirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, DirNew), nil, 0o644)
	if _, err := Open(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("got %v", err)
	}
}

// names lists the entries of dir ("" for none).
func names(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, d := range des {
		out = append(out, d.Name())
	}
	return out
}
