// Package device is the setmatch appliance: it takes the batches that
// arrive in a spool directory (files of frame features, or bursts of frame
// images), matches each with a model's Matcher, signals the decision on
// GPIO lines and records it in a journal.
//
// Data flows one way (run.go):
//
//	writer: tmp/X -> rename -> new/X
//	Runner: claim new/X -> cur/X, read (setfile, or a burst: features),
//	        Matcher.Match, decide,
//	        pulse pins (gpio.Signaller), append + fsync the journal line,
//	        then cur/X -> done/X (or delete); on error cur/X -> failed/X, why in failed/.reasons/X
//
// The pieces are packages of their own: the spool directory, its watcher and
// queue (device/spool), the journal (device/journal), the GPIO drivers
// and Signaller (device/gpio, with a recording fake in device/gpio/gpiotest),
// the MQTT publisher (device/mqtt) and the Prometheus metrics
// (device/metrics). This package joins them: Runner (run.go) is the run
// loop, with image bursts (burst.go), the failure path (fail.go), the stop
// grace (grace.go), and the publisher and the metrics told of each
// decision after its journal line (outputs.go); Daemon (daemon.go) is
// setmatchd's main loop with signals, reloads (modelwatch.go), sd_notify
// and the systemd watchdog, and the record of its reloads that setmatchd
// -reload waits on (reloadstatus.go); and Check (check.go) is setmatchd
// -check.
//
// Guarantees: every batch that reaches new/ is handled at least once (twice
// only if the daemon stopped while handling it), leaves cur/ only after its
// journal line is on disk, and ends in done/ (or deleted) or in failed/ with
// the reason; memory and disk use stay bounded (bounded queue, size limits,
// caps on done/ and failed/, journal rotation).
package device
