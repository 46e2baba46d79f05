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
// message for each table in which such a key changed, naming those keys, for the log.
func (c *Config) ReloadOver(old *Config) (live *Config, restart []string) {
	pins := !samePins(c.GPIO, old.GPIO)
	for _, t := range []struct {
		table, note string
		keys        []changedKey
	}{
		{"spool", " (the batch and burst limits apply now)", []changedKey{
			{"dir", c.Spool.Dir != old.Spool.Dir},
			{"done", keepDone(c.Spool) != keepDone(old.Spool)},
			{"done_max_files", c.Spool.DoneMaxFiles != old.Spool.DoneMaxFiles},
			{"done_max_bytes", c.Spool.DoneMaxBytes != old.Spool.DoneMaxBytes},
			{"done_max_age", c.Spool.DoneMaxAge != old.Spool.DoneMaxAge},
			{"failed_max_files", c.Spool.FailedMaxFiles != old.Spool.FailedMaxFiles},
			{"failed_max_bytes", c.Spool.FailedMaxBytes != old.Spool.FailedMaxBytes},
			{"tmp_max_age", c.Spool.TmpMaxAge != old.Spool.TmpMaxAge},
			{"rescan_interval", c.Spool.RescanInterval != old.Spool.RescanInterval},
		}},
		{"journal", "", []changedKey{
			{"path", c.Journal.Path != old.Journal.Path},
			{"max_bytes", c.Journal.MaxBytes != old.Journal.MaxBytes},
			{"keep", c.Journal.Keep != old.Journal.Keep},
		}},
		{"gpio", "", []changedKey{
			{"backend", c.GPIO.Backend != old.GPIO.Backend},
			{"chip", c.GPIO.Chip != old.GPIO.Chip},
			{"match_pin", pins && c.GPIO.MatchPin != old.GPIO.MatchPin},
			{"unknown_pin", pins && c.GPIO.UnknownPin != old.GPIO.UnknownPin},
			{"label_pins", pins && !maps.Equal(c.GPIO.LabelPins, old.GPIO.LabelPins)},
			{"active_low", c.GPIO.ActiveLow != old.GPIO.ActiveLow},
		}},
		{"log", "", []changedKey{
			{"level", c.Log.Level != old.Log.Level},
			{"format", c.Log.Format != old.Log.Format},
		}},
		{"mqtt", " (the publisher keeps its broker, topic and login)", []changedKey{
			{"broker", c.MQTT.Broker != old.MQTT.Broker},
			{"topic", c.MQTT.Topic != old.MQTT.Topic},
			{"client_id", c.MQTT.ClientID != old.MQTT.ClientID},
			{"username", c.MQTT.Username != old.MQTT.Username},
			{"password_file", c.MQTT.PasswordFile != old.MQTT.PasswordFile},
			{"ca_file", c.MQTT.CAFile != old.MQTT.CAFile},
			{"cert_file", c.MQTT.CertFile != old.MQTT.CertFile},
			{"key_file", c.MQTT.KeyFile != old.MQTT.KeyFile},
			{"outbox", c.MQTT.Outbox != old.MQTT.Outbox},
			{"keepalive", c.MQTT.KeepAlive != old.MQTT.KeepAlive},
			{"discovery_prefix", c.MQTT.DiscoveryPrefix != old.MQTT.DiscoveryPrefix},
		}},
		{"metrics", "", []changedKey{
			{"listen", c.Metrics.Listen != old.Metrics.Listen},
		}},
		{"daemon", "", []changedKey{
			{"watchdog", c.Daemon.Watchdog != old.Daemon.Watchdog},
		}},
	} {
		var keys []string
		for _, k := range t.keys {
			if k.changed {
				keys = append(keys, k.key)
			}
		}
		if len(keys) > 0 {
			restart = append(restart, "["+t.table+"] "+strings.Join(keys, ", ")+" changed: restart setmatchd to apply"+t.note)
		}
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

// changedKey is a key of a table and whether a reload changed it.
type changedKey struct {
	key     string
	changed bool
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
