package mqtt

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"slices"
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
	o.Files = Files{}
	read := func(key, path string) ([]byte, error) {
		b, err := regfile.ReadFile(path, config.MaxSecretBytes)
		if err != nil {
			return nil, fmt.Errorf("mqtt.%s: %w", key, err)
		}
		o.Files[key] = fileSum{path, sha256.Sum256(b)}
		return b, nil
	}
	if c.PasswordFile != "" {
		b, err := read("password_file", c.PasswordFile)
		if err != nil {
			return o, err
		}
		o.Password = strings.TrimRight(string(b), "\r\n")
		if o.Password == "" {
			return o, fmt.Errorf("mqtt.password_file: %s is empty", c.PasswordFile)
		}
	}
	if c.TLSScheme() {
		t, err := tlsConfig(c, read)
		if err != nil {
			return o, err
		}
		o.TLS = t
	}
	return o, nil
}

// tlsConfig makes the TLS configuration of c, its files read by read
// (by configuration key and path).
func tlsConfig(c config.MQTT, read func(key, path string) ([]byte, error)) (*tls.Config, error) {
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.CAFile != "" {
		pem, err := read("ca_file", c.CAFile)
		if err != nil {
			return nil, err
		}
		t.RootCAs = x509.NewCertPool()
		if !t.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("mqtt.ca_file: %s holds no PEM certificate", c.CAFile)
		}
	}
	if c.CertFile != "" {
		certPEM, err := read("cert_file", c.CertFile)
		if err != nil {
			return nil, err
		}
		keyPEM, err := read("key_file", c.KeyFile)
		if err != nil {
			return nil, err
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
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

// Files records what the files FromConfig read held (the password, the
// CA's certificates, the client's certificate and key), by configuration
// key: a reload compares them (Changed) to tell a file rewritten in
// place, as a rotated password or certificate is, which the publisher
// does not read again until a restart.
type Files map[string]fileSum

// fileSum is a file's path and the SHA-256 of what it held.
type fileSum struct {
	path string
	sum  [sha256.Size]byte
}

// Changed returns, sorted, the keys of c that name the file f read and
// that now holds other bytes or cannot be read; a key that names another
// file is config.ReloadOver's to report.
func (f Files) Changed(c config.MQTT) []string {
	named := map[string]string{"password_file": c.PasswordFile, "ca_file": c.CAFile, "cert_file": c.CertFile, "key_file": c.KeyFile}
	var keys []string
	for key, was := range f {
		if named[key] != was.path {
			continue
		}
		if b, err := regfile.ReadFile(was.path, config.MaxSecretBytes); err != nil || sha256.Sum256(b) != was.sum {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	return keys
}
