package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// write creates dir/name with text and returns its path.
func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaultIsValid(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("Default() is invalid: %v", err)
	}
}

func TestExampleEqualsDefault(t *testing.T) {
	c, err := LoadFiles("setmatchd.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Files = []string{"setmatchd.example.toml"}
	want.sources = c.sources // where the example sets each key
	if !reflect.DeepEqual(*c, want) {
		t.Errorf("example config differs from Default():\n got %+v\nwant %+v", *c, want)
	}
}

// TestExampleCoversEveryKey checks that the example mentions every key, set
// or commented out, so that it stays the complete reference.
func TestExampleCoversEveryKey(t *testing.T) {
	b, err := os.ReadFile("setmatchd.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for k := range knownKeys {
		parts := strings.Split(k, ".")
		last := parts[len(parts)-1]
		if !strings.Contains(text, last+" =") && !strings.Contains(text, "["+k+"]") {
			t.Errorf("example does not mention key %s", k)
		}
	}
}

func TestLoadValues(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "setmatchd.toml", `
model = "models/m.smm"
[spool]
dir = "/tmp/spool"
rescan_interval = "1m30s"
max_batch_bytes = 1048576
done = "delete"
[journal]
max_bytes = "1.5MB"
[gpio]
backend = "log"
pulse = "250ms"
active_low = true
label_pins = { alice = "GPIO22", "bob smith" = "GPIO23" }
[decision]
threshold = 0.25
[daemon]
workers = 3
watchdog = false
[log]
level = "debug"
format = "json"
`)
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Files = []string{p}
	want.Model = filepath.Join(dir, "models/m.smm")
	want.Spool.Dir = "/tmp/spool"
	want.Spool.RescanInterval = Duration{90 * time.Second}
	want.Spool.MaxBatchBytes = 1 << 20
	want.Spool.Done = "delete"
	want.Journal.MaxBytes = 1500000
	want.GPIO.Backend = "log"
	want.GPIO.Pulse = Duration{250 * time.Millisecond}
	want.GPIO.ActiveLow = true
	want.GPIO.LabelPins = map[string]string{"alice": "GPIO22", "bob smith": "GPIO23"}
	th := 0.25
	want.Decision.Threshold = &th
	want.Daemon = Daemon{Workers: 3, BatchTimeout: Default().Daemon.BatchTimeout, StopGrace: Default().Daemon.StopGrace}
	want.Log = Log{Level: "debug", Format: "json"}
	want.sources = c.sources // where the file sets each key
	if !reflect.DeepEqual(*c, want) {
		t.Errorf("got  %+v\nwant %+v", *c, want)
	}
	if got := c.Decision.ThresholdOr(9); got != 0.25 {
		t.Errorf("ThresholdOr = %v, want 0.25", got)
	}
	if got := Default().Decision.ThresholdOr(9); got != 9 {
		t.Errorf("unset ThresholdOr = %v, want the model's 9", got)
	}
	pins := c.GPIO.Pins()
	if len(pins) != 4 || pins[2].Label != "alice" || pins[3].Key != `gpio.label_pins."bob smith"` {
		t.Errorf("Pins() = %+v", pins)
	}
	if s := c.String(); !strings.Contains(s, "threshold 0.25") || !strings.Contains(s, "alice") {
		t.Errorf("String() misses values:\n%s", s)
	}
}

func TestThresholdInf(t *testing.T) {
	c, err := Parse("x.toml", []byte("[decision]\nthreshold = inf\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Decision.Threshold == nil || !math.IsInf(*c.Decision.Threshold, 1) {
		t.Errorf("threshold = %v, want +Inf", c.Decision.Threshold)
	}
	c, err = Parse("x.toml", []byte("[decision]\nthreshold = 1\n"))
	if err != nil || *c.Decision.Threshold != 1 {
		t.Errorf("integer threshold: %v, %v", c, err)
	}
}

func TestDropIns(t *testing.T) {
	dir := t.TempDir()
	main := write(t, dir, "setmatchd.toml", `
[gpio]
backend = "log"
pulse = "1s"
label_pins = { alice = "GPIO22" }
`)
	write(t, dir, "conf.d/20-late.toml", "[gpio]\npulse = \"300ms\"\n")
	write(t, dir, "conf.d/10-early.toml", "[gpio]\npulse = \"100ms\"\nlabel_pins.bob = \"GPIO23\"\n[log]\nlevel = \"warn\"\n")
	write(t, dir, "conf.d/30-model.toml", "model = \"m.smm\"\n")
	write(t, dir, "conf.d/notes.txt", "not toml at all [")
	write(t, dir, "conf.d/.10-early.toml.swp.toml", "not toml at all [")
	c, err := Load(main)
	if err != nil {
		t.Fatal(err)
	}
	if c.GPIO.Pulse.Duration != 300*time.Millisecond {
		t.Errorf("pulse = %v, want the last drop-in's 300ms", c.GPIO.Pulse)
	}
	if c.Log.Level != "warn" || c.GPIO.Backend != "log" {
		t.Errorf("level %q backend %q: drop-ins must only change what they set", c.Log.Level, c.GPIO.Backend)
	}
	if want := map[string]string{"alice": "GPIO22", "bob": "GPIO23"}; !reflect.DeepEqual(c.GPIO.LabelPins, want) {
		t.Errorf("label pins %v, want %v (tables merge)", c.GPIO.LabelPins, want)
	}
	if want := filepath.Join(dir, "conf.d", "m.smm"); c.Model != want {
		t.Errorf("model %q, want %q (relative to the drop-in that sets it)", c.Model, want)
	}
	if len(c.Files) != 4 || !strings.HasSuffix(c.Files[1], "10-early.toml") || !strings.HasSuffix(c.Files[3], "30-model.toml") {
		t.Errorf("files %v, want main then drop-ins in lexical order", c.Files)
	}
}

func TestNoConfD(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "a.toml", "")
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Files = []string{p}
	if !reflect.DeepEqual(*c, want) {
		t.Errorf("empty file: got %+v, want defaults", *c)
	}
}

func TestMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.toml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want not exist", err)
	}
	if err == nil || !strings.Contains(err.Error(), "nope.toml: no such file or directory: give setmatchd its configuration file with -config FILE") {
		t.Errorf("err = %v, want it to say what to do", err)
	}
}

// TestBrokenDropInSaysWhatToDo: a drop-in that cannot be read (a link to
// a file removed, a loop of links, a folder named x.toml) is named as a
// drop-in with what to do: it was only "open conf.d/40.toml: no such file
// or directory", for a file the user never named on a command line.
func TestBrokenDropInSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	main := write(t, dir, "setmatchd.toml", "")
	d := filepath.Join(dir, "conf.d")
	if err := os.MkdirAll(filepath.Join(d, "30-dir.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, link := range [][2]string{{"gone.toml", "40-gone.toml"}, {"50-loop.toml", "50-loop.toml"}} {
		if err := os.Symlink(link[0], filepath.Join(d, link[1])); err != nil {
			t.Fatal(err)
		}
	}
	const todo = "(a drop-in: every conf.d/*.toml beside setmatchd.toml is read; repair it or remove it)"
	for _, name := range []string{"30-dir.toml", "40-gone.toml", "50-loop.toml"} {
		_, err := Load(main)
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), todo) {
			t.Errorf("%s: %v, want it named with %q", name, err, todo)
		}
		if err := os.Remove(filepath.Join(d, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// checkErr asserts that err is a single *Error wrapping kind whose text
// contains every piece of want.
func checkErr(t *testing.T, err error, kind error, want ...string) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", kind)
	}
	if !errors.Is(err, kind) {
		t.Errorf("error %q does not wrap %v", err, kind)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %q is not a *config.Error", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	return e
}

func TestSyntaxError(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "s.toml", "model = \"a\"\n[gpio]\npulse = \"1s\nbackend = \"log\"\n")
	_, err := Load(p)
	e := checkErr(t, err, ErrSyntax, p+":3:")
	if e.Line != 3 || e.Column < 1 {
		t.Errorf("position %d:%d, want line 3 and a column", e.Line, e.Column)
	}
	_, err = Parse("t.toml", []byte("[spool]\ndir = /x\n"))
	e = checkErr(t, err, ErrSyntax, "t.toml:2:")
	if e.Column != 7 {
		t.Errorf("column %d, want 7", e.Column)
	}
}

// TestUnknownKeyListsTable: an unknown key of a known table, with no
// known key near it, lists the keys of that table.
func TestUnknownKeyListsTable(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[gpio.labels]\nc00 = \"GPIO22\"\n", "gpio.labels: unknown key (the keys of [gpio]: active_low, backend, chip, label_pins, match_pin, pulse, unknown_pin)"},
		{"[decision]\nmethod = \"knn\"\n", "decision.method: unknown key (the keys of [decision]: min_frames, threshold)"},
	} {
		_, err := Parse("u.toml", []byte(tc.text))
		checkErr(t, err, ErrUnknownKey, "u.toml:", tc.want)
	}
}

// TestSyntaxErrorQuotes: a value or a key written without the quotes it
// needs is a syntax error that says to quote it, and the line it gives
// loads; other syntax errors, and a word given to a key of a number or
// of true or false (which quotes would not make right), are given no
// such hint.
func TestSyntaxErrorQuotes(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[gpio]\nbackend = log\n", `2:11: syntax error: expected value but found "log" instead: text goes in quotes (backend = "log")`},
		{"[gpio]\nmatch_pin = GPIO17  # the LED\n", `text goes in quotes (match_pin = "GPIO17")`},
		{"[spool]\ndir = /srv/camera-spool\n", `text goes in quotes (dir = "/srv/camera-spool")`},
		{"[gpio]\npulse = 500ms\n", `text goes in quotes (pulse = "500ms")`},
		{"[gpio.label_pins]\nJosé = \"GPIO22\"\n", `a key of other characters than A-Z a-z 0-9 _ - goes in quotes ("José" = "GPIO22")`},
		{"[gpio.label_pins]\nJosé María = \"GPIO22\"\n", `goes in quotes ("José María" = "GPIO22")`},
	} {
		_, err := Parse("q.toml", []byte(tc.text))
		checkErr(t, err, ErrSyntax, "q.toml:", tc.want)
		// The line as it should be, in the place of the line given.
		hint := tc.want[strings.LastIndex(tc.want, "(")+1 : len(tc.want)-1]
		table, _, _ := strings.Cut(tc.text, "\n")
		if _, err := Parse("q.toml", []byte(table+"\n"+hint+"\n")); err != nil {
			t.Errorf("%q: the line the hint gives, %s, does not load: %v", tc.text, hint, err)
		}
	}
	for _, text := range []string{
		"[gpio]\npulse = \"1s\nbackend = \"log\"\n",
		"[decision]\nthreshold = 0.5.\n",
		"[gpio\nbackend = \"log\"\n",
		"[gpio]\nactive_low = yes\n",
		"[daemon]\nworkers = four\n",
		"[decision]\nthreshold = none\n",
		"[decision]\nmin_frames = 5x\n",
	} {
		_, err := Parse("q.toml", []byte(text))
		e := checkErr(t, err, ErrSyntax, "q.toml:")
		if strings.Contains(e.Error(), "goes in quotes") {
			t.Errorf("%q: %v, want no hint about quotes", text, e)
		}
	}
}

func TestUnknownKeys(t *testing.T) {
	dir := t.TempDir()
	main := write(t, dir, "main.toml", "[gpio]\nbackend = \"log\"\n")
	d := write(t, dir, "conf.d/50-x.toml", "# pins\n[gpio]\npusle = \"1s\"\n")
	_, err := Load(main)
	e := checkErr(t, err, ErrUnknownKey, d+":3:", "gpio.pusle", "did you mean gpio.pulse?")
	if e.File != d || e.Key != "gpio.pusle" || e.Line != 3 {
		t.Errorf("error %+v: want file %s key gpio.pusle line 3", e, d)
	}
	for _, tc := range []struct{ text, key string }{
		{"modle = \"x\"\n", "modle"},
		{"[spol]\ndir = \"x\"\n", "spol"},
		{"[gpio]\nPulse = \"1s\"\n", "gpio.Pulse"}, // keys are case sensitive
		{"[decision]\nmethod = \"knn\"\n", "decision.method"},
		{"spool.extra.deep = 1\n", "spool.extra.deep"},
	} {
		_, err := Parse("u.toml", []byte(tc.text))
		e := checkErr(t, err, ErrUnknownKey, "u.toml:", tc.key)
		if e.Key != tc.key {
			t.Errorf("%q: key %q, want %q", tc.text, e.Key, tc.key)
		}
	}
}

func TestTypeErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		kind error
		want []string
	}{
		{"[spool]\nmax_frames = \"many\"\n", ErrType, []string{"t.toml:2:", "spool.max_frames", "want an integer, got a string"}},
		{"[gpio]\nactive_low = 1\n", ErrType, []string{"gpio.active_low"}},
		{"[gpio]\npulse = 500\n", ErrInvalid, []string{"t.toml:2:", "gpio.pulse", `want a duration`}},
		{"[gpio]\npulse = \"5 parsecs\"\n", ErrInvalid, []string{"gpio.pulse", `"5 parsecs"`}},
		{"[spool]\nmax_batch_bytes = \"lots\"\n", ErrInvalid, []string{"spool.max_batch_bytes", `"lots"`}},
		{"[spool]\nmax_batch_bytes = 1.5\n", ErrInvalid, []string{"spool.max_batch_bytes"}},
		{"model = 3\n", ErrType, []string{"model", "want a string, got an integer"}},
		{"[gpio]\nlabel_pins = { alice = 22 }\n", ErrType, []string{"gpio.label_pins.alice"}},
		{"gpio = 5\n", ErrType, []string{"t.toml:1:1: gpio: ", "want a table, got an integer"}},
		{"[gpio]\nlabel_pins = [\"GPIO5\"]\n", ErrType, []string{"t.toml:2:1: gpio.label_pins: ", "want a table, got an array"}},
		{"[[spool]]\ndir = \"x\"\n", ErrType, []string{"spool: ", "want a table, got an array of tables"}},
		{"[spool]\ndir = 1979-05-27\n", ErrType, []string{"t.toml:2:1: spool.dir: ", "want a string, got a date-time"}},
	} {
		_, err := Parse("t.toml", []byte(tc.text))
		checkErr(t, err, tc.kind, tc.want...)
	}
}

func TestInvalidValues(t *testing.T) {
	for _, tc := range []struct {
		text string
		key  string
		want string
	}{
		{"model = \"\"\n", "model", "must not be empty"},
		{"[spool]\ndir = \" \"\n", "spool.dir", "must not be empty"},
		{"[spool]\nrescan_interval = \"0s\"\n", "spool.rescan_interval", `must be ≥ 1s, got "0s"`},
		{"[spool]\nrescan_interval = \"1ns\"\n", "spool.rescan_interval", `must be ≥ 1s, got "1ns": every rescan lists the spool's folders`},
		{"[spool]\nrescan_interval = \"999ms\"\n", "spool.rescan_interval", `must be ≥ 1s, got "999ms"`},
		{"[spool]\nmax_batch_bytes = 0\n", "spool.max_batch_bytes", "must be > 0"},
		{"[spool]\nmax_frames = 0\n", "spool.max_frames", "must be ≥ 1"},
		{"[spool]\nmax_burst_frames = 0\n", "spool.max_burst_frames", "must be ≥ 1"},
		{"[spool]\nmax_frame_pixels = -1\n", "spool.max_frame_pixels", "must be ≥ 1"},
		{"[spool]\nmax_frame_pixels = 268435457\n", "spool.max_frame_pixels", "must be ≤ 268435456 (16384 × 16384), got 268435457: a frame is decoded in up to 4 bytes a pixel"},
		{"[spool]\nmax_frame_pixels = 9223372036854775807\n", "spool.max_frame_pixels", "must be ≤ 268435456"},
		{"[spool]\nmax_frame_bytes = 0\n", "spool.max_frame_bytes", "must be > 0"},
		{"[spool]\nmax_frame_bytes = 9223372036854775807\n", "spool.max_frame_bytes", "must be ≤ 1GiB, got 9223372036854775807: a frame file is read whole into memory"},
		{"[spool]\nmax_batch_bytes = 9223372036854775807\n", "spool.max_batch_bytes", "must be ≤ 4GiB, got 9223372036854775807: a batch is read whole into memory"},
		{"[spool]\nmax_batch_bytes = \"5GiB\"\n", "spool.max_batch_bytes", "must be ≤ 4GiB"},
		{"[spool]\ndone = \"archive\"\n", "spool.done", `must be "keep" or "delete", got "archive"`},
		{"[spool]\ndone_max_files = -1\n", "spool.done_max_files", "must be ≥ 0"},
		{"[spool]\ndone_max_age = \"-1h\"\n", "spool.done_max_age", `got "-1h0m0s"`},
		{"[spool]\ndone_max_files = 0\ndone_max_bytes = 0\ndone_max_age = \"0s\"\n", "spool.done_max_files", "cannot fill the disk"},
		{"[spool]\ndone_max_bytes = -1\n", "spool.done_max_bytes", "must be ≥ 0"},
		{"[spool]\nfailed_max_files = 0\n", "spool.failed_max_files", "must be ≥ 1"},
		{"[spool]\nfailed_max_bytes = -1\n", "spool.failed_max_bytes", "must be ≥ 0"},
		{"[spool]\ntmp_max_age = \"-1h\"\n", "spool.tmp_max_age", "must be ≥ 0"},
		{"[spool]\ntmp_max_age = \"1s\"\n", "spool.tmp_max_age", `must be 0 (never) or ≥ 1m0s, got "1s": what stays unchanged in tmp/ that long is removed`},
		{"[spool]\ntmp_max_age = \"59s\"\n", "spool.tmp_max_age", "must be 0 (never) or ≥ 1m0s"},
		{"[journal]\nmax_bytes = 1\n", "journal.max_bytes", "must be 0 (never rotate) or ≥ 64KiB, got 1: a decision's line"},
		{"[journal]\nmax_bytes = \"63KiB\"\n", "journal.max_bytes", "or ≥ 64KiB, got 64512"},
		{"[journal]\npath = \"\"\n", "journal.path", "must not be empty"},
		{"[journal]\nmax_bytes = -5\n", "journal.max_bytes", "must be ≥ 0"},
		{"[journal]\nkeep = 0\n", "journal.keep", "must be ≥ 1"},
		{"[gpio]\npulse = \"2000000h\"\n", "gpio.pulse", "must be ≤ 1m0s"},
		{"[journal]\nmax_bytes = 0\nkeep = -1\n", "journal.keep", "must be ≥ 1"},
		{"[journal]\nkeep = 100000000\n", "journal.keep", "must be ≤ 1000, got 100000000: each rotation renames every rotated journal kept"},
		{"[gpio]\nbackend = \"sysfs\"\n", "gpio.backend", `must be "periph", "log" or "none", got "sysfs"`},
		{"[gpio]\npulse = \"-5ms\"\n", "gpio.pulse", `must be > 0, got "-5ms"`},
		{"[gpio]\nunknown_pin = \"GPIO17\"\n", "gpio.unknown_pin", `pin "GPIO17" is already used by gpio.match_pin`},
		{"[gpio.label_pins]\nalice = \"GPIO27\"\n", "gpio.label_pins.alice", "already used by gpio.unknown_pin"},
		{"[gpio.label_pins]\nalice = \"\"\n", "gpio.label_pins.alice", "must not be empty"},
		{"[gpio]\nmatch_pin = \" \"\n", "gpio.match_pin", "must not be empty"},
		{"[decision]\nthreshold = nan\n", "decision.threshold", "got NaN"},
		{"[decision]\nthreshold = -1.0\n", "decision.threshold", "≥ 0"},
		{"[decision]\nmin_frames = 0\n", "decision.min_frames", "must be ≥ 1"},
		{"[spool]\nmax_frames = 5\n[decision]\nmin_frames = 6\n", "decision.min_frames", "more than spool.max_frames"},
		// A check between two keys blames the one the file set, with its place.
		{"[spool]\nmax_frames = 1\n", "spool.max_frames", "fewer than decision.min_frames (2, its default)"},
		{"[gpio]\nmatch_pin = \"GPIO27\"\n", "gpio.match_pin", `pin "GPIO27" is gpio.unknown_pin's too (its default)`},
		{"[daemon]\nworkers = -2\n", "daemon.workers", "must be ≥ 0"},
		{"[log]\nlevel = \"verbose\"\n", "log.level", `"debug", "info", "warn" or "error"`},
		{"[log]\nformat = \"xml\"\n", "log.format", `"text" or "json"`},
	} {
		_, err := Parse("v.toml", []byte(tc.text))
		e := checkErr(t, err, ErrInvalid, tc.key+": ", tc.want)
		if e.Key != tc.key || e.File != "v.toml" || e.Line < 1 {
			t.Errorf("%q: got file %q line %d key %q, want v.toml, a line, %q", tc.text, e.File, e.Line, e.Key, tc.key)
		}
	}
}

// TestValuesAtTheLimits: a value at either end of the range
// docs/FORMATS.md gives for its key is valid: every limit is inclusive,
// so that the largest or smallest value the documentation allows is not
// refused.
func TestValuesAtTheLimits(t *testing.T) {
	on := "[mqtt]\nbroker = \"tcp://127.0.0.1:1883\"\ntopic = \"s\"\n"
	for _, text := range []string{
		"[spool]\nrescan_interval = \"1s\"\n",
		"[spool]\nmax_batch_bytes = \"4GiB\"\n",
		"[spool]\nmax_frame_bytes = \"1GiB\"\n",
		"[spool]\nmax_frame_pixels = 268435456\n",
		"[spool]\ntmp_max_age = \"1m\"\n",
		"[journal]\nmax_bytes = \"64KiB\"\n",
		"[journal]\nkeep = 1000\n",
		"[gpio]\npulse = \"1m\"\n",
		"[decision]\nthreshold = 0.0\n",
		"[spool]\nmax_frames = 5\n[decision]\nmin_frames = 5\n",
		on + "outbox = 1\n",
		on + "outbox = 10000\n",
		on + "keepalive = \"1s\"\n",
		on + "keepalive = \"18h12m15s\"\n",
		"[metrics]\nlisten = \"127.0.0.1:1\"\n",
		"[metrics]\nlisten = \"127.0.0.1:65535\"\n",
	} {
		if _, err := Parse("v.toml", []byte(text)); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

func TestGPIOPulseMessage(t *testing.T) {
	_, err := Parse("p.toml", []byte("# c\n[gpio]\npulse = \"-5ms\"\n"))
	if got, want := err.Error(), `p.toml:3:1: gpio.pulse: invalid value: must be > 0, got "-5ms"`; got != want {
		t.Errorf("error\n got %s\nwant %s", got, want)
	}
}

func TestSeveralInvalidValues(t *testing.T) {
	_, err := Parse("m.toml", []byte("[log]\nlevel = \"x\"\nformat = \"y\"\n"))
	if err == nil {
		t.Fatal("no error")
	}
	for _, k := range []string{"log.level", "log.format"} {
		if !strings.Contains(err.Error(), k) {
			t.Errorf("error %q does not name %s", err, k)
		}
	}
}

// A failed drop-in must not leave half its values behind in the result of a
// later, successful load: each Load starts from Default.
func TestDropInErrorNamesFile(t *testing.T) {
	dir := t.TempDir()
	main := write(t, dir, "setmatchd.toml", "")
	d := write(t, dir, "conf.d/10.toml", "[gpio]\npulse = \"-1s\"\n")
	_, err := Load(main)
	checkErr(t, err, ErrInvalid, d+":2:1: gpio.pulse")
}

// A pin given twice where both keys are set, one in the packaged file
// and one in a drop-in, names both places: the key blamed is the one
// found second, which may be the packaged file's, not the one just edited.
func TestDuplicatePinNamesBothPlaces(t *testing.T) {
	dir := t.TempDir()
	main := write(t, dir, "setmatchd.toml", "[gpio]\nmatch_pin = \"GPIO17\"\nunknown_pin = \"GPIO27\"\n")
	d := write(t, dir, "conf.d/50-site.toml", "# site\n[gpio]\nmatch_pin = \"GPIO27\"\n")
	_, err := Load(main)
	checkErr(t, err, ErrInvalid, main+":3:1: gpio.unknown_pin: ", `pin "GPIO27" is already used by gpio.match_pin (set at `+d+":3:1)")
}

func TestQuotedLabelErrorNamesFile(t *testing.T) {
	_, err := Parse("q.toml", []byte("[gpio.label_pins]\n\"bob smith\" = \"GPIO17\"\n"))
	e := checkErr(t, err, ErrInvalid, `q.toml:2:1: gpio.label_pins."bob smith": `, "already used by gpio.match_pin")
	if e.Line != 2 {
		t.Errorf("line %d, want 2", e.Line)
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Size
	}{
		{"0", 0}, {"65536", 65536}, {"64MiB", 64 << 20}, {"512 KiB", 512 << 10}, {"1.5GB", 1500000000},
		{"2k", 2000}, {"1gib", 1 << 30}, {"7B", 7},
	} {
		got, err := ParseSize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "MiB", "1.5", "12 furlongs", "1e30GiB", "0.5B"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q): no error", in)
		}
	}
	// What the errors say: every unit ParseSize takes, and a size that
	// is no whole number of bytes as that.
	if _, err := ParseSize("12 furlongs"); err == nil || !strings.Contains(err.Error(), "B, KiB, MiB, GiB, TiB, kB, MB, GB") {
		t.Errorf("ParseSize of an unknown unit: %v, want the units listed", err)
	}
	if _, err := ParseSize("0.4B"); err == nil || !strings.Contains(err.Error(), `"0.4B" is 0.4 bytes, not a whole number of them`) {
		t.Errorf("ParseSize(0.4B): %v, want it to say it is no whole number of bytes", err)
	}
	if s := Size(64 << 20).String(); s != "64MiB" {
		t.Errorf("String = %q", s)
	}
	if s := Size(1000).String(); s != "1000B" {
		t.Errorf("String = %q", s)
	}
}

func TestSlogLevel(t *testing.T) {
	for _, l := range []string{"debug", "info", "warn", "error"} {
		if got := (Log{Level: l}).SlogLevel().String(); !strings.EqualFold(got, l) {
			t.Errorf("%s -> %s", l, got)
		}
	}
}

// where returns "line:column" of the first occurrence of sub in text.
func where(t *testing.T, text, sub string) string {
	t.Helper()
	i := strings.Index(text, sub)
	if i < 0 {
		t.Fatalf("%q not in %q", sub, text)
	}
	line := strings.Count(text[:i], "\n") + 1
	col := i - strings.LastIndex(text[:i], "\n")
	return fmt.Sprintf("%d:%d", line, col)
}

func TestInlineTableKeysKeepTheirPlace(t *testing.T) {
	for _, tc := range []struct {
		text, at, key string
		kind          error
	}{
		// Unknown key, invalid value and wrong type inside inline tables.
		{"# pins\ngpio = { backend = \"log\", pusle = \"1s\" }\n", "pusle", "gpio.pusle", ErrUnknownKey},
		{"[gpio]\nlabel_pins = { alice = \"GPIO27\" }\n", "alice", "gpio.label_pins.alice", ErrInvalid},
		{"[gpio]\nlabel_pins = { \"bob smith\" = \"GPIO17\" }\n", `"bob smith"`, `gpio.label_pins."bob smith"`, ErrInvalid},
		{"spool = {\n  dir = \"/s\",\n  max_frames = \"x\" }\n", "max_frames", "spool.max_frames", ErrType},
		{"gpio = { pulse = \"-5ms\" }\n", "pulse", "gpio.pulse", ErrInvalid},
		{"gpio = { pulse = 5 }\n", "pulse", "gpio.pulse", ErrInvalid},
	} {
		_, err := Parse("i.toml", []byte(tc.text))
		want := "i.toml:" + where(t, tc.text, tc.at) + ": " + tc.key + ": "
		checkErr(t, err, tc.kind, want)
	}
}

func TestAllTypeErrorsAtOnce(t *testing.T) {
	text := "model = 3\n[spool]\nmax_frames = \"many\"\nmax_batch_bytes = \"lots\"\n[gpio]\nactive_low = 1\n" +
		"pulse = 500\nlabel_pins = { alice = 22 }\n[decision]\nthreshold = \"low\"\n"
	_, err := Parse("t.toml", []byte(text))
	if err == nil {
		t.Fatal("no error")
	}
	want := []struct {
		at, key string
		kind    error
	}{
		{"model", "model", ErrType},
		{"max_frames", "spool.max_frames", ErrType},
		{"max_batch_bytes", "spool.max_batch_bytes", ErrInvalid},
		{"active_low", "gpio.active_low", ErrType},
		{"pulse", "gpio.pulse", ErrInvalid},
		{"alice", "gpio.label_pins.alice", ErrType},
		{"threshold", "decision.threshold", ErrType},
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d errors, want %d:\n%v", len(lines), len(want), err)
	}
	errs := err.(interface{ Unwrap() []error }).Unwrap()
	for i, w := range want {
		prefix := "t.toml:" + where(t, text, w.at) + ": " + w.key + ": "
		if !strings.HasPrefix(lines[i], prefix) {
			t.Errorf("error %d: %q, want it to begin %q", i+1, lines[i], prefix)
		}
		if !errors.Is(errs[i], w.kind) {
			t.Errorf("error %d: %q does not wrap %v", i+1, lines[i], w.kind)
		}
	}
	// The values of the right type around them do not matter.
	if !strings.Contains(err.Error(), "want an integer, got a string") {
		t.Errorf("messages lost their wording:\n%v", err)
	}
}

func TestAllUnknownKeysAtOnce(t *testing.T) {
	text := "modle = \"x\"\n[gpio]\npusle = \"1s\"\nbackend = \"log\"\n"
	_, err := Parse("u.toml", []byte(text))
	checkErr(t, err, ErrUnknownKey, "u.toml:1:1: modle: ", "u.toml:3:1: gpio.pusle: unknown key (did you mean gpio.pulse?)")
}

func TestKeyPositions(t *testing.T) {
	text := `# a comment with key = "value" and { braces
model = "a # not a comment = {"   # comment
'lit.key' = 'x'
"quoted \" key" = """
multi = "line"
  still [string] """
arr = [ 1, # one
  2, { in = 3 }, "]" ]
spool.dir = 'y'
[gpio . label_pins]
alice = "GPIO22"
[[jobs]]
name = "n"
t = { a = 1, b = { c = "}" }, d = [ { e = 1 } ] }
when = 1979-05-27 07:32:00Z
after = true
`
	got := keyPositions(text)
	want := map[string]position{
		"model":                 {2, 1},
		`"lit.key"`:             {3, 1},
		`"quoted \" key"`:       {4, 1},
		"arr":                   {7, 1},
		"spool.dir":             {9, 1},
		"gpio.label_pins":       {10, 1},
		"gpio.label_pins.alice": {11, 1},
		"jobs":                  {12, 1},
		"jobs.name":             {13, 1},
		"jobs.t":                {14, 1},
		"jobs.t.a":              {14, 7},
		"jobs.t.b":              {14, 14},
		"jobs.t.b.c":            {14, 20},
		"jobs.t.d":              {14, 31},
		"jobs.t.d.e":            {14, 39}, // keys of tables in arrays are found under the array
		"jobs.when":             {15, 1},
		"jobs.after":            {16, 1},
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s at %v (found %v), want %v", k, g, ok, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && k != "arr.in" { // the table inside arr
			t.Errorf("unexpected key %s at %v", k, got[k])
		}
	}
}

// TestDropInsNotSkipped: drop-ins are read whatever characters the
// configuration's path holds, and a conf.d that cannot be listed is an
// error; both were skipped without a word, the site's settings with them
// (a glob of "/srv/door[1]/conf.d/*.toml" matches nothing there).
func TestDropInsNotSkipped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "door[1]*?")
	main := write(t, dir, "setmatchd.toml", "[gpio]\npulse = \"1s\"\n")
	write(t, dir, "conf.d/50-site.toml", "[gpio]\npulse = \"2s\"\n")
	c, err := Load(main)
	if err != nil {
		t.Fatal(err)
	}
	if c.GPIO.Pulse.Duration != 2*time.Second || len(c.Files) != 2 {
		t.Errorf("pulse %v from %v: the drop-in in %s was skipped", c.GPIO.Pulse, c.Files, dir)
	}
	// A conf.d that is not a folder cannot be listed.
	other := t.TempDir()
	main = write(t, other, "setmatchd.toml", "")
	write(t, other, "conf.d", "not a folder")
	if _, err := Load(main); err == nil || !strings.Contains(err.Error(), "setmatchd reads every conf.d/*.toml beside it; let its user read the folder, or remove it") {
		t.Errorf("conf.d a file: %v", err)
	}
	if os.Geteuid() == 0 {
		return // root lists any folder
	}
	d := filepath.Join(dir, "conf.d")
	if err := os.Chmod(d, 0o300); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(d, 0o755)
	if _, err := Load(filepath.Join(dir, "setmatchd.toml")); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("conf.d unreadable: %v", err)
	}
}
