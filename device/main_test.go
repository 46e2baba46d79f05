package device

import (
	"os"
	"testing"

	"setmatch/device/devicetest"
)

func TestMain(m *testing.M) {
	// A test run under a systemd unit with RuntimeDirectory= must not
	// leave the daemon's record of reloads in that unit's directory.
	os.Unsetenv("RUNTIME_DIRECTORY")
	code := m.Run()
	devicetest.RemoveBenchModel()
	os.Exit(code)
}
