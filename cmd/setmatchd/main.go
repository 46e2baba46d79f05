// Command setmatchd is the setmatch appliance daemon: it watches a spool
// directory for batches (files of frame features, or bursts of frame
// images), matches each against the gallery of a model file, signals the
// decision on GPIO pins and appends it to a journal. See docs/APPLIANCE.md.
//
// Usage:
//
//	setmatchd [-config /etc/setmatch/setmatchd.toml] [-allow-root]
//	setmatchd -check [-config PATH]
//	setmatchd -reload PID [-timeout 50s]
//	setmatchd -version
//
// SIGHUP reloads the configuration and model (keeping the old ones if the
// new ones are invalid); replacing the model file reloads it too.
// setmatchd -reload PID, the unit's ExecReload=, sends the SIGHUP and waits
// for the daemon's outcome: exit 0 when it reloaded, 1 with its reason when
// it refused.
// SIGTERM/SIGINT give the batch in hand daemon.stop_grace to finish (then
// leave it in cur/), drive the pins idle and exit 0. As root it refuses to
// run unless given -allow-root.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"setmatch/device"
	"setmatch/internal/buildinfo"
	"setmatch/internal/suggest"
)

// geteuid is os.Geteuid, replaced by tests.
var geteuid = os.Geteuid

// version is set at build time with -ldflags "-X main.version=..."; it is
// reported through buildinfo.Version.
var version = ""

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command-line flags of setmatchd.
type options struct {
	cfgPath     *string
	check       *bool
	showVersion *bool
	allowRoot   *bool
	reload      *int
	timeout     *time.Duration
}

// defaultConfig is the configuration file -config names by default, the
// one the package installs.
const defaultConfig = "/etc/setmatch/setmatchd.toml"

// reloadTimeout is how long -reload waits by default: less than the 60 s
// of TimeoutStartSec= in setmatchd.service, which bounds ExecReload= too,
// so that -reload says why before systemd kills it.
const reloadTimeout = 50 * time.Second

// newFlagSet defines setmatchd's flags; run parses them and the manual page
// lists them.
func newFlagSet(stderr io.Writer) (*flag.FlagSet, options) {
	fs := flag.NewFlagSet("setmatchd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := options{
		cfgPath:     fs.String("config", defaultConfig, "configuration `file` (drop-ins: <dir>/conf.d/*.toml)"),
		check:       fs.Bool("check", false, "validate the configuration and model, print a summary and exit"),
		showVersion: fs.Bool("version", false, "print the version and exit"),
		allowRoot:   fs.Bool("allow-root", false, "run even as root (uid 0); the setmatchd.service unit runs it as the setmatch user"),
		reload: fs.Int("reload", 0, "send SIGHUP to the daemon `pid` and wait until it has reloaded: exit 0, or 1 with the daemon's reason "+
			"when it keeps the configuration and model in use (the ExecReload= of setmatchd.service; needs $RUNTIME_DIRECTORY)"),
		timeout: fs.Duration("timeout", reloadTimeout, "with -reload: how long to wait for the daemon's answer (keep it below TimeoutStartSec= of the unit, which bounds ExecReload=)"),
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: setmatchd [-config FILE] [-check] [-reload PID [-timeout D]] [-version] [-allow-root]\n\n")
		fs.PrintDefaults()
	}
	return fs, o
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "-manpage" {
		// Not listed in the usage: writes the manual page (roff), which
		// make deb installs.
		if err := writeManPage(stdout); err != nil {
			fmt.Fprintf(stderr, "setmatchd: %v\n", err)
			return 1
		}
		return 0
	}
	fs, o := newFlagSet(stderr)
	cfgPath, check, showVersion := o.cfgPath, o.check, o.showVersion
	// A flag's error as the flag package says it, but a mistyped flag's
	// with the flag it meant, as setmatch says it; then the usage.
	if meant, err := suggest.Parse(fs, args); errors.Is(err, flag.ErrHelp) {
		return 0 // -h: the usage is printed
	} else if err != nil {
		if meant != "" {
			err = fmt.Errorf("%w (did you mean %s?)", err, meant)
		}
		fmt.Fprintln(stderr, err)
		fs.Usage()
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "setmatchd: unexpected argument %q: every setting is a flag (the configuration file: -config FILE)\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	reloading, timeout := false, false
	fs.Visit(func(f *flag.Flag) {
		reloading = reloading || f.Name == "reload"
		timeout = timeout || f.Name == "timeout"
	})
	if timeout && !reloading {
		fmt.Fprintln(stderr, "setmatchd: -timeout is how long -reload waits: give it with -reload PID")
		return 2
	}
	if reloading {
		if err := device.CheckReloadPID(*o.reload); err != nil {
			// -reload 0 (a unit that is not running) is never a daemon
			// to start instead.
			fmt.Fprintf(stderr, "setmatchd: %v\n", err)
			return 2
		}
		if *o.timeout <= 0 {
			fmt.Fprintf(stderr, "setmatchd: -timeout needs a positive duration, not %v\n", *o.timeout)
			return 2
		}
		return reload(*o.reload, *o.timeout, stdout, stderr)
	}
	if *cfgPath == "" && !*showVersion {
		fmt.Fprintln(stderr, "setmatchd: -config needs the configuration file (the package installs /etc/setmatch/setmatchd.toml, the default)")
		return 2
	}
	switch {
	case *showVersion:
		fmt.Fprintf(stdout, "%s\n", buildinfo.Line("setmatchd", version))
		return 0
	case *check:
		if geteuid() == 0 {
			// Root reads and writes what the daemon's user may not.
			as := "sudo -u setmatch setmatchd -check"
			if *cfgPath != defaultConfig {
				as += " -config " + *cfgPath
			}
			fmt.Fprintf(stdout, "note:     checked as root, who may read and write what the daemon's user may not: %s checks as that user\n", as)
		}
		if err := device.Check(*cfgPath, stdout); err != nil {
			fmt.Fprintf(stderr, "setmatchd: check failed: %v\n", err)
			return 1
		}
		return 0
	}
	if geteuid() == 0 && !*o.allowRoot {
		fmt.Fprintln(stderr, "setmatchd: refusing to run as root: files and spool folders it creates would belong to root, "+
			"out of reach of the setmatch user that the setmatchd.service unit runs it as. "+
			"Start the unit (systemctl start setmatchd), run it as that user (sudo -u setmatch setmatchd ...), or pass -allow-root")
		return 1
	}
	if err := device.Daemon(context.Background(), device.DaemonOptions{ConfigPath: *cfgPath, Stderr: stderr, Version: buildinfo.Version(version)}); err != nil {
		fmt.Fprintf(stderr, "setmatchd: %v\n", err)
		return 1
	}
	return 0
}

// reload is setmatchd -reload PID: it sends SIGHUP to the daemon and waits
// for the outcome of its reload (device.Reload).
func reload(pid int, timeout time.Duration, stdout, stderr io.Writer) int {
	err := device.Reload(context.Background(), device.ReloadOptions{
		PID: pid, RuntimeDir: os.Getenv("RUNTIME_DIRECTORY"), Timeout: timeout, Stdout: stdout,
	})
	if err != nil {
		fmt.Fprintf(stderr, "setmatchd: %v\n", err)
		return 1
	}
	return 0
}
