package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

// TestFIFOsAreRefused: a FIFO as the configuration file, a drop-in or
// mqtt.password_file is refused at once as not a regular file; the open
// waited for a writer forever (setmatchd -check hung).
func TestFIFOsAreRefused(t *testing.T) {
	dir := t.TempDir()
	main := testutil.FIFO(t, dir, "fifo.toml")
	var err error
	testutil.Within(t, 10*time.Second, "Load of a FIFO", func() { _, err = Load(main) })
	if err == nil || !strings.Contains(err.Error(), "is not a regular file (it is a FIFO)") || !strings.Contains(err.Error(), main) {
		t.Errorf("Load(FIFO) = %v, want %s is not a regular file", err, main)
	}

	main = write(t, dir, "s.toml", "")
	write(t, dir, "conf.d/10.toml", "")
	dropin := testutil.FIFO(t, dir, "conf.d/50.toml")
	testutil.Within(t, 10*time.Second, "Load with a FIFO drop-in", func() { _, err = Load(main) })
	if err == nil || !strings.Contains(err.Error(), dropin+": is not a regular file") {
		t.Errorf("Load(FIFO drop-in) = %v, want %s is not a regular file", err, dropin)
	}

	pw := testutil.FIFO(t, dir, "pw")
	ca := testutil.FIFO(t, dir, "ca.pem")
	text := "[mqtt]\nbroker = \"ssl://127.0.0.1:8883\"\ntopic = \"s\"\nusername = \"u\"\npassword_file = \"" + pw + "\"\nca_file = \"" + ca + "\"\n"
	testutil.Within(t, 10*time.Second, "Parse with a FIFO password file", func() { _, err = Parse(filepath.Join(dir, "v.toml"), []byte(text)) })
	for _, want := range []string{"mqtt.password_file: invalid value: cannot read the password: open " + pw + ": is not a regular file", "mqtt.ca_file: invalid value: open " + ca + ": is not a regular file"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse = %v, want %q", err, want)
		}
	}
}
