package spool

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testexec"
)

// The users of the spool in the tests below: the daemon's and a camera's,
// both in the spool's group.
const daemonUID, cameraUID, spoolGID = 61001, 61002, 61000

// childDir is where a test's child process, run as the daemon's user,
// finds the spool; set only in the child.
const childDir = "SETMATCH_TEST_SPOOL_DIR"

// twoUserSpool makes a spool owned by the daemon's user, in a folder other
// users can reach, for a test that acts as two users (so it needs root).
func twoUserSpool(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to act as the daemon's and the camera's users")
	}
	if testexec.Emulated() && os.Getenv("SETMATCHD_EXEC") == "" {
		t.Skip("emulated, and SETMATCHD_EXEC names no emulator to run the child with")
	}
	// Not t.TempDir: its parent is closed to other users.
	base, err := os.MkdirTemp("", "setmatch-spool-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "spool")
	sp, err := Open(Options{Dir: dir, KeepDone: true, DoneMaxFiles: 10, FailedMaxFiles: 10})
	if err != nil {
		t.Fatal(err)
	}
	sp.Close()
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, daemonUID, spoolGID) })
	return dir
}

// cameraMade makes the folder p, holding one frame, as a camera user
// whose umask or mkdir gave it mode.
func cameraMade(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	frame := filepath.Join(p, "frame-0001.jpg")
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(frame, []byte("jpeg"), 0o640); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{p, frame} {
		if err := os.Lchown(q, cameraUID, spoolGID); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// daemonFailed writes reason as the reason of the failed batch b, which
// the caller has put in failed/, and gives the two to the daemon's user,
// as the daemon leaves them.
func daemonFailed(t *testing.T, dir, b, reason string) {
	t.Helper()
	p := filepath.Join(dir, DirFailed, b)
	r := filepath.Join(dir, DirFailed, DirReasons, b)
	if err := os.WriteFile(r, []byte(reason), 0o640); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{p, r} {
		if err := os.Lchown(q, daemonUID, spoolGID); err != nil {
			t.Fatal(err)
		}
	}
}

// asDaemon runs the test again in a child process as the daemon's user,
// with the spool at dir, and fails t unless the child passes.
func asDaemon(t *testing.T, dir string) {
	t.Helper()
	testexec.RunTestAs(t, daemonUID, spoolGID, []int{spoolGID}, childDir+"="+dir)
}

// TestClaimCameraBurst: the daemon and the camera are two users of the
// spool's group (APPLIANCE.md). Renaming a directory into another one
// changes its ".." entry and so takes write permission on the directory
// itself: a burst the camera made with mode 2750 (umask 027 or 022) cannot
// be claimed, and Claim says so and what the camera must do (ErrNotWritable),
// where it failed with a bare "permission denied" at every rescan; one made
// with mode 2770, as camera-burst.sh makes it, is claimed.
func TestClaimCameraBurst(t *testing.T) {
	if dir := os.Getenv(childDir); dir != "" {
		sp, err := Open(Options{Dir: dir, KeepDone: true, DoneMaxFiles: 10, FailedMaxFiles: 10})
		if err != nil {
			t.Fatal(err)
		}
		defer sp.Close()
		_, err = sp.Claim("door-2750")
		if !errors.Is(err, ErrNotWritable) {
			t.Errorf("Claim of a burst of mode 2750 = %v, want ErrNotWritable", err)
		} else if msg := err.Error(); !strings.Contains(msg, "mode 2750") || !strings.Contains(msg, "mkdir -m 2770") || !strings.Contains(msg, "chmod g+w") {
			t.Errorf("Claim of a burst of mode 2750: %q, want the mode and what to do", msg)
		}
		if _, err := sp.Claim("door-2770"); err != nil {
			t.Errorf("Claim of a burst of mode 2770 = %v", err)
		}
		return
	}
	dir := twoUserSpool(t)
	cameraMade(t, filepath.Join(dir, DirNew, "door-2750"), 0o750|os.ModeSetgid)
	cameraMade(t, filepath.Join(dir, DirNew, "door-2770"), 0o770|os.ModeSetgid)
	asDaemon(t, dir)
}

// TestPruneKeepsReasonOfWhatStays: a failed burst holding a folder the
// camera made without group write cannot be emptied by the daemon; the
// prune over failed/'s cap says what to run as root, and the burst, left in
// part, keeps its reason (it was removed whether or not its batch was), and
// the cap is met with the other batches, the one left counted.
func TestPruneKeepsReasonOfWhatStays(t *testing.T) {
	if dir := os.Getenv(childDir); dir != "" {
		sp, err := Open(Options{Dir: dir, FailedMaxFiles: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer sp.Close()
		_, err = sp.Prune(time.Now())
		if err == nil || !strings.Contains(err.Error(), "sudo rm -rf "+filepath.Join(dir, DirFailed, "b3")) {
			t.Errorf("Prune = %v, want what to run as root", err)
		}
		if _, err := os.Stat(filepath.Join(dir, DirFailed, DirReasons, "b3")); err != nil {
			t.Errorf("the reason of the burst left in part: %v", err)
		}
		for _, b := range []string{"b4", filepath.Join(DirReasons, "b4"), "b5", filepath.Join(DirReasons, "b5")} {
			if _, err := os.Stat(filepath.Join(dir, DirFailed, b)); err == nil {
				t.Errorf("failed/%s is still there: the cap of 1 was not met with the other batches", b)
			}
		}
		return
	}
	dir := twoUserSpool(t)
	arr := arrivals{t: t} // b3 the oldest
	for _, b := range []string{"b3", "b4", "b5"} {
		p := filepath.Join(dir, DirFailed, b)
		if err := os.Mkdir(p, 0o2750); err != nil {
			t.Fatal(err)
		}
		daemonFailed(t, dir, b, "b: a sub-folder\n")
		if b == "b3" {
			cameraMade(t, filepath.Join(p, "sub"), 0o750|os.ModeSetgid)
		}
		arr.next(p)
	}
	asDaemon(t, dir)
}

// TestOpenSpoolOfRoot: a spool that setmatchd made when run as root
// (-allow-root) belongs to root, mode 2750: the daemon's user cannot
// enter it, and Open says whose its folders must be and the commands that
// give them to it, where it said only "permission denied".
func TestOpenSpoolOfRoot(t *testing.T) {
	if dir := os.Getenv(childDir); dir != "" {
		sp, err := Open(Options{Dir: dir, KeepDone: true, DoneMaxFiles: 10, FailedMaxFiles: 10})
		if err == nil {
			sp.Close()
			t.Fatal("Open of root's spool: no error")
		}
		if msg := err.Error(); !errors.Is(err, os.ErrPermission) || !strings.Contains(msg, "ones that setmatchd made as root belong to root") || !strings.Contains(msg, "sudo install -d -o setmatch -g setmatch-spool -m 2750 "+dir) {
			t.Errorf("Open of root's spool: %q, want whose it must be and what to run", msg)
		}
		return
	}
	dir := twoUserSpool(t)
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, 0, 0) })
	asDaemon(t, dir)
}

// TestPruneTooLargeBatchLeftInPart: a failed burst larger than failed/'s
// byte cap on its own, holding a folder the camera made without group
// write, cannot be emptied by the daemon: the prune says what to run as
// root, and the batches under the cap stay, with their reasons: none goes
// to make room for one that cannot fit.
func TestPruneTooLargeBatchLeftInPart(t *testing.T) {
	if dir := os.Getenv(childDir); dir != "" {
		sp, err := Open(Options{Dir: dir, FailedMaxFiles: 10, FailedMaxBytes: 100})
		if err != nil {
			t.Fatal(err)
		}
		defer sp.Close()
		n, err := sp.Prune(time.Now())
		if err == nil || !strings.Contains(err.Error(), "sudo rm -rf "+filepath.Join(dir, DirFailed, "b4")) {
			t.Errorf("Prune = %v, want what to run as root", err)
		}
		if n != 0 {
			t.Errorf("Prune removed %d batches, want none", n)
		}
		for _, b := range []string{"b3", filepath.Join(DirReasons, "b3"), filepath.Join(DirReasons, "b4"), "b5", filepath.Join(DirReasons, "b5")} {
			if _, err := os.Stat(filepath.Join(dir, DirFailed, b)); err != nil {
				t.Errorf("failed/%s: %v: removed to make room for a batch larger than the cap", b, err)
			}
		}
		return
	}
	dir := twoUserSpool(t)
	arr := arrivals{t: t}
	for _, b := range []string{"b3", "b4", "b5"} {
		p := filepath.Join(dir, DirFailed, b)
		if b == "b4" {
			if err := os.Mkdir(p, 0o2750); err != nil {
				t.Fatal(err)
			}
			sub := filepath.Join(p, "sub")
			cameraMade(t, sub, 0o750|os.ModeSetgid)
			big := filepath.Join(sub, "frame-0002.jpg")
			if err := os.WriteFile(big, make([]byte, 5000), 0o640); err != nil {
				t.Fatal(err)
			}
			if err := os.Lchown(big, cameraUID, spoolGID); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(p, []byte("x"), 0o640); err != nil {
			t.Fatal(err)
		}
		daemonFailed(t, dir, b, "b: bad\n")
		arr.next(p)
	}
	asDaemon(t, dir)
}

// TestOpenClaimedUnreadableBurst: a claimed burst whose folder the
// daemon's user may write in but not read (a camera's restrictive umask)
// cannot be opened; OpenClaimed's error says it is an image burst the
// daemon's user cannot read, with its mode and what the camera must do,
// and its facts say it is a folder, also where its name ends in .tar or
// .png. Root reads every folder, so as root the test runs itself again as
// another user.
func TestOpenClaimedUnreadableBurst(t *testing.T) {
	if os.Geteuid() == 0 {
		testexec.RunTestAs(t, testexec.OtherUser, testexec.OtherUser, nil) // root reads every folder
		return
	}
	sp, dir := openTemp(t, Options{})
	for _, name := range []string{"door", "door.tar", "door.png"} {
		p := filepath.Join(dir, DirCur, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "frame-0001.jpg"), []byte("jpeg"), 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o300); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(p, 0o700) }) // for TempDir's removal
		f, fi, err := sp.OpenClaimed(name)
		if err == nil {
			f.Close()
			t.Fatalf("OpenClaimed(%s) of a folder of mode 0300: no error", name)
		}
		if fi == nil || !fi.IsDir() {
			t.Errorf("OpenClaimed(%s): facts %v, want those of a folder", name, fi)
		}
		if msg := err.Error(); !errors.Is(err, os.ErrPermission) || !strings.Contains(msg, "image burst "+name+" (mode 0300) cannot be read by the daemon's user") || !strings.Contains(msg, "mode 2770") {
			t.Errorf("OpenClaimed(%s): %q, want an image burst the daemon's user cannot read, and what the camera must do", name, msg)
		}
	}
}
