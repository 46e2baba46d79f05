package systemd_test

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
	"setmatch/internal/unitpaths"
)

const (
	unitFile     = "setmatchd.service"
	sysusersFile = "setmatchd.sysusers"
	tmpfilesFile = "setmatchd.tmpfiles"
	// gpioRulesFile is the udev rule that gives the GPIO chips to group
	// gpio.
	gpioRulesFile = "60-setmatch-gpio.rules"
	// networkFile is the drop-in example that opens the network for MQTT
	// and metrics (docs/APPLIANCE.md).
	networkFile = "setmatchd-network.conf.example"
	spoolDir    = "/var/spool/setmatch"
	stateDir    = "/var/lib/setmatch"
	// maxExposure is the target of docs/APPLIANCE.md for
	// `systemd-analyze security`, times ten (the unit of --threshold).
	maxExposure = 20
)

// unitSettings parses a unit file into section -> key -> values (in order;
// a key may repeat). Comments and blank lines are skipped.
func unitSettings(t *testing.T, path string) map[string]map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string][]string{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && line[len(line)-1] == ']':
			section = line[1 : len(line)-1]
			out[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: not a key=value line inside a section: %q", path, n, line)
			}
			out[section][strings.TrimSpace(k)] = append(out[section][strings.TrimSpace(k)], strings.TrimSpace(v))
		}
	}
	return out
}

// TestUnitSettings checks the settings the daemon and the rest of the
// package rely on, without systemd.
func TestUnitSettings(t *testing.T) {
	svc := unitSettings(t, unitFile)["Service"]
	if svc == nil {
		t.Fatal("no [Service] section")
	}
	want := map[string]string{
		"Type":                    "notify",
		"NotifyAccess":            "main",
		"ExecStart":               "/usr/bin/setmatchd -config /etc/setmatch/setmatchd.toml",
		"ExecReload":              "/usr/bin/setmatchd -reload $MAINPID",
		"RuntimeDirectory":        "setmatchd",
		"TimeoutStartSec":         "60s",
		"WatchdogSec":             "30s",
		"Restart":                 "on-failure",
		"User":                    "setmatch",
		"Group":                   "setmatch",
		"DevicePolicy":            "closed",
		"DeviceAllow":             "char-gpiochip rw",
		"ProtectSystem":           "strict",
		"ReadWritePaths":          spoolDir,
		"StateDirectory":          "setmatch",
		"NoNewPrivileges":         "yes",
		"CapabilityBoundingSet":   "",
		"AmbientCapabilities":     "",
		"RestrictAddressFamilies": "AF_UNIX",
		"IPAddressDeny":           "any",
		"PrivateNetwork":          "yes",
		"SystemCallArchitectures": "native",
		"MemoryDenyWriteExecute":  "yes",
		"UMask":                   "0027",
		// The rest of the hardening docs/APPLIANCE.md describes: each
		// of these removed or relaxed keeps the exposure score under
		// its target, so the score alone would not notice.
		"StateDirectoryMode":    "0750",
		"RuntimeDirectoryMode":  "0750",
		"ProtectHome":           "yes",
		"PrivateTmp":            "yes",
		"ProtectProc":           "invisible",
		"ProcSubset":            "pid",
		"ProtectKernelTunables": "yes",
		"ProtectKernelModules":  "yes",
		"ProtectKernelLogs":     "yes",
		"ProtectControlGroups":  "yes",
		"ProtectClock":          "yes",
		"ProtectHostname":       "yes",
		"RestrictSUIDSGID":      "yes",
		"RestrictNamespaces":    "yes",
		"RestrictRealtime":      "yes",
		"LockPersonality":       "yes",
		"RemoveIPC":             "yes",
		"KeyringMode":           "private",
		"PrivateMounts":         "yes",
		"SystemCallErrorNumber": "EPERM",
		// The bounds docs/APPLIANCE.md states, and the stop timeout the
		// daemon's stop_grace stays below.
		"MemoryMax":      "256M",
		"TasksMax":       "128",
		"LimitNOFILE":    "1024",
		"TimeoutStopSec": "40s",
		"KillMode":       "mixed",
	}
	for k, v := range want {
		got, ok := svc[k]
		if !ok {
			t.Errorf("%s: %s= missing, want %q", unitFile, k, v)
			continue
		}
		if got[len(got)-1] != v {
			t.Errorf("%s: %s=%s, want %q", unitFile, k, got[len(got)-1], v)
		}
	}
	if f := svc["SystemCallFilter"]; !slices.Equal(f, []string{"@system-service", "~@privileged @resources"}) {
		t.Errorf("%s: SystemCallFilter= %q, want @system-service, then ~@privileged @resources", unitFile, f)
	}
	// The Go runtime's soft limit is below the cgroup's hard one, so that
	// the collector works harder before the daemon would be killed.
	var goMem int64
	for _, e := range svc["Environment"] {
		if v, ok := strings.CutPrefix(e, "GOMEMLIMIT="); ok {
			mib, err := strconv.ParseInt(strings.TrimSuffix(v, "MiB"), 10, 64)
			if err != nil || !strings.HasSuffix(v, "MiB") {
				t.Fatalf("%s: GOMEMLIMIT=%s, want a number of MiB", unitFile, v)
			}
			goMem = mib << 20
		}
	}
	if memMax := int64(256) << 20; goMem <= 0 || goMem >= memMax {
		t.Errorf("%s: GOMEMLIMIT of %d bytes, want one below MemoryMax=256M", unitFile, goMem)
	}
	// PrivateDevices= gives the service a /dev without /dev/gpiochip*.
	if v, ok := svc["PrivateDevices"]; ok && v[len(v)-1] != "no" {
		t.Errorf("%s: PrivateDevices=%s hides the GPIO chips; use DevicePolicy=closed", unitFile, v[len(v)-1])
	}
	// The user must be in the groups that the sysusers snippet creates,
	// and in no other: a group is a privilege.
	groups := strings.Fields(strings.Join(svc["SupplementaryGroups"], " "))
	slices.Sort(groups)
	if want := []string{"gpio", "setmatch-spool"}; !slices.Equal(groups, want) {
		t.Errorf("%s: SupplementaryGroups=%q, want exactly %q", unitFile, groups, want)
	}
}

// snippetLines returns the fields of the non-comment lines of a sysusers.d
// or tmpfiles.d file.
func snippetLines(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		out = append(out, strings.Fields(line))
	}
	return out
}

// sysusersFields splits a sysusers.d line into its fields, a quoted one
// (the description) as one.
var sysusersFields = regexp.MustCompile(`"[^"]*"|\S+`)

// TestSnippetsAgree checks that the unit, sysusers and tmpfiles snippets
// name the same user, groups and directories, that the user has no login
// shell and no group but its own, gpio and setmatch-spool, that the spool
// modes let the camera's group write tmp/ and new/ but nothing else, and
// that the configuration directories are root's.
// TestWritableIsTheUnits: the folders the daemon's errors say the unit
// lets it write (unitpaths.Writable, in the advice for a read-only spool
// or journal folder) are the unit's StateDirectory= under /var/lib and
// its ReadWritePaths=, and no others.
func TestWritableIsTheUnits(t *testing.T) {
	svc := unitSettings(t, unitFile)["Service"]
	var got []string
	for _, d := range svc["StateDirectory"] {
		got = append(got, "/var/lib/"+d)
	}
	got = append(got, svc["ReadWritePaths"]...)
	slices.Sort(got)
	want := slices.Sorted(slices.Values(unitpaths.Writable))
	if !slices.Equal(got, want) {
		t.Errorf("the unit lets setmatchd write %q; unitpaths.Writable says %q", got, want)
	}
}

func TestSnippetsAgree(t *testing.T) {
	users := map[string]bool{}
	groups := map[string]bool{}
	members := map[string]bool{}
	for _, f := range snippetLines(t, sysusersFile) {
		switch f[0] {
		case "u":
			users[f[1]] = true
			groups[f[1]] = true
			// The daemon's user has no login shell: the sixth field,
			// after the quoted description, is "-" (sysusers.d's
			// nologin) or absent.
			q := sysusersFields.FindAllString(strings.Join(f, " "), -1)
			if len(q) >= 6 && q[5] != "-" {
				t.Errorf("%s: user %s has the shell %s, want - (no login)", sysusersFile, f[1], q[5])
			}
		case "g":
			groups[f[1]] = true
		case "m":
			if len(f) < 3 {
				t.Fatalf("%s: membership line %q lacks the group", sysusersFile, f)
			}
			members[f[1]+":"+f[2]] = true
		}
	}
	for _, u := range []string{"setmatch"} {
		if !users[u] {
			t.Errorf("%s: no user %s", sysusersFile, u)
		}
	}
	for _, m := range []string{"setmatch:gpio", "setmatch:setmatch-spool"} {
		if !members[m] {
			t.Errorf("%s: no membership %s", sysusersFile, m)
		}
	}
	if len(members) != 2 {
		t.Errorf("%s: memberships %v, want only setmatch:gpio and setmatch:setmatch-spool", sysusersFile, members)
	}

	wantMode := map[string]fs.FileMode{ // permission bits, and whether group may write
		spoolDir:             0o750,
		spoolDir + "/tmp":    0o770,
		spoolDir + "/new":    0o770,
		spoolDir + "/cur":    0o750,
		spoolDir + "/done":   0o750,
		spoolDir + "/failed": 0o750,
		// The reasons of failed batches: the camera may read them, not
		// write them.
		spoolDir + "/failed/.reasons": 0o750,
		stateDir:                      0o750,
		// The configuration: root's, which the daemon may read but not
		// change.
		"/etc/setmatch":        0o755,
		"/etc/setmatch/conf.d": 0o755,
	}
	seen := map[string]bool{}
	for _, f := range snippetLines(t, tmpfilesFile) {
		if len(f) < 5 {
			t.Fatalf("%s: line %q has fewer than 5 fields", tmpfilesFile, f)
		}
		path, modeStr, user, group := f[1], f[2], f[3], f[4]
		want, ok := wantMode[path]
		if !ok {
			continue
		}
		seen[path] = true
		mode, err := strconv.ParseUint(modeStr, 8, 32)
		if err != nil {
			t.Errorf("%s: %s: mode %q is not octal", tmpfilesFile, path, modeStr)
			continue
		}
		if got := fs.FileMode(mode) & 0o777; got != want {
			t.Errorf("%s: %s: permission bits %o, want %o", tmpfilesFile, path, got, want)
		}
		if strings.HasPrefix(path, "/etc/") {
			if user != "root" || group != "root" {
				t.Errorf("%s: %s: owner %s:%s, want root:root", tmpfilesFile, path, user, group)
			}
			continue
		}
		if user != "setmatch" {
			t.Errorf("%s: %s: owner %s, want setmatch", tmpfilesFile, path, user)
		}
		if !groups[group] {
			t.Errorf("%s: %s: group %s is not created by %s", tmpfilesFile, path, group, sysusersFile)
		}
	}
	for p := range wantMode {
		if !seen[p] {
			t.Errorf("%s: no line for %s", tmpfilesFile, p)
		}
	}
}

// TestGPIORule checks the udev rule: the GPIO character devices go to
// group gpio, readable and writable by it and by no one else.
func TestGPIORule(t *testing.T) {
	b, err := os.ReadFile(gpioRulesFile)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		n++
		keys := map[string]string{}
		for _, kv := range strings.Split(line, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			keys[strings.TrimRight(k, "=")] = strings.Trim(strings.TrimPrefix(v, "="), `"`)
		}
		if keys["KERNEL"] != "gpiochip*" || keys["GROUP"] != "gpio" || keys["MODE"] != "0660" {
			t.Errorf("%s: %q: want KERNEL==\"gpiochip*\", GROUP=\"gpio\", MODE=\"0660\"", gpioRulesFile, line)
		}
	}
	if n != 1 {
		t.Errorf("%s: %d rules, want 1", gpioRulesFile, n)
	}
}

// stubUnits are the units the service names or depends on by default
// (sysinit.target, basic.target and shutdown.target come with
// DefaultDependencies=yes), as stubs: `systemd-analyze verify` needs the
// units a unit pulls in to exist, not what they do. Named here rather than
// copied from the host, so that the check is the same on every machine.
var stubUnits = map[string]string{
	"sysinit.target":                 "[Unit]\nDescription=System Initialization\nDefaultDependencies=no\n",
	"basic.target":                   "[Unit]\nDescription=Basic System\nRequires=sysinit.target\nAfter=sysinit.target\n",
	"shutdown.target":                "[Unit]\nDescription=System Shutdown\nDefaultDependencies=no\n",
	"local-fs.target":                "[Unit]\nDescription=Local File Systems\nDefaultDependencies=no\nConflicts=shutdown.target\n",
	"multi-user.target":              "[Unit]\nDescription=Multi-User System\nRequires=basic.target\nAfter=basic.target\n",
	"systemd-tmpfiles-setup.service": "[Unit]\nDescription=Create System Files and Directories\nDefaultDependencies=no\n\n[Service]\nType=oneshot\nExecStart=/bin/true\n",
}

// stubRoot builds a file-system root for `systemd-analyze verify --root`
// in a temporary folder: this unit, the stubUnits beside it, and stub
// executables for the commands they name.
func stubRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	unitDir := filepath.Join(root, "usr/lib/systemd/system")
	if err := os.MkdirAll(unitDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range stubUnits {
		if err := os.WriteFile(filepath.Join(unitDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(unitDir, unitFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, exe := range []string{"usr/bin/setmatchd", "bin/true"} {
		p := filepath.Join(root, exe)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func lookTool(t *testing.T, name string) string {
	t.Helper()
	return testutil.Tool(t, name, "systemd")
}

// TestVerify runs `systemd-analyze verify` on the unit as installed in a
// stub root and fails on any complaint about it: systemd only warns (exit
// status 0) about unknown keys and invalid values.
func TestVerify(t *testing.T) {
	sa := lookTool(t, "systemd-analyze")
	root := stubRoot(t)
	out, err := runTool(t, exec.Command(sa, "verify", "--root="+root, "--man=no", "--generators=no", unitFile))
	if len(bytes.TrimSpace(out)) > 0 {
		t.Logf("systemd-analyze verify:\n%s", out)
	}
	if err != nil {
		t.Fatalf("systemd-analyze verify %s: %v", unitFile, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "setmatchd") {
			t.Errorf("systemd-analyze verify complains: %s", line)
		}
	}
}

// TestVerifyCatchesMistakes makes sure TestVerify can fail: a unit with an
// unknown key and a bad value must draw complaints.
func TestVerifyCatchesMistakes(t *testing.T) {
	sa := lookTool(t, "systemd-analyze")
	root := stubRoot(t)
	p := filepath.Join(root, "usr/lib/systemd/system", unitFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte("UMask=0027"), []byte("UMask=0027\nProtectEverything=yes\nMemoryMax=lots"), 1)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := runTool(t, exec.Command(sa, "verify", "--root="+root, "--man=no", "--generators=no", unitFile))
	for _, want := range []string{"ProtectEverything", "lots"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("systemd-analyze verify did not complain about %s; output:\n%s", want, out)
		}
	}
}

var exposureRE = regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+)`)

// exposure runs `systemd-analyze security --offline=yes` on the unit in
// dir ("" = this directory; drop-ins in dir/setmatchd.service.d apply) and
// returns its exposure score, failing t if it is above the target.
func exposure(t *testing.T, dir string) float64 {
	t.Helper()
	sa := lookTool(t, "systemd-analyze")
	cmd := exec.Command(sa, "security", "--offline=yes", "--threshold="+strconv.Itoa(maxExposure), unitFile)
	cmd.Dir = dir
	out, err := runTool(t, cmd)
	m := exposureRE.FindSubmatch(out)
	if m == nil {
		if bytes.Contains(out, []byte("--offline")) {
			t.Skipf("this systemd-analyze has no offline security review:\n%s", out)
		}
		t.Fatalf("no exposure level in systemd-analyze security output (%v):\n%s", err, out)
	}
	score, perr := strconv.ParseFloat(string(m[1]), 64)
	if perr != nil {
		t.Fatal(perr)
	}
	if err != nil || score*10 > maxExposure {
		t.Errorf("exposure %.1f (exit %v), want at most %.1f:\n%s", score, err, float64(maxExposure)/10, out)
	}
	return score
}

// TestSecurityExposure checks the `systemd-analyze security` exposure score
// against the documented target.
func TestSecurityExposure(t *testing.T) {
	t.Logf("systemd-analyze security --offline=yes %s: exposure %.1f", unitFile, exposure(t, ""))
}

// withNetworkDropIn copies the unit into a new directory with dropIn as
// setmatchd.service.d/network.conf, and returns the directory.
func withNetworkDropIn(t *testing.T, dir string, dropIn []byte) string {
	t.Helper()
	unit, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, unitFile+".d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, unitFile), unit, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, unitFile+".d", "network.conf"), dropIn, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestNetworkDropIn checks the drop-in example that opens the network for
// MQTT and metrics: what it sets, that it leaves the unit's IPAddressDeny=any
// in force, that systemd-analyze verify takes it without complaint (and
// does complain about a broken copy: the drop-in is read), and the
// exposure score with it.
func TestNetworkDropIn(t *testing.T) {
	svc := unitSettings(t, networkFile)["Service"]
	if svc == nil {
		t.Fatalf("%s: no [Service] section", networkFile)
	}
	if v := svc["PrivateNetwork"]; len(v) != 1 || v[0] != "no" {
		t.Errorf("%s: PrivateNetwork=%q, want no", networkFile, v)
	}
	fams := strings.Fields(strings.Join(svc["RestrictAddressFamilies"], " "))
	for _, f := range []string{"AF_UNIX", "AF_INET", "AF_INET6"} {
		if !slices.Contains(fams, f) {
			t.Errorf("%s: RestrictAddressFamilies=%q lacks %s", networkFile, fams, f)
		}
	}
	if len(svc["IPAddressAllow"]) == 0 {
		t.Errorf("%s: no IPAddressAllow=", networkFile)
	}
	// An empty IPAddressDeny= would reset the unit's deny list to nothing.
	if v, ok := svc["IPAddressDeny"]; ok {
		t.Errorf("%s: IPAddressDeny=%q: the unit's IPAddressDeny=any must stay", networkFile, v)
	}

	sa := lookTool(t, "systemd-analyze")
	dropIn, err := os.ReadFile(networkFile)
	if err != nil {
		t.Fatal(err)
	}
	verify := func(dropIn []byte) string {
		root := stubRoot(t)
		dir := withNetworkDropIn(t, filepath.Join(root, "usr/lib/systemd/system"), dropIn)
		cmd := exec.Command(sa, "verify", "--root="+root, "--man=no", "--generators=no", unitFile)
		cmd.Dir = dir
		out, err := runTool(t, cmd)
		if err != nil {
			t.Fatalf("systemd-analyze verify with %s: %v\n%s", networkFile, err, out)
		}
		return string(out)
	}
	out := verify(dropIn)
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "setmatchd") || strings.Contains(line, "network.conf") {
			t.Errorf("systemd-analyze verify complains: %s", line)
		}
	}
	if out := verify(append(append([]byte(nil), dropIn...), "IPAddressAllow=not-an-address\n"...)); !strings.Contains(out, "network.conf") {
		t.Errorf("systemd-analyze verify did not read the drop-in (no complaint about a bad address in it):\n%s", out)
	}

	base := exposure(t, "")
	open := exposure(t, withNetworkDropIn(t, t.TempDir(), dropIn))
	t.Logf("systemd-analyze security --offline=yes: exposure %.1f, %.1f with %s", base, open, networkFile)
	if open <= base {
		t.Errorf("exposure %.1f with the drop-in, %.1f without: the drop-in was not applied", open, base)
	}
}

// TestSysusersTmpfiles applies both snippets to an empty root with
// systemd-sysusers and systemd-tmpfiles and checks the owners and modes of
// what they create.
func TestSysusersTmpfiles(t *testing.T) {
	sysusers := lookTool(t, "systemd-sysusers")
	tmpfiles := lookTool(t, "systemd-tmpfiles")
	if os.Geteuid() != 0 {
		t.Skip("systemd-tmpfiles --create needs root to set owners; the structural checks ran in TestSnippetsAgree")
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	abs := func(f string) string { p, _ := filepath.Abs(f); return p }
	if out, err := runTool(t, exec.Command(sysusers, "--root="+root, abs(sysusersFile))); err != nil {
		t.Fatalf("systemd-sysusers: %v\n%s", err, out)
	}
	uid := idOf(t, filepath.Join(root, "etc/passwd"), "setmatch")
	spoolGID := idOf(t, filepath.Join(root, "etc/group"), "setmatch-spool")
	stateGID := idOf(t, filepath.Join(root, "etc/group"), "setmatch")
	grp, _ := os.ReadFile(filepath.Join(root, "etc/group"))
	for _, g := range []string{"gpio", "setmatch-spool"} {
		if !regexp.MustCompile(`(?m)^` + g + `:x:\d+:(.*,)?setmatch(,|$)`).Match(grp) {
			t.Errorf("systemd-sysusers did not put setmatch in group %s:\n%s", g, grp)
		}
	}

	out, err := runTool(t, exec.Command(tmpfiles, "--root="+root, "--create", abs(tmpfilesFile)))
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("systemd-tmpfiles --create: %v\n%s", err, out)
	}
	want := []struct {
		path string
		mode fs.FileMode
		gid  int
	}{
		{spoolDir, 0o750 | fs.ModeSetgid, spoolGID},
		{spoolDir + "/tmp", 0o770 | fs.ModeSetgid | fs.ModeSticky, spoolGID},
		{spoolDir + "/new", 0o770 | fs.ModeSetgid | fs.ModeSticky, spoolGID},
		{spoolDir + "/cur", 0o750, spoolGID},
		{spoolDir + "/done", 0o750 | fs.ModeSetgid, spoolGID},
		{spoolDir + "/failed", 0o750 | fs.ModeSetgid, spoolGID},
		{stateDir, 0o750, stateGID},
	}
	for _, w := range want {
		fi, err := os.Stat(filepath.Join(root, w.path))
		if err != nil {
			t.Error(err)
			continue
		}
		if got := fi.Mode() &^ fs.ModeDir; got != w.mode {
			t.Errorf("%s: mode %v, want %v", w.path, got, w.mode)
		}
		if u, g := ownerOf(fi); u != uid || g != w.gid {
			t.Errorf("%s: owner %d:%d, want %d:%d", w.path, u, g, uid, w.gid)
		}
	}
	// A folder made in the spool later (one removed by hand, made again
	// by setmatchd, which may neither chown nor set the set-group-ID bit
	// under its unit) belongs to the spool's group and keeps the bit.
	again := filepath.Join(root, spoolDir, "again")
	if err := os.Mkdir(again, 0o750); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(again); err != nil {
		t.Error(err)
	} else if _, g := ownerOf(fi); g != spoolGID || fi.Mode()&fs.ModeSetgid == 0 {
		t.Errorf("a folder made in the spool: group %d, mode %v; want the spool's group %d, set-group-ID", g, fi.Mode(), spoolGID)
	}
}

// idOf returns the numeric id of name in a passwd or group file.
func idOf(t *testing.T, file, name string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, ":")
		if len(f) >= 3 && f[0] == name {
			id, err := strconv.Atoi(f[2])
			if err != nil {
				t.Fatalf("%s: bad id in %q", file, line)
			}
			return id
		}
	}
	t.Fatalf("%s: no entry for %s", file, name)
	return -1
}

// runTool runs an external tool with a deadline of its own: under qemu-user
// (make test-arm64) a fork/exec can hang, and that must fail this test only.
func runTool(t *testing.T, cmd *exec.Cmd) ([]byte, error) {
	t.Helper()
	return testexec.CombinedOutput(t, testexec.Timeout(t, 2*time.Minute), cmd)
}
