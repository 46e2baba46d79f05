package gpio

import (
	"fmt"
	"log/slog"

	"periph.io/x/conn/v3/gpio"
)

// OpenDriver returns the GPIO driver for a backend name: "periph" (the Linux
// GPIO character device through periph.io), "log" (no hardware: transitions
// are logged) or "none".
//
// chip restricts the periph backend to one GPIO chip ("" = any).
func OpenDriver(backend, chip string, log *slog.Logger) (Driver, error) {
	switch backend {
	case "periph":
		return openPeriph(chip)
	case "log":
		return &logDriver{log: log}, nil
	case "none", "":
		return noneDriver{}, nil
	}
	return nil, fmt.Errorf("gpio: unknown backend %q: use \"periph\", \"log\" or \"none\"", backend)
}

// logDriver logs every transition instead of driving hardware.
type logDriver struct{ log *slog.Logger }

func (d *logDriver) Open(name string) (Line, error) { return &logLine{name: name, log: d.log}, nil }
func (d *logDriver) Close() error                   { return nil }

type logLine struct {
	name string
	log  *slog.Logger
}

func (l *logLine) Name() string { return l.name }
func (l *logLine) Out(v gpio.Level) error {
	if l.log != nil {
		l.log.Info("gpio", "pin", l.name, "value", v.String()) // not "level", the log record's own key
	}
	return nil
}

type noneDriver struct{}

func (noneDriver) Open(name string) (Line, error) { return noneLine(name), nil }
func (noneDriver) Close() error                   { return nil }

type noneLine string

func (l noneLine) Name() string         { return string(l) }
func (noneLine) Out(v gpio.Level) error { return nil }
