package device

import (
	"os"
	"testing"

	"setmatch/device/devicetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	devicetest.RemoveBenchModel()
	os.Exit(code)
}
