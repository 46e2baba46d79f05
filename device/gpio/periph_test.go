package gpio

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestPeriphMissingLine(t *testing.T) {
	d, err := OpenDriver("periph", "", nil)
	if err != nil {
		t.Fatalf("periph init: %v", err)
	}
	defer d.Close()
	_, err = d.Open("SETMATCH_NO_SUCH_LINE")
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
