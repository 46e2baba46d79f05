//go:build !unix

package bench

import "os"

// peakRSSMiB reports no peak memory: outside unix (Windows) the state of
// an exited process holds its times alone.
func peakRSSMiB(*os.ProcessState) (float64, bool) { return 0, false }
