package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/net/netutil"
)

// Handler serves the metrics in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		// One scrape at a time is plenty for a Pi; more wait or get 503.
		MaxRequestsInFlight: 2,
		Timeout:             10 * time.Second,
	})
}

// readHeaderTimeout is how long a connection may take to send a request's
// headers: a client that connects and sends nothing would otherwise hold
// one of the MaxConns connections for good. A variable for the tests.
var readHeaderTimeout = 5 * time.Second

// MaxConns is the most connections the server holds at a time; more wait
// in the kernel's queue until one closes. Each takes a file descriptor of
// the daemon's few (the unit's LimitNOFILE), which the spool and the
// journal need.
const MaxConns = 8

// Server serves /metrics over HTTP.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
}

// Serve listens on addr ("127.0.0.1:9469") and serves /metrics in the
// background; any other path is 404. An address that cannot be listened
// on is an error now, not later. log (nil: slog.Default()) receives errors
// of the server.
func (m *Metrics) Serve(addr string, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.Default()
	}
	// An address of the machine's that is not there yet (the LAN address
	// at boot, before DHCP gave it) is listened on all the same: metrics
	// are an output, and a daemon that failed to start for them would not
	// decide either.
	lc := net.ListenConfig{Control: freeBind}
	ln, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w (set metrics.listen to a free address, or \"\" for no metrics)", err)
	}
	if host, _, err := net.SplitHostPort(addr); err == nil && !localAddress(host) {
		log.Warn("metrics.listen is not an address of this machine (yet): the metrics are served once it is; check metrics.listen if it never comes", "listen", addr)
	}
	ln = netutil.LimitListener(ln, MaxConns)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	s := &Server{
		srv: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: readHeaderTimeout,
			WriteTimeout:      15 * time.Second,
			IdleTimeout:       60 * time.Second,
			MaxHeaderBytes:    8 << 10,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
		ln:   ln,
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "err", err)
		}
	}()
	return s, nil
}

// localAddress reports whether host is empty, a name, or an IP address
// this machine has now (any loopback address counts).
func localAddress(host string) bool {
	ip := net.ParseIP(host)
	if ip == nil || ip.IsUnspecified() || ip.IsLoopback() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// Addr returns the address listened on (with the port chosen when addr
// asked for port 0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Shutdown stops listening and waits for scrapes in progress, until ctx
// ends; then it closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		s.srv.Close()
	}
	<-s.done
	return err
}

// Close stops the server at once.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}
