package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusesRoot: as uid 0 setmatchd stops before reading its configuration
// and names the unit, unless -allow-root is given.
func TestRefusesRoot(t *testing.T) {
	old := geteuid
	geteuid = func() int { return 0 }
	defer func() { geteuid = old }()
	missing := filepath.Join(t.TempDir(), "none.toml")
	var stderr bytes.Buffer
	if code := run([]string{"-config", missing}, new(bytes.Buffer), &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "refusing to run as root") || !strings.Contains(stderr.String(), "setmatchd.service") {
		t.Errorf("as root: exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	// With -allow-root it goes on, and fails on the missing configuration.
	if code := run([]string{"-allow-root", "-config", missing}, new(bytes.Buffer), &stderr); code != 1 ||
		strings.Contains(stderr.String(), "refusing") || !strings.Contains(stderr.String(), "none.toml") {
		t.Errorf("as root with -allow-root: exit %d, %q", code, stderr.String())
	}
}

// TestEmptyConfigFlag: -config "" is a usage error (exit 2) that says
// what the flag wants; it was "check failed: open : no such file or
// directory", exit 1.
func TestEmptyConfigFlag(t *testing.T) {
	for _, args := range [][]string{{"-check", "-config", ""}, {"-allow-root", "-config="}} {
		var stderr bytes.Buffer
		if code := run(args, new(bytes.Buffer), &stderr); code != 2 || !strings.Contains(stderr.String(), "-config needs the configuration file") {
			t.Errorf("%q: exit %d, %q", args, code, stderr.String())
		}
	}
}

// TestTimeoutNeedsReload: -timeout belongs to -reload; given alone, with
// -check or with -version it is a usage error (exit 2) rather than a flag
// that does nothing while a daemon starts.
func TestTimeoutNeedsReload(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.toml")
	for _, args := range [][]string{{"-timeout", "5s", "-config", missing}, {"-check", "-timeout", "5s", "-config", missing}, {"-version", "-timeout=5s"}} {
		var stderr bytes.Buffer
		if code := run(args, new(bytes.Buffer), &stderr); code != 2 || !strings.Contains(stderr.String(), "-timeout") {
			t.Errorf("%q: exit %d, %q; want 2 and that -timeout goes with -reload", args, code, stderr.String())
		}
	}
}

// TestStrayArgument: a word that is not a flag is a usage error (exit 2)
// that names it, not ignored: "setmatchd site.toml" would start the daemon
// on the default configuration instead of site.toml, and flags after it
// would go unread. It says how a configuration file is given, the usual
// reason for the word ("setmatchd -check site.toml").
func TestStrayArgument(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.toml")
	for _, args := range [][]string{{"site.toml"}, {"-check", "site.toml"}, {"-check", "-config", missing, "site.toml"}, {"-config", missing, "a", "b"}} {
		var stderr bytes.Buffer
		want := fmt.Sprintf("setmatchd: unexpected argument %q: every setting is a flag (the configuration file: -config FILE)\n", args[len(args)-1])
		if args[0] == "-config" {
			want = `setmatchd: unexpected argument "a": every setting is a flag (the configuration file: -config FILE)` + "\n"
		}
		if code := run(args, new(bytes.Buffer), &stderr); code != 2 || !strings.HasPrefix(stderr.String(), want) {
			t.Errorf("%q: exit %d, %q; want 2 and the argument named, starting\n%s", args, code, stderr.String(), want)
		}
	}
}

// TestCheckAsRootSaysSo: -check as root passes where the daemon's user
// may not read the model or write the journal; it says so, and names the
// check as that user, of the configuration given. Not as another user.
func TestCheckAsRootSaysSo(t *testing.T) {
	old := geteuid
	defer func() { geteuid = old }()
	missing := filepath.Join(t.TempDir(), "none.toml")
	for _, c := range []struct {
		uid  int
		note bool
	}{{0, true}, {1000, false}} {
		geteuid = func() int { return c.uid }
		var stdout bytes.Buffer
		run([]string{"-check", "-config", missing}, &stdout, new(bytes.Buffer))
		if got := strings.Contains(stdout.String(), "sudo -u setmatch setmatchd -check -config "+missing+" checks"); got != c.note {
			t.Errorf("-check as uid %d: %q, want the note about root: %v", c.uid, stdout.String(), c.note)
		}
	}
}
