package gpio

import (
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"periph.io/x/conn/v3/driver/driverreg"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/host/v3/gpioioctl"
)

// periphDriver drives lines through the Linux GPIO character device
// (/dev/gpiochip*). periph.io's gpioioctl driver finds the chips and the
// lines by name; the lines are requested and driven by this package
// (cdev_linux.go), each in one request as an output already at its idle
// level, which periph.io cannot do. Only gpioioctl is loaded: host.Init()
// would also register drivers that probe memory-mapped registers of older
// boards.
type periphDriver struct {
	chip string
	// find says where the named line is, or returns a *MissingPinError
	// (lookup; tests replace it).
	find func(name string) (lineAddr, error)
	sys  lineSys // the kernel (hostSys; tests replace it)
	// consumer is the name the kernel shows as the lines' user
	// (`gpioinfo`): program@pid, as periph.io names its own.
	consumer string

	mu     sync.Mutex
	opened []*periphLine
}

// lineAddr is where a line is: the device of its chip and its offset on
// that chip.
type lineAddr struct {
	chip   string // "/dev/gpiochip0"
	offset uint32
}

// lineSys is the kernel as the periph backend's lines see it: the chip
// device opened, the line request and set-values ioctls of the GPIO
// character device, and the close of a chip or line fd. hostSys makes
// the system calls; tests record them instead.
type lineSys interface {
	open(path string) (fd int, err error)
	ioctl(fd int, req uintptr, arg unsafe.Pointer) error
	close(fd int) error
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
	d := &periphDriver{chip: chip, sys: hostSys{}, consumer: consumerName()}
	d.find = d.lookup
	return d, nil
}

// consumerName returns program@pid (the request cuts it to the kernel's
// 31 bytes).
func consumerName() string {
	return path.Base(os.Args[0]) + "@" + strconv.Itoa(os.Getpid())
}

func findChip(name string) *gpioioctl.GPIOChip {
	for _, c := range gpioioctl.Chips {
		if c.Name() == name || c.Path() == name {
			return c
		}
	}
	return nil
}

// Open requests the named line from the kernel as an output at level
// idle, in one request (no other level before it), and active-low when
// idle is High, so that the kernel's logical value is 0 when idle and 1
// when active whatever the wiring, and `gpioinfo` shows the line
// active-low as it is wired.
func (d *periphDriver) Open(name string, idle gpio.Level) (Line, error) {
	a, err := d.find(name)
	if err != nil {
		return nil, err
	}
	fd, err := requestOutput(d.sys, a.chip, a.offset, d.consumer, idle == gpio.High)
	if err != nil {
		err = fmt.Errorf("gpio: request %s (%s line %d) as an output at idle %v: %w", name, a.chip, a.offset, idle, err)
		if errors.Is(err, syscall.EBUSY) {
			// The kernel grants a line to one request at a time.
			err = fmt.Errorf("%w: line %s is held by another program (`gpioinfo` shows it used, with its consumer: another setmatchd, a gpioset or gpiomon left running, or a kernel driver such as a device-tree overlay); stop it, or wire another pin", err, name)
		}
		return nil, err
	}
	l := &periphLine{name: name, idle: idle, sys: d.sys, fd: fd}
	d.mu.Lock()
	d.opened = append(d.opened, l)
	d.mu.Unlock()
	return l, nil
}

// lookup finds the line called name, on d's chip or on any, through
// periph.io, and leaves it as it is: it takes no line.
func (d *periphDriver) lookup(name string) (lineAddr, error) {
	if d.chip != "" {
		c := findChip(d.chip)
		if l := c.ByName(name); l != nil {
			return lineAddr{chip: c.Path(), offset: uint32(l.Number())}, nil
		}
		var names []string
		for _, l := range c.Lines() {
			if n := l.Name(); n != "" {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		return lineAddr{}, &MissingPinError{Pin: name, Available: names}
	}
	p := gpioreg.ByName(name)
	if p == nil {
		return lineAddr{}, &MissingPinError{Pin: name, Available: lineNames()}
	}
	if r, ok := p.(gpio.RealPin); ok {
		p = r.Real()
	}
	for _, c := range gpioioctl.Chips {
		for _, l := range c.Lines() {
			if gpio.PinIO(l) == p {
				return lineAddr{chip: c.Path(), offset: uint32(l.Number())}, nil
			}
		}
	}
	return lineAddr{}, fmt.Errorf("gpio: line %s is not a line of a GPIO character device (%T)", name, p)
}

// Close releases the lines. The kernel keeps or drops the last level as
// the chip does: wire pull resistors so that a released line reads idle.
func (d *periphDriver) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for _, l := range d.opened {
		errs = append(errs, l.release())
	}
	d.opened = nil
	return errors.Join(errs...)
}

// periphLine is one line request of the periph backend.
type periphLine struct {
	name string
	idle gpio.Level
	sys  lineSys

	mu sync.Mutex
	fd int // the line request; -1 once released
}

func (l *periphLine) Name() string { return l.name }

// Out drives the line to v. The line's logical value is 1 for its active
// level (Open requested a line that idles High as active-low).
func (l *periphLine) Out(v gpio.Level) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fd < 0 {
		return fmt.Errorf("gpio: %s: line released", l.name)
	}
	if err := setValue(l.sys, l.fd, v != l.idle); err != nil {
		return fmt.Errorf("gpio: drive %s %v: %w", l.name, v, err)
	}
	return nil
}

// release closes the line request: the kernel frees the line.
func (l *periphLine) release() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fd < 0 {
		return nil
	}
	err := l.sys.close(l.fd)
	l.fd = -1
	if err != nil {
		return fmt.Errorf("gpio: release %s: %w", l.name, err)
	}
	return nil
}

func lineNames() []string {
	var names []string
	for _, p := range gpioreg.All() {
		names = append(names, p.Name())
	}
	sort.Strings(names)
	return names
}
