package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds are valid and nearly valid configurations: the example the
// package installs, and the shapes the tests use.
func fuzzSeeds(f *testing.F) []string {
	seeds := []string{
		"",
		"model = \"m.smm\"\n",
		"[gpio]\nbackend = \"log\"\npulse = \"1s\"\nlabel_pins = { alice = \"GPIO22\" }\n",
		"[gpio]\npulse = \"100ms\"\nlabel_pins.bob = \"GPIO23\"\n[log]\nlevel = \"warn\"\n",
		"[spool]\ndir = \"/var/spool/setmatch\"\nmax_file_bytes = \"64MiB\"\nkeep_done = 100\n",
		"[decision]\nthreshold = inf\n",
		"[mqtt]\nbroker = \"tcp://localhost:1883\"\ntopic = \"setmatch\"\n",
		"a = [[[[[[1]]]]]]\n",
		"x.y.z.w = 1\n",
		"[gpio]\npulse = 3\n",
		"'quoted key' = \"v\"\n[\"gpio\"]\n",
	}
	if b, err := os.ReadFile("setmatchd.example.toml"); err == nil {
		seeds = append(seeds, string(b))
	} else {
		f.Fatal(err)
	}
	return seeds
}

// checkConfigResult checks what loading text gave: an error that says
// something and points inside the text, or a configuration that validates
// again and prints.
func checkConfigResult(t *testing.T, text string, c *Config, err error) {
	t.Helper()
	if err != nil {
		if c != nil {
			t.Fatal("configuration and error both returned")
		}
		if strings.TrimSpace(err.Error()) == "" {
			t.Fatal("empty error")
		}
		if !utf8.ValidString(err.Error()) {
			t.Fatalf("error is not valid UTF-8: %q", err.Error())
		}
		var e *Error
		if errors.As(err, &e) && e.Line > strings.Count(text, "\n")+1 {
			t.Fatalf("error at line %d of a %d-line text: %v", e.Line, strings.Count(text, "\n")+1, err)
		}
		return
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("loaded configuration does not validate: %v", err)
	}
	_ = c.String()
	c.ReloadOver(c)
	d := Default()
	c.ReloadOver(&d)
}

// FuzzParse: any bytes given as a configuration file are loaded or refused
// with an error, never a panic, and what loads validates.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("/etc/setmatch/setmatchd.toml", data)
		checkConfigResult(t, string(data), c, err)
	})
}

// FuzzLoadDropIns: a main file and a drop-in read from a folder, as
// setmatchd reads them, load or are refused without a panic.
func FuzzLoadDropIns(f *testing.F) {
	seeds := fuzzSeeds(f)
	for i, s := range seeds {
		f.Add([]byte(s), []byte(seeds[(i+1)%len(seeds)]))
	}
	f.Fuzz(func(t *testing.T, main, dropin []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "setmatchd.toml")
		if err := os.WriteFile(p, main, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(dir, "conf.d"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "conf.d", "10-x.toml"), dropin, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(p)
		if err != nil {
			if c != nil || strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("config %v with error %q", c, err)
			}
			return
		}
		checkConfigResult(t, string(main), c, nil)
	})
}

// FuzzParseSize: a size is read or refused, and one read is written by
// String as text that reads to the same number of bytes.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"65536", "64MiB", "512 KiB", "1.5GB", "0", "-1", "1e30", "4EiB", "1.5.5", "+3kb", "NaN", "Inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSize(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		back, err := ParseSize(v.String())
		if err != nil {
			t.Fatalf("ParseSize(%q) = %d, whose String %q does not parse: %v", s, int64(v), v.String(), err)
		}
		if back != v {
			t.Fatalf("ParseSize(%q) = %d, whose String %q reads as %d", s, int64(v), v.String(), int64(back))
		}
	})
}
