package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Metrics serves Prometheus metrics over HTTP; it is off while Listen is
// empty. device/metrics implements it.
type Metrics struct {
	// Listen is the address to serve /metrics on, "host:port" such as
	// "127.0.0.1:9469" (":9469" = every interface); "" = off.
	Listen string `toml:"listen"`
}

// Enabled reports whether metrics are served.
func (m Metrics) Enabled() bool { return strings.TrimSpace(m.Listen) != "" }

func (m Metrics) problems(bad func(key, format string, a ...any)) {
	if !m.Enabled() {
		return
	}
	_, port, err := net.SplitHostPort(m.Listen)
	if err != nil {
		bad("metrics.listen", "want host:port such as \"127.0.0.1:9469\" or \":9469\", got %q", m.Listen)
		return
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		bad("metrics.listen", "port must be a number from 1 to 65535, got %q", port)
	}
}

func (m Metrics) summary() string {
	if !m.Enabled() {
		return "metrics:  off\n"
	}
	return fmt.Sprintf("metrics:  http://%s/metrics\n", m.Listen)
}
