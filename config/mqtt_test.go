package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMQTTAndMetricsOffByDefault(t *testing.T) {
	c := Default()
	if c.MQTT.Enabled() || c.Metrics.Enabled() {
		t.Errorf("default: mqtt enabled %v, metrics enabled %v; want both off", c.MQTT.Enabled(), c.Metrics.Enabled())
	}
	s := c.String()
	if !strings.Contains(s, "mqtt:     off") || !strings.Contains(s, "metrics:  off") {
		t.Errorf("String() does not say mqtt and metrics are off:\n%s", s)
	}
}

func TestMQTTValues(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "secret/pw", "hunter2\n")
	write(t, dir, "ca.pem", "-")
	p := write(t, dir, "m.toml", `[mqtt]
broker = "ssl://broker.example:8883"
topic = "site/door"
client_id = "pi-door"
username = "door"
password_file = "secret/pw"
ca_file = "ca.pem"
outbox = 50
keepalive = "10s"
discovery_prefix = ""
[metrics]
listen = "127.0.0.1:9469"
`)
	c, err := LoadFiles(p)
	if err != nil {
		t.Fatal(err)
	}
	m := c.MQTT
	if !m.Enabled() || !m.TLSScheme() || m.Topic != "site/door" || m.ClientID != "pi-door" || m.Username != "door" ||
		m.Outbox != 50 || m.KeepAlive.Duration != 10*time.Second || m.DiscoveryPrefix != "" {
		t.Errorf("mqtt = %+v", m)
	}
	// Relative paths are taken relative to the file that sets them.
	if want := filepath.Join(dir, "secret", "pw"); m.PasswordFile != want {
		t.Errorf("password_file = %q, want %q", m.PasswordFile, want)
	}
	if want := filepath.Join(dir, "ca.pem"); m.CAFile != want {
		t.Errorf("ca_file = %q, want %q", m.CAFile, want)
	}
	if !c.Metrics.Enabled() || c.Metrics.Listen != "127.0.0.1:9469" {
		t.Errorf("metrics = %+v", c.Metrics)
	}
	s := c.String()
	for _, w := range []string{"mqtt:     ssl://broker.example:8883 as door topic site/door", "discovery off", "metrics:  http://127.0.0.1:9469/metrics"} {
		if !strings.Contains(s, w) {
			t.Errorf("String() lacks %q:\n%s", w, s)
		}
	}
}

func TestMQTTInvalidValues(t *testing.T) {
	dir := t.TempDir()
	empty := write(t, dir, "empty", "\n")
	on := "[mqtt]\nbroker = \"tcp://127.0.0.1:1883\"\ntopic = \"s\"\n"
	for _, tc := range []struct {
		text string
		key  string
		want string
	}{
		{"[mqtt]\nbroker = \"http://h:1883\"\ntopic = \"s\"\n", "mqtt.broker", `scheme must be "tcp", "mqtt", "ssl", "tls", "mqtts", "ws" or "wss", got "http"`},
		{"[mqtt]\nbroker = \"127.0.0.1:1883\"\ntopic = \"s\"\n", "mqtt.broker", `want a URL with a scheme and a port, such as "tcp://127.0.0.1:1883"`},
		{"[mqtt]\nbroker = \"127.0.0.1\"\ntopic = \"s\"\n", "mqtt.broker", `such as "tcp://127.0.0.1:1883"`},
		{"[mqtt]\nbroker = \"tcp://h\"\ntopic = \"s\"\n", "mqtt.broker", "names no port: add one, such as tcp://h:1883"},
		{"[mqtt]\nbroker = \"ssl://h\"\ntopic = \"s\"\n", "mqtt.broker", "such as ssl://h:8883"},
		{"[mqtt]\nbroker = \"tcp://:1883\"\ntopic = \"s\"\n", "mqtt.broker", "names no host"},
		{"[mqtt]\nbroker = \"tcp://u:p@h:1883\"\ntopic = \"s\"\n", "mqtt.broker", "use mqtt.username and mqtt.password_file"},
		{"[mqtt]\nbroker = \"tcp://h:1883\"\n", "mqtt.broker", "needs mqtt.topic too"},
		{"[mqtt]\nbroker = \"tcp://h:1883\"\ntopic = \"a/#\"\n", "mqtt.topic", "wildcards"},
		{"[mqtt]\nbroker = \"tcp://h:1883\"\ntopic = \"a/\"\n", "mqtt.topic", "must not start or end with /"},
		{on + "client_id = \"a/b\"\n", "mqtt.client_id", "must not hold"},
		{on + "username = \"u\"\npassword_file = \"nonexistent\"\n", "mqtt.password_file", "cannot read the password: open " + filepath.Join(dir, "nonexistent") + ": no such file"},
		{on + "username = \"u\"\npassword_file = \"/run/credentials/setmatchd.service/pw\"\n", "mqtt.password_file", "a systemd credential exists only while the service runs"},
		{on + "username = \"u\"\npassword_file = \"" + empty + "\"\n", "mqtt.password_file", "is empty"},
		{on + "password_file = \"" + empty + "\"\n", "mqtt.password_file", "mqtt.username is not"},
		{on + "ca_file = \"nope.pem\"\n", "mqtt.ca_file", "no such file"},
		{"[mqtt]\nbroker = \"ssl://h:8883\"\ntopic = \"s\"\ncert_file = \"" + empty + "\"\n", "mqtt.cert_file", "set both or neither"},
		// A certificate given for a broker without TLS would go unused:
		// the daemon would talk in clear to a broker the user meant to
		// authenticate.
		{on + "ca_file = \"" + empty + "\"\n", "mqtt.broker", "does not use TLS"},
		{on + "cert_file = \"" + empty + "\"\nkey_file = \"" + empty + "\"\n", "mqtt.broker", "does not use TLS"},
		{on + "outbox = 0\n", "mqtt.outbox", "must be from 1 to 10000"},
		// The publisher makes its ring of this many at start: a billion
		// took 32 GB and a 4 GB Pi's daemon died at start with Go's "fatal
		// error: out of memory"; and a full outbox holds as many journal
		// lines.
		{on + "outbox = 1000000000\n", "mqtt.outbox", "must be from 1 to 10000 (each decision waiting takes about 1 KiB of memory"},
		{on + "keepalive = \"500ms\"\n", "mqtt.keepalive", "must be from 1s to 18h12m15s"},
		// Sent cut to 16 bits: 24h as 5h47m44s, 65536 s as 0 (none).
		{on + "keepalive = \"24h\"\n", "mqtt.keepalive", "must be from 1s to 18h12m15s (MQTT counts it in 16 bits of seconds)"},
		{on + "discovery_prefix = \"ha/\"\n", "mqtt.discovery_prefix", "trailing /"},
		{"[metrics]\nlisten = \"9469\"\n", "metrics.listen", `want host:port such as "127.0.0.1:9469"`},
		{"[metrics]\nlisten = \"127.0.0.1:http\"\n", "metrics.listen", "port must be a number"},
		{"[metrics]\nlisten = \"127.0.0.1:70000\"\n", "metrics.listen", "port must be a number from 1 to 65535"},
		// Port 0 would listen on a port the kernel picks, which no scraper
		// knows.
		{"[metrics]\nlisten = \"127.0.0.1:0\"\n", "metrics.listen", "port must be a number from 1 to 65535"},
	} {
		_, err := Parse(filepath.Join(dir, "v.toml"), []byte(tc.text))
		e := checkErr(t, err, ErrInvalid, tc.key+": ", tc.want)
		if e.Key != tc.key {
			t.Errorf("%q: got key %q, want %q", tc.text, e.Key, tc.key)
		}
	}
}

// TestMQTTOffSkipsChecks: with no broker, the other keys are not checked
// against the files they name.
func TestMQTTOffSkipsChecks(t *testing.T) {
	if _, err := Parse("v.toml", []byte("[mqtt]\nusername = \"u\"\npassword_file = \"/nonexistent\"\n")); err != nil {
		t.Errorf("mqtt off: %v", err)
	}
}

// TestMQTTStringsBrokersRefuse: a topic, discovery prefix, client id or
// user name with a control character or a non-character, or too long for
// MQTT's 16-bit string length, is refused here with what is wrong, where
// the broker (mosquitto: "Malformed UTF-8") closed every connection and
// the daemon retried for ever without saying why. Text beyond ASCII is
// fine.
func TestMQTTStringsBrokersRefuse(t *testing.T) {
	dir := t.TempDir()
	on := "[mqtt]\nbroker = \"tcp://127.0.0.1:1883\"\n"
	long := strings.Repeat("x", 65530)
	pw := write(t, dir, "pw", strings.Repeat("p", 70000)+"\n")
	for _, tc := range []struct {
		text string
		key  string
		want string
	}{
		{on + "topic = \"front\\tdoor\"\n", "mqtt.topic", "must not hold the control character U+0009"},
		// mosquitto acknowledges a publish to $SYS/… and drops it.
		{on + "topic = \"$SYS/setmatch\"\n", "mqtt.topic", "must not start with $"},
		{on + "topic = \"s\"\ndiscovery_prefix = \"$ha\"\n", "mqtt.discovery_prefix", "a leading $"},
		{on + "topic = \"a/\\u0085\"\n", "mqtt.topic", "control character U+0085"},
		{on + "topic = \"a/\\uFFFF\"\n", "mqtt.topic", "non-character U+FFFF"},
		{on + "topic = \"a/\\uFDD0\"\n", "mqtt.topic", "non-character U+FDD0"},
		{on + "topic = \"" + long + "\"\n", "mqtt.topic", "is 65530 bytes long, at most 65522 fit in MQTT"},
		{on + "topic = \"s\"\nclient_id = \"door\\u007f\"\n", "mqtt.client_id", "control character U+007F"},
		{on + "topic = \"s\"\nusername = \"us\\ter\"\n", "mqtt.username", "control character U+0009"},
		{on + "topic = \"s\"\ndiscovery_prefix = \"ha\\u0001\"\n", "mqtt.discovery_prefix", "control character U+0001"},
		{on + "topic = \"s\"\nclient_id = \"c\"\ndiscovery_prefix = \"" + long + "\"\n", "mqtt.discovery_prefix", "at most 65510 fit"},
		{on + "topic = \"s\"\nusername = \"u\"\npassword_file = \"" + pw + "\"\n", "mqtt.password_file", "holds 70000 bytes, at most 65535 fit in MQTT"},
	} {
		_, err := Parse(filepath.Join(dir, "v.toml"), []byte(tc.text))
		e := checkErr(t, err, ErrInvalid, tc.key+": ", tc.want)
		if e.Key != tc.key {
			t.Errorf("%.60q: got key %q, want %q", tc.text, e.Key, tc.key)
		}
	}
	if _, err := Parse(filepath.Join(dir, "v.toml"), []byte(on+"topic = \"maison/entrée/😀 porte\"\nclient_id = \"porte-d'entrée\"\nusername = \"jürgen\"\n")); err != nil {
		t.Errorf("text beyond ASCII: %v", err)
	}
}
