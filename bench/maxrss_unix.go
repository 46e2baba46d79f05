//go:build unix

package bench

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSSMiB returns the peak resident memory of the exited process st,
// in MiB: getrusage's ru_maxrss, which is in bytes on macOS and in KiB on
// Linux and the BSDs.
func peakRSSMiB(st *os.ProcessState) (float64, bool) {
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	unit := 1024.0
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		unit = 1
	}
	return float64(ru.Maxrss) * unit / (1 << 20), true
}
