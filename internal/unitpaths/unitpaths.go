// Package unitpaths holds what the packaged systemd unit lets setmatchd
// write, and the one advice where a folder the daemon must write is
// read-only to it: the spool's, the journal's. systemd's tests check the
// unit against Writable.
package unitpaths

import (
	"fmt"
	"strings"
)

// Writable lists the folders the packaged unit (systemd/setmatchd.service)
// lets setmatchd write: its StateDirectory= and its ReadWritePaths=.
// ProtectSystem=strict shows it every other folder read-only.
var Writable = []string{"/var/lib/setmatch", "/var/spool/setmatch"}

// ReadOnlyAdvice says what to do where the folder dir, which holds what
// (e.g. "this spool", "the journal's folder"), is read-only to the daemon
// (EROFS): allow it in the unit with a ReadWritePaths= drop-in, or, where
// the file system itself is mounted read-only, repair it.
func ReadOnlyAdvice(what, dir string) string {
	return fmt.Sprintf("under the packaged unit setmatchd may write only %s; allow %s with a drop-in (sudo systemctl edit setmatchd, then [Service] ReadWritePaths=%s), or, where the file system itself is mounted read-only (an SD card is remounted so after write errors: see dmesg), repair it",
		strings.Join(Writable, " and "), what, dir)
}
