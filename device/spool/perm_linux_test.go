package spool

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"setmatch/internal/testexec"
)

// TestClaimCameraBurst: the daemon and the camera are two users of the
// spool's group (APPLIANCE.md). Renaming a directory into another one
// changes its ".." entry and so takes write permission on the directory
// itself: a burst the camera made with mode 2750 (umask 027 or 022) cannot
// be claimed, and Claim says so and what the camera must do (ErrNotWritable),
// where it failed with a bare "permission denied" at every rescan; one made
// with mode 2770, as camera-burst.sh makes it, is claimed. The claims run
// in a child process as the daemon's user, so the test needs root.
func TestClaimCameraBurst(t *testing.T) {
	if dir := os.Getenv("SETMATCH_TEST_CLAIM_DIR"); dir != "" {
		claimAsDaemon(t, dir)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to act as the daemon's and the camera's users")
	}
	var prefix []string
	if testexec.Emulated() {
		emu := os.Getenv("SETMATCHD_EXEC")
		if emu == "" {
			t.Skip("emulated, and SETMATCHD_EXEC names no emulator to run the child with")
		}
		prefix = []string{emu}
	}
	const daemonUID, cameraUID, spoolGID = 61001, 61002, 61000
	// Not t.TempDir: its parent is closed to other users.
	base, err := os.MkdirTemp("", "setmatch-claim-")
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
	for name, mode := range map[string]os.FileMode{"door-2750": 0o750 | os.ModeSetgid, "door-2770": 0o770 | os.ModeSetgid} {
		burst := filepath.Join(dir, DirNew, name)
		frame := filepath.Join(burst, "frame-0001.jpg")
		if err := os.Mkdir(burst, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(frame, []byte("jpeg"), 0o640); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{burst, frame} {
			if err := os.Lchown(p, cameraUID, spoolGID); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(burst, mode); err != nil {
			t.Fatal(err)
		}
	}
	// The test binary, where the daemon's user can run it.
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(base, "spool.test")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	args := append(prefix, exe, "-test.run=^TestClaimCameraBurst$", "-test.count=1", "-test.v")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "SETMATCH_TEST_CLAIM_DIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: daemonUID, Gid: spoolGID, Groups: []uint32{spoolGID}}}
	out, err := testexec.CombinedOutput(t, testexec.Timeout(t, 2*time.Minute), cmd)
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Errorf("the claims as the daemon's user: %v\n%s", err, out)
	}
}

// claimAsDaemon is TestClaimCameraBurst's child, run as the daemon's user.
func claimAsDaemon(t *testing.T, dir string) {
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
}
