//go:build gpiosim && linux

// An integration test of the periph backend against the kernel's GPIO
// simulator (gpio-sim, configfs). It needs root, configfs mounted on
// /sys/kernel/config and CONFIG_GPIO_SIM (modprobe gpio-sim); it skips
// otherwise. Debian's kernels do not build gpio-sim: use a kernel that
// does, or the module built from the kernel's source. With tracefs (and
// no other program driving GPIO lines meanwhile) it also checks that the
// kernel drives each line to no level but idle at start. Run it with
//
//	sudo go test -tags gpiosim -run GpioSim ./device/gpio/

package gpio

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"periph.io/x/conn/v3/gpio"
)

const simRoot = "/sys/kernel/config/gpio-sim"

var simLines = []string{"SM_MATCH", "SM_UNKNOWN", "SM_LABEL"}

func TestGpioSim(t *testing.T) {
	if dir := os.Getenv("SETMATCH_GPIOSIM_VALUES"); dir != "" {
		gpioSimChild(t, dir)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("gpio-sim needs root")
	}
	if _, err := os.Stat(simRoot); err != nil {
		exec.Command("modprobe", "gpio-sim").Run()
		if _, err := os.Stat(simRoot); err != nil {
			t.Skipf("gpio-sim not available: %v", err)
		}
	}
	chip := filepath.Join(simRoot, "setmatch-test")
	bank := filepath.Join(chip, "bank0")
	write := func(p, v string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkdir := func(p string) {
		t.Helper()
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mkdir(chip)
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(chip, "live"), []byte("0"), 0o644)
		for i := range simLines {
			os.Remove(filepath.Join(bank, "line"+strconv.Itoa(i)))
		}
		os.Remove(bank)
		os.Remove(chip)
	})
	mkdir(bank)
	write(filepath.Join(bank, "num_lines"), strconv.Itoa(len(simLines)))
	for i, name := range simLines {
		mkdir(filepath.Join(bank, "line"+strconv.Itoa(i)))
		write(filepath.Join(bank, "line"+strconv.Itoa(i), "name"), name)
	}
	write(filepath.Join(chip, "live"), "1")
	dev, err := os.ReadFile(filepath.Join(chip, "dev_name"))
	if err != nil {
		t.Fatal(err)
	}
	chipName, err := os.ReadFile(filepath.Join(bank, "chip_name"))
	if err != nil {
		t.Fatal(err)
	}
	values := filepath.Join("/sys/devices/platform", strings.TrimSpace(string(dev)), strings.TrimSpace(string(chipName)))
	// periph.io enumerates chips once per process: run the checks in a
	// fresh process that starts after the simulated chip exists.
	cmd := exec.Command(os.Args[0], "-test.run=^TestGpioSim$", "-test.v")
	cmd.Env = append(os.Environ(), "SETMATCH_GPIOSIM_VALUES="+values)
	out, err := cmd.CombinedOutput()
	t.Logf("child:\n%s", out)
	if err != nil {
		t.Fatal(err)
	}
}

// gpioV2LineInfo is struct gpio_v2_line_info (linux/gpio.h).
type gpioV2LineInfo struct {
	Name     [gpioMaxNameSize]byte
	Consumer [gpioMaxNameSize]byte
	Offset   uint32
	NumAttrs uint32
	Flags    uint64
	Attrs    [gpioV2LineNumAttrsMax]gpioV2LineAttribute
	Padding  [4]uint32
}

// GPIO_V2_GET_LINEINFO_IOCTL: _IOWR(0xB4, 0x05, struct gpio_v2_line_info)
const gpioV2GetLineInfoIoctl = iocReadWrite<<30 | unsafe.Sizeof(gpioV2LineInfo{})<<16 | gpioIoctlMagic<<8 | 0x05

const (
	gpioV2LineFlagUsed  uint64 = 1 << 0 // GPIO_V2_LINE_FLAG_USED
	gpioV2LineFlagInput uint64 = 1 << 2 // GPIO_V2_LINE_FLAG_INPUT
)

// lineFlags returns the kernel's flags of the named line and its consumer.
func lineFlags(t *testing.T, drv Driver, name string) (uint64, string) {
	t.Helper()
	if n := unsafe.Sizeof(gpioV2LineInfo{}); n != 256 {
		t.Fatalf("sizeof(struct gpio_v2_line_info) = %d, want 256", n)
	}
	a, err := drv.(*periphDriver).lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := hostSys{}.open(a.chip)
	if err != nil {
		t.Fatal(err)
	}
	defer hostSys{}.close(fd)
	info := gpioV2LineInfo{Offset: a.offset}
	if err := (hostSys{}).ioctl(fd, gpioV2GetLineInfoIoctl, unsafe.Pointer(&info)); err != nil {
		t.Fatalf("line info of %s: %v", name, err)
	}
	return info.Flags, strings.TrimRight(string(info.Consumer[:]), "\x00")
}

// checkRequested: every line is used, an output, active-low as asked, by
// this process.
func checkRequested(t *testing.T, drv Driver, activeLow bool) {
	t.Helper()
	for _, name := range simLines {
		flags, consumer := lineFlags(t, drv, name)
		want := gpioV2LineFlagUsed | gpioV2LineFlagOutput
		if activeLow {
			want |= gpioV2LineFlagActiveLow
		}
		if flags&(want|gpioV2LineFlagActiveLow|gpioV2LineFlagInput) != want {
			t.Errorf("%s: flags %#x, want used, output and active-low %v (%#x)", name, flags, activeLow, want)
		}
		if !strings.HasSuffix(consumer, "@"+strconv.Itoa(os.Getpid())) {
			t.Errorf("%s: consumer %q, want this process's", name, consumer)
		}
	}
}

const tracing = "/sys/kernel/tracing"

// traceSets records the kernel's gpio_value events (each level gpiolib
// drives a line to, physical, however briefly) from now on, mounting
// tracefs if need be, and returns a function that stops the recording and
// returns the levels set, "gpio=level" in order; nil without tracefs.
// The trace is the kernel's, of every GPIO line: run the test where no
// other program drives lines meanwhile.
func traceSets(t *testing.T) func() []string {
	t.Helper()
	event := filepath.Join(tracing, "events/gpio/gpio_value/enable")
	if _, err := os.Stat(event); err != nil {
		syscall.Mount("tracefs", tracing, "tracefs", 0, "")
		if _, err := os.Stat(event); err != nil {
			t.Logf("no gpio_value trace event, levels at the request not traced: %v", err)
			return nil
		}
	}
	write := func(p, v string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(tracing, p), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	on, err := os.ReadFile(filepath.Join(tracing, "tracing_on"))
	if err != nil {
		t.Fatal(err)
	}
	write("tracing_on", "0")
	write("trace", "")
	write("events/gpio/gpio_value/enable", "1")
	write("tracing_on", "1")
	return func() []string {
		t.Helper()
		write("tracing_on", "0")
		write("events/gpio/gpio_value/enable", "0")
		b, err := os.ReadFile(filepath.Join(tracing, "trace"))
		if err != nil {
			t.Fatal(err)
		}
		write("trace", "")
		write("tracing_on", strings.TrimSpace(string(on)))
		var sets []string
		for _, line := range strings.Split(string(b), "\n") {
			_, ev, ok := strings.Cut(line, "gpio_value: ")
			if f := strings.Fields(ev); ok && !strings.HasPrefix(line, "#") && len(f) == 3 && f[1] == "set" {
				sets = append(sets, f[0]+"="+f[2])
			}
		}
		return sets
	}
}

// checkSets: the kernel drove each line to idle (physical "0" or "1") and
// to no other level.
func checkSets(t *testing.T, sets []string, idle string) {
	t.Helper()
	t.Logf("levels the kernel set at start, in order: %v", sets)
	if len(sets) < len(simLines) {
		t.Errorf("levels traced %v, want one at least for each of the %d lines", sets, len(simLines))
	}
	for _, x := range sets {
		if !strings.HasSuffix(x, "="+idle) {
			t.Errorf("the kernel drove gpio %s at start (levels set, in order: %v), want only idle %s", x, sets, idle)
		}
	}
}

func gpioSimChild(t *testing.T, values string) {
	level := func(line int) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(values, "sim_gpio"+strconv.Itoa(line), "value"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	// start starts a Signaller on the sim's lines and checks that each is
	// requested as an output, idle from its request on.
	start := func(activeLow bool) *Signaller {
		t.Helper()
		drv, err := openPeriph("")
		if err != nil {
			t.Fatal(err)
		}
		idle := map[bool]string{false: "0", true: "1"}[activeLow]
		stop := traceSets(t)
		s, err := NewSignaller(drv, SignalOptions{
			Pins:  Pins{Match: "SM_MATCH", Unknown: "SM_UNKNOWN", Labels: map[string]string{"alice": "SM_LABEL"}},
			Pulse: 300 * time.Millisecond, ActiveLow: activeLow}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if stop != nil {
			checkSets(t, stop(), idle)
		}
		for i := range simLines {
			if v := level(i); v != idle {
				t.Errorf("active-low %v: %s starts at %s, want idle %s", activeLow, simLines[i], v, idle)
			}
		}
		checkRequested(t, drv, activeLow)
		return s
	}
	s := start(false)
	other, err := openPeriph("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Open("SM_NOPE", gpio.Low); err == nil || !strings.Contains(err.Error(), "SM_MATCH") {
		t.Errorf("missing line: %v, want a list naming SM_MATCH", err)
	}
	// A line another request holds: the kernel's EBUSY, said with advice.
	if _, err := other.Open("SM_MATCH", gpio.Low); !errors.Is(err, syscall.EBUSY) || !strings.Contains(err.Error(), "held by another program") {
		t.Errorf("a held line: %v, want EBUSY said as held by another program", err)
	}
	other.Close()
	// Poll rather than sleep: the checks hold within the pulse, and a loaded
	// machine may run them late.
	waitLevels := func(what string, want map[int]string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			ok := true
			for line, v := range want {
				ok = ok && level(line) == v
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: match %s unknown %s label %s, want %v", what, level(0), level(1), level(2), want)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	if err := s.Signal(true, "alice"); err != nil {
		t.Fatal(err)
	}
	waitLevels("during the pulse", map[int]string{0: "1", 2: "1"})
	if level(1) != "0" {
		t.Errorf("unknown pin %s during a known pulse, want 0", level(1))
	}
	waitLevels("after the pulse", map[int]string{0: "0", 2: "0"})
	s.Signal(false, "")
	waitLevels("unknown pin during its pulse", map[int]string{1: "1"})
	if err := s.Idle(); err != nil {
		t.Fatal(err)
	}
	if level(1) != "0" {
		t.Errorf("unknown pin after Idle: %s", level(1))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// active_low: each line is requested active-low, High (idle) from its
	// request on (the kernel drives it to no other level at start), and
	// pulses Low.
	s = start(true)
	if err := s.Signal(true, "alice"); err != nil {
		t.Fatal(err)
	}
	waitLevels("active-low, during the pulse", map[int]string{0: "0", 1: "1", 2: "0"})
	waitLevels("active-low, after the pulse", map[int]string{0: "1", 1: "1", 2: "1"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
