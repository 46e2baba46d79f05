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

// Lookup returns a function that looks a line up by name as backend's
// Open does (on chip, "" = any), and returns Open's error for a name that
// does not resolve (a *MissingPinError). It takes no line and releases
// none: lines a running Signaller holds through another Driver stay as
// they are. The "log" and "none" backends find every name.
func Lookup(backend, chip string) (func(name string) error, error) {
	if backend != "periph" {
		if _, err := OpenDriver(backend, chip, nil); err != nil {
			return nil, err
		}
		return func(string) error { return nil }, nil
	}
	drv, err := openPeriph(chip)
	if err != nil {
		return nil, err
	}
	d := drv.(*periphDriver)
	return func(name string) error {
		_, err := d.find(name)
		return err
	}, nil
}

// logDriver logs every transition instead of driving hardware.
type logDriver struct{ log *slog.Logger }

// Open logs the line's idle level, as Out logs each later one.
func (d *logDriver) Open(name string, idle gpio.Level) (Line, error) {
	l := &logLine{name: name, log: d.log}
	return l, l.Out(idle)
}
func (d *logDriver) Close() error { return nil }

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

func (noneDriver) Open(name string, _ gpio.Level) (Line, error) { return noneLine(name), nil }
func (noneDriver) Close() error                                 { return nil }

type noneLine string

func (l noneLine) Name() string         { return string(l) }
func (noneLine) Out(v gpio.Level) error { return nil }
