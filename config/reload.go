package config

import (
	"maps"
	"strings"
)

// ReloadOver is what a running setmatchd does with c, a configuration read
// again on reload, while old is in use. Some keys apply at once: model,
// [decision], [daemon] but its watchdog, the batch and burst limits of [spool]
// (max_batch_bytes, max_frames, max_burst_frames, max_frame_pixels,
// max_frame_bytes) and gpio.pulse. The others (the rest of [spool],
// [journal], [gpio], [log], [mqtt], [metrics] and daemon.watchdog) need a restart: live keeps
// their values from old, and restart holds one
// message for each table in which such a key changed, for the log.
func (c *Config) ReloadOver(old *Config) (live *Config, restart []string) {
	var spool []string
	for _, k := range []struct {
		key     string
		changed bool
	}{
		{"dir", c.Spool.Dir != old.Spool.Dir},
		{"done", keepDone(c.Spool) != keepDone(old.Spool)},
		{"done_max_files", c.Spool.DoneMaxFiles != old.Spool.DoneMaxFiles},
		{"done_max_bytes", c.Spool.DoneMaxBytes != old.Spool.DoneMaxBytes},
		{"done_max_age", c.Spool.DoneMaxAge != old.Spool.DoneMaxAge},
		{"failed_max_files", c.Spool.FailedMaxFiles != old.Spool.FailedMaxFiles},
		{"failed_max_bytes", c.Spool.FailedMaxBytes != old.Spool.FailedMaxBytes},
		{"tmp_max_age", c.Spool.TmpMaxAge != old.Spool.TmpMaxAge},
		{"rescan_interval", c.Spool.RescanInterval != old.Spool.RescanInterval},
	} {
		if k.changed {
			spool = append(spool, k.key)
		}
	}
	if len(spool) > 0 {
		restart = append(restart, "[spool] "+strings.Join(spool, ", ")+" changed: restart setmatchd to apply (the batch and burst limits apply now)")
	}
	if c.Journal != old.Journal {
		restart = append(restart, "[journal] changed: restart setmatchd to apply")
	}
	if !c.GPIO.SameOutputs(old.GPIO) {
		restart = append(restart, "[gpio] backend, chip, pins or active_low changed: restart setmatchd to apply")
	}
	if c.Log != old.Log {
		restart = append(restart, "[log] changed: restart setmatchd to apply")
	}
	if c.MQTT != old.MQTT {
		restart = append(restart, "[mqtt] changed: restart setmatchd to apply (the publisher keeps its broker, topic and login)")
	}
	if c.Metrics != old.Metrics {
		restart = append(restart, "[metrics] changed: restart setmatchd to apply")
	}
	if c.Daemon.Watchdog != old.Daemon.Watchdog {
		restart = append(restart, "[daemon] watchdog changed: restart setmatchd to apply")
	}
	// Keep what cannot change without a restart as it is, so that what the
	// daemon reports matches what it does.
	l := *c
	l.Spool = old.Spool
	l.Spool.MaxBatchBytes, l.Spool.MaxFrames = c.Spool.MaxBatchBytes, c.Spool.MaxFrames
	l.Spool.MaxBurstFrames, l.Spool.MaxFramePixels, l.Spool.MaxFrameBytes = c.Spool.MaxBurstFrames, c.Spool.MaxFramePixels, c.Spool.MaxFrameBytes
	l.Journal = old.Journal
	l.GPIO = old.GPIO
	l.GPIO.Pulse = c.GPIO.Pulse
	l.Log = old.Log
	l.MQTT = old.MQTT
	l.Metrics = old.Metrics
	l.Daemon.Watchdog = old.Daemon.Watchdog // set up at start
	return &l, restart
}

// keepDone reports whether handled batches are moved to done/ (spool.done is
// not "delete").
func keepDone(s Spool) bool { return s.Done != "delete" }

// SameOutputs reports whether g and o drive the same lines the same way:
// the same backend, chip, pins and active_low. A reload applies no change
// to them; a restart does.
func (g GPIO) SameOutputs(o GPIO) bool {
	return g.Backend == o.Backend && g.Chip == o.Chip && samePins(g, o) && g.ActiveLow == o.ActiveLow
}

// samePins reports whether a and b drive the same lines: with backend
// "none" no pin is driven, whatever the pin keys say.
func samePins(a, b GPIO) bool {
	if a.Backend == "none" || b.Backend == "none" {
		return a.Backend == b.Backend
	}
	return a.MatchPin == b.MatchPin && a.UnknownPin == b.UnknownPin && maps.Equal(a.LabelPins, b.LabelPins)
}
