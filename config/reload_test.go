package config

import (
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestReloadOver(t *testing.T) {
	th := 0.5
	for _, tc := range []struct {
		name    string
		change  func(c *Config)
		restart string // the start of the message, its table and keys; "" for none
		applied bool   // the change is in the live configuration
	}{
		{"nothing", func(c *Config) {}, "", true},
		{"model", func(c *Config) { c.Model = "/other.smm" }, "", true},
		{"threshold", func(c *Config) { c.Decision.Threshold = &th }, "", true},
		{"min_frames", func(c *Config) { c.Decision.MinFrames = 7 }, "", true},
		{"workers", func(c *Config) { c.Daemon.Workers = 3 }, "", true},
		{"watchdog", func(c *Config) { c.Daemon.Watchdog = !c.Daemon.Watchdog }, "[daemon] watchdog changed", false},
		{"max_batch_bytes", func(c *Config) { c.Spool.MaxBatchBytes = 1 << 10 }, "", true},
		{"max_frames", func(c *Config) { c.Spool.MaxFrames = 5 }, "", true},
		{"max_burst_frames", func(c *Config) { c.Spool.MaxBurstFrames = 5 }, "", true},
		{"max_frame_pixels", func(c *Config) { c.Spool.MaxFramePixels = 5 }, "", true},
		{"max_frame_bytes", func(c *Config) { c.Spool.MaxFrameBytes = 5 }, "", true},
		{"pulse", func(c *Config) { c.GPIO.Pulse = Duration{time.Second} }, "", true},
		{"spool dir", func(c *Config) { c.Spool.Dir = "/elsewhere" }, "[spool] dir changed", false},
		{"spool done", func(c *Config) { c.Spool.Done = "delete" }, "[spool] done changed", false},
		{"rescan", func(c *Config) { c.Spool.RescanInterval = Duration{time.Minute} }, "[spool] rescan_interval changed", false},
		{"done cap", func(c *Config) { c.Spool.DoneMaxFiles = 9 }, "[spool] done_max_files changed", false},
		{"done age", func(c *Config) { c.Spool.DoneMaxAge = Duration{time.Hour} }, "[spool] done_max_age changed", false},
		{"failed cap", func(c *Config) { c.Spool.FailedMaxFiles = 9 }, "[spool] failed_max_files changed", false},
		{"done bytes", func(c *Config) { c.Spool.DoneMaxBytes = 9 }, "[spool] done_max_bytes changed", false},
		{"failed bytes", func(c *Config) { c.Spool.FailedMaxBytes = 9 }, "[spool] failed_max_bytes changed", false},
		{"tmp age", func(c *Config) { c.Spool.TmpMaxAge = Duration{time.Hour} }, "[spool] tmp_max_age changed", false},
		{"journal", func(c *Config) { c.Journal.Keep = 9 }, "[journal] keep changed", false},
		{"backend", func(c *Config) { c.GPIO.Backend = "log" }, "[gpio] backend changed", false},
		{"chip", func(c *Config) { c.GPIO.Chip = "gpiochip1" }, "[gpio] chip changed", false},
		{"match pin", func(c *Config) { c.GPIO.MatchPin = "GPIO5" }, "[gpio] match_pin changed", false},
		{"label pin", func(c *Config) { c.GPIO.LabelPins = map[string]string{"alice": "GPIO6"} }, "[gpio] label_pins changed", false},
		{"active_low", func(c *Config) { c.GPIO.ActiveLow = true }, "[gpio] active_low changed", false},
		{"log", func(c *Config) { c.Log.Level = "debug" }, "[log] level changed", false},
		{"mqtt broker", func(c *Config) { c.MQTT.Broker = "tcp://127.0.0.1:1883" }, "[mqtt] broker changed", false},
		{"mqtt topic", func(c *Config) { c.MQTT.Topic = "setmatch/door" }, "[mqtt] topic changed", false},
		{"mqtt outbox", func(c *Config) { c.MQTT.Outbox = 5 }, "[mqtt] outbox changed", false},
		{"mqtt password", func(c *Config) { c.MQTT.PasswordFile = "/run/credentials/x" }, "[mqtt] password_file changed", false},
		{"metrics", func(c *Config) { c.Metrics.Listen = "127.0.0.1:9469" }, "[metrics] listen changed", false},
		{"journal keys", func(c *Config) { c.Journal.Path, c.Journal.MaxBytes = "/j", 1<<20 }, "[journal] path, max_bytes changed", false},
		{"log format", func(c *Config) { c.Log.Format = "json" }, "[log] format changed", false},
		{"mqtt keys", func(c *Config) { c.MQTT.ClientID, c.MQTT.KeepAlive = "door", Duration{time.Minute} }, "[mqtt] client_id, keepalive changed", false},
		{"unknown pin", func(c *Config) { c.GPIO.UnknownPin = "GPIO5" }, "[gpio] unknown_pin changed", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := Default()
			c := Default()
			tc.change(&c)
			live, restart := c.ReloadOver(&old)
			if tc.restart == "" && len(restart) != 0 {
				t.Errorf("restart messages %q for a key that applies now", restart)
			}
			if tc.restart != "" && (len(restart) != 1 || !strings.HasPrefix(restart[0], tc.restart) || !strings.Contains(restart[0], "restart")) {
				t.Errorf("restart messages %q, want one naming %s", restart, tc.restart)
			}
			want := old
			if tc.applied {
				want = c
			}
			if !reflect.DeepEqual(*live, want) {
				t.Errorf("live configuration\n got %+v\nwant %+v", *live, want)
			}
		})
	}
}

// With backend "none" no pin is driven: changing a pin key then needs no
// restart (it would drive nothing either way).
func TestReloadOverPinsWithoutBackend(t *testing.T) {
	old := Default()
	old.GPIO.Backend = "none"
	c := old
	c.GPIO.MatchPin = "GPIO5"
	if _, restart := c.ReloadOver(&old); len(restart) != 0 {
		t.Errorf("restart messages %q for a pin of backend none", restart)
	}
	// Several tables at once: one message each.
	c = old
	c.Spool.Dir, c.Journal.Path, c.Log.Format = "/a", "/b", "json"
	if _, restart := c.ReloadOver(&old); len(restart) != 3 {
		t.Errorf("restart messages %q, want three", restart)
	}
	c.MQTT.Broker, c.Metrics.Listen = "tcp://127.0.0.1:1883", ":9469"
	if _, restart := c.ReloadOver(&old); len(restart) != 5 {
		t.Errorf("restart messages %q, want five", restart)
	}
}

// TestReloadOverNamesEveryKey: a change to any key that needs a restart,
// each key of each table in turn, gives a message naming its table and
// the key; one that applies at once gives none. A key added to a table
// is checked without a line here.
func TestReloadOverNamesEveryKey(t *testing.T) {
	live := map[string]bool{"spool.max_batch_bytes": true, "spool.max_frames": true, "spool.max_burst_frames": true,
		"spool.max_frame_pixels": true, "spool.max_frame_bytes": true, "gpio.pulse": true,
		"daemon.workers": true, "daemon.batch_timeout": true, "daemon.stop_grace": true}
	tables := reflect.TypeFor[Config]()
	for i := range tables.NumField() {
		tf := tables.Field(i)
		table := tf.Tag.Get("toml")
		if tf.Type.Kind() != reflect.Struct || table == "decision" || table == "" || table == "-" {
			continue // model and [decision] apply at once, checked above
		}
		for j := range tf.Type.NumField() {
			key := tf.Type.Field(j).Tag.Get("toml")
			if key == "" || key == "-" {
				continue
			}
			old := Default()
			old.GPIO.Backend = "log" // pins drive lines
			c := old
			c.GPIO.LabelPins = maps.Clone(old.GPIO.LabelPins)
			name := table + "." + key
			f := reflect.ValueOf(&c).Elem().Field(i).Field(j)
			switch v := f.Addr().Interface().(type) {
			case *string:
				*v += "x"
				if name == "spool.done" {
					*v = "delete" // any other value keeps
				}
			case *int:
				*v += 7
			case *int64:
				*v += 7
			case *bool:
				*v = !*v
			case *Size:
				*v += 7
			case *Duration:
				v.Duration += time.Second
			case *map[string]string:
				*v = map[string]string{"alice": "GPIO9"}
			default:
				t.Fatalf("%s.%s: no change made of a %T", table, key, v)
			}
			_, restart := c.ReloadOver(&old)
			if live[name] {
				if len(restart) != 0 {
					t.Errorf("%s applies at once, but the reload says %q", name, restart)
				}
				continue
			}
			if len(restart) != 1 || !strings.HasPrefix(restart[0], "["+table+"] "+key+" changed") {
				t.Errorf("%s changed: the reload says %q, want one message naming [%s] %s", name, restart, table, key)
			}
		}
	}
}
