// Package config reads the TOML configuration of setmatchd.
//
// Load reads the main file, then the drop-in files <dir>/conf.d/*.toml in
// lexical order; each file sets any subset of the keys over what the
// previous ones left, starting from Default. Unknown keys are errors that
// name the key and the file; syntax errors give file:line:column; invalid
// values are named by their key path ("gpio.pulse") and the file that set
// them. Relative paths are taken relative to the directory of the file
// that sets them. docs/FORMATS.md lists every key.
//
// ReloadOver (reload.go) says which keys a running setmatchd applies at
// once when it reads the configuration again, and which wait for a
// restart. setmatchd.example.toml, in this folder, is the example
// configuration the Debian package installs; the tests load it.
package config

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Config is the configuration of setmatchd.
type Config struct {
	// Model is the model file (setmatch train writes it).
	Model    string   `toml:"model"`
	Spool    Spool    `toml:"spool"`
	Journal  Journal  `toml:"journal"`
	GPIO     GPIO     `toml:"gpio"`
	Decision Decision `toml:"decision"`
	Daemon   Daemon   `toml:"daemon"`
	Log      Log      `toml:"log"`
	MQTT     MQTT     `toml:"mqtt"`
	Metrics  Metrics  `toml:"metrics"`

	// Files lists the files read, main file first (not a key).
	Files []string `toml:"-"`

	// sources holds where the files set each key, by key path (KeyError).
	sources map[string]source
}

// KeyError returns err as the *Error of key, at the place of the file
// that set it (file:line:column), for a check of a key that needs more
// than the configuration (the model's labels, say); without a place for
// a key no file sets.
func (c *Config) KeyError(key string, err error) error {
	e := &Error{Key: key, Err: err}
	locateIn(c.sources, e)
	return e
}

// Spool is the directory that batches are dropped into, maildir style:
// tmp/ new/ cur/ done/ failed/ below Dir.
type Spool struct {
	Dir string `toml:"dir"`
	// RescanInterval is how often the spool is scanned in case a file
	// event was lost.
	RescanInterval Duration `toml:"rescan_interval"`
	// MaxBatchBytes is the largest batch file read; larger ones fail.
	MaxBatchBytes Size `toml:"max_batch_bytes"`
	// MaxFrames is the largest number of frames (rows) in a batch.
	MaxFrames int `toml:"max_frames"`
	// MaxBurstFrames is the most frame images an image burst (a directory
	// of frames) may hold; more fail without any frame being read.
	MaxBurstFrames int `toml:"max_burst_frames"`
	// MaxFramePixels is the most pixels (width × height, as the image
	// header declares it) one frame of a burst may have; larger frames
	// fail from the header, before their pixels are decoded.
	MaxFramePixels int64 `toml:"max_frame_pixels"`
	// MaxFrameBytes is the largest frame image file of a burst.
	MaxFrameBytes Size `toml:"max_frame_bytes"`
	// Done is what happens to a handled batch: "keep" (move to done/) or
	// "delete".
	Done string `toml:"done"`
	// DoneMaxFiles caps the files kept in done/ (oldest removed first);
	// 0 = no count cap.
	DoneMaxFiles int `toml:"done_max_files"`
	// DoneMaxBytes caps the bytes kept in done/ (a burst counts its frame
	// files; oldest removed first); 0 = no byte cap.
	DoneMaxBytes Size `toml:"done_max_bytes"`
	// DoneMaxAge removes files older than this from done/; 0 = no age cap.
	DoneMaxAge Duration `toml:"done_max_age"`
	// FailedMaxFiles caps the batches kept in failed/ (each with its
	// reason in failed/.reasons/).
	FailedMaxFiles int `toml:"failed_max_files"`
	// FailedMaxBytes caps the bytes of the batches kept in failed/; 0 =
	// no byte cap.
	FailedMaxBytes Size `toml:"failed_max_bytes"`
	// TmpMaxAge removes what writers left in tmp/ unchanged for longer
	// than this (a write cut short by a crash or a power cut); 0 = never.
	TmpMaxAge Duration `toml:"tmp_max_age"`
}

// Journal is the append-only record of decisions, one JSON object a line.
type Journal struct {
	Path string `toml:"path"`
	// MaxBytes rotates the journal (to Path.1, Path.2, …) when it would
	// grow past this size; 0 = never rotate.
	MaxBytes Size `toml:"max_bytes"`
	// Keep is the number of rotated journals kept.
	Keep int `toml:"keep"`
}

// GPIO is how decisions are signalled.
type GPIO struct {
	// Backend is "periph" (GPIO character device), "log" (no hardware,
	// transitions logged) or "none".
	Backend string `toml:"backend"`
	// Chip restricts pin lookup to one GPIO chip (e.g. "gpiochip0");
	// "" = any chip.
	Chip string `toml:"chip"`
	// MatchPin pulses when a batch matches a known label; "" = not wired.
	MatchPin string `toml:"match_pin"`
	// UnknownPin pulses when a batch is rejected as unknown; "" = not wired.
	UnknownPin string `toml:"unknown_pin"`
	// LabelPins maps labels to the pin that pulses when that label matches
	// (in addition to MatchPin).
	LabelPins map[string]string `toml:"label_pins"`
	// Pulse is how long a pin stays active.
	Pulse Duration `toml:"pulse"`
	// ActiveLow drives pins low when active and high when idle.
	ActiveLow bool `toml:"active_low"`
}

// Decision overrides how a batch is decided.
type Decision struct {
	// Threshold replaces the model's open-set threshold when set: a batch
	// whose best score is above it is unknown (inf = never unknown).
	Threshold *float64 `toml:"threshold"`
	// MinFrames is the fewest frames a batch needs; smaller batches fail.
	MinFrames int `toml:"min_frames"`
}

// Daemon holds process settings.
type Daemon struct {
	// Workers is the number of goroutines that match one batch against the
	// gallery, at most one per CPU; 0 = one per CPU.
	Workers int `toml:"workers"`
	// Watchdog pings the systemd watchdog from the main loop when the unit
	// sets WatchdogSec.
	Watchdog bool `toml:"watchdog"`
	// BatchTimeout bounds the time one batch may take to be read and
	// matched; a batch over it fails with a reason. The watchdog is fed
	// while a batch is within it.
	BatchTimeout Duration `toml:"batch_timeout"`
	// StopGrace is how long a stop (SIGTERM) waits for the batch in hand
	// before leaving it in cur/ for the next start: with the pulses' 3 s
	// and MQTT's 5 s and more after it, below the unit's
	// TimeoutStopSec=40s.
	StopGrace Duration `toml:"stop_grace"`
}

// Log sets up log/slog output on standard error.
type Log struct {
	Level  string `toml:"level"`  // debug, info, warn, error
	Format string `toml:"format"` // text or json
}

// Default returns the configuration used for every key no file sets.
func Default() Config {
	return Config{
		Model: "/var/lib/setmatch/model.smm",
		Spool: Spool{
			Dir:            "/var/spool/setmatch",
			RescanInterval: Duration{10 * time.Second},
			MaxBatchBytes:  64 << 20,
			MaxFrames:      10000,
			MaxBurstFrames: 256,
			MaxFramePixels: 4096 * 3072,
			MaxFrameBytes:  32 << 20,
			Done:           "keep",
			DoneMaxFiles:   1000,
			DoneMaxBytes:   1 << 30,
			DoneMaxAge:     Duration{7 * 24 * time.Hour},
			FailedMaxFiles: 1000,
			FailedMaxBytes: 256 << 20,
			TmpMaxAge:      Duration{36 * time.Hour},
		},
		Journal: Journal{
			Path:     "/var/lib/setmatch/journal.jsonl",
			MaxBytes: 64 << 20,
			Keep:     3,
		},
		GPIO: GPIO{
			Backend:    "periph",
			MatchPin:   "GPIO17",
			UnknownPin: "GPIO27",
			Pulse:      Duration{500 * time.Millisecond},
		},
		Decision: Decision{MinFrames: 2},
		Daemon:   Daemon{Watchdog: true, BatchTimeout: Duration{2 * time.Minute}, StopGrace: Duration{20 * time.Second}},
		Log:      Log{Level: "info", Format: "text"},
		MQTT:     defaultMQTT(),
	}
}

// SlogLevel returns the log level as a slog.Level (info if unset).
func (l Log) SlogLevel() slog.Level {
	switch strings.ToLower(l.Level) {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// ThresholdOr returns the open-set threshold to use: the configured one if
// set, else model (the model's own).
func (d Decision) ThresholdOr(model float64) float64 {
	if d.Threshold != nil {
		return *d.Threshold
	}
	return model
}

// Pins returns every configured pin name with the key that names it, in a
// fixed order: match, unknown, then label pins sorted by label.
func (g GPIO) Pins() []Pin {
	var p []Pin
	if g.MatchPin != "" {
		p = append(p, Pin{Key: "gpio.match_pin", Name: g.MatchPin})
	}
	if g.UnknownPin != "" {
		p = append(p, Pin{Key: "gpio.unknown_pin", Name: g.UnknownPin})
	}
	for _, l := range sortedKeys(g.LabelPins) {
		p = append(p, Pin{Key: "gpio.label_pins." + quoteKey(l), Label: l, Name: g.LabelPins[l]})
	}
	return p
}

// Pin is one configured output.
type Pin struct {
	Key   string // key path that names it
	Label string // for label pins, the label
	Name  string // kernel line name, e.g. "GPIO17"
}

// caps says what a folder of handled batches keeps at most: "at most
// 1000 batches, 1GiB, 168h old", leaving out a cap that is 0.
func caps(files int, bytes Size, age Duration) string {
	var parts []string
	if files > 0 {
		parts = append(parts, fmt.Sprintf("%d batches", files))
	}
	if bytes > 0 {
		parts = append(parts, bytes.String())
	}
	if age.Duration > 0 {
		parts = append(parts, age.String()+" old")
	}
	if len(parts) == 0 {
		return "without a cap"
	}
	return "at most " + strings.Join(parts, ", ")
}

// String describes c in a few lines (for setmatchd -check).
func (c *Config) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "files:    %s\n", strings.Join(c.Files, ", "))
	fmt.Fprintf(&b, "model:    %s\n", c.Model)
	sp := &c.Spool
	fmt.Fprintf(&b, "spool:    %s (rescan %v, max %v per batch, %d frames; bursts: %d frames of %d pixels, %v)\n",
		sp.Dir, sp.RescanInterval, sp.MaxBatchBytes, sp.MaxFrames,
		sp.MaxBurstFrames, sp.MaxFramePixels, sp.MaxFrameBytes)
	done := "deleted once journaled"
	if sp.Done == "keep" {
		done = "kept, " + caps(sp.DoneMaxFiles, sp.DoneMaxBytes, sp.DoneMaxAge)
	}
	tmp := "never cleaned"
	if sp.TmpMaxAge.Duration > 0 {
		tmp = fmt.Sprintf("what is unchanged for %v removed", sp.TmpMaxAge)
	}
	fmt.Fprintf(&b, "kept:     done/ %s; failed/ %s; tmp/ %s\n", done, caps(sp.FailedMaxFiles, sp.FailedMaxBytes, Duration{}), tmp)
	if c.Journal.MaxBytes > 0 {
		fmt.Fprintf(&b, "journal:  %s (rotated at %v, %d rotated kept)\n", c.Journal.Path, c.Journal.MaxBytes, c.Journal.Keep)
	} else {
		fmt.Fprintf(&b, "journal:  %s (never rotated)\n", c.Journal.Path)
	}
	fmt.Fprintf(&b, "gpio:     %s", c.GPIO.Backend)
	if c.GPIO.Backend != "none" {
		for _, p := range c.GPIO.Pins() {
			fmt.Fprintf(&b, " %s=%s", strings.TrimPrefix(p.Key, "gpio."), p.Name)
		}
		fmt.Fprintf(&b, " pulse %v active-low %v", c.GPIO.Pulse, c.GPIO.ActiveLow)
	}
	b.WriteString("\n")
	th := "model's"
	if c.Decision.Threshold != nil {
		th = fmt.Sprint(*c.Decision.Threshold)
	}
	fmt.Fprintf(&b, "decision: threshold %s, min frames %d\n", th, c.Decision.MinFrames)
	fmt.Fprintf(&b, "daemon:   workers %d, watchdog %v, batch timeout %v, stop grace %v; log %s/%s\n", c.Daemon.Workers, c.Daemon.Watchdog, c.Daemon.BatchTimeout, c.Daemon.StopGrace, c.Log.Level, c.Log.Format)
	b.WriteString(c.MQTT.summary())
	b.WriteString(c.Metrics.summary())
	return b.String()
}
