package gpio

import (
	"fmt"
	"sort"
	"strings"
	"syscall"

	"periph.io/x/conn/v3/driver/driverreg"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/host/v3/gpioioctl"
)

// periphDriver drives lines through the Linux GPIO character device
// (/dev/gpiochip*) with periph.io's gpioioctl driver. Only that driver is
// loaded: host.Init() would also register drivers that probe memory-mapped
// registers of older boards.
type periphDriver struct {
	chip   string
	opened []gpio.PinIO
}

// openPeriph initialises periph.io's registered drivers (gpioioctl only, as
// this package imports no other) and returns a Driver that looks lines up by
// kernel line name, on the named chip ("gpiochip0") or, with chip "", on any.
func openPeriph(chip string) (Driver, error) {
	// With no chip present, Init returns no error and every lookup returns
	// nil; Open reports that with the list of lines.
	if _, err := driverreg.Init(); err != nil {
		return nil, fmt.Errorf("gpio: periph init: %w", err)
	}
	if chip != "" && findChip(chip) == nil {
		var names []string
		for _, c := range gpioioctl.Chips {
			names = append(names, c.Name())
		}
		return nil, fmt.Errorf("gpio: no GPIO chip named %q (found: %s); list chips with `gpiodetect`, or set gpio.chip = \"\" to look on every chip",
			chip, strings.Join(names, ", "))
	}
	return &periphDriver{chip: chip}, nil
}

func findChip(name string) *gpioioctl.GPIOChip {
	for _, c := range gpioioctl.Chips {
		if c.Name() == name || c.Path() == name {
			return c
		}
	}
	return nil
}

func (d *periphDriver) Open(name string) (Line, error) {
	p, err := d.find(name)
	if err != nil {
		return nil, err
	}
	d.opened = append(d.opened, p)
	return periphLine{p}, nil
}

// find looks the line called name up, on d's chip or on any, and leaves it
// as it is: periph.io requests a line at its first Out, and releases it on
// Close (Open records it for that).
func (d *periphDriver) find(name string) (gpio.PinIO, error) {
	var p gpio.PinIO
	if d.chip != "" {
		c := findChip(d.chip)
		if l := c.ByName(name); l != nil {
			p = l
		} else {
			var names []string
			for _, l := range c.Lines() {
				if n := l.Name(); n != "" {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			return nil, &MissingPinError{Pin: name, Available: names}
		}
	} else if p = gpioreg.ByName(name); p == nil {
		return nil, &MissingPinError{Pin: name, Available: lineNames()}
	}
	return p, nil
}

// Close releases the line requests. The kernel keeps or drops the last level
// as the chip does: wire pull resistors so that a released line reads idle.
func (d *periphDriver) Close() error {
	for _, p := range d.opened {
		if l, ok := p.(*gpioioctl.GPIOLine); ok {
			l.Close()
		}
	}
	d.opened = nil
	return nil
}

type periphLine struct{ p gpio.PinIO }

func (l periphLine) Name() string { return l.p.Name() }

// Out drives the line. periph.io requests the line from the kernel at its
// first Out, and a line another program holds fails that request with
// EBUSY, which periph.io passes on as text only: that is said with what to
// do.
func (l periphLine) Out(v gpio.Level) error {
	err := l.p.Out(v)
	if err != nil && strings.Contains(err.Error(), syscall.EBUSY.Error()) {
		return fmt.Errorf("%w: line %s is held by another program (`gpioinfo` shows it used, with its consumer: another setmatchd, a gpioset or gpiomon left running, or a kernel driver such as a device-tree overlay); stop it, or wire another pin", err, l.p.Name())
	}
	return err
}

func lineNames() []string {
	var names []string
	for _, p := range gpioreg.All() {
		names = append(names, p.Name())
	}
	sort.Strings(names)
	return names
}
