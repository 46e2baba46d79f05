//go:build unix

package testexec

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// RunTestAs runs the calling test again in a child process of the test
// binary as the user uid in the group gid (and the groups), with env added
// to its environment, and fails t unless the child's test passes (a skip
// fails it too). A test that checks what a user other than root may do
// calls it when it runs as root, where the check itself would pass for
// any file mode. It takes root; the child's temporary folder is its own.
// Under an emulator it runs the child with the one SETMATCHD_EXEC names,
// and skips the test without one.
func RunTestAs(t *testing.T, uid, gid int, groups []int, env ...string) {
	t.Helper()
	if Emulated() && os.Getenv("SETMATCHD_EXEC") == "" {
		t.Skip("emulated, and SETMATCHD_EXEC names no emulator to run the child with")
	}
	b, err := os.ReadFile(os.Args[0]) // the test binary, where the user can run it
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: its parent is closed to other users.
	base, err := os.MkdirTemp("", "setmatch-as-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	tmp := filepath.Join(base, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, uid, gid); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(base, filepath.Base(os.Args[0]))
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{exe, "-test.run=^" + t.Name() + "$", "-test.count=1", "-test.v"}
	if Emulated() {
		args = append([]string{os.Getenv("SETMATCHD_EXEC")}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp), env...)
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	for _, g := range groups {
		cred.Groups = append(cred.Groups, uint32(g))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out, err := CombinedOutput(t, Timeout(t, 2*time.Minute), cmd)
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Errorf("as user %d: %v\n%s", uid, err, out)
	}
}
