package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"setmatch/internal/regfile"
)

// MaxSecretBytes bounds what is read of mqtt.password_file and mqtt.ca_file:
// far more than a password or a bundle of certificates.
const MaxSecretBytes = 1 << 20

// MaxKeepAlive is the longest mqtt.keepalive, and the longest keepalive
// device/mqtt sends: MQTT carries it in 16 bits of seconds.
const MaxKeepAlive = 65535 * time.Second

// MaxOutbox is the most decisions mqtt.outbox may hold in memory while
// the broker is away: about 10 MiB of journal lines, and the ring of that
// many the publisher makes at start.
const MaxOutbox = 10000

// MQTT publishes every decision to an MQTT broker; it is off while Broker
// is empty. device/mqtt implements it.
type MQTT struct {
	// Broker is the broker's URL: "tcp://host:1883" (or "mqtt://"),
	// "ssl://host:8883" (or "tls://", "mqtts://"), "ws://…", "wss://…";
	// "" = MQTT off.
	Broker string `toml:"broker"`
	// Topic is the prefix of the topics published: <topic>/decision,
	// <topic>/state, <topic>/availability.
	Topic string `toml:"topic"`
	// ClientID identifies this daemon to the broker; "" = "setmatchd-"
	// followed by the host name. Two clients with one id push each other
	// off the broker.
	ClientID string `toml:"client_id"`
	// Username for the broker; "" = none.
	Username string `toml:"username"`
	// PasswordFile holds the password (one line; a final newline is
	// ignored), e.g. a systemd credential; "" = no password.
	PasswordFile string `toml:"password_file"`
	// CAFile holds the PEM certificates that the broker's certificate must
	// chain to; "" = the system's roots.
	CAFile string `toml:"ca_file"`
	// CertFile and KeyFile are a PEM client certificate and its key, for
	// brokers that want one; both or neither.
	CertFile string `toml:"cert_file"`
	KeyFile  string `toml:"key_file"`
	// Outbox is the number of decisions held while the broker cannot be
	// reached; when it is full the oldest is dropped (and counted).
	Outbox int `toml:"outbox"`
	// KeepAlive is the MQTT keepalive: a broker that stays silent for
	// about this long is taken as gone, and the broker publishes the
	// "offline" last will about 1.5 times this after the daemon vanished.
	KeepAlive Duration `toml:"keepalive"`
	// DiscoveryPrefix is the Home Assistant MQTT discovery prefix; ""
	// turns discovery off.
	DiscoveryPrefix string `toml:"discovery_prefix"`
}

// Enabled reports whether decisions are published over MQTT.
func (m MQTT) Enabled() bool { return strings.TrimSpace(m.Broker) != "" }

func defaultMQTT() MQTT {
	return MQTT{Outbox: 1000, KeepAlive: Duration{30 * time.Second}, DiscoveryPrefix: "homeassistant"}
}

// brokerSchemes are the URL schemes of the MQTT client library.
var brokerSchemes = []string{"tcp", "mqtt", "ssl", "tls", "mqtts", "ws", "wss"}

// TLSScheme reports whether the broker URL's scheme uses TLS.
func (m MQTT) TLSScheme() bool {
	u, err := url.Parse(m.Broker)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "ssl", "tls", "mqtts", "wss":
		return true
	}
	return false
}

func (m MQTT) problems(bad func(key, format string, a ...any)) {
	if m.Outbox < 1 || m.Outbox > MaxOutbox {
		bad("mqtt.outbox", "must be from 1 to %d (each decision waiting takes about 1 KiB of memory; the journal keeps every one), got %d", MaxOutbox, m.Outbox)
	}
	if m.KeepAlive.Duration < time.Second || m.KeepAlive.Duration > MaxKeepAlive {
		bad("mqtt.keepalive", "must be from 1s to %v (MQTT counts it in 16 bits of seconds), got %q", MaxKeepAlive, m.KeepAlive.String())
	}
	if p := m.DiscoveryPrefix; p != "" && (strings.ContainsAny(p, "+#\x00") || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.HasPrefix(p, "$")) {
		bad("mqtt.discovery_prefix", "must be a topic without wildcards (+, #), a leading $ or a leading or trailing /, such as \"homeassistant\", or \"\" for no discovery; got %q", p)
	}
	if !m.Enabled() {
		return
	}
	u, err := url.Parse(m.Broker)
	switch {
	case !strings.Contains(m.Broker, "://"):
		example := m.Broker
		if !strings.Contains(example, ":") {
			example += ":1883"
		}
		bad("mqtt.broker", "want a URL with a scheme and a port, such as \"tcp://%s\" (or \"ssl://…:8883\" for TLS), got %q", example, m.Broker)
	case err != nil:
		bad("mqtt.broker", "want a URL such as \"tcp://192.168.1.10:1883\" or \"ssl://broker.example:8883\", got %q (%v)", m.Broker, err)
	case !slices.Contains(brokerSchemes, u.Scheme):
		bad("mqtt.broker", "scheme must be %s, got %q (in %q)", quoteList(brokerSchemes), u.Scheme, m.Broker)
	case u.Hostname() == "":
		bad("mqtt.broker", "names no host: want a URL such as \"tcp://192.168.1.10:1883\", got %q", m.Broker)
	case u.Port() == "" && !strings.HasPrefix(u.Scheme, "ws"):
		bad("mqtt.broker", "names no port: add one, such as %s://%s:%d", u.Scheme, u.Hostname(), map[bool]int{false: 1883, true: 8883}[m.TLSScheme()])
	case u.User != nil:
		bad("mqtt.broker", "must not hold a user name or password: use mqtt.username and mqtt.password_file")
	}
	t := m.Topic
	switch {
	case strings.TrimSpace(t) == "":
		bad("mqtt.broker", "needs mqtt.topic too, e.g. \"setmatch/frontdoor\" (decisions go to <topic>/decision)")
	case strings.ContainsAny(t, "+#\x00"):
		bad("mqtt.topic", "must not hold the wildcards + or #, got %q", t)
	case strings.HasPrefix(t, "/") || strings.HasSuffix(t, "/") || strings.Contains(t, "//"):
		bad("mqtt.topic", "must not start or end with / or hold an empty level, got %q", t)
	case strings.HasPrefix(t, "$"):
		bad("mqtt.topic", "must not start with $, got %q: such topics are the broker's own ($SYS), which it acknowledges and drops, and a subscription to # does not see them", t)
	}
	if strings.ContainsAny(m.ClientID, "+#/\x00") {
		bad("mqtt.client_id", "must not hold +, #, / or NUL, got %q", m.ClientID)
	}
	// What a broker closes the connection for (mosquitto does): control
	// characters and non-characters in a string of the protocol, or one
	// longer than its 16-bit length. The topic is sent as
	// <topic>/availability, the discovery prefix as
	// <prefix>/sensor/<client id>/decision/config.
	id := len(m.ClientID)
	if id == 0 {
		id = len("setmatchd-") + 64 // and the host name
	}
	for _, k := range []struct {
		key, value string
		extra      int
	}{
		{"mqtt.topic", t, len("/availability")},
		{"mqtt.discovery_prefix", m.DiscoveryPrefix, len("/sensor/") + id + len("/decision/config")},
		{"mqtt.client_id", m.ClientID, 0},
		{"mqtt.username", m.Username, 0},
	} {
		if why := mqttString(k.value, k.extra); why != "" {
			bad(k.key, "%s, got %q: MQTT brokers close the connection of a client that sends one", why, k.value)
		}
	}
	if m.PasswordFile != "" {
		if m.Username == "" {
			bad("mqtt.password_file", "is set but mqtt.username is not: the broker needs both")
		}
		if b, err := regfile.ReadFile(m.PasswordFile, MaxSecretBytes); err != nil {
			hint := ""
			if strings.HasPrefix(m.PasswordFile, "/run/credentials/") {
				hint = " (a systemd credential exists only while the service runs: check with the file it is loaded from)"
			}
			bad("mqtt.password_file", "cannot read the password: %v%s", err, hint)
		} else if pw := strings.TrimRight(string(b), "\r\n"); pw == "" {
			bad("mqtt.password_file", "%s is empty", m.PasswordFile)
		} else if len(pw) > mqttMaxString {
			bad("mqtt.password_file", "%s holds %d bytes, at most %d fit in MQTT: is it the password file?", m.PasswordFile, len(pw), mqttMaxString)
		}
	}
	readable := func(key, path string) {
		if path == "" {
			return
		}
		if f, _, err := regfile.Open(path); err != nil {
			bad(key, "%v", err)
		} else {
			f.Close()
		}
	}
	readable("mqtt.ca_file", m.CAFile)
	readable("mqtt.cert_file", m.CertFile)
	readable("mqtt.key_file", m.KeyFile)
	if (m.CertFile == "") != (m.KeyFile == "") {
		bad("mqtt.cert_file", "mqtt.cert_file and mqtt.key_file go together: set both or neither")
	}
	if !m.TLSScheme() && (m.CAFile != "" || m.CertFile != "") {
		bad("mqtt.broker", "ca_file or cert_file is set but %q does not use TLS: use ssl://, tls://, mqtts:// or wss://", m.Broker)
	}
}

// mqttMaxString is the longest string MQTT sends: its length is 16 bits.
const mqttMaxString = 65535

// mqttString says what makes s a string MQTT brokers refuse, sent with
// extra bytes more, or "": a control character (U+0001 to U+001F, U+007F
// to U+009F; NUL is refused before), a non-character (U+FDD0 to U+FDEF,
// U+FFFE, U+FFFF and their like in every plane), or more bytes than
// MQTT's 16-bit length holds.
func mqttString(s string, extra int) string {
	for _, r := range s {
		switch {
		case r > 0 && r < 0x20 || r >= 0x7f && r <= 0x9f:
			return fmt.Sprintf("must not hold the control character %U", r)
		case r >= 0xfdd0 && r <= 0xfdef || r&0xfffe == 0xfffe:
			return fmt.Sprintf("must not hold the non-character %U", r)
		}
	}
	if len(s)+extra > mqttMaxString {
		return fmt.Sprintf("is %d bytes long, at most %d fit in MQTT", len(s), mqttMaxString-extra)
	}
	return ""
}

// summary is one line for Config.String.
func (m MQTT) summary() string {
	if !m.Enabled() {
		return "mqtt:     off\n"
	}
	user := ""
	if m.Username != "" {
		user = " as " + m.Username
	}
	disc := "off"
	if m.DiscoveryPrefix != "" {
		disc = m.DiscoveryPrefix
	}
	return fmt.Sprintf("mqtt:     %s%s topic %s (outbox %d, keepalive %v, discovery %s)\n",
		m.Broker, user, m.Topic, m.Outbox, m.KeepAlive, disc)
}
