//go:build unix

package device

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"setmatch/device/devicetest"
	"setmatch/device/journal"
	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
)

// lastMsg keeps the last log message that begins with prefix.
type lastMsg struct {
	prefix string
	msg    atomic.Pointer[string]
}

func (c *lastMsg) Enabled(context.Context, slog.Level) bool { return true }
func (c *lastMsg) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *lastMsg) WithGroup(string) slog.Handler            { return c }

func (c *lastMsg) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, c.prefix) {
		c.msg.Store(&r.Message)
	}
	return nil
}

// A rotation that fails because the daemon's user may not rename in the
// journal's folder keeps the batch in cur/, as a full disk does, but the
// log says what it is and what to do (the folder must be writable by the
// daemon's user), not to free space on the disk; once the folder is
// writable the rotation and the batch's line go through. Root renames in
// every folder, so as root the test runs itself again as another user.
func TestRotationPermissionAdvice(t *testing.T) {
	if os.Geteuid() == 0 {
		testexec.RunTestAs(t, testexec.OtherUser, testexec.OtherUser, nil) // root renames in every folder
		return
	}
	f, dir := journalFolderFixture(t)
	text := strings.Replace(f.ConfigText(""), "[journal]\n", "[journal]\nmax_bytes = \"64KiB\"\n", 1)
	if err := os.WriteFile(f.Config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// A journal at its journal.max_bytes, so that the next line rotates it.
	j, err := journal.Open(f.Journal, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(&journal.Record{Time: time.Now().UTC(), File: "old.npy", Decision: "unknown"}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	line, err := os.ReadFile(f.Journal)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.Journal, bytes.Repeat(line, 64<<10/len(line)+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) }) // for TempDir's removal

	log := &lastMsg{prefix: "journal cannot be written"}
	r, ch := newRunner(t, f, log)
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	f.Drop(t, "a.npy", devicetest.Batch(rand.New(rand.NewPCG(81, 82)), "alice"))
	testutil.WaitFor(t, 30*time.Second, "the journal's retry to be logged", func() bool { return log.msg.Load() != nil })
	msg := *log.msg.Load()
	for _, want := range []string{"permission denied", "writable by the daemon's user", "sudo chown setmatch"} {
		if !strings.Contains(msg, want) {
			t.Errorf("log %q: no %q", msg, want)
		}
	}
	if strings.Contains(msg, "free space") {
		t.Errorf("log %q: advises to free space for a permission error", msg)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if rec := next(t, ch); rec.File != "a.npy" {
		t.Fatalf("record of %q, want a.npy", rec.File)
	}
	if _, err := os.Stat(f.Journal + ".1"); err != nil {
		t.Errorf("the journal was not rotated: %v", err)
	}
}

// The advice of a journal that cannot be written follows its error: the
// folder's owner and mode for a permission error, space or a repair of
// the disk for a full disk or quota and for any other error.
func TestJournalNotWrittenAdvice(t *testing.T) {
	const perm, space = "writable by the daemon's user", "free space on, or repair, the disk of journal.path and spool.dir"
	rename := func(errno syscall.Errno) error {
		return fmt.Errorf("journal: rotate: %w", &os.LinkError{Op: "rename", Old: "j/journal.jsonl", New: "j/journal.jsonl.1", Err: errno})
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{rename(syscall.EACCES), perm},
		{rename(syscall.EPERM), perm},
		{rename(syscall.ENOSPC), space},
		{rename(syscall.EDQUOT), space},
		{fmt.Errorf("journal: write j/journal.jsonl: %w", &os.PathError{Op: "write", Path: "j/journal.jsonl", Err: syscall.EIO}), space},
	} {
		msg := journalNotWritten(c.err)
		if !strings.HasPrefix(msg, "journal cannot be written") || !strings.Contains(msg, c.want) {
			t.Errorf("%v: %q, want %q in it", c.err, msg, c.want)
		}
	}
}
