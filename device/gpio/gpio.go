// Package gpio signals the appliance's decisions on GPIO output lines.
//
// A Driver opens output Lines by their kernel line name, each at its idle
// level; drivers are the Linux GPIO character device (periph.go: periph.io
// finds the lines, cdev_linux.go requests them from the kernel), one that
// logs each transition and one that does nothing (driver.go); a recording
// fake for tests is in package gpiotest. A Signaller (signal.go) pulses the
// lines that say what was decided, a decision's lines together, from one
// goroutine, and drives them idle on the way out; the log says the pulses
// it drops once as they begin and then as a sum a minute (internal/dropcount).
package gpio

import (
	"fmt"
	"strings"

	"periph.io/x/conn/v3/gpio"
)

// Line is one GPIO output line as a driver provides it. Drivers never read
// an output line back: on the Linux character device, Read() turns the line
// into an input.
type Line interface {
	Name() string
	Out(l gpio.Level) error
}

// Driver opens output lines by their kernel line name ("GPIO17").
type Driver interface {
	// Open returns the named line, an output at level idle from the
	// moment it is taken, with no other level before it; its active level
	// is the other one (idle High: an active-low line). A missing line is
	// a *MissingPinError.
	Open(name string, idle gpio.Level) (Line, error)
	Close() error
}

// MissingPinError says that a configured pin name is not a GPIO line of this
// machine, and lists the names that are.
type MissingPinError struct {
	Pin       string
	Available []string
}

func (e *MissingPinError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gpio: no line named %q", e.Pin)
	if len(e.Available) == 0 {
		b.WriteString("; no GPIO lines found at all (is /dev/gpiochip* present and readable by this user, e.g. in group gpio?)")
	} else {
		b.WriteString("; available lines: ")
		b.WriteString(strings.Join(e.Available, ", "))
	}
	b.WriteString(". Pin names are kernel line names: list them with `gpioinfo` (package gpiod), or set gpio.backend = \"log\" to run without hardware")
	return b.String()
}
