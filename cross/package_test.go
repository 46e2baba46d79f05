package cross_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
)

// entry is one item of nfpm.yaml's contents list.
type entry struct{ src, dst, typ string }

// contents reads the contents list of nfpm.yaml with a line scanner: the
// file uses a fixed, simple layout (one "- src:"/"- dst:" per item), and the
// module has no YAML parser.
func contents(t *testing.T) []entry {
	t.Helper()
	f, err := os.Open("nfpm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []entry
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "contents:") {
			in = true
			continue
		}
		if in && line != "" && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "#") {
			break
		}
		if !in {
			continue
		}
		s := strings.TrimSpace(line)
		if strings.HasPrefix(s, "- ") {
			out = append(out, entry{})
			s = strings.TrimPrefix(s, "- ")
		}
		if len(out) == 0 {
			continue
		}
		k, v, ok := strings.Cut(s, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "src":
			out[len(out)-1].src = v
		case "dst":
			out[len(out)-1].dst = v
		case "type":
			out[len(out)-1].typ = v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("nfpm.yaml: no contents entries found")
	}
	return out
}

// TestContentsExist checks that every source file of the package is in the
// repository (the binaries come from make cross and are skipped).
func TestContentsExist(t *testing.T) {
	for _, e := range contents(t) {
		if e.src == "" || strings.Contains(e.src, "${") {
			continue
		}
		if _, err := os.Stat(filepath.Join("..", e.src)); err != nil {
			t.Errorf("nfpm.yaml: source %s of %s: %v", e.src, e.dst, err)
		}
	}
}

// TestContentsComplete checks that the package installs what the unit and
// the maintainer scripts refer to, and the configuration as a conffile.
func TestContentsComplete(t *testing.T) {
	byDst := map[string]entry{}
	for _, e := range contents(t) {
		byDst[e.dst] = e
	}
	for _, dst := range []string{
		"/usr/bin/setmatchd",
		"/usr/bin/setmatch",
		"/usr/lib/systemd/system/setmatchd.service",
		"/usr/lib/sysusers.d/setmatch.conf",
		"/usr/lib/tmpfiles.d/setmatch.conf",
		"/etc/setmatch/setmatchd.toml",
	} {
		if _, ok := byDst[dst]; !ok {
			t.Errorf("nfpm.yaml installs nothing at %s", dst)
		}
	}
	if e := byDst["/etc/setmatch/setmatchd.toml"]; !strings.HasPrefix(e.typ, "config") {
		t.Errorf("/etc/setmatch/setmatchd.toml has type %q, want config|noreplace (a conffile)", e.typ)
	}
	// Every absolute /usr/lib or /etc path the scripts use must be packaged.
	paths := regexp.MustCompile(`/(usr/lib|etc)/[A-Za-z0-9_./-]+\.(conf|service|toml)`)
	for _, s := range []string{"postinst.sh", "prerm.sh", "postrm.sh"} {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths.FindAllString(string(b), -1) {
			if _, ok := byDst[p]; !ok {
				t.Errorf("%s uses %s, which the package does not install", s, p)
			}
		}
	}
	// The postinst names its sysusers and tmpfiles snippets by file name
	// (for DPKG_ROOT): the package must install them under those names.
	post, err := os.ReadFile("postinst.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/usr/lib/sysusers.d/setmatch.conf", "/usr/lib/tmpfiles.d/setmatch.conf"} {
		if _, ok := byDst[p]; !ok || !strings.Contains(string(post), " "+filepath.Base(p)) {
			t.Errorf("postinst.sh applies %s by name, which the package does not install there", p)
		}
	}
	// The unit runs the packaged binary with the packaged configuration.
	unit, err := os.ReadFile(filepath.Join("..", "systemd", "setmatchd.service"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/usr/bin/setmatchd", "/etc/setmatch/setmatchd.toml"} {
		if !strings.Contains(string(unit), p) {
			t.Errorf("setmatchd.service does not refer to %s", p)
		}
	}
}

// TestScriptsParse runs sh -n on the maintainer scripts and checks that
// they are executable (dpkg runs them directly).
func TestScriptsParse(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, s := range []string{"postinst.sh", "prerm.sh", "postrm.sh"} {
		fi, err := os.Stat(s)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable", s)
		}
		if out, err := runTool(t, exec.Command(sh, "-n", s)); err != nil {
			t.Errorf("sh -n %s: %v\n%s", s, err, out)
		}
		b, _ := os.ReadFile(s)
		if !slices.Contains(strings.Split(string(b), "\n"), "set -e") {
			t.Errorf("%s lacks set -e", s)
		}
	}
}

// TestRepoScriptsParse runs bash -n on the build and demo scripts the
// Makefile and CI call, and checks that they are executable.
func TestRepoScriptsParse(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	scripts, _ := filepath.Glob(filepath.Join("..", "scripts", "*.sh"))
	scripts = append(scripts, filepath.Join("..", ".ci", "run"))
	if len(scripts) < 2 {
		t.Fatalf("no scripts found in ../scripts")
	}
	for _, s := range scripts {
		fi, err := os.Stat(s)
		if err != nil {
			t.Error(err)
			continue
		}
		if fi.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable (the Makefile runs it directly)", s)
		}
		if out, err := runTool(t, exec.Command(bash, "-n", s)); err != nil {
			t.Errorf("bash -n %s: %v\n%s", s, err, out)
		}
	}
}

// runTool runs an external tool with a deadline of its own: under qemu-user
// (make test-arm64) a fork/exec can hang, and that must fail this test only.
func runTool(t *testing.T, cmd *exec.Cmd) ([]byte, error) {
	t.Helper()
	if testexec.Emulated() {
		// The scripts are the same files whatever the GOARCH: make
		// test-host checks them natively, where a fork cannot hang.
		t.Skipf("an emulated test binary's fork/exec of %s can hang (golang/go#69259); make test-host runs this check natively", cmd.Path)
	}
	return testexec.CombinedOutput(t, testexec.Timeout(t, 2*time.Minute), cmd)
}

// TestLintian builds the package with make deb into a temporary folder and
// runs lintian --pedantic on it: no error and no warning may remain (the
// overrides in lintian-overrides are part of the package). It needs make,
// dpkg-deb and lintian (.ci/run installs them); with a warm build cache it
// takes about 35 s, most of it lintian. The first make deb also builds nfpm.
func TestLintian(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the .deb with make deb; not with -short")
	}
	lintian := testutil.Tool(t, "lintian", "lintian")
	mk := testutil.Tool(t, "make", "make")
	dist := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, mk, "-C", "..", "deb", "DIST="+dist).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("make deb did not finish within 5 min (the first run builds nfpm: run make deb once):\n%s", out)
	}
	if err != nil {
		t.Fatalf("make deb: %v\n%s", err, out)
	}
	debs, _ := filepath.Glob(filepath.Join(dist, "*.deb"))
	if len(debs) != 1 {
		t.Fatalf("make deb wrote %d packages into DIST, want 1:\n%s", len(debs), out)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err = exec.CommandContext(ctx, lintian, "--pedantic", "--display-info", "--fail-on", "error,warning", debs[0]).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("lintian did not finish within 3 min:\n%s", out)
	}
	var bad []string
	for line := range strings.SplitSeq(string(out), "\n") {
		if strings.HasPrefix(line, "E: ") || strings.HasPrefix(line, "W: ") {
			bad = append(bad, line)
		} else if line != "" {
			t.Log(line)
		}
	}
	if err != nil || len(bad) > 0 {
		t.Errorf("lintian --pedantic %s: %v\n%s", filepath.Base(debs[0]), err, strings.Join(bad, "\n"))
	}
}

// TestCopyrightNamesEveryModule checks that the package's copyright file
// has a Files paragraph for every module go.mod requires: the binaries are
// linked statically, so each module's notice must ship with them.
func TestCopyrightNamesEveryModule(t *testing.T) {
	gomod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	cr, err := os.ReadFile("copyright")
	if err != nil {
		t.Fatal(err)
	}
	req := regexp.MustCompile(`(?m)^\s+([a-z0-9.~/_-]+\.[a-z]+/\S+) v\S+`)
	mods := req.FindAllStringSubmatch(string(gomod), -1)
	if len(mods) == 0 {
		t.Fatal("go.mod: no required modules found")
	}
	for _, m := range mods {
		if !strings.Contains(string(cr), "\nFiles: "+m[1]+"/*\n") {
			t.Errorf("copyright has no paragraph \"Files: %s/*\" (the module is in go.mod)", m[1])
		}
	}
}

// TestInstallMatchesPackage runs make build, then make install into a
// staging folder (DESTDIR), and checks that it installs what the package
// does, man pages included: every path of nfpm.yaml except the
// Debian-only ones (copyright, changelog, lintian overrides), and nothing
// else. Before make build, make install builds nothing and says so.
func TestInstallMatchesPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both commands with make build; not with -short")
	}
	mk := testutil.Tool(t, "make", "make")
	stage, bin := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := func(args ...string) ([]byte, error) {
		out, err := exec.CommandContext(ctx, mk, append([]string{"-C", ".."}, args...)...).CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("make %v did not finish within 5 min:\n%s", args, out)
		}
		return out, err
	}
	if out, err := run("install", "DESTDIR="+stage, "BIN="+bin); err == nil || !strings.Contains(string(out), "run make build first") {
		t.Fatalf("make install before make build: %v\n%s", err, out)
	}
	if out, err := run("build", "BIN="+bin); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	if out, err := run("install", "DESTDIR="+stage, "BIN="+bin); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	var got []string
	filepath.WalkDir(stage, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, stage)
		if !d.IsDir() || rel == "/etc/setmatch/conf.d" {
			got = append(got, rel)
		}
		return nil
	})
	var want []string
	for _, e := range contents(t) {
		switch e.dst {
		case "/usr/share/doc/setmatch/copyright", "/usr/share/doc/setmatch/changelog.gz", "/usr/share/lintian/overrides/setmatch":
			continue
		}
		want = append(want, e.dst)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("make install installs\n  %s\nthe package (without its Debian-only files)\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	for _, man := range []string{"/usr/share/man/man1/setmatch.1.gz", "/usr/share/man/man8/setmatchd.8.gz"} {
		b, err := exec.CommandContext(ctx, "gzip", "-dc", filepath.Join(stage, man)).Output()
		if err != nil || !strings.HasPrefix(string(b), ".TH ") {
			t.Errorf("%s is not a gzipped man page (%v): %.60q", man, err, b)
		}
	}
}

// maintScript runs one of the maintainer scripts as dpkg would, with args,
// and with PATH holding only stubs of the tools the scripts call: each
// named in exits is a shell script that logs its arguments and exits with
// the code given (a key "tool args" for the calls whose arguments start
// with args); a tool not named is absent. Nothing on this machine is
// changed: the scripts reach every tool through PATH (systemctl, even
// where /run/systemd/system exists here, is a stub or missing too). It
// returns the script's output and error and the stubs' log, one call a
// line.
func maintScript(t *testing.T, script string, exits map[string]int, args ...string) ([]byte, error, string) {
	t.Helper()
	return maintScriptOn(t, script, host{}, exits, args...)
}

// host is what maintScriptOn makes the script see of the machine beyond
// its stubs.
type host struct {
	// systemd makes the script find /run/systemd/system, as on a host
	// booted with systemd: a copy of the script is run with that path
	// pointing to a folder of the test's.
	systemd bool
	// udev makes the script find /run/udev, as on a host running udev,
	// the same way.
	udev bool
	// dpkgRoot, when set, is passed as DPKG_ROOT (dpkg --root, an image
	// being built).
	dpkgRoot string
}

// maintScriptOn is maintScript on the host h.
func maintScriptOn(t *testing.T, script string, h host, exits map[string]int, args ...string) ([]byte, error, string) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	abs, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	log := filepath.Join(dir, "calls")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if h.systemd || h.udev {
		b, err := os.ReadFile(abs)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, p := range []struct {
			on   bool
			path string
		}{{h.systemd, "/run/systemd/system"}, {h.udev, "/run/udev"}} {
			if !p.on {
				continue
			}
			run := filepath.Join(dir, filepath.FromSlash(p.path))
			if err := os.MkdirAll(run, 0o755); err != nil {
				t.Fatal(err)
			}
			if p.path == "/run/systemd/system" && !strings.Contains(text, p.path) {
				t.Fatalf("%s does not look for %s", script, p.path)
			}
			text = strings.ReplaceAll(text, p.path, run)
		}
		abs = filepath.Join(dir, script)
		if err := os.WriteFile(abs, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A key "tool args" gives the exit code of the calls of tool whose
	// arguments start with args; a key "tool" that of its other calls
	// (0 if only "tool args" keys name it).
	stubs := map[string]string{}
	for key, code := range exits {
		tool, args, _ := strings.Cut(key, " ")
		if _, ok := stubs[tool]; !ok {
			stubs[tool] = fmt.Sprintf("#!%s\necho \"%s $*\" >> '%s'\n", sh, tool, log)
		}
		if args != "" {
			stubs[tool] += fmt.Sprintf("case \"$*\" in '%s'*) exit %d ;; esac\n", args, code)
		}
	}
	for tool, stub := range stubs {
		code, ok := exits[tool]
		if !ok {
			code = 0
		}
		stub += fmt.Sprintf("exit %d\n", code)
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(sh, append([]string{abs}, args...)...)
	cmd.Env = []string{"PATH=" + bin, "DPKG_MAINTSCRIPT_PACKAGE=setmatch", "DPKG_MAINTSCRIPT_NAME=" + strings.TrimSuffix(script, ".sh")}
	if h.dpkgRoot != "" {
		cmd.Env = append(cmd.Env, "DPKG_ROOT="+h.dpkgRoot)
	}
	cmd.Dir = dir
	out, err := runTool(t, cmd)
	calls, _ := os.ReadFile(log)
	return out, err, string(calls)
}

// dpkgArgs are the ways dpkg calls each maintainer script (deb-postinst(5),
// deb-prerm(5), deb-postrm(5)).
var dpkgArgs = map[string][][]string{
	"postinst.sh": {
		{"configure"}, {"configure", "0.0.9"}, {"abort-upgrade", "0.2.0"}, {"abort-remove"},
		{"abort-remove", "in-favour", "other", "1.0"},
		{"abort-deconfigure", "in-favour", "other", "1.0", "removing", "setmatch", "0.1.0"},
		{"triggered", "/usr/share/man"},
	},
	"prerm.sh": {
		{"remove"}, {"upgrade", "0.2.0"}, {"failed-upgrade", "0.0.9"},
		{"remove", "in-favour", "other", "1.0"},
		{"deconfigure", "in-favour", "other", "1.0", "removing", "setmatch", "0.1.0"},
	},
	"postrm.sh": {
		{"remove"}, {"purge"}, {"upgrade", "0.2.0"}, {"failed-upgrade", "0.0.9"},
		{"abort-install"}, {"abort-install", "0.0.9"}, {"abort-upgrade", "0.0.9"},
		{"disappear", "other", "1.0"},
	},
}

// TestMaintainerScriptsWithoutSystemd runs each maintainer script with each
// argument dpkg may pass it, under set -e, where the system tools fail as
// they do in a chroot or a container (no systemd running, no /proc: there
// systemctl, deb-systemd-invoke and systemd-tmpfiles exit non-zero), and
// where they are absent: every run must succeed, as must a second
// postinst configure. systemd-tmpfiles is not fatal (systemd creates the
// directories at boot), as in debhelper's snippet; systemd-sysusers is,
// since the daemon cannot run without its user.
func TestMaintainerScriptsWithoutSystemd(t *testing.T) {
	failing := map[string]int{
		"systemd-sysusers": 0, "systemd-tmpfiles": 1, "udevadm": 1,
		"deb-systemd-helper": 1, "deb-systemd-invoke": 1, "systemctl": 1,
	}
	for script, argss := range dpkgArgs {
		for _, args := range argss {
			for name, exits := range map[string]map[string]int{"tools fail": failing, "tools absent": {}} {
				out, err, _ := maintScript(t, script, exits, args...)
				if err != nil {
					t.Errorf("%s %s, %s: %v\n%s", script, strings.Join(args, " "), name, err, out)
				}
			}
		}
	}
	// configure runs both snippets, twice in a row as well.
	for range 2 {
		out, err, calls := maintScript(t, "postinst.sh", failing, "configure", "0.1.0")
		if err != nil {
			t.Errorf("postinst.sh configure 0.1.0 with systemd-tmpfiles failing: %v\n%s", err, out)
		}
		for _, want := range []string{"systemd-sysusers setmatch.conf", "systemd-tmpfiles --create setmatch.conf"} {
			if !slices.Contains(strings.Split(calls, "\n"), want) {
				t.Errorf("postinst.sh configure did not run %q; it ran:\n%s", want, calls)
			}
		}
		if !strings.Contains(string(out), "systemd-tmpfiles") {
			t.Errorf("postinst.sh configure does not say that systemd-tmpfiles failed:\n%s", out)
		}
	}
	if out, err, _ := maintScript(t, "postinst.sh", map[string]int{"systemd-sysusers": 1}, "configure"); err == nil {
		t.Errorf("postinst.sh configure succeeded although systemd-sysusers failed (the daemon's user is missing):\n%s", out)
	}
}

// TestMaintainerScriptsUnderDPKGRoot runs each maintainer script with each
// argument dpkg may pass it on a host running systemd, once as a plain
// install and once with DPKG_ROOT set (an image built under a root folder
// on that host, which also runs udev): with DPKG_ROOT no script may call
// systemctl, deb-systemd-invoke or udevadm, which act on the running
// host's systemd and udev, not on the image. The plain runs check that the
// scripts do call them there, so that the check above has something to
// find.
func TestMaintainerScriptsUnderDPKGRoot(t *testing.T) {
	stubs := map[string]int{
		"systemd-sysusers": 0, "systemd-tmpfiles": 0, "udevadm": 0,
		"deb-systemd-helper": 0, "deb-systemd-invoke": 0, "systemctl": 0,
	}
	hostTools := []string{"systemctl", "deb-systemd-invoke", "udevadm"}
	for script, argss := range dpkgArgs {
		for _, args := range argss {
			out, err, calls := maintScriptOn(t, script, host{systemd: true, udev: true, dpkgRoot: t.TempDir()}, stubs, args...)
			if err != nil {
				t.Errorf("%s %s under DPKG_ROOT: %v\n%s", script, strings.Join(args, " "), err, out)
			}
			for _, c := range strings.Split(calls, "\n") {
				tool, _, _ := strings.Cut(c, " ")
				if slices.Contains(hostTools, tool) {
					t.Errorf("%s %s under DPKG_ROOT ran %q, which acts on the running host, not on the image", script, strings.Join(args, " "), c)
				}
			}
		}
	}
	for _, c := range []struct {
		script string
		args   []string
		want   string
	}{
		{"postinst.sh", []string{"configure", "0.1.0"}, "systemctl --system daemon-reload"},
		{"postinst.sh", []string{"configure", "0.1.0"}, "deb-systemd-invoke try-restart setmatchd.service"},
		{"prerm.sh", []string{"remove"}, "deb-systemd-invoke stop setmatchd.service"},
		{"postrm.sh", []string{"remove"}, "systemctl --system daemon-reload"},
		{"postinst.sh", []string{"configure"}, "udevadm control --reload-rules"},
		{"postinst.sh", []string{"configure"}, "udevadm trigger --subsystem-match=gpio --action=change"},
	} {
		out, err, calls := maintScriptOn(t, c.script, host{systemd: true, udev: true}, stubs, c.args...)
		if err != nil {
			t.Errorf("%s %s: %v\n%s", c.script, strings.Join(c.args, " "), err, out)
		}
		if !slices.Contains(strings.Split(calls, "\n"), c.want) {
			t.Errorf("%s %s on a host running systemd did not run %q; it ran:\n%s", c.script, strings.Join(c.args, " "), c.want, calls)
		}
	}
}

// TestMaintainerScriptsKeepState runs the maintainer scripts on a host
// running systemd as dpkg runs them on an install, an upgrade, a remove
// and a purge, and checks what they do to the service: a first install
// neither enables nor starts it; an upgrade enables it again only if the
// administrator had it enabled (deb-systemd-helper was-enabled) and does
// not stop it in prerm (postinst's try-restart restarts a running daemon);
// a remove stops and masks it; a purge forgets its enablement; and a
// trigger (the package has none) does nothing.
func TestMaintainerScriptsKeepState(t *testing.T) {
	tools := func(extra map[string]int) map[string]int {
		m := map[string]int{
			"systemd-sysusers": 0, "systemd-tmpfiles": 0, "udevadm": 0,
			"deb-systemd-helper": 0, "deb-systemd-invoke": 0, "systemctl": 0,
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	firstInstall := tools(map[string]int{"deb-systemd-helper debian-installed": 1, "deb-systemd-helper --quiet was-enabled": 1})
	disabled := tools(map[string]int{"deb-systemd-helper --quiet was-enabled": 1})
	for _, c := range []struct {
		name   string
		script string
		args   []string
		exits  map[string]int
		want   []string // calls that must be made
		never  []string // prefixes of calls that must not
	}{
		{"first install", "postinst.sh", []string{"configure"}, firstInstall,
			[]string{"deb-systemd-helper update-state setmatchd.service"},
			[]string{"deb-systemd-helper enable", "deb-systemd-invoke start", "deb-systemd-invoke restart", "systemctl enable", "systemctl start"}},
		{"upgrade, enabled", "postinst.sh", []string{"configure", "0.1.0"}, tools(nil),
			[]string{"deb-systemd-helper enable setmatchd.service", "deb-systemd-invoke try-restart setmatchd.service"}, nil},
		{"upgrade, disabled", "postinst.sh", []string{"configure", "0.1.0"}, disabled,
			[]string{"deb-systemd-invoke try-restart setmatchd.service"},
			[]string{"deb-systemd-helper enable", "systemctl enable"}},
		{"upgrade", "prerm.sh", []string{"upgrade", "0.2.0"}, tools(nil), nil,
			[]string{"deb-systemd-invoke stop", "systemctl stop"}},
		{"remove", "prerm.sh", []string{"remove"}, tools(nil),
			[]string{"deb-systemd-invoke stop setmatchd.service"}, nil},
		{"remove", "postrm.sh", []string{"remove"}, tools(nil),
			[]string{"deb-systemd-helper mask setmatchd.service"}, nil},
		{"purge", "postrm.sh", []string{"purge"}, tools(nil),
			[]string{"deb-systemd-helper purge setmatchd.service"}, nil},
		{"trigger", "postinst.sh", []string{"triggered", "/usr/share/man"}, tools(nil), nil,
			[]string{""}},
	} {
		if _, err := os.Stat("/usr/bin/deb-systemd-helper"); err != nil && c.script == "postrm.sh" {
			// postrm looks for /usr/bin/deb-systemd-helper itself, as
			// debhelper's snippet does, so its stub is not enough. Debian's
			// init-system-helpers, which has it, is essential: a CI
			// machine without it is not Debian's.
			if os.Getenv(testutil.EnvRequireTools) != "" {
				t.Errorf("%s %s: no /usr/bin/deb-systemd-helper (Debian's essential init-system-helpers), and %s says every tool the tests need must be here", c.script, c.name, testutil.EnvRequireTools)
			} else {
				t.Logf("%s %s: no /usr/bin/deb-systemd-helper here; not checked", c.script, c.name)
			}
			continue
		}
		out, err, calls := maintScriptOn(t, c.script, host{systemd: true, udev: true}, c.exits, c.args...)
		if err != nil {
			t.Errorf("%s %s: %v\n%s", c.script, strings.Join(c.args, " "), err, out)
		}
		lines := strings.Split(strings.TrimSpace(calls), "\n")
		for _, w := range c.want {
			if !slices.Contains(lines, w) {
				t.Errorf("%s %s (%s) did not run %q; it ran:\n%s", c.script, strings.Join(c.args, " "), c.name, w, calls)
			}
		}
		for _, n := range c.never {
			for _, l := range lines {
				if l != "" && strings.HasPrefix(l, n) {
					t.Errorf("%s %s (%s) ran %q", c.script, strings.Join(c.args, " "), c.name, l)
				}
			}
		}
	}
}
