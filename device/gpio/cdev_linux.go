//go:build linux

package gpio

// The part of the Linux GPIO character device's uAPI v2 (linux/gpio.h)
// that the periph backend's output lines use, written by hand.
//
// periph.io finds the chips and the lines, but its GPIOLine.Out requests
// a line with no flags and no value, then configures it as an output
// (the kernel drives it to logical 0, physical Low, at once) and sets its
// value in a further ioctl. A line whose idle level is High (active_low)
// so shows Low, its active level, for as long as the calls between take
// (microseconds, or milliseconds under a GC pause or a busy CPU) at every
// start of the daemon: a pulse at the input of an active-low relay or
// door strike. periph.io cannot request a line with an initial value or
// as active-low, nor does it export its uAPI structs; so the lines are
// requested here, each in one GPIO_V2_GET_LINE_IOCTL as an output at its
// idle level.

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	gpioMaxNameSize       = 32 // GPIO_MAX_NAME_SIZE
	gpioV2LinesMax        = 64 // GPIO_V2_LINES_MAX
	gpioV2LineNumAttrsMax = 10 // GPIO_V2_LINE_NUM_ATTRS_MAX

	gpioV2LineFlagActiveLow uint64 = 1 << 1 // GPIO_V2_LINE_FLAG_ACTIVE_LOW
	gpioV2LineFlagOutput    uint64 = 1 << 3 // GPIO_V2_LINE_FLAG_OUTPUT

	gpioV2LineAttrIDOutputValues uint32 = 2 // GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES
)

// The ioctl numbers, _IOWR(0xB4, nr, struct) in the asm-generic encoding
// of linux/ioctl.h (direction in bits 30-31, size in 16-29, type in 8-15,
// number in 0-7), which amd64, arm64, arm and 386 use.
const (
	iocReadWrite   = 3 // _IOC_READ|_IOC_WRITE
	gpioIoctlMagic = 0xB4

	// GPIO_V2_GET_LINE_IOCTL: _IOWR(0xB4, 0x07, struct gpio_v2_line_request)
	gpioV2GetLineIoctl = iocReadWrite<<30 | unsafe.Sizeof(gpioV2LineRequest{})<<16 | gpioIoctlMagic<<8 | 0x07
	// GPIO_V2_LINE_SET_VALUES_IOCTL: _IOWR(0xB4, 0x0F, struct gpio_v2_line_values)
	gpioV2LineSetValuesIoctl = iocReadWrite<<30 | unsafe.Sizeof(gpioV2LineValues{})<<16 | gpioIoctlMagic<<8 | 0x0F
)

// gpioV2LineAttribute is struct gpio_v2_line_attribute: Value is the
// union of flags, values (a bitmap over the request's lines) and
// debounce_period_us, as ID says.
type gpioV2LineAttribute struct {
	ID      uint32
	Padding uint32
	Value   uint64
}

// gpioV2LineConfigAttribute is struct gpio_v2_line_config_attribute: Attr
// applies to the request's lines whose bits Mask sets.
type gpioV2LineConfigAttribute struct {
	Attr gpioV2LineAttribute
	Mask uint64
}

// gpioV2LineConfig is struct gpio_v2_line_config.
type gpioV2LineConfig struct {
	Flags    uint64
	NumAttrs uint32
	Padding  [5]uint32
	Attrs    [gpioV2LineNumAttrsMax]gpioV2LineConfigAttribute
}

// gpioV2LineRequest is struct gpio_v2_line_request; the kernel returns
// the request's fd in FD.
type gpioV2LineRequest struct {
	Offsets         [gpioV2LinesMax]uint32
	Consumer        [gpioMaxNameSize]byte
	Config          gpioV2LineConfig
	NumLines        uint32
	EventBufferSize uint32
	Padding         [5]uint32
	FD              int32
}

// gpioV2LineValues is struct gpio_v2_line_values: the lines whose bits
// Mask sets take their value from Bits.
type gpioV2LineValues struct {
	Bits uint64
	Mask uint64
}

// outputRequest returns the request of the one line at offset as an
// output at logical value 0, its idle level: the OUTPUT flag and an
// OUTPUT_VALUES attribute that gives line 0 of the request the value 0,
// and with activeLow the ACTIVE_LOW flag, so that the kernel's logical 0
// is physical High. consumer is cut to the kernel's 31 bytes.
func outputRequest(offset uint32, consumer string, activeLow bool) gpioV2LineRequest {
	var r gpioV2LineRequest
	r.Offsets[0] = offset
	r.NumLines = 1
	copy(r.Consumer[:gpioMaxNameSize-1], consumer)
	r.Config.Flags = gpioV2LineFlagOutput
	if activeLow {
		r.Config.Flags |= gpioV2LineFlagActiveLow
	}
	// The request's line 0 (bit 0 of Mask) at logical 0: idle.
	r.Config.NumAttrs = 1
	r.Config.Attrs[0] = gpioV2LineConfigAttribute{
		Attr: gpioV2LineAttribute{ID: gpioV2LineAttrIDOutputValues, Value: 0},
		Mask: 1,
	}
	return r
}

// requestOutput opens the chip device at chip and requests the line at
// offset as outputRequest says, in one ioctl, and returns the line
// request's fd. The chip's fd is closed again: the request holds the
// line on its own.
func requestOutput(sys lineSys, chip string, offset uint32, consumer string, activeLow bool) (int, error) {
	cfd, err := sys.open(chip)
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", chip, err)
	}
	defer sys.close(cfd)
	req := outputRequest(offset, consumer, activeLow)
	if err := sys.ioctl(cfd, gpioV2GetLineIoctl, unsafe.Pointer(&req)); err != nil {
		return -1, err
	}
	return int(req.FD), nil
}

// setValue sets the logical value of the one line of the request fd: 1
// (active) or 0 (idle).
func setValue(sys lineSys, fd int, active bool) error {
	v := gpioV2LineValues{Mask: 1}
	if active {
		v.Bits = 1
	}
	return sys.ioctl(fd, gpioV2LineSetValuesIoctl, unsafe.Pointer(&v))
}

// hostSys makes lineSys's system calls.
type hostSys struct{}

func (hostSys) open(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func (hostSys) ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	for {
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(arg))
		switch e {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return e
	}
}

func (hostSys) close(fd int) error { return unix.Close(fd) }
