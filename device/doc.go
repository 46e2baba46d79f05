// Package device is the I/O of the setmatch appliance: it watches a spool
// directory for batches of frame features, matches each batch with a model's
// Matcher, signals the decision on GPIO lines and records it in a journal.
//
// Data flows one way (run.go):
//
//	writer: tmp/X -> rename -> new/X
//	Runner: claim new/X -> cur/X, read (setfile), Matcher.Match, decide,
//	        pulse pins (Signaller), append + fsync the journal line,
//	        then cur/X -> done/X (or delete); on error cur/X -> failed/X + X.err
//
// The pieces are usable alone: Spool (maildir-style directory, spool.go),
// the watcher (fsnotify + scans, watch.go), Journal (journal.go), and
// Signaller over a small Driver/Line interface (gpio.go) with three
// backends: periph.io's GPIO character-device driver (gpio_periph.go), a
// logging one and a no-op one, plus Recorder, a recording fake for tests
// (gpio_fake.go). Daemon (daemon.go) is setmatchd's main loop: signals,
// reloads, sd_notify and the systemd watchdog.
//
// Guarantees: every batch that reaches new/ is handled at least once (twice
// only if the daemon stopped while handling it), leaves cur/ only after its
// journal line is on disk, and ends in done/ (or deleted) or in failed/ with
// the reason; memory and disk use stay bounded (bounded queue, size limits,
// caps on done/ and failed/, journal rotation).
package device
