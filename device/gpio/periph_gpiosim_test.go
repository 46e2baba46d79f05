//go:build gpiosim

// An integration test of the periph backend against the kernel's GPIO
// simulator (gpio-sim, configfs). It needs root, configfs mounted on
// /sys/kernel/config and CONFIG_GPIO_SIM (modprobe gpio-sim); it skips
// otherwise. Run it with
//
//	sudo go test -tags gpiosim -run GpioSim ./device/gpio/

package gpio

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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

func gpioSimChild(t *testing.T, values string) {
	level := func(line int) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(values, "sim_gpio"+strconv.Itoa(line), "value"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	drv, err := openPeriph("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drv.Open("SM_NOPE"); err == nil || !strings.Contains(err.Error(), "SM_MATCH") {
		t.Errorf("missing line: %v, want a list naming SM_MATCH", err)
	}
	s, err := NewSignaller(drv, SignalOptions{
		Pins:  Pins{Match: "SM_MATCH", Unknown: "SM_UNKNOWN", Labels: map[string]string{"alice": "SM_LABEL"}},
		Pulse: 300 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range simLines {
		if v := level(i); v != "0" {
			t.Errorf("%s starts at %s, want idle 0", simLines[i], v)
		}
	}
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
	s.Close()
}
