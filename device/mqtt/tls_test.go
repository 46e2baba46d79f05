package mqtt

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/config"
	"setmatch/device/mqtt/mqtttest"
	"setmatch/internal/testutil"
)

// pki is a test certificate authority with a server certificate for
// 127.0.0.1 and a client certificate, written as PEM files.
type pki struct {
	pool                      *x509.CertPool
	server                    tls.Certificate
	caFile, certFile, keyFile string // the client's files, as mqtt.ca_file, cert_file, key_file
	otherCAFile               string // a CA that signed neither
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	dir := t.TempDir()
	ca, caKey := newCert(t, "setmatch test CA", nil, nil, nil)
	other, _ := newCert(t, "another CA", nil, nil, nil)
	srv, srvKey := newCert(t, "broker", []net.IP{net.IPv4(127, 0, 0, 1)}, ca, caKey)
	cli, cliKey := newCert(t, "setmatchd", nil, ca, caKey)
	p := &pki{pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	p.server = tls.Certificate{Certificate: [][]byte{srv.Raw}, PrivateKey: srvKey}
	write := func(name, kind string, der []byte) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	keyDER, err := x509.MarshalECPrivateKey(cliKey)
	if err != nil {
		t.Fatal(err)
	}
	p.caFile = write("ca.pem", "CERTIFICATE", ca.Raw)
	p.otherCAFile = write("other-ca.pem", "CERTIFICATE", other.Raw)
	p.certFile = write("client.pem", "CERTIFICATE", cli.Raw)
	p.keyFile = write("client.key", "EC PRIVATE KEY", keyDER)
	return p
}

// newCert makes a certificate for name (a CA when parent is nil, else
// signed by parent with parentKey, for the IP addresses ips).
func newCert(t *testing.T, name string, ips []net.IP, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  ips,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	signer, signKey := tmpl, key
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	} else {
		signer, signKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c, key
}

// TestTLS: decisions reach a broker over TLS with the CA and client
// certificate files of the [mqtt] section (FromConfig), and a broker the
// configured CA did not sign, or that wants a client certificate it is not
// given, is reported with what to check, without blocking Publish.
func TestTLS(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b := mqtttest.New(ctx, t, false)
	p := newPKI(t)
	// The broker's TLS end wants a client certificate signed by the CA.
	gate := mqtttest.NewTLSGate(t, b.Addr, &tls.Config{
		Certificates: []tls.Certificate{p.server},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    p.pool,
		MinVersion:   tls.VersionTLS12,
	})
	start := func(t *testing.T, caFile, certFile, keyFile string) (*Publisher, string, *testutil.LockedBuffer) {
		t.Helper()
		topic := uniqueTopic(t)
		c := config.Default().MQTT
		c.Broker, c.Topic, c.ClientID = gate.URL(), topic, strings.ReplaceAll(topic, "/", "-")
		c.CAFile, c.CertFile, c.KeyFile = caFile, certFile, keyFile
		log := new(testutil.LockedBuffer)
		o, err := FromConfig(c, "0.1.0", slog.New(slog.NewTextHandler(log, nil)))
		if err != nil {
			t.Fatal(err)
		}
		o.ConnectTimeout, o.MinBackoff, o.MaxBackoff, o.Outbox = 2*time.Second, 20*time.Millisecond, 200*time.Millisecond, 10
		pub, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		return pub, topic, log
	}

	t.Run("delivered", func(t *testing.T) {
		pub, topic, _ := start(t, p.caFile, p.certFile, p.keyFile)
		sub := subscribe(ctx, t, b.URL, "", "", topic+"/decision")
		pub.Publish(payload(1))
		testutil.WaitForCtx(t, ctx, "the decision arrived over TLS", func() bool { return len(sub.On(topic+"/decision")) == 1 })
		if err := pub.Close(ctx); err != nil {
			t.Error(err)
		}
		if pub.LastError() != nil {
			t.Errorf("LastError = %v", pub.LastError())
		}
	})
	t.Run("wrong CA", func(t *testing.T) {
		pub, _, log := start(t, p.otherCAFile, p.certFile, p.keyFile)
		testutil.WaitForCtx(t, ctx, "the failed TLS handshake was reported", func() bool { return pub.LastError() != nil })
		if e := pub.LastError().Error(); !strings.Contains(e, "TLS with the broker failed") || !strings.Contains(e, "check mqtt.ca_file") {
			t.Errorf("LastError = %q, want it to say TLS failed and what to check", e)
		}
		if !strings.Contains(log.String(), "level=ERROR") {
			t.Errorf("not logged as an error:\n%s", log)
		}
		pub.Publish(payload(2)) // queued, never blocks
		if pub.Connected() || pub.OutboxLen() != 1 {
			t.Errorf("connected %v, outbox %d", pub.Connected(), pub.OutboxLen())
		}
		cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
		defer ccancel()
		pub.Close(cctx)
	})
	t.Run("no client certificate", func(t *testing.T) {
		pub, _, _ := start(t, p.caFile, "", "")
		testutil.WaitForCtx(t, ctx, "the refused connection was reported", func() bool { return pub.LastError() != nil })
		if e := pub.LastError().Error(); !strings.Contains(e, "refused the TLS connection") || !strings.Contains(e, "check mqtt.cert_file") {
			t.Errorf("LastError = %q, want it to say the broker refused TLS and what to check", e)
		}
		if pub.Connected() {
			t.Error("connected without the client certificate the broker requires")
		}
		cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
		defer ccancel()
		pub.Close(cctx)
	})
}
