package gpio

import (
	"errors"
	"os"
	"strings"
	"testing"

	"periph.io/x/conn/v3/gpio"
)

func TestPeriphMissingLine(t *testing.T) {
	d, err := OpenDriver("periph", "", nil)
	if err != nil {
		t.Fatalf("periph init: %v", err)
	}
	defer d.Close()
	_, err = d.Open("SETMATCH_NO_SUCH_LINE", gpio.Low)
	var mp *MissingPinError
	if !errors.As(err, &mp) {
		t.Fatalf("got %v, want *MissingPinError", err)
	}
	if !strings.Contains(err.Error(), "SETMATCH_NO_SUCH_LINE") || !strings.Contains(err.Error(), "gpioinfo") {
		t.Errorf("error does not name the pin and how to list lines: %v", err)
	}
	if _, err := os.Stat("/dev/gpiochip0"); os.IsNotExist(err) && len(mp.Available) != 0 {
		t.Errorf("no chip, yet lines listed: %v", mp.Available)
	}
	if _, err := OpenDriver("periph", "gpiochip-nope", nil); err == nil {
		t.Error("a missing chip was accepted")
	}
	if _, err := OpenDriver("serial", "", nil); err == nil {
		t.Error("an unknown backend was accepted")
	}
}

// TestLookup: Lookup finds names as the backend's Open does, a missing
// line as a *MissingPinError, and refuses a chip or backend that is not
// there as OpenDriver does.
func TestLookup(t *testing.T) {
	find, err := Lookup("periph", "")
	if err != nil {
		t.Fatalf("periph init: %v", err)
	}
	var mp *MissingPinError
	if err := find("SETMATCH_NO_SUCH_LINE"); !errors.As(err, &mp) || mp.Pin != "SETMATCH_NO_SUCH_LINE" {
		t.Errorf("got %v, want *MissingPinError", err)
	}
	for _, backend := range []string{"log", "none"} {
		find, err := Lookup(backend, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := find("SETMATCH_NO_SUCH_LINE"); err != nil {
			t.Errorf("backend %s: %v, want every name found", backend, err)
		}
	}
	if _, err := Lookup("periph", "gpiochip-nope"); err == nil {
		t.Error("a missing chip was accepted")
	}
	if _, err := Lookup("serial", ""); err == nil {
		t.Error("an unknown backend was accepted")
	}
}
