package main

import (
	"io"
	"os"

	"setmatch/internal/buildinfo"
	"setmatch/internal/manpage"
)

// manPage builds setmatchd(8) from the flag set run parses.
func manPage(date string) manpage.Page {
	fs, _ := newFlagSet(io.Discard)
	return manpage.Page{
		Name:    "setmatchd",
		Section: 8,
		Date:    date,
		Source:  "setmatch " + buildinfo.Version(version),
		Manual:  "System Administration",
		Summary: "image-set matcher appliance daemon: spool in, GPIO out",
		Synopsis: []string{
			"[-config file] [-allow-root]",
			"-check [-config file]",
			"-reload pid [-timeout duration]",
			"-version",
		},
		Description: []string{
			"setmatchd watches the new/ directory of a spool for batches written by a camera: a burst (a directory of frame images, " +
				"whose features the model records) or a file of frame features (.npy or .csv); it " +
				"matches each batch against the gallery of a model file written by setmatch(1) train, signals the decision " +
				"(a known label, or unknown) on GPIO lines and appends one JSON line per batch to a journal. " +
				"A batch is claimed into cur/ and ends in done/ or in failed/, with the reason in failed/.reasons/ under the batch's name. " +
				"One setmatchd runs on a spool: it holds a lock of cur/ (flock) while it runs, which its exit releases however it exits, " +
				"and a second started on the same spool exits with status 1, naming the first's pid where /proc/locks shows it. " +
				"Where the lock fails otherwise (a file system that does not lock folders), it warns and runs without it. " +
				"Likewise one setmatchd writes a journal: it holds a lock of the empty file .NAME.lock beside its journal NAME, " +
				"which rotation leaves in place, and a second whose journal.path is that journal exits with status 1 and says to give each daemon its own journal.path; " +
				"where that lock fails otherwise, it warns and runs without it.",
			"It is meant to run under systemd (Type=notify, with a watchdog) as the unprivileged user setmatch; " +
				"it refuses to run as root unless given -allow-root. " +
				"The package installs the unit setmatchd.service but does not enable it: it needs a model first.",
		},
		Flags: fs,
		Sections: []manpage.Section{
			{Title: "Signals", Paragraphs: []string{
				"SIGHUP reloads the configuration and the model; if the new ones are invalid the old ones stay in use. " +
					"Replacing the model file reloads it too. " +
					"A SIGHUP that comes while a reload runs makes one reload more, which reads the files as they are then. " +
					"A stop during a reload does not wait for it, and nothing of it is put in use. " +
					"SIGTERM and SIGINT give the batch in hand daemon.stop_grace (20 s) to finish, then leave it in cur/ for the next start, " +
					"drive the pins to their idle level and exit with status 0.",
			}},
			{Title: "Reload", Paragraphs: []string{
				"setmatchd -reload pid, the ExecReload= of setmatchd.service, sends SIGHUP to the daemon and waits for the outcome of a reload " +
					"that began after the signal: one already running may have read the files before they were edited. " +
					"It prints the model and threshold in use and exits 0 when the daemon reloaded, and exits 1 with the daemon's reason " +
					"when it keeps the configuration and model in use, so that systemctl reload setmatchd fails with that reason " +
					"(systemctl status and journalctl -u setmatchd show it). " +
					"The daemon records its reloads in $RUNTIME_DIRECTORY/reload.json (/run/setmatchd, the unit's RuntimeDirectory=); " +
					"without $RUNTIME_DIRECTORY it records nothing, and -reload refuses to run. " +
					"A pid other than the one recorded there gets no signal: -reload names the daemon's pid and exits 1. " +
					"-reload gives up after -timeout (50 s, below the unit's TimeoutStartSec=, which bounds ExecReload=) and exits 1; " +
					"the daemon goes on with the reload, and its log says how it ends.",
			}},
			{Title: "Files", Paragraphs: []string{
				"\t/etc/setmatch/setmatchd.toml\n\t/etc/setmatch/conf.d/*.toml\n\t/var/lib/setmatch/model.smm\n\t/var/lib/setmatch/journal.jsonl\n\t/var/lib/setmatch/.journal.jsonl.lock\n\t/var/spool/setmatch/{tmp,new,cur,done,failed}/\n\t/run/setmatchd/reload.json",
				"The configuration, its drop-ins (read in name order), the default model, journal and the journal's lock, the spool, and the record of the last reloads.",
			}},
			{Title: "Exit status", Paragraphs: []string{
				"0 after a clean stop, a good -check or a reload done; 1 when start-up, the check or the reload fails (the reason on standard error); 2 for a mistake in the command line.",
			}},
			{Title: "See also", Paragraphs: []string{
				"setmatch(1), systemctl(1), journalctl(1); the appliance guide in /usr/share/doc/setmatch/APPLIANCE.md.",
			}},
		},
	}
}

// writeManPage writes setmatchd(8) in roff to w, dated by SOURCE_DATE_EPOCH
// when it is set (reproducible builds).
func writeManPage(w io.Writer) error {
	date, err := manpage.DateFromEpoch(os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return err
	}
	return manpage.Write(w, manPage(date))
}
