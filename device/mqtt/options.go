package mqtt

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"setmatch/config"
	"setmatch/internal/regfile"
)

// FromConfig makes Options from the [mqtt] section: it reads the password
// file and the TLS files, and names the client "setmatchd-<host name>"
// when client_id is empty. version is shown in Home Assistant.
func FromConfig(c config.MQTT, version string, log *slog.Logger) (Options, error) {
	o := Options{
		Broker:          c.Broker,
		Topic:           c.Topic,
		ClientID:        c.ClientID,
		Username:        c.Username,
		KeepAlive:       c.KeepAlive.Duration,
		Outbox:          c.Outbox,
		DiscoveryPrefix: c.DiscoveryPrefix,
		Version:         version,
		Logger:          log,
	}
	if o.ClientID == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "unknown"
		}
		o.ClientID = "setmatchd-" + host
	}
	if c.PasswordFile != "" {
		b, err := regfile.ReadFile(c.PasswordFile, config.MaxSecretBytes)
		if err != nil {
			return o, fmt.Errorf("mqtt.password_file: %w", err)
		}
		o.Password = strings.TrimRight(string(b), "\r\n")
		if o.Password == "" {
			return o, fmt.Errorf("mqtt.password_file: %s is empty", c.PasswordFile)
		}
	}
	if c.TLSScheme() {
		t, err := tlsConfig(c)
		if err != nil {
			return o, err
		}
		o.TLS = t
	}
	return o, nil
}

func tlsConfig(c config.MQTT) (*tls.Config, error) {
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.CAFile != "" {
		pem, err := regfile.ReadFile(c.CAFile, config.MaxSecretBytes)
		if err != nil {
			return nil, fmt.Errorf("mqtt.ca_file: %w", err)
		}
		t.RootCAs = x509.NewCertPool()
		if !t.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("mqtt.ca_file: %s holds no PEM certificate", c.CAFile)
		}
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("mqtt.cert_file, mqtt.key_file: %w", err)
		}
		t.Certificates = []tls.Certificate{cert}
	}
	return t, nil
}

// Describe says in one line what the broker and Home Assistant will know
// this publisher as: its client id and, with discovery, the discovery
// topic of its sensor (setmatchd -check).
func (o Options) Describe() string {
	if o.DiscoveryPrefix == "" {
		return "client id " + o.ClientID + " (no Home Assistant discovery)"
	}
	return "client id " + o.ClientID + ", Home Assistant discovery on " + discoveryTopic(o.DiscoveryPrefix, o.ClientID)
}
