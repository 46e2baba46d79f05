//go:build linux

package gpio

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"periph.io/x/conn/v3/gpio"
)

// TestUAPILayout: the hand-written structs have the sizes and field
// offsets of linux/gpio.h (the same on 32- and 64-bit: the header pads
// every 64-bit field to 8 bytes).
func TestUAPILayout(t *testing.T) {
	var (
		req  gpioV2LineRequest
		cfg  gpioV2LineConfig
		catt gpioV2LineConfigAttribute
		att  gpioV2LineAttribute
		val  gpioV2LineValues
	)
	for _, c := range []struct {
		what      string
		got, want uintptr
	}{
		{"sizeof(struct gpio_v2_line_request)", unsafe.Sizeof(req), 592},
		{"gpio_v2_line_request.offsets", unsafe.Offsetof(req.Offsets), 0},
		{"gpio_v2_line_request.consumer", unsafe.Offsetof(req.Consumer), 256},
		{"gpio_v2_line_request.config", unsafe.Offsetof(req.Config), 288},
		{"gpio_v2_line_request.num_lines", unsafe.Offsetof(req.NumLines), 560},
		{"gpio_v2_line_request.event_buffer_size", unsafe.Offsetof(req.EventBufferSize), 564},
		{"gpio_v2_line_request.padding", unsafe.Offsetof(req.Padding), 568},
		{"gpio_v2_line_request.fd", unsafe.Offsetof(req.FD), 588},
		{"sizeof(struct gpio_v2_line_config)", unsafe.Sizeof(cfg), 272},
		{"gpio_v2_line_config.flags", unsafe.Offsetof(cfg.Flags), 0},
		{"gpio_v2_line_config.num_attrs", unsafe.Offsetof(cfg.NumAttrs), 8},
		{"gpio_v2_line_config.padding", unsafe.Offsetof(cfg.Padding), 12},
		{"gpio_v2_line_config.attrs", unsafe.Offsetof(cfg.Attrs), 32},
		{"sizeof(struct gpio_v2_line_config_attribute)", unsafe.Sizeof(catt), 24},
		{"gpio_v2_line_config_attribute.attr", unsafe.Offsetof(catt.Attr), 0},
		{"gpio_v2_line_config_attribute.mask", unsafe.Offsetof(catt.Mask), 16},
		{"sizeof(struct gpio_v2_line_attribute)", unsafe.Sizeof(att), 16},
		{"gpio_v2_line_attribute.id", unsafe.Offsetof(att.ID), 0},
		{"gpio_v2_line_attribute.padding", unsafe.Offsetof(att.Padding), 4},
		{"gpio_v2_line_attribute.values", unsafe.Offsetof(att.Value), 8},
		{"sizeof(struct gpio_v2_line_values)", unsafe.Sizeof(val), 16},
		{"gpio_v2_line_values.bits", unsafe.Offsetof(val.Bits), 0},
		{"gpio_v2_line_values.mask", unsafe.Offsetof(val.Mask), 8},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.what, c.got, c.want)
		}
	}
}

// TestIoctlNumbers: the request numbers are linux/gpio.h's.
func TestIoctlNumbers(t *testing.T) {
	if gpioV2GetLineIoctl != 0xC250B407 {
		t.Errorf("GPIO_V2_GET_LINE_IOCTL = %#X, want 0xC250B407", uintptr(gpioV2GetLineIoctl))
	}
	if gpioV2LineSetValuesIoctl != 0xC010B40F {
		t.Errorf("GPIO_V2_LINE_SET_VALUES_IOCTL = %#X, want 0xC010B40F", uintptr(gpioV2LineSetValuesIoctl))
	}
}

// TestOutputRequest: a line is requested as an output with one
// OUTPUT_VALUES attribute that gives it logical 0 (idle), active-low when
// its idle level is High, and nothing else.
func TestOutputRequest(t *testing.T) {
	for _, activeLow := range []bool{false, true} {
		got := outputRequest(17, "setmatchd@42", activeLow)
		var want gpioV2LineRequest
		want.Offsets[0] = 17
		want.NumLines = 1
		copy(want.Consumer[:], "setmatchd@42")
		want.Config.Flags = 1 << 3 // GPIO_V2_LINE_FLAG_OUTPUT
		if activeLow {
			want.Config.Flags |= 1 << 1 // GPIO_V2_LINE_FLAG_ACTIVE_LOW
		}
		want.Config.NumAttrs = 1
		want.Config.Attrs[0].Attr.ID = 2 // GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES
		want.Config.Attrs[0].Attr.Value = 0
		want.Config.Attrs[0].Mask = 1
		if got != want {
			t.Errorf("active-low %v: request\n%+v\nwant\n%+v", activeLow, got, want)
		}
	}
	long := strings.Repeat("x", 40)
	r := outputRequest(0, long, false)
	if string(r.Consumer[:31]) != long[:31] || r.Consumer[31] != 0 {
		t.Errorf("a long consumer is %q, want it cut to 31 bytes and NUL-terminated", r.Consumer)
	}
}

// kcall is one system call fakeKernel saw.
type kcall struct {
	op   string // "open", "get-line", "set-values", "close"
	fd   int    // the chip's or line's fd (open: the one returned)
	line int    // get-line: the line request's fd returned
	path string
	req  gpioV2LineRequest // get-line: as asked
	vals gpioV2LineValues  // set-values
}

// fakeKernel is a lineSys that records the calls, hands out fds, and
// fails line requests with getLineErr.
type fakeKernel struct {
	mu         sync.Mutex
	calls      []kcall
	next       int
	fds        map[int]bool // open fds
	getLineErr error
}

func newFakeKernel() *fakeKernel { return &fakeKernel{next: 10, fds: map[int]bool{}} }

func (k *fakeKernel) newFD() int {
	k.next++
	k.fds[k.next] = true
	return k.next
}

func (k *fakeKernel) open(path string) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	fd := k.newFD()
	k.calls = append(k.calls, kcall{op: "open", fd: fd, path: path})
	return fd, nil
}

func (k *fakeKernel) ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.fds[fd] {
		return syscall.EBADF
	}
	switch req {
	case gpioV2GetLineIoctl:
		r := (*gpioV2LineRequest)(arg)
		c := kcall{op: "get-line", fd: fd, line: -1, req: *r}
		if k.getLineErr == nil {
			c.line = k.newFD()
			r.FD = int32(c.line)
		}
		k.calls = append(k.calls, c)
		if k.getLineErr != nil {
			return k.getLineErr
		}
	case gpioV2LineSetValuesIoctl:
		k.calls = append(k.calls, kcall{op: "set-values", fd: fd, vals: *(*gpioV2LineValues)(arg)})
	default:
		return syscall.ENOTTY
	}
	return nil
}

func (k *fakeKernel) close(fd int) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.fds[fd] {
		return syscall.EBADF
	}
	delete(k.fds, fd)
	k.calls = append(k.calls, kcall{op: "close", fd: fd})
	return nil
}

func (k *fakeKernel) Calls() []kcall {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]kcall(nil), k.calls...)
}

// fakePeriph returns the periph backend on k, with lines GPIO0..GPIO27 at
// offsets 0..27 of /dev/gpiochip0.
func fakePeriph(k *fakeKernel) *periphDriver {
	d := &periphDriver{sys: k, consumer: "setmatchd@1"}
	d.find = func(name string) (lineAddr, error) {
		var n uint32
		if _, err := fmt.Sscanf(name, "GPIO%d", &n); err != nil || n > 27 {
			return lineAddr{}, &MissingPinError{Pin: name}
		}
		return lineAddr{chip: "/dev/gpiochip0", offset: n}, nil
	}
	return d
}

// TestPeriphOpenRequestsIdle: Open takes the line in one request that
// carries its idle level (an output, logical 0, active-low when idle is
// High), sets no value of its own, and Out sets the logical value 1 for
// the active level only; Close releases the line.
func TestPeriphOpenRequestsIdle(t *testing.T) {
	for _, idle := range []gpio.Level{gpio.Low, gpio.High} {
		k := newFakeKernel()
		d := fakePeriph(k)
		l, err := d.Open("GPIO17", idle)
		if err != nil {
			t.Fatal(err)
		}
		calls := k.Calls()
		var ops []string
		for _, c := range calls {
			ops = append(ops, c.op)
		}
		if strings.Join(ops, " ") != "open get-line close" {
			t.Fatalf("idle %v: Open made %q, want the chip opened, one line request and the chip closed", idle, ops)
		}
		if calls[0].path != "/dev/gpiochip0" || calls[1].fd != calls[0].fd || calls[2].fd != calls[0].fd {
			t.Errorf("idle %v: calls %+v, want the request on the chip's fd", idle, calls)
		}
		if want := outputRequest(17, "setmatchd@1", idle == gpio.High); calls[1].req != want {
			t.Errorf("idle %v: request %+v, want %+v", idle, calls[1].req, want)
		}
		req := calls[1].req
		if req.Config.Flags&gpioV2LineFlagOutput == 0 || req.Config.NumAttrs != 1 ||
			req.Config.Attrs[0].Attr.ID != gpioV2LineAttrIDOutputValues || req.Config.Attrs[0].Mask != 1 || req.Config.Attrs[0].Attr.Value != 0 {
			t.Errorf("idle %v: request config %+v, want an output with the value 0 (idle) for its line", idle, req.Config)
		}
		if al := req.Config.Flags&gpioV2LineFlagActiveLow != 0; al != (idle == gpio.High) {
			t.Errorf("idle %v: active-low flag %v", idle, al)
		}
		lineFD := calls[1].line

		l.Out(!idle)
		l.Out(idle)
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		calls = k.Calls()[3:]
		want := []kcall{
			{op: "set-values", fd: lineFD, vals: gpioV2LineValues{Bits: 1, Mask: 1}},
			{op: "set-values", fd: lineFD, vals: gpioV2LineValues{Bits: 0, Mask: 1}},
			{op: "close", fd: lineFD},
		}
		if fmt.Sprint(calls) != fmt.Sprint(want) {
			t.Errorf("idle %v: Out active, Out idle, Close made\n%+v\nwant\n%+v", idle, calls, want)
		}
		if err := l.Out(idle); err == nil {
			t.Errorf("idle %v: Out on a released line succeeded", idle)
		}
	}
}

// TestPeriphReleasedLineStaysReleased: once Close released a line, Out
// on it fails and asks nothing of the kernel, even when the kernel has
// given the line's fd number to another file since (it hands out the
// lowest free number): a released line must never drive what that number
// has become, another line request among them.
func TestPeriphReleasedLineStaysReleased(t *testing.T) {
	k := newFakeKernel()
	d := fakePeriph(k)
	l, err := d.Open("GPIO17", gpio.Low)
	if err != nil {
		t.Fatal(err)
	}
	lineFD := k.Calls()[1].line
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	k.mu.Lock()
	k.fds[lineFD] = true // the number, free again, given to another file
	k.mu.Unlock()
	n := len(k.Calls())
	if err := l.Out(gpio.High); err == nil {
		t.Error("Out on a released line succeeded")
	}
	if err := d.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if calls := k.Calls()[n:]; len(calls) != 0 {
		t.Errorf("after the line was released, Out and Close made %+v on fd %d, which is another file's now", calls, lineFD)
	}
}

// TestPeriphSignallerActiveLowStart: a Signaller with active_low on the
// periph backend takes every line idle (High) in its request and asks
// the kernel for no value until a decision; the decision's lines go
// active (logical 1, physical Low) and idle again, and Close releases
// every line idle.
func TestPeriphSignallerActiveLowStart(t *testing.T) {
	k := newFakeKernel()
	s, err := NewSignaller(fakePeriph(k), SignalOptions{
		Pins:      Pins{Match: "GPIO17", Unknown: "GPIO27", Labels: map[string]string{"alice": "GPIO22"}},
		Pulse:     20 * time.Millisecond,
		ActiveLow: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := k.Calls()
	lines := map[int]uint32{} // line fd -> offset
	for _, c := range start {
		switch c.op {
		case "get-line":
			if c.req != outputRequest(c.req.Offsets[0], "setmatchd@1", true) {
				t.Errorf("line %d requested as %+v, want an active-low output at logical 0 (idle High)", c.req.Offsets[0], c.req)
			}
			lines[c.line] = c.req.Offsets[0]
		case "set-values":
			t.Errorf("at start, before any decision: set-values %+v on line %d", c.vals, lines[c.fd])
		}
	}
	if len(lines) != 3 {
		t.Fatalf("%d lines requested at start, want 3: %+v", len(lines), start)
	}
	if err := s.Signal(true, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got := map[uint32][]uint64{} // offset -> logical values set, in order
	closed := map[uint32]bool{}
	for _, c := range k.Calls()[len(start):] {
		switch c.op {
		case "set-values":
			if c.vals.Mask != 1 {
				t.Errorf("set-values mask %#x, want 1", c.vals.Mask)
			}
			got[lines[c.fd]] = append(got[lines[c.fd]], c.vals.Bits)
		case "close":
			closed[lines[c.fd]] = true
		default:
			t.Errorf("after start: %s", c.op)
		}
	}
	want := map[uint32][]uint64{17: {1, 0, 0}, 22: {1, 0, 0}, 27: {0}} // pulse, its end, Idle at Close
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("logical values set per line %v, want %v", got, want)
	}
	if len(closed) != 3 || len(k.fds) != 0 {
		t.Errorf("lines released %v, fds still open %v", closed, k.fds)
	}
}

// TestPeriphBusyLine: a line held by another program is said as such,
// with what to do, when the daemon takes it at start.
func TestPeriphBusyLine(t *testing.T) {
	k := newFakeKernel()
	k.getLineErr = syscall.EBUSY
	_, err := NewSignaller(fakePeriph(k), SignalOptions{Pins: Pins{Match: "GPIO17"}, Pulse: 1}, nil)
	if err == nil {
		t.Fatal("a busy line was taken")
	}
	for _, want := range []string{"GPIO17", "/dev/gpiochip0", "device or resource busy", "held by another program", "gpioinfo", "stop it, or wire another pin"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
	if !errors.Is(err, syscall.EBUSY) {
		t.Errorf("error %v does not wrap EBUSY", err)
	}
	if len(k.fds) != 0 {
		t.Errorf("fds left open: %v", k.fds)
	}
}

// TestHostSysNotAChip: the system calls themselves, on a device that is no
// GPIO chip: the line request is refused (ENOTTY; ENOSYS under qemu-user,
// which answers so an ioctl it does not translate), and the device's fd
// is closed again.
func TestHostSysNotAChip(t *testing.T) {
	before, _ := os.ReadDir("/proc/self/fd")
	fd, err := requestOutput(hostSys{}, "/dev/null", 17, "setmatchd@1", true)
	if fd != -1 || !errors.Is(err, syscall.ENOTTY) && !errors.Is(err, syscall.ENOSYS) {
		t.Errorf("request on /dev/null: fd %d, %v; want ENOTTY", fd, err)
	}
	if after, _ := os.ReadDir("/proc/self/fd"); len(after) != len(before) {
		t.Errorf("%d fds open after the request, %d before", len(after), len(before))
	}
	if _, err := requestOutput(hostSys{}, "/dev/gpiochip-nope", 17, "setmatchd@1", true); !errors.Is(err, syscall.ENOENT) || !strings.Contains(err.Error(), "/dev/gpiochip-nope") {
		t.Errorf("request on a missing chip: %v, want ENOENT naming it", err)
	}
}
