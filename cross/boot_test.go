package cross_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"setmatch/device/mqtt/mqtttest"
	"setmatch/internal/testutil"
)

// EnvDebianMirror names the Debian mirror TestPackageUnderSystemd
// bootstraps its root from (default http://deb.debian.org/debian).
const EnvDebianMirror = "SETMATCH_TEST_DEBIAN_MIRROR"

// bootSuite is the Debian release the root is made of: Debian 12, whose
// systemd 252 is Raspberry Pi OS Bookworm's, the oldest the unit is
// written for.
const bootSuite = "bookworm"

// TestPackageUnderSystemd installs the package, built for this machine's
// architecture, into a minimal Debian 12 root and boots it with
// systemd-nspawn: systemd 252 as PID 1 starts setmatchd with the unit's
// sandbox, as on a Raspberry Pi. It does what an installer and a camera
// do, and checks what APPLIANCE.md says of each step: it trains a model
// of image frames with the packaged setmatch, checks it with setmatchd
// -check as the daemon's user, enables the unit and boots; captures a
// burst into the spool with the package's camera script as a user of the
// spool group and reads the decision from the journal file; reloads (a
// good configuration, then one the daemon refuses while it runs on);
// kills the daemon with SIGKILL (systemd starts it again, and the new one
// decides the next burst); enrols a new person from a burst the daemon
// kept and forgets them again, as the daemon's user, the daemon reloading
// each model by itself; upgrades the package under the running daemon;
// opens the network for MQTT and metrics with the drop-in the package
// ships (a broker of the test's gets the decision, the test scrapes the
// metrics); stops the daemon; mounts the spool on tmpfs and boots again
// (systemd makes the spool's folders, and the daemon decides a burst);
// moves the spool to another folder, made and allowed as APPLIANCE.md
// says; and removes the package, installs it again and purges it. The
// GPIO lines are not the Pi's: a drop-in sets gpio.backend = "log", as
// the container has no /dev/gpiochip*.
//
// It needs root, systemd-nspawn (Debian's systemd-container), debootstrap,
// nsenter, make, dpkg-deb and mosquitto (.ci/run installs them), and the
// Debian mirror (EnvDebianMirror); the bootstrap takes about 40 s, the
// whole test about a minute. Where this machine cannot run it (not root,
// the mirror out of reach, or a container that cannot boot at all), it
// says so and skips: none of those is the package's fault.
func TestPackageUnderSystemd(t *testing.T) {
	if testing.Short() {
		t.Skip("bootstraps a Debian root and boots it; not with -short")
	}
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skipf("builds the package for this machine: linux/amd64 or linux/arm64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	nspawn := testutil.Tool(t, "systemd-nspawn", "systemd-container")
	debootstrap := testutil.Tool(t, "debootstrap", "debootstrap")
	nsenter := testutil.Tool(t, "nsenter", "util-linux")
	mk := testutil.Tool(t, "make", "make")
	testutil.Tool(t, "dpkg-deb", "dpkg")
	testutil.Tool(t, "mosquitto", "mosquitto") // the broker of the MQTT step
	if os.Geteuid() != 0 {
		t.Skip("bootstrapping a Debian root and booting it with systemd-nspawn take root")
	}

	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	mirror := os.Getenv(EnvDebianMirror)
	if mirror == "" {
		mirror = "http://deb.debian.org/debian"
	}
	// The root and the package at once: one waits on the network, the
	// other on the compiler.
	bootstrapped := make(chan error, 1)
	var bootOut []byte
	bctx, bcancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer bcancel()
	go func() {
		cmd := exec.CommandContext(bctx, debootstrap, "--variant=minbase", "--include=systemd,systemd-sysv",
			bootSuite, root, mirror)
		// Stopped with SIGTERM, debootstrap and what it runs: on it,
		// debootstrap unmounts what it mounted in the root (/proc, /sys),
		// which SIGKILL would leave mounted.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
		cmd.WaitDelay = time.Minute
		var err error
		bootOut, err = cmd.CombinedOutput()
		if bctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("not done within 4 min: %w", bctx.Err())
		}
		bootstrapped <- err
	}()
	dist := filepath.Join(dir, "dist")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, mk, "-C", "..", "deb", "DEB_ARCH="+runtime.GOARCH, "DIST="+dist).CombinedOutput()
	// Where the package is not there, the bootstrap is stopped: it is of
	// no use, and TempDir's cleanup must not remove the root under it.
	if ctx.Err() != nil {
		bcancel()
		<-bootstrapped
		t.Fatalf("make deb DEB_ARCH=%s did not finish within 6 min:\n%s", runtime.GOARCH, out)
	}
	if err != nil {
		bcancel()
		<-bootstrapped
		t.Fatalf("make deb DEB_ARCH=%s: %v\n%s", runtime.GOARCH, err, out)
	}
	debs, _ := filepath.Glob(filepath.Join(dist, "*.deb"))
	if len(debs) != 1 {
		bcancel()
		<-bootstrapped
		t.Fatalf("make deb wrote %d packages into DIST, want 1:\n%s", len(debs), out)
	}
	if err := <-bootstrapped; err != nil {
		t.Skipf("cannot bootstrap Debian %s from %s (set %s to another mirror): %v\n%s", bootSuite, mirror, EnvDebianMirror, err, tail(bootOut, 20))
	}
	b, err := os.ReadFile(debs[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "root", "setmatch.deb"), b, 0o644); err != nil {
		t.Fatal(err)
	}

	// The container's name: its host name, and the name of nspawn's
	// folders on this machine, one per test run.
	machine := fmt.Sprintf("setmatch-test-%d", os.Getpid())

	// Before the boot: install, train, check, enable, as APPLIANCE.md
	// tells an installer to. systemd-nspawn without --boot runs one
	// command in the root, with no systemd running, as dpkg runs on an
	// image being prepared.
	offline := func(script string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, nspawn, "-D", root, "-M", machine, "--keep-unit", "--register=no", "-q", "--console=pipe",
			"/bin/sh", "-ec", script)
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("in the root, not done within 3 min:\n%s\n%s", script, out)
		}
		if err != nil {
			t.Fatalf("in the root: %v\n%s\n%s", err, script, out)
		}
		return string(out)
	}
	out2 := offline("dpkg -i /root/setmatch.deb")
	if !strings.Contains(out2, "put a model at /var/lib/setmatch/model.smm") {
		t.Errorf("dpkg -i: no first-install advice:\n%s", out2)
	}
	id := offline("id setmatch; stat -c '%a %U %G' /var/spool/setmatch/new")
	for _, want := range []string{"(setmatch-spool)", "(gpio)", "3770 setmatch setmatch-spool"} {
		if !strings.Contains(id, want) {
			t.Errorf("after dpkg -i, no %q in:\n%s", want, id)
		}
	}
	offline(`
setmatch synth --images 32x32 --classes 5 --sets 4 --frames 8 --seed 6201 --out /root/syn
mkdir -p /srv/probe
for c in /root/syn/c*; do mv $c/s003 /srv/probe/$(basename $c)-a; mv $c/s002 /srv/probe/$(basename $c)-b; done
rm -r /root/syn/c04   # the person enrolled later
chmod -R a+rX /srv/probe
setmatch train --data /root/syn --features intensity:16x16 --out /root/model.smm
install -o root -g setmatch -m 0640 /root/model.smm /var/lib/setmatch/model.smm
printf '[gpio]\nbackend = "log"\n' > /etc/setmatch/conf.d/50-no-gpio.toml
runuser -u setmatch -- setmatchd -config /etc/setmatch/setmatchd.toml -check
systemctl enable setmatchd
useradd --groups setmatch-spool camera
cat > /usr/local/bin/fake-camera <<'EOF'
#!/bin/sh
# fake-camera DIR N: writes N frames of the burst /srv/probe/$PROBE into DIR.
set -e
for f in $(ls /srv/probe/$PROBE/* | head -n "$2"); do cp "$f" "$1/"; done
EOF
chmod 755 /usr/local/bin/fake-camera
`)

	// The boot.
	c := &container{root: root, machine: machine, nspawn: nspawn, nsenter: nsenter}
	inside := c.inside
	state := c.boot(t)
	if active, _ := inside(10*time.Second, "systemctl", "is-active", "setmatchd"); active != "active" {
		status, _ := inside(10*time.Second, "systemctl", "status", "--no-pager", "--lines=40", "setmatchd")
		t.Fatalf("after the boot setmatchd is %q:\n%s", active, status)
	}
	// failedUnits returns the names of the container's failed units.
	failedUnits := func() map[string]bool {
		out, _ := inside(10*time.Second, "systemctl", "list-units", "--failed", "--plain", "--no-legend", "--no-pager")
		units := map[string]bool{}
		for l := range strings.SplitSeq(out, "\n") {
			if f := strings.Fields(l); len(f) > 0 {
				units[f[0]] = true
			}
		}
		return units
	}
	// Units that fail in a container of this machine whatever the package
	// (the second boot must not add any).
	failedFirst := map[string]bool{}
	if state == "degraded" {
		failedFirst = failedUnits()
		failed, _ := inside(10*time.Second, "systemctl", "--failed", "--no-pager")
		t.Logf("in the container, units other than setmatchd failed:\n%s", failed)
	}
	if got, _ := inside(10*time.Second, "systemctl", "show", "--value", "-p", "StatusText", "setmatchd"); got != "watching /var/spool/setmatch" {
		t.Errorf("setmatchd's status: %q, want %q", got, "watching /var/spool/setmatch")
	}
	// The unit's limits are the kernel's, through the cgroup controllers
	// the container is given; a machine whose controllers are all on the
	// cgroup v1 hierarchy gives it none.
	if ctl, _ := inside(10*time.Second, "cat", "/sys/fs/cgroup/cgroup.controllers"); strings.Contains(" "+ctl+" ", " memory ") {
		if got, _ := inside(10*time.Second, "cat", "/sys/fs/cgroup/system.slice/setmatchd.service/memory.max"); got != "268435456" {
			t.Errorf("setmatchd's memory.max: %q, want 268435456 (MemoryMax=256M)", got)
		}
	} else {
		t.Logf("the container has no memory controller (controllers %q): MemoryMax=, TasksMax= and the IP and device firewalls are not in force in it", ctl)
	}

	// decide captures a burst of the probe set with the package's camera
	// script, as the camera's user (the frames of the probe stand for the
	// camera's), and returns the journal line that decided it.
	spool := "/var/spool/setmatch" // where the camera sends its bursts
	decide := func(name, probe string) string {
		t.Helper()
		if out, err := inside(30*time.Second, "runuser", "-u", "camera", "--", "env", "CAPTURE=/usr/local/bin/fake-camera", "PROBE="+probe,
			"bash", "/usr/share/doc/setmatch/examples/camera-burst.sh", "-s", spool, "-n", "8", name); err != nil {
			t.Fatalf("camera-burst.sh %s: %v\n%s", name, err, out)
		}
		var line string
		deadline := time.Now().Add(30 * time.Second)
		for line == "" && time.Now().Before(deadline) {
			j, _ := inside(10*time.Second, "cat", "/var/lib/setmatch/journal.jsonl")
			for l := range strings.SplitSeq(j, "\n") {
				if strings.Contains(l, `"file":"`+name+`"`) {
					line = l
				}
			}
			if line == "" {
				time.Sleep(200 * time.Millisecond)
			}
		}
		if line == "" {
			logs, _ := inside(10*time.Second, "journalctl", "-u", "setmatchd", "--no-pager", "-n", "30")
			t.Fatalf("batch %s not in the journal file within 30 s:\n%s", name, logs)
		}
		// The daemon, not the burst's owner, moves it out of new/: into
		// done/ just after it writes the journal line.
		for {
			_, err := inside(10*time.Second, "test", "-d", spool+"/done/"+name)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				ls, _ := inside(10*time.Second, "ls", "-lR", spool)
				t.Errorf("burst %s decided but not in done/ within 30 s:\n%s", name, ls)
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		return line
	}
	if l := decide("b1", "c01-a"); !strings.Contains(l, `"decision":"c01"`) {
		t.Errorf("a set of c01 decided as:\n%s", l)
	}
	// logged reports whether the daemon's log holds sub within 10 s:
	// journald reads the daemon's output on its own time, and the pulse
	// comes from the signaller's goroutine.
	logged := func(sub string) (string, bool) {
		deadline := time.Now().Add(10 * time.Second)
		for {
			logs, _ := inside(10*time.Second, "journalctl", "-u", "setmatchd", "--no-pager")
			if strings.Contains(logs, sub) {
				return logs, true
			}
			if time.Now().After(deadline) {
				return logs, false
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	if logs, ok := logged("pin=GPIO17 value=High"); !ok {
		t.Errorf("no pulse of the match pin in the daemon's log within 10 s:\n%s", logs)
	}

	if out, err := inside(time.Minute, "systemctl", "reload", "setmatchd"); err != nil {
		t.Errorf("systemctl reload with the configuration unchanged: %v\n%s", err, out)
	}
	if out, err := inside(10*time.Second, "sh", "-ec", `printf '[gpio]\nbackend = "log"\nbogus = 1\n' > /etc/setmatch/conf.d/50-no-gpio.toml`); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, err := inside(time.Minute, "systemctl", "reload", "setmatchd"); err == nil {
		t.Errorf("systemctl reload with an unknown key succeeded:\n%s", out)
	}
	if logs, ok := logged("gpio.bogus: unknown key"); !ok {
		t.Errorf("the refused reload's reason is not in the daemon's log within 10 s:\n%s", logs)
	}
	if got, _ := inside(10*time.Second, "systemctl", "is-active", "setmatchd"); got != "active" {
		t.Errorf("after a refused reload setmatchd is %q, want active", got)
	}
	if out, err := inside(10*time.Second, "sh", "-ec", `printf '[gpio]\nbackend = "log"\n' > /etc/setmatch/conf.d/50-no-gpio.toml`); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}

	// SIGKILL: Restart=on-failure brings a new daemon up, which takes the
	// spool's lock the killed one held and decides the next batch.
	if out, err := inside(10*time.Second, "systemctl", "kill", "--signal=KILL", "setmatchd"); err != nil {
		t.Fatalf("systemctl kill: %v\n%s", err, out)
	}
	var restarts string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		restarts, _ = inside(10*time.Second, "systemctl", "show", "--value", "-p", "NRestarts", "setmatchd")
		active, _ := inside(10*time.Second, "systemctl", "is-active", "setmatchd")
		if restarts == "1" && active == "active" {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if restarts != "1" {
		status, _ := inside(10*time.Second, "systemctl", "status", "--no-pager", "--lines=20", "setmatchd")
		t.Fatalf("after SIGKILL, NRestarts = %q within 30 s, want 1:\n%s", restarts, status)
	}
	if l := decide("b2", "c02-b"); !strings.Contains(l, `"decision":"c02"`) {
		t.Errorf("after the restart, a set of c02 decided as:\n%s", l)
	}

	// Enrol a new person from a burst the daemon kept in done/, and
	// forget them again, as the daemon's user: the running daemon
	// reloads each changed model by itself.
	reloads := func() []string {
		logs, _ := inside(10*time.Second, "journalctl", "-u", "setmatchd", "--no-pager", "-o", "cat")
		var r []string
		for l := range strings.SplitSeq(logs, "\n") {
			if strings.Contains(l, "msg=reloaded") {
				r = append(r, l)
			}
		}
		return r
	}
	// reloadedTo waits for a reload after the first n to a gallery of
	// sets sets.
	reloadedTo := func(n int, sets string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			r := reloads()
			for _, l := range r[min(n, len(r)):] {
				if strings.Contains(l, "gallery_sets="+sets+" ") {
					return
				}
			}
			time.Sleep(300 * time.Millisecond)
		}
		logs, _ := inside(10*time.Second, "journalctl", "-u", "setmatchd", "--no-pager", "-n", "20")
		t.Fatalf("no reload to a gallery of %s sets within 30 s:\n%s", sets, logs)
	}
	decide("b5", "c04-a")
	n := len(reloads())
	if out, err := inside(time.Minute, "runuser", "-u", "setmatch", "--", "setmatch", "enroll", "--model", "/var/lib/setmatch/model.smm",
		"--label", "c04", "/var/spool/setmatch/done/b5"); err != nil {
		t.Fatalf("setmatch enroll as setmatch: %v\n%s", err, out)
	}
	reloadedTo(n, "9")
	if l := decide("b6", "c04-b"); !strings.Contains(l, `"decision":"c04"`) {
		t.Errorf("after c04 was enrolled, a set of c04 decided as:\n%s", l)
	}
	n = len(reloads())
	if out, err := inside(time.Minute, "runuser", "-u", "setmatch", "--", "setmatch", "forget", "--model", "/var/lib/setmatch/model.smm",
		"--label", "c04"); err != nil {
		t.Fatalf("setmatch forget as setmatch: %v\n%s", err, out)
	}
	reloadedTo(n, "8")
	if l := decide("b7", "c04-b"); strings.Contains(l, `"best":"c04"`) {
		t.Errorf("after c04 was forgotten, a set of c04 decided as:\n%s", l)
	}

	// An upgrade (the same package again) restarts the running daemon,
	// keeps it enabled and keeps the drop-in.
	before, _ := inside(10*time.Second, "systemctl", "show", "--value", "-p", "MainPID", "setmatchd")
	if out, err := inside(3*time.Minute, "dpkg", "-i", "/root/setmatch.deb"); err != nil {
		t.Fatalf("dpkg -i over the running daemon: %v\n%s", err, out)
	}
	after, _ := inside(10*time.Second, "systemctl", "show", "--value", "-p", "MainPID", "setmatchd")
	if after == before || after == "0" {
		t.Errorf("after an upgrade the daemon's MainPID is %s, before it %s: want a new daemon", after, before)
	}
	if got, _ := inside(10*time.Second, "systemctl", "is-enabled", "setmatchd"); got != "enabled" {
		t.Errorf("after an upgrade setmatchd is %q, want enabled", got)
	}
	if l := decide("b3", "c03-a"); !strings.Contains(l, `"decision":"c03"`) {
		t.Errorf("after the upgrade, a set of c03 decided as:\n%s", l)
	}

	// MQTT and metrics through the network drop-in the package ships, as
	// APPLIANCE.md's "Network access" installs it, with localhost on
	// IPAddressAllow=. The container shares this machine's network, so
	// the broker and the scrape are this test's. This checks that the
	// drop-in opens the network; that IPAddressDeny= closes it to the
	// addresses not allowed takes systemd's BPF firewall, which a
	// container does not have.
	ctx, cancel = context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	broker := mqtttest.New(ctx, t, false)
	sub := mqtttest.Subscribe(ctx, t, broker.URL, "", "", "setmatch/door/decision")
	metrics := testutil.FreeAddr(t)
	script := fmt.Sprintf(`printf '[mqtt]\nbroker = "%s"\ntopic = "setmatch/door"\n[metrics]\nlisten = "%s"\n' > /etc/setmatch/conf.d/60-outputs.toml
mkdir -p /etc/systemd/system/setmatchd.service.d
sed 's/^IPAddressAllow=.*/IPAddressAllow=localhost/' /usr/share/doc/setmatch/setmatchd-network.conf.example > /etc/systemd/system/setmatchd.service.d/network.conf
systemctl daemon-reload
systemctl restart setmatchd`, broker.URL, metrics)
	if out, err := inside(time.Minute, "sh", "-ec", script); err != nil {
		t.Fatalf("the network drop-in: %v\n%s", err, out)
	}
	l := decide("b4", "c00-b")
	if !strings.Contains(l, `"decision":"c00"`) {
		t.Errorf("with the network drop-in, a set of c00 decided as:\n%s", l)
	}
	testutil.WaitForCtx(t, ctx, "the decision of b4 on setmatch/door/decision", func() bool {
		for _, m := range sub.On("setmatch/door/decision") {
			if m.Payload == l {
				return true
			}
		}
		return false
	})
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + metrics + "/metrics")
	if err != nil {
		logs, _ := inside(10*time.Second, "journalctl", "-u", "setmatchd", "--no-pager", "-n", "20")
		t.Fatalf("metrics through the drop-in: %v\n%s", err, logs)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `setmatch_batches_total{result="known"} 1`) {
		t.Errorf("the restarted daemon's metrics do not count its one known batch:\n%s", body)
	}

	if out, err := inside(time.Minute, "systemctl", "stop", "setmatchd"); err != nil {
		t.Errorf("systemctl stop: %v\n%s", err, out)
	}
	if got, _ := inside(10*time.Second, "systemctl", "show", "-p", "Result", "-p", "ExecMainStatus", "setmatchd"); got != "Result=success\nExecMainStatus=0" {
		t.Errorf("after systemctl stop:\n%s\nwant Result=success, ExecMainStatus=0", got)
	}

	// The spool on tmpfs, as APPLIANCE.md's "Configure" mounts it: at the
	// next boot systemd-tmpfiles-setup makes the spool's folders on the
	// empty mount, and the daemon, enabled, decides a burst.
	ids, err := inside(10*time.Second, "sh", "-ec", "echo $(id -u setmatch) $(getent group setmatch-spool | cut -d: -f3)")
	var uid, gid int
	if _, err2 := fmt.Sscan(ids, &uid, &gid); err != nil || err2 != nil {
		t.Fatalf("the ids of setmatch and setmatch-spool: %v %v\n%s", err, err2, ids)
	}
	fstab := fmt.Sprintf("tmpfs /var/spool/setmatch tmpfs rw,nosuid,nodev,noexec,size=64m,mode=2750,uid=%d,gid=%d 0 0", uid, gid)
	if out, err := inside(10*time.Second, "sh", "-ec", "echo '"+fstab+"' >> /etc/fstab"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	c.poweroff(t)
	if state := c.boot(t); state != "running" {
		var more []string
		for u := range failedUnits() {
			if !failedFirst[u] {
				more = append(more, u)
			}
		}
		failed, _ := inside(10*time.Second, "systemctl", "--failed", "--no-pager")
		if len(more) > 0 {
			t.Errorf("after a boot with the spool on tmpfs, %s failed, which did not at the first boot:\n%s", strings.Join(more, ", "), failed)
		} else {
			t.Logf("after a boot with the spool on tmpfs, the units that failed at the first boot failed again:\n%s", failed)
		}
	}
	if got, _ := inside(10*time.Second, "findmnt", "-n", "-o", "FSTYPE", "/var/spool/setmatch"); got != "tmpfs" {
		t.Errorf("/var/spool/setmatch is on %q, want tmpfs", got)
	}
	if got, _ := inside(10*time.Second, "stat", "-c", "%a %U %G", "/var/spool/setmatch/new"); got != "3770 setmatch setmatch-spool" {
		t.Errorf("on the tmpfs spool, new/ is %q, want 3770 setmatch setmatch-spool", got)
	}
	if l := decide("b8", "c01-b"); !strings.Contains(l, `"decision":"c01"`) {
		t.Errorf("with the spool on tmpfs, a set of c01 decided as:\n%s", l)
	}

	// Another spool folder, made and allowed as APPLIANCE.md's "Another
	// spool or state directory" says. Before it is allowed, the unit
	// shows it to the daemon read-only: the daemon must refuse to start,
	// saying what to do, not take batches it cannot move.
	script = `install -d -o setmatch -g setmatch-spool -m 2750 /srv/camera-spool
install -d -o setmatch -g setmatch-spool -m 3770 /srv/camera-spool/tmp /srv/camera-spool/new
install -d -o setmatch -g setmatch-spool -m 00750 /srv/camera-spool/cur
install -d -o setmatch -g setmatch-spool -m 2750 /srv/camera-spool/done /srv/camera-spool/failed /srv/camera-spool/failed/.reasons
printf '[spool]\ndir = "/srv/camera-spool"\n' > /etc/setmatch/conf.d/70-spool.toml`
	if out, err := inside(time.Minute, "sh", "-ec", script); err != nil {
		t.Fatalf("another spool folder: %v\n%s", err, out)
	}
	if out, err := inside(time.Minute, "systemctl", "restart", "setmatchd"); err == nil {
		t.Errorf("setmatchd started on a spool outside the unit's ReadWritePaths=:\n%s", out)
	}
	if l, ok := logged("ReadWritePaths=/srv/camera-spool"); !ok {
		t.Errorf("the refusal of a read-only spool does not say to allow it with ReadWritePaths=:\n%s", l)
	}
	script = `printf '[Service]\nReadWritePaths=/srv/camera-spool\n' > /etc/systemd/system/setmatchd.service.d/spool.conf
systemctl daemon-reload
systemctl reset-failed setmatchd
systemctl restart setmatchd`
	if out, err := inside(time.Minute, "sh", "-ec", script); err != nil {
		status, _ := inside(10*time.Second, "systemctl", "status", "--no-pager", "--lines=20", "setmatchd")
		t.Fatalf("another spool folder, allowed: %v\n%s\n%s", err, out, status)
	}
	spool = "/srv/camera-spool"
	if l := decide("b9", "c02-a"); !strings.Contains(l, `"decision":"c02"`) {
		t.Errorf("on another spool folder, a set of c02 decided as:\n%s", l)
	}
	if out, err := inside(time.Minute, "systemctl", "stop", "setmatchd"); err != nil {
		t.Errorf("systemctl stop: %v\n%s", err, out)
	}

	// Removal, as APPLIANCE.md says: remove stops the daemon and masks the
	// unit, keeping the configuration; installing again brings it back
	// enabled; purge deletes the conffile and keeps the model.
	if out, err := inside(time.Minute, "systemctl", "start", "setmatchd"); err != nil {
		t.Fatalf("systemctl start: %v\n%s", err, out)
	}
	if out, err := inside(3*time.Minute, "dpkg", "-r", "setmatch"); err != nil {
		t.Fatalf("dpkg -r: %v\n%s", err, out)
	}
	if got, _ := inside(10*time.Second, "systemctl", "is-active", "setmatchd"); got != "inactive" {
		t.Errorf("after dpkg -r setmatchd is %q, want inactive", got)
	}
	if got, _ := inside(10*time.Second, "systemctl", "is-enabled", "setmatchd"); got != "masked" {
		t.Errorf("after dpkg -r setmatchd is %q, want masked", got)
	}
	if out, err := inside(3*time.Minute, "dpkg", "-i", "/root/setmatch.deb"); err != nil {
		t.Fatalf("dpkg -i after dpkg -r: %v\n%s", err, out)
	}
	if got, _ := inside(10*time.Second, "systemctl", "is-enabled", "setmatchd"); got != "enabled" {
		t.Errorf("installed again after dpkg -r, setmatchd is %q, want enabled", got)
	}
	if out, err := inside(3*time.Minute, "dpkg", "--purge", "setmatch"); err != nil {
		t.Fatalf("dpkg --purge: %v\n%s", err, out)
	}
	left, _ := inside(10*time.Second, "sh", "-c", "ls /etc/setmatch /etc/setmatch/conf.d /var/lib/setmatch; id -nG setmatch")
	for _, want := range []string{"50-no-gpio.toml", "model.smm", "setmatch-spool"} {
		if !strings.Contains(left, want) {
			t.Errorf("after dpkg --purge, %s is gone, want it kept:\n%s", want, left)
		}
	}
	if strings.Contains(left, "setmatchd.toml") {
		t.Errorf("after dpkg --purge the conffile is still there:\n%s", left)
	}
}

// container is a Debian root booted with systemd-nspawn.
type container struct {
	root, machine   string
	nspawn, nsenter string

	cmd     *exec.Cmd
	exited  chan error
	console *testutil.LockedBuffer
	pid1    int  // of the container's systemd, as this machine sees it
	booted  bool // once: this machine can boot it
}

// boot boots the root and waits for its systemd to finish starting the
// units; it returns systemd's state, running or degraded. Where this
// machine cannot boot the container (nspawn exits, or no systemd in it
// answers within two minutes), it skips t at the first boot and fails it
// at a later one; a systemd that answers with another state (maintenance:
// a unit the boot needs failed) fails t. The container is powered off
// when t ends, if it is still running, and when this test's process dies
// (the go test timeout).
func (c *container) boot(t *testing.T) string {
	t.Helper()
	cannot := t.Skipf
	if c.booted {
		cannot = t.Fatalf
	}
	c.console = new(testutil.LockedBuffer)
	c.cmd = exec.Command(c.nspawn, "-D", c.root, "-M", c.machine, "--boot", "--keep-unit", "--register=no", "-q", "--console=passive")
	// The unified cgroup hierarchy, as Debian 12 and Raspberry Pi OS
	// Bookworm boot with, whatever this machine's.
	c.cmd.Env = append(os.Environ(), "SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1")
	c.cmd.Stdout, c.cmd.Stderr = c.console, c.console
	// On SIGTERM nspawn shuts the container down (its --kill-signal).
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("systemd-nspawn --boot: %v", err)
	}
	c.exited = make(chan error, 1)
	go func(cmd *exec.Cmd, exited chan<- error) { exited <- cmd.Wait() }(c.cmd, c.exited)
	t.Cleanup(func() { c.poweroff(t) })
	exited := func() (bool, error) {
		select {
		case err := <-c.exited:
			c.exited <- err
			return true, err
		default:
			return false, nil
		}
	}
	c.pid1 = 0
	deadline := time.Now().Add(time.Minute)
	for c.pid1 == 0 && time.Now().Before(deadline) {
		if ok, err := exited(); ok {
			cannot("systemd-nspawn --boot cannot boot a container on this machine (%v):\n%s", err, tail(c.console.Bytes(), 30))
		}
		time.Sleep(200 * time.Millisecond)
		c.pid1 = containerInit(c.cmd.Process.Pid)
	}
	if c.pid1 == 0 {
		cannot("systemd-nspawn --boot started no systemd within a minute on this machine:\n%s", tail(c.console.Bytes(), 30))
	}
	// systemctl says "offline" until PID 1 has made /run/systemd/system,
	// and cannot connect until it listens on its private socket (after
	// the generators and the units are loaded): ask again until it
	// answers with the state it reached.
	deadline = time.Now().Add(2 * time.Minute)
	for {
		state, err := c.inside(max(time.Until(deadline), time.Second), "systemctl", "is-system-running", "--wait")
		switch state {
		case "running", "degraded":
			c.booted = true
			return state
		case "maintenance", "stopping":
			failed, _ := c.inside(10*time.Second, "systemctl", "--failed", "--no-pager")
			t.Fatalf("the container's systemd is %q after the boot:\n%s\n%s", state, failed, tail(c.console.Bytes(), 30))
		}
		if ok, err := exited(); ok {
			cannot("the container stopped during the boot (%v):\n%s", err, tail(c.console.Bytes(), 30))
		}
		if time.Now().After(deadline) {
			cannot("the container's systemd did not come up within 2 min on this machine (%q, %v):\n%s", state, err, tail(c.console.Bytes(), 30))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// inside runs args in the booted container and returns their output,
// trimmed; it kills them after timeout.
func (c *container) inside(timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	a := append([]string{"-t", strconv.Itoa(c.pid1), "-m", "-u", "-i", "-n", "-p", "-r", "-w", "--",
		"/usr/bin/env", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"}, args...)
	cmd := exec.CommandContext(ctx, c.nsenter, a...)
	// nsenter forks the command into the container's PID namespace: killed
	// alone, it would leave the command running there, holding the output
	// pipe open, and the timeout would not end the wait. Its process group
	// is the command's too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("not done within %v", timeout)
	}
	return strings.TrimSpace(string(out)), err
}

// poweroff shuts the container down, and kills it after 30 s.
func (c *container) poweroff(t *testing.T) {
	t.Helper()
	select {
	case err := <-c.exited:
		c.exited <- err
		return
	default:
	}
	if c.pid1 != 0 {
		c.inside(10*time.Second, "systemctl", "poweroff")
	}
	select {
	case err := <-c.exited:
		c.exited <- err
	case <-time.After(30 * time.Second):
		// SIGKILL to the container's PID 1 ends every process in it, and
		// nspawn then cleans up after it; nspawn itself only if it does
		// not exit.
		if c.pid1 != 0 {
			syscall.Kill(c.pid1, syscall.SIGKILL)
		}
		select {
		case err := <-c.exited:
			c.exited <- err
		case <-time.After(10 * time.Second):
			syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
			c.exited <- <-c.exited
		}
		t.Errorf("the container did not power off within 30 s")
	}
}

// containerInit returns the pid of the systemd that systemd-nspawn (pid)
// started as the container's PID 1, or 0 while there is none: nspawn
// forks once more before it runs the container's init.
func containerInit(pid int) int {
	children := map[int][]int{}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // gone since the glob
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		c, err1 := strconv.Atoi(strings.Fields(s)[0])
		if i < 0 || len(f) < 2 || err1 != nil {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			children[pp] = append(children[pp], c)
		}
	}
	for queue := children[pid]; len(queue) > 0; queue = queue[1:] {
		c := queue[0]
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", c)); strings.TrimSpace(string(comm)) == "systemd" {
			return c
		}
		queue = append(queue, children[c]...)
	}
	return 0
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
